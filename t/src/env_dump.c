/* env_dump.c: t/31_cgi_env_fuzz.t's persistent C script (libcgiplus): each
 * request's environment, sorted, the protocol's markers hidden, and the
 * length and FNV-1a digest of the body it read. Built by make, so that a
 * sanitizer build links it with its own flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgiplus.h"
extern char **environ;
static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
int main(void)
{
    static char buf[65536];
    while (cgiplus_accept() > 0) {
        size_t n = 0, i;
        while (environ[n])
            n++;
        char **v = malloc((n + 1) * sizeof *v);
        memcpy(v, environ, n * sizeof *v);
        qsort(v, n, sizeof *v, cmp);
        const char *cl = getenv("CONTENT_LENGTH");
        /* plain CGI without a length (a chunked body under mod_cgi): to EOF */
        unsigned long long left = cl ? strtoull(cl, NULL, 10) : (cgiplus_is_persistent() ? 0 : ~0ULL);
        unsigned long long len = 0, h = 1469598103934665603ULL;
        while (left > 0) {
            size_t got = fread(buf, 1, left < sizeof buf ? left : sizeof buf, stdin);
            if (!got)
                break;
            for (i = 0; i < got; i++)
                h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
            len += got;
            left -= got;
        }
        fputs("Content-Type: text/plain\nX-Env-Names: ", stdout);
        for (i = 0; i < n; i++)
            printf("%s%.*s", i ? "," : "", (int)strcspn(v[i], "="), v[i]);
        fputs("\n\n", stdout);
        for (i = 0; i < n; i++) {
            size_t k = strcspn(v[i], "=");
            if (k == 10 && (!strncmp(v[i], "CGIPLUSEOF", 10) || !strncmp(v[i], "CGIPLUSESC", 10) || !strncmp(v[i], "CGIPLUSEOT", 10)))
                printf("%.10s=(hidden)\n", v[i]);
            else {
                for (const char *c = v[i]; *c; c++)
                    fputs(*c == '\n' ? "\\n" : *c == '\\' ? "\\\\" : (char[2]){ *c, 0 }, stdout);
                putchar('\n');
            }
        }
        printf("BODY=%llu:%016llx\n", len, h);
        free(v);
        cgiplus_finish();
    }
    return 0;
}
