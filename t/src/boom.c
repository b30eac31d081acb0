/* boom.c: libcgiplus and a script that fails mid-request (t/57_lib_failure.t):
 * ?boom exits with status 3 before any output, ?late after its header went
 * out; anything else answers "ok pid=P q=QUERY". */
#include <cgiplus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    while (cgiplus_accept() > 0) {
        const char *q = getenv("QUERY_STRING");

        if (!q)
            q = "";
        if (strncmp(q, "boom", 4) == 0) {
            fprintf(stderr, "failure-marker %s\n", q);
            exit(3);
        }
        fputs("Content-Type: text/plain\n\n", stdout);
        if (strncmp(q, "late", 4) == 0) {
            fputs("partial\n", stdout);
            fflush(stdout);
            fprintf(stderr, "failure-marker %s\n", q);
            exit(3);
        }
        printf("ok pid=%ld q=%s\n", (long)getpid(), q);
        cgiplus_finish();
    }
    return 0;
}
