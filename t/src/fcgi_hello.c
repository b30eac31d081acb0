/* fcgi_hello.c: a libfcgi responder started the way mod_fcgid starts one,
 * its listening socket on descriptor 0 (FCGI_LISTENSOCK_FILENO), for
 * t/unit/test_fcgi_peers. Each answer tells what the test checks: the pid
 * (persistence), the request count, variables, the body's length and
 * checksum; QUERY_STRING "out=N" asks for N bytes of output. One line per
 * request goes to stderr (FCGI_STDERR records). */
#define _POSIX_C_SOURCE 200809L
#include <fcgi_stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "";
}

int main(void)
{
    unsigned long n = 0;

    while (FCGI_Accept() >= 0) {
        static char buf[65536];
        unsigned long sum = 0, got = 0;
        size_t r;

        n++;
        while ((r = fread(buf, 1, sizeof buf, stdin)) > 0) {
            for (size_t i = 0; i < r; i++)
                sum = (sum * 31 + (unsigned char)buf[i]) & 0xffffffffUL;
            got += r;
        }
        printf("Content-Type: text/plain\r\n\r\n");
        printf("pid=%ld\nrequest=%lu\nSCRIPT_NAME=%s\nREQUEST_METHOD=%s\n", (long)getpid(), n,
               env("SCRIPT_NAME"), env("REQUEST_METHOD"));
        /* libfcgi's printf knows no %zu */
        printf("X_BIG_len=%lu\nbody_len=%lu\nbody_sum=%lu\n",
               (unsigned long)strlen(env("HTTP_X_BIG")), got, sum);
        if (strncmp(env("QUERY_STRING"), "out=", 4) == 0) {
            long want = atol(env("QUERY_STRING") + 4);
            for (long i = 0; i < want; i++)
                putchar('a' + (int)(i % 26));
        }
        fprintf(stderr, "fcgi_hello: request %lu\n", n);
    }
    return 0;
}
