/* hello.c: the bench's persistent C hello (libcgiplus). Answers a body of
 * QUERY_STRING bytes of 'x' (0 to 1 MiB; 0 when absent), headers only at 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgiplus.h"

#define BODY_MAX (1024 * 1024)

/* The body size asked for in QUERY_STRING, clamped to [0, BODY_MAX]. */
static size_t body_size(void)
{
    const char *q = getenv("QUERY_STRING");
    long n = q ? strtol(q, NULL, 10) : 0;

    return n <= 0 ? 0 : n > BODY_MAX ? BODY_MAX : (size_t)n;
}

int main(void)
{
    static char body[BODY_MAX];
    size_t filled = 0;

    while (cgiplus_accept() > 0) {
        size_t n = body_size();

        /* filled on demand, so that a plain-CGI run pays only for the
         * bytes it sends */
        if (n > filled) {
            memset(body + filled, 'x', n - filled);
            filled = n;
        }
        fputs("Content-Type: text/plain\n\n", stdout);
        fwrite(body, 1, n, stdout);
        cgiplus_finish();
    }
    return 0;
}
