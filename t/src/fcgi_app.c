/* fcgi_app.c: a libfcgi responder for the FastCGI worker tests
 * (t/59_fcgi_*.t), which the runner starts as mod_fcgid starts one (its
 * listening socket on descriptor 0). QUERY_STRING says what it does:
 *   (none)     pid, request count, some variables, the body's length and sum
 *   out=N      then N bytes of output
 *   sleep=MS   sleeps first (timeouts, queueing)
 *   crash      dies (_exit 3) before any output, without ending its request
 *   crashmid   dies likewise after its header and part of its body
 *   stderr     a line on FCGI_STDERR and one on descriptor 2
 *   lines=N    N lines, one every 100 ms (a client that leaves mid-response)
 * FCGI_APP_EXIT_AFTER=N in its environment: it exits 0 after N requests,
 * as php-cgi after PHP_FCGI_MAX_REQUESTS. */
#define _POSIX_C_SOURCE 200809L
#include <fcgi_stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "";
}

static long arg(const char *q, const char *name)
{
    size_t n = strlen(name);
    return strncmp(q, name, n) == 0 && q[n] == '=' ? atol(q + n + 1) : -1;
}

static void nap(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int main(void)
{
    unsigned long n = 0;
    long last = atol(env("FCGI_APP_EXIT_AFTER")); /* before FCGI_Accept swaps environ */

    while (FCGI_Accept() >= 0) {
        static char buf[65536];
        const char *q = env("QUERY_STRING");
        unsigned long sum = 0, got = 0;
        size_t r;
        long v;

        n++;
        if ((v = arg(q, "sleep")) > 0)
            nap(v);
        if (!strcmp(q, "crash"))
            _exit(3); /* not exit: libfcgi would end the request cleanly */
        while ((r = fread(buf, 1, sizeof buf, stdin)) > 0) {
            for (size_t i = 0; i < r; i++)
                sum = (sum * 31 + (unsigned char)buf[i]) & 0xffffffffUL;
            got += r;
        }
        printf("Content-Type: text/plain\r\n\r\n");
        printf("pid=%ld\nrequest=%lu\nSCRIPT_NAME=%s\nSCRIPT_FILENAME=%s\nPATH_INFO=%s\n"
               "REQUEST_METHOD=%s\nCONTENT_LENGTH=%s\nHTTPS=%s\nPATH=%s\n", (long)getpid(), n,
               env("SCRIPT_NAME"), env("SCRIPT_FILENAME"), env("PATH_INFO"),
               env("REQUEST_METHOD"), env("CONTENT_LENGTH"), env("HTTPS"), env("PATH"));
        /* libfcgi's printf knows no %zu */
        printf("body_len=%lu\nbody_sum=%lu\n", got, sum);
        if (!strcmp(q, "crashmid")) {
            FCGI_fflush(stdout);
            _exit(3);
        }
        if (!strcmp(q, "stderr")) {
            fprintf(stderr, "fcgi_app: stderr record of request %lu\n", n);
            dprintf(2, "fcgi_app: descriptor 2 of pid %ld\n", (long)getpid());
        }
        if ((v = arg(q, "out")) > 0)
            for (long i = 0; i < v; i++)
                putchar('a' + (int)(i % 26));
        if ((v = arg(q, "lines")) > 0)
            for (long i = 0; i < v; i++) {
                printf("line %ld\n", i);
                FCGI_fflush(stdout);
                nap(100);
            }
        if (last > 0 && (long)n >= last) {
            FCGI_Finish();
            break;
        }
    }
    return 0;
}
