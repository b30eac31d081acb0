/* probe.c: a test script for t/unit/script_harness.py. What it does per
 * request is chosen by the request's PROBE variable, so one process can be
 * driven through callouts, struct mode, partial body reads, reading stdin
 * to its end and a missing cgiplus_finish(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgiplus.h"

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

int main(void)
{
    unsigned long count = 0;
    int rc;

    while ((rc = cgiplus_accept()) > 0) {
        const char *act = env("PROBE");

        count++;
        printf("Content-Type: text/plain\n\ncount=%lu persistent=%d\n",
               count, cgiplus_is_persistent());
        if (!strcmp(act, "struct")) {
            printf("struct=%d\n", cgiplus_struct_mode());
        } else if (!strcmp(act, "callout")) {
            const char *a = cgiplus_callout(env("PROBE_ARG"));
            printf("answer=%s errno=%d\n", a ? a : "(null)", a ? 0 : errno);
        } else if (!strcmp(act, "subenv")) {
            /* a child process inherits the request's environment */
            fflush(stdout);
            if (system("printf 'sub=%s\\n' \"${V-(unset)}\"") != 0)
                puts("sub=failed");
        } else if (!strcmp(act, "partial")) {
            /* getchar() on stdin: would read ahead if stdin were buffered */
            long n = atol(env("PROBE_ARG"));
            fputs("body=", stdout);
            for (long i = 0; i < n; i++) {
                int c = getchar();
                if (c == EOF)
                    break;
                putchar(c);
            }
            putchar('\n');
        } else if (!strcmp(act, "readall")) {
            /* stdin to its end: must end after CONTENT_LENGTH bytes */
            char buf[4096];
            size_t n;

            fputs("body=", stdout);
            while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
                fwrite(buf, 1, n, stdout);
            putchar('\n');
        }
        printf("V=%s\n", env("V"));
        if (strcmp(act, "nofinish") != 0)
            cgiplus_finish();
    }
    if (rc < 0)
        fprintf(stderr, "probe: accept failed: %s\n", strerror(errno));
    return rc < 0 ? 1 : 0;
}
