/* runner_record.c: what a script receives for one request. For a worker, the
 * CGIPLUSIN record ("!" + NAME=value lines, or "!!N" + struct entries); for a
 * plain CGI run, its environment. CONTENT_LENGTH is always ours (exact);
 * plain CGI leaves it out when the request had none and no body, and so
 * does a worker's record when the module asks (BEGIN nocl: mod_cgi's). */
#include "runner_record.h"
#include "runner_log.h"
#include "cgp_proto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRUCT_ENTRY_MAX 0xffffu

/* A name the script can parse back: no '=', no line end, no NUL. */
static int name_ok(const char *n, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (n[i] == '=' || n[i] == '\n' || n[i] == '\r' || n[i] == '\0')
            return 0;
    return len > 0;
}

static int build_lines(const runner_buf *params, uint64_t cl, int with_cl, runner_buf *out)
{
    const char *n, *v;
    size_t nl, vl, off = 0;
    int rc;

    if (cgp_buf_append(out, "!\n", 2) < 0)
        return -1;
    while ((rc = cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl)) == 1) {
        if (cgp_kv_name_is(n, nl, "CONTENT_LENGTH") || !name_ok(n, nl))
            continue;
        if (cgp_buf_reserve(out, nl + vl + 2) < 0)
            return -1;
        unsigned char *p = out->p + out->len;
        memcpy(p, n, nl);
        p[nl] = '=';
        p += nl + 1;
        for (size_t i = 0; i < vl; i++) /* record mode: a line per variable */
            p[i] = (v[i] == '\r' || v[i] == '\n' || v[i] == '\0') ? ' ' : (unsigned char)v[i];
        p[vl] = '\n';
        out->len += nl + vl + 2;
    }
    if (rc < 0) {
        errno = EINVAL;
        return -1;
    }
    if (!with_cl)
        return runner_buf_printf(out, "\n");
    return runner_buf_printf(out, "CONTENT_LENGTH=%" PRIu64 "\n\n", cl);
}

static int build_struct(const runner_buf *params, uint64_t cl, int with_cl, runner_buf *out)
{
    static char entry[STRUCT_ENTRY_MAX];
    char clv[40];
    const char *n, *v;
    size_t nl, vl, off, total = 2;
    int rc, cll = snprintf(clv, sizeof(clv), "CONTENT_LENGTH=%" PRIu64, cl);

    /* First pass: N, the byte count after the "!!N" line. */
    for (off = 0; (rc = cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl)) == 1;)
        if (!cgp_kv_name_is(n, nl, "CONTENT_LENGTH") && name_ok(n, nl) && nl + 1 + vl <= STRUCT_ENTRY_MAX)
            total += 2 + nl + 1 + vl;
    if (rc < 0) {
        errno = EINVAL;
        return -1;
    }
    if (with_cl)
        total += 2 + (size_t)cll;
    if (runner_buf_printf(out, "!!%zu\n", total) < 0 || cgp_buf_reserve(out, total) < 0)
        return -1;

    size_t pos = 0;
    unsigned char *base = out->p + out->len;
    for (off = 0; cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl) == 1;) {
        if (cgp_kv_name_is(n, nl, "CONTENT_LENGTH") || !name_ok(n, nl))
            continue;
        if (nl + 1 + vl > STRUCT_ENTRY_MAX) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2003) "variable %.*s is too long for a "
                       "struct-mode record (%zu bytes); not sent", (int)nl, n, nl + 1 + vl);
            continue;
        }
        memcpy(entry, n, nl);
        entry[nl] = '=';
        /* Line ends are kept, but a NUL would make the script's library
         * refuse the whole record: a space, as in record mode. */
        for (size_t i = 0; i < vl; i++)
            entry[nl + 1 + i] = v[i] == '\0' ? ' ' : v[i];
        if (cgp_struct_pack(base, total, &pos, entry, nl + 1 + vl) != CGP_OK)
            goto fail;
    }
    if ((with_cl && cgp_struct_pack(base, total, &pos, clv, (size_t)cll) != CGP_OK) ||
        cgp_struct_end(base, total, &pos) != CGP_OK || pos != total)
        goto fail;
    out->len += total;
    return 0;
fail:
    errno = EINVAL;
    return -1;
}

int runner_record_build(const runner_buf *params, uint64_t cl, int with_cl, int struct_mode,
                        runner_buf *out)
{
    return struct_mode ? build_struct(params, cl, with_cl, out)
                       : build_lines(params, cl, with_cl, out);
}

/* Whether the pool's configured environment names `name` (NAME=value list). */
static int env_has(const runner_pool_set *set, const char *name)
{
    size_t ln = strlen(name);
    for (size_t o = 0; o < set->env_len; o += strlen(set->env + o) + 1)
        if (strncmp(set->env + o, name, ln) == 0 && set->env[o + ln] == '=')
            return 1;
    return 0;
}

char **runner_record_env(const runner_buf *params, uint64_t cl, int cl_given,
                         const runner_pool_set *set)
{
    const char *n, *v;
    size_t nl, vl, off = 0, count = 0, i = 0;
    int have_path = 0, have_gi = 0;

    while (cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl) == 1)
        count++;
    char **env = calloc(count + 4 + RUNNER_ENV_MAX, sizeof(char *));
    if (!env)
        return NULL;
    for (off = 0; cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl) == 1;) {
        if (cgp_kv_name_is(n, nl, "CONTENT_LENGTH") || !name_ok(n, nl))
            continue;
        have_path |= cgp_kv_name_is(n, nl, "PATH");
        have_gi |= cgp_kv_name_is(n, nl, "GATEWAY_INTERFACE");
        const char *nul = memchr(v, '\0', vl); /* an environment string ends at NUL */
        if (nul)
            vl = (size_t)(nul - v);
        if (!(env[i] = malloc(nl + vl + 2)))
            goto fail;
        memcpy(env[i], n, nl);
        env[i][nl] = '=';
        memcpy(env[i] + nl + 1, v, vl);
        env[i][nl + 1 + vl] = '\0';
        i++;
    }
    /* As mod_cgi: a request that had no length and no body has no
     * CONTENT_LENGTH (a worker's record always has one: CGIplus). */
    if (cl_given || cl > 0) {
        if (asprintf(&env[i], "CONTENT_LENGTH=%" PRIu64, cl) < 0) {
            env[i] = NULL;
            goto fail;
        }
        i++;
    }
    /* The fixed PATH, unless the pool's env names its own. */
    if (!have_path && !env_has(set, "PATH") &&
        !(env[i++] = strdup("PATH=" RUNNER_DEFAULT_PATH)))
        goto fail;
    if (!have_gi && !(env[i++] = strdup("GATEWAY_INTERFACE=CGI/1.1")))
        goto fail;
    /* The pool's configured variables, copied: the array owns its strings. */
    for (size_t o = 0; o < set->env_len && i < count + 3 + RUNNER_ENV_MAX;) {
        if (!(env[i++] = strdup(set->env + o)))
            goto fail;
        o += strlen(set->env + o) + 1;
    }
    return env;
fail:
    runner_env_free(env);
    errno = ENOMEM;
    return NULL;
}

void runner_env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}
