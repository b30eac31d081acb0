/* env.c: the request's environment as sorted NAME=value lines. The
 * CGIPLUS* markers are shown as names only: printing the end sentinel
 * would end the response early. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgiplus.h"

extern char **environ;

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_marker(const char *e)
{
    return !strncmp(e, "CGIPLUSEOF=", 11) || !strncmp(e, "CGIPLUSESC=", 11) ||
           !strncmp(e, "CGIPLUSEOT=", 11);
}

int main(void)
{
    while (cgiplus_accept() > 0) {
        size_t n = 0;

        while (environ[n])
            n++;
        char **v = malloc((n ? n : 1) * sizeof *v);
        fputs("Content-Type: text/plain\n\n", stdout);
        if (v) {
            memcpy(v, environ, n * sizeof *v);
            qsort(v, n, sizeof *v, cmp);
            for (size_t i = 0; i < n; i++) {
                if (is_marker(v[i]))
                    printf("%.10s=(hidden)\n", v[i]);
                else
                    printf("%s\n", v[i]);
            }
            free(v);
        }
        cgiplus_finish();
    }
    return 0;
}
