/* callout.c: test script for the CGIplus callout round trip and struct mode
 * from C. QUERY_STRING picks the action:
 *   noop    -> "answer=<the runner's answer to NOOP>"
 *   log     -> a LOG callout (the line reaches the httpd error log)
 *   map     -> "answer=<MAP-PATH answer for /c/hello>" 
 *   silent  -> "!NOOP" (no answer expected), then "answer=<NOOP answer>"
 *   struct  -> switches this worker to struct mode: "struct=<rc>"
 *   record  -> switches back to record mode
 *   (other) -> "path=<PATH_INFO with LF shown as \n> pid=<pid>"       */
#include <cgiplus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\n')
            fputs("\\n", stdout);
        else
            putchar(*s);
    }
}

int main(void)
{
    while (cgiplus_accept() > 0) {
        const char *q = getenv("QUERY_STRING");
        const char *a;

        fputs("Content-Type: text/plain\n\n", stdout);
        if (q && strcmp(q, "noop") == 0) {
            a = cgiplus_callout("NOOP: hello");
            printf("answer=%s\n", a ? a : "(null)");
        } else if (q && strcmp(q, "log") == 0) {
            a = cgiplus_callout("LOG: callout-log-line-from-c");
            printf("answer=%s\n", a ? a : "(null)");
        } else if (q && strcmp(q, "map") == 0) {
            a = cgiplus_callout("MAP-PATH: /c/hello");
            printf("answer=%s\n", a ? a : "(null)");
        } else if (q && strcmp(q, "silent") == 0) {
            a = cgiplus_callout("!NOOP: nobody answers");
            printf("silent=[%s] ", a ? a : "(null)");
            a = cgiplus_callout("NOOP: after");
            printf("answer=%s\n", a ? a : "(null)");
        } else if (q && strcmp(q, "struct") == 0) {
            printf("struct=%d\n", cgiplus_struct_mode());
        } else if (q && strcmp(q, "record") == 0) {
            a = cgiplus_callout("CGIPLUS: record");
            printf("answer=%s\n", a ? a : "(null)");
        } else {
            fputs("path=", stdout);
            show(getenv("PATH_INFO"));
            printf(" pid=%ld\n", (long)getpid());
        }
        cgiplus_finish();
    }
    return 0;
}
