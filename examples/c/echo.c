/* echo.c: answers the request body byte for byte, reading exactly
 * CONTENT_LENGTH bytes from stdin, as every CGIplus script must. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgiplus.h"

/* CONTENT_LENGTH as a number; 0 when absent or malformed. */
static unsigned long long content_length(void)
{
    const char *s = getenv("CONTENT_LENGTH");
    char *end;

    if (!s || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    return (errno || *end) ? 0 : n;
}

int main(void)
{
    static char buf[65536];
    unsigned long count = 0;

    while (cgiplus_accept() > 0) {
        unsigned long long left = content_length();

        count++;
        printf("Content-Type: application/octet-stream\n"
               "X-Request-Count: %lu\nX-Worker-Pid: %ld\n\n",
               count, (long)getpid());
        while (left > 0) {
            size_t want = left < sizeof buf ? (size_t)left : sizeof buf;
            size_t got = fread(buf, 1, want, stdin);
            if (got == 0)
                break;          /* body ended early (plain CGI) or error */
            fwrite(buf, 1, got, stdout);
            left -= got;
        }
        cgiplus_finish();
    }
    return 0;
}
