/* runner_argv.c: the command line of a pool's process: the program, the
 * pool's own arguments (BEGIN's arg, a FcgidWrapper command line's), and
 * for a plain CGI process the request's. As mod_cgi: a non-empty query
 * string without '=' (an ISINDEX search) becomes arguments, split on '+',
 * each word %XX-decoded and its shell metacharacters backslash-escaped
 * (httpd's ap_escape_shell_cmd). Persistent workers start before any
 * request and get no request's arguments. */
#include "runner_record.h"
#include "cgp_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One word w[0..n) into out (room for 2n+1); returns the length written.
 * A bad escape stays as it is; %00 ends the word (httpd decodes in place
 * into a C string). */
static size_t arg_word(const char *w, size_t n, char *out)
{
    static const char meta[] = "&;`'\"|*?~<>^()[]{}$\\\n";
    size_t o = 0;
    int hi, lo;

    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)w[i];
        if (c == '%' && i + 2 < n && (hi = hex_digit(w[i + 1])) >= 0 &&
            (lo = hex_digit(w[i + 2])) >= 0) {
            c = hi * 16 + lo;
            i += 2;
            if (c == 0)
                break;
        }
        if (strchr(meta, c))
            out[o++] = '\\';
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return o;
}

char **runner_argv(const runner_buf *params, const char *path, const runner_pool_set *set)
{
    const char *n, *v, *q = NULL;
    size_t nl, vl, ql = 0, off = 0, words = 0, bytes = 0, at = 0, own = 0;
    char **argv = NULL;

    for (size_t o = 0; o < set->args_len; o += strlen(set->args + o) + 1)
        own++;
    while (params && cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl) == 1)
        if (nl == 12 && memcmp(n, "QUERY_STRING", 12) == 0) {
            const char *nul = memchr(v, '\0', vl); /* as in the environment */
            q = v;
            ql = nul ? (size_t)(nul - v) : vl;
            break;
        }
    if (q && ql && !memchr(q, '=', ql)) {
        words = 1;
        for (size_t i = 0; i < ql; i++)
            words += q[i] == '+';
        if (words > RUNNER_CGI_ARGS_MAX)
            words = RUNNER_CGI_ARGS_MAX; /* the rest is dropped, as mod_cgi does */
    }
    if (!(argv = calloc(own + words + 2, sizeof(*argv))) || !(argv[0] = strdup(path)))
        goto fail;
    for (size_t o = 0, k = 1; o < set->args_len; o += strlen(set->args + o) + 1)
        if (!(argv[k++] = strdup(set->args + o)))
            goto fail;
    for (size_t i = 1; i <= words; i++) {
        const char *plus = memchr(q + at, '+', ql - at);
        size_t wl = plus ? (size_t)(plus - (q + at)) : ql - at;
        char *w = malloc(2 * wl + 1);
        if (!w)
            goto fail;
        size_t len = arg_word(q + at, wl, w);
        if (bytes + len + 1 > RUNNER_CGI_ARG_BYTES) {
            free(w); /* over the byte cap: this word and the rest are dropped */
            break;
        }
        bytes += len + 1;
        argv[own + i] = w;
        at += wl + 1;
    }
    return argv;
fail:
    runner_env_free(argv);
    errno = ENOMEM;
    return NULL;
}
