/* runner_conf.c: the settings of pools and of the runner. One table names
 * every pool setting; the same names and value syntax serve BEGIN keys and
 * the configuration file (docs/RUNNER.md). Resolution order: built-ins,
 * [defaults], the script's [pool] section, then what BEGIN names. */
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_loop.h"
#include "runner_parse.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum kind { K_COUNT, K_TIME, K_SIZE, K_USER };

/* One pool setting: its name, syntax, range and built-in default. */
static const struct field {
    const char *name;
    enum kind kind;
    uint64_t max;
    uint64_t builtin;
    int is_auto;              /* default computed from http_timeout */
} fields[RUNNER_S_N_] = {
    [RUNNER_S_MAX_WORKERS] = { "max_workers", K_COUNT, RUNNER_MAX_WORKERS_CAP,
                               RUNNER_DEFAULT_MAX_WORKERS, 0 },
    [RUNNER_S_MIN_IDLE] = { "min_idle", K_COUNT, RUNNER_MAX_WORKERS_CAP, 0, 0 },
    [RUNNER_S_MAX_REQUESTS] = { "max_requests", K_COUNT, UINT32_MAX, 0, 0 },
    [RUNNER_S_MAX_AGE] = { "max_age", K_TIME, 0, 0, 0 },
    [RUNNER_S_IDLE_TIMEOUT] = { "idle_timeout", K_TIME, 0, RUNNER_DEFAULT_IDLE_MS, 0 },
    [RUNNER_S_SPAWN_RATE] = { "spawn_rate", K_COUNT, 10000, 20, 0 },
    [RUNNER_S_QUEUE_DEPTH] = { "queue_depth", K_COUNT, 100000, 100, 0 },
    [RUNNER_S_QUEUE_WAIT] = { "queue_wait", K_TIME, 0, 0, 1 },
    [RUNNER_S_TIMEOUT_OUTPUT] = { "timeout_output", K_TIME, 0, 0, 0 },
    [RUNNER_S_TIMEOUT_NOPROGRESS] = { "timeout_noprogress", K_TIME, 0, 0, 1 },
    [RUNNER_S_RLIMIT_CPU] = { "rlimit_cpu", K_COUNT, UINT32_MAX, 0, 0 },
    [RUNNER_S_RLIMIT_AS] = { "rlimit_as", K_SIZE, 0, 0, 0 },
    [RUNNER_S_RLIMIT_NOFILE] = { "rlimit_nofile", K_COUNT, 1u << 20, 0, 0 },
    [RUNNER_S_RLIMIT_NPROC] = { "rlimit_nproc", K_COUNT, 1u << 22, 0, 0 },
    [RUNNER_S_USER] = { "user", K_USER, 0, 0, 0 },
};

const char *runner_set_name(unsigned i)
{
    return i < RUNNER_S_N_ ? fields[i].name : "?";
}

int runner_set_is_time(unsigned i)
{
    return i < RUNNER_S_N_ && fields[i].kind == K_TIME;
}

static int parse_size(const char *s, size_t len, uint64_t *out)
{
    uint64_t mul = 1;
    if (len && strchr("kKmMgG", s[len - 1])) {
        char c = (char)tolower((unsigned char)s[len - 1]);
        mul = c == 'k' ? 1024u : c == 'm' ? 1024u * 1024u : 1024u * 1024u * 1024u;
        len--;
    }
    uint64_t v;
    if (runner_parse_u64(s, len, &v) < 0 || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* "name[:group]" or "uid:gid" -> uid << 32 | gid; never root. */
static int parse_user(const char *s, size_t len, uint64_t *out, const char **why)
{
    char buf[256], *colon;
    uint64_t u, g;
    if (len == 0 || len >= sizeof(buf)) {
        *why = "user wants NAME[:GROUP] or UID:GID";
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    if ((colon = strchr(buf, ':')))
        *colon++ = '\0';
    if (runner_parse_u64(buf, strlen(buf), &u) == 0) {
        struct passwd *pw = colon ? NULL : getpwuid((uid_t)u);
        if (!colon && !pw) {
            *why = "a numeric user needs :GID";
            return -1;
        }
        g = pw ? pw->pw_gid : 0;
    } else {
        struct passwd *pw = getpwnam(buf);
        if (!pw) {
            *why = "unknown user";
            return -1;
        }
        u = pw->pw_uid;
        g = pw->pw_gid;
    }
    if (colon) {
        if (runner_parse_u64(colon, strlen(colon), &g) < 0) {
            struct group *gr = getgrnam(colon);
            if (!gr) {
                *why = "unknown group";
                return -1;
            }
            g = gr->gr_gid;
        }
    }
    if (u == 0 || g == 0 || u > INT_MAX || g > INT_MAX) {
        *why = "scripts never run as root (uid or gid 0)";
        return -1;
    }
    *out = u << 32 | g;
    return 0;
}

static int env_add(runner_pool_set *s, const char *val, size_t vlen, const char **why)
{
    const char *eq = memchr(val, '=', vlen);
    size_t count = 0;
    for (size_t i = 0; i < s->env_len; i++)
        count += s->env[i] == '\0';
    if (!eq || eq == val || vlen > 4096 || memchr(val, '\0', vlen) || count >= RUNNER_ENV_MAX) {
        *why = "env wants NAME=value (at most 64 of 4096 bytes)";
        return -1;
    }
    for (const char *p = val; p < eq; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_') || (p == val && isdigit((unsigned char)*p))) {
            *why = "env: a name is letters, digits and _";
            return -1;
        }
    char *n = realloc(s->env, s->env_len + vlen + 1);
    if (!n) {
        *why = "out of memory";
        return -1;
    }
    memcpy(n + s->env_len, val, vlen);
    n[s->env_len + vlen] = '\0';
    s->env = n;
    s->env_len += vlen + 1;
    return 0;
}

int runner_set_parse(runner_set_over *o, const char *name, size_t nlen, const char *val,
                     size_t vlen, const char **why)
{
    if (nlen == 3 && memcmp(name, "env", 3) == 0) {
        if (!o->have_env) {
            free(o->s.env);
            o->s.env = NULL;
            o->s.env_len = 0;
            o->have_env = 1;
        }
        return env_add(&o->s, val, vlen, why);
    }
    for (unsigned i = 0; i < RUNNER_S_N_; i++) {
        const struct field *f = &fields[i];
        uint64_t v = 0;
        if (strlen(f->name) != nlen || memcmp(f->name, name, nlen) != 0)
            continue;
        switch (f->kind) {
        case K_COUNT:
            if (runner_parse_u64(val, vlen, &v) < 0 || v > f->max ||
                (i == RUNNER_S_MAX_WORKERS && v < 1)) {
                *why = i == RUNNER_S_MAX_WORKERS ? "max_workers is not 1..4096"
                                                 : "a count out of range";
                return -1;
            }
            break;
        case K_TIME:
            if (cgp_parse_duration(val, vlen, 1000, &v) < 0) {
                *why = "a duration wants N[.F][ms|s|m|h] or none";
                return -1;
            }
            break;
        case K_SIZE:
            if (parse_size(val, vlen, &v) < 0) {
                *why = "a size wants N[K|M|G]";
                return -1;
            }
            break;
        case K_USER:
            if (parse_user(val, vlen, &v, why) < 0)
                return -1;
            break;
        }
        o->s.v[i] = v;
        o->have |= 1u << i;
        return 0;
    }
    return 1; /* not a pool setting */
}

void runner_set_free(runner_pool_set *s)
{
    free(s->env);
    s->env = NULL;
    s->env_len = 0;
}

void runner_set_over_free(runner_set_over *o)
{
    runner_set_free(&o->s);
    o->have = 0;
    o->have_env = 0;
}

int runner_set_copy(runner_pool_set *dst, const runner_pool_set *src)
{
    memcpy(dst->v, src->v, sizeof(dst->v));
    dst->env = NULL;
    dst->env_len = 0;
    if (src->env_len) {
        if (!(dst->env = malloc(src->env_len)))
            return -1;
        memcpy(dst->env, src->env, src->env_len);
        dst->env_len = src->env_len;
    }
    return 0;
}

int runner_set_equal(const runner_pool_set *a, const runner_pool_set *b)
{
    return memcmp(a->v, b->v, sizeof(a->v)) == 0 && a->env_len == b->env_len &&
           (a->env_len == 0 || memcmp(a->env, b->env, a->env_len) == 0);
}

static uint64_t default_user(void)
{
    if (!runner_g.o.have_user || runner_g.o.uid == 0)
        return 0;
    return (uint64_t)runner_g.o.uid << 32 | (uint64_t)runner_g.o.gid;
}

int runner_user_allowed(uint64_t user)
{
    if (user == 0 || user == default_user())
        return 1;
    if (!runner_g.is_root) /* we cannot switch: only our own uid works */
        return (user >> 32) == (uint64_t)geteuid();
    for (unsigned i = 0; i < runner_g.conf.nallow; i++)
        if (runner_g.conf.allow[i] == user)
            return 1;
    return 0;
}

static const runner_set_over *env_level;

static void overlay(runner_pool_set *out, uint32_t *have, const runner_set_over *o)
{
    if (!o)
        return;
    for (unsigned i = 0; i < RUNNER_S_N_; i++)
        if (o->have & (1u << i))
            out->v[i] = o->s.v[i];
    *have |= o->have;
    if (o->have_env)
        env_level = o;
}

int runner_set_resolve(const char *script, runner_mode mode, const runner_set_over *begin,
                       runner_pool_set *out)
{
    const runner_conf *c = &runner_g.conf;
    uint32_t have = 0;
    int own = 0, set_aside;

    env_level = NULL;
    for (unsigned i = 0; i < RUNNER_S_N_; i++)
        out->v[i] = fields[i].builtin;
    overlay(out, &have, &c->defaults);
    if (runner_g.o.have_max_workers) {
        out->v[RUNNER_S_MAX_WORKERS] = runner_g.o.max_workers;
        have |= 1u << RUNNER_S_MAX_WORKERS;
    }
    for (unsigned i = 0; i < c->npools; i++)
        if (strcmp(c->pools[i].script, script) == 0) {
            overlay(out, &have, &c->pools[i].over);
            own |= c->pools[i].mode == mode;
        }
    /* A script with its own section in this mode has one pool, the
     * section's: the request's settings would make a twin pool beside the
     * declared one (docs/RUNNER.md, "One pool per script"). */
    set_aside = own && begin && (begin->have || begin->have_env);
    if (!own)
        overlay(out, &have, begin);

    /* Our timeouts fire before httpd's Timeout ends the wait for us. */
    uint64_t below = c->http_timeout > 1500 ? c->http_timeout - 1000 : 500;
    if (!(have & (1u << RUNNER_S_TIMEOUT_NOPROGRESS)))
        out->v[RUNNER_S_TIMEOUT_NOPROGRESS] = below;
    if (!(have & (1u << RUNNER_S_QUEUE_WAIT)))
        out->v[RUNNER_S_QUEUE_WAIT] = below < 10000 ? below : 10000;
    if (out->v[RUNNER_S_MIN_IDLE] > out->v[RUNNER_S_MAX_WORKERS])
        out->v[RUNNER_S_MIN_IDLE] = out->v[RUNNER_S_MAX_WORKERS];
    if (out->v[RUNNER_S_USER] == 0)
        out->v[RUNNER_S_USER] = default_user();
    out->env = NULL;
    out->env_len = 0;
    if (env_level && env_level->s.env_len) {
        if (!(out->env = malloc(env_level->s.env_len)))
            return -1;
        memcpy(out->env, env_level->s.env, env_level->s.env_len);
        out->env_len = env_level->s.env_len;
    }
    if (!runner_user_allowed(out->v[RUNNER_S_USER])) {
        runner_set_free(out);
        errno = EPERM;
        return -1;
    }
    return set_aside;
}

/* ---- the configuration file ---- */

void runner_conf_init(runner_conf *c)
{
    memset(c, 0, sizeof(*c));
    c->max_workers_total = 256;
    c->kill_grace = 2000;
    c->backoff_base = 1000;
    c->backoff_max = 60000;
    c->http_timeout = 60000;
    c->callout_timeout = 5000;
    c->pool_idle = 600000;
    c->spool_max = 1024u * 1024u * 1024u;
    c->slow_request = 5000;
}

void runner_conf_free(runner_conf *c)
{
    runner_set_over_free(&c->defaults);
    for (unsigned i = 0; i < c->npools; i++) {
        free(c->pools[i].script);
        runner_set_over_free(&c->pools[i].over);
    }
    free(c->pools);
    free(c->socket);
    free(c->user);
    free(c->group);
    free(c->pidfile);
    free(c->log_level);
    free(c->key_file);
    free(c->spool_dir);
    runner_conf_init(c);
}

static int set_str(char **dst, const char *v)
{
    free(*dst);
    return (*dst = strdup(v)) ? 0 : -1;
}

/* One key of the global part. 1: not a global key. */
static int global_key(runner_conf *c, const char *k, const char *v, const char **why)
{
    static const struct { const char *name; size_t off; uint64_t min; } times[] = {
        { "kill_grace", offsetof(runner_conf, kill_grace), 1 },
        { "backoff_base", offsetof(runner_conf, backoff_base), 1 },
        { "backoff_max", offsetof(runner_conf, backoff_max), 1 },
        { "http_timeout", offsetof(runner_conf, http_timeout), 1000 },
        { "callout_timeout", offsetof(runner_conf, callout_timeout), 1 },
        { "pool_idle", offsetof(runner_conf, pool_idle), 1000 },
        { "slow_request", offsetof(runner_conf, slow_request), 1 },
    };
    uint64_t n;
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
        if (strcmp(k, times[i].name))
            continue;
        if (cgp_parse_duration(v, strlen(v), 1000, &n) < 0 || n < times[i].min) {
            *why = "a duration wants N[.F][ms|s|m|h] (and not none)";
            return -1;
        }
        *(uint64_t *)((char *)c + times[i].off) = n;
        return 0;
    }
    if (!strcmp(k, "max_workers_total")) {
        if (runner_parse_u64(v, strlen(v), &n) < 0 || n < 1 || n > 65536) {
            *why = "max_workers_total is not 1..65536";
            return -1;
        }
        c->max_workers_total = n;
        return 0;
    }
    if (!strcmp(k, "allow_user")) {
        if (c->nallow >= sizeof(c->allow) / sizeof(c->allow[0])) {
            *why = "at most 64 allow_user lines";
            return -1;
        }
        return parse_user(v, strlen(v), &c->allow[c->nallow++], why);
    }
    if (!strcmp(k, "die_with_parent")) {
        if (strcmp(v, "yes") && strcmp(v, "no")) {
            *why = "die_with_parent wants yes or no";
            return -1;
        }
        c->die_with_parent = !strcmp(v, "yes");
        return 0;
    }
    if (!strcmp(k, "spool_max")) {
        if (parse_size(v, strlen(v), &n) < 0 || n < 1) {
            *why = "spool_max wants a number of bytes (K, M or G allowed), at least 1";
            return -1;
        }
        c->spool_max = n;
        return 0;
    }
    char **strs[] = { &c->socket, &c->user, &c->group, &c->pidfile, &c->log_level,
                      &c->key_file, &c->spool_dir };
    const char *names[] = { "socket", "user", "group", "pidfile", "log_level", "key_file",
                            "spool_dir" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(k, names[i])) {
            if (set_str(strs[i], v) < 0) {
                *why = "out of memory";
                return -1;
            }
            return 0;
        }
    return 1;
}

/* Refuses a file others could have written: it names users to run as. */
static int check_owner(FILE *f, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fileno(f), &st) < 0) {
        snprintf(err, errlen, "fstat: %s", strerror(errno));
        return -1;
    }
    if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
        snprintf(err, errlen, "it must belong to root or to the runner's user and not be "
                 "writable by group or others");
        return -1;
    }
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

int runner_conf_load(const char *path, runner_conf *c, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    int rc;

    runner_conf_init(c);
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return -1;
    }
    rc = check_owner(f, err, errlen) < 0 ? -1 : runner_conf_read(f, c, err, errlen);
    fclose(f);
    return rc;
}

int runner_conf_read(FILE *f, runner_conf *c, char *err, size_t errlen)
{
    char line[8192];
    unsigned lineno = 0;
    runner_set_over *sect = NULL; /* NULL: the global part */
    runner_conf_pool *pool = NULL;
    const char *why = NULL;

    runner_conf_init(c);
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            why = "line too long";
            goto fail;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (!end || end[1]) {
                why = "a section is [global], [defaults] or [pool /path/to/script]";
                goto fail;
            }
            *end = '\0';
            s = trim(s + 1);
            pool = NULL;
            if (!strcmp(s, "global")) {
                sect = NULL;
            } else if (!strcmp(s, "defaults")) {
                sect = &c->defaults;
            } else if (!strncmp(s, "pool", 4) && isspace((unsigned char)s[4])) {
                char *sp = trim(s + 5);
                if (*sp != '/' || strlen(sp) >= 4096) {
                    why = "[pool PATH] wants an absolute path";
                    goto fail;
                }
                runner_conf_pool *np = realloc(c->pools, (c->npools + 1) * sizeof(*np));
                if (!np) {
                    why = "out of memory";
                    goto fail;
                }
                c->pools = np;
                pool = &c->pools[c->npools++];
                memset(pool, 0, sizeof(*pool));
                if (!(pool->script = strdup(sp))) {
                    why = "out of memory";
                    goto fail;
                }
                sect = &pool->over;
            } else {
                why = "a section is [global], [defaults] or [pool /path/to/script]";
                goto fail;
            }
            continue;
        }
        char *k = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (*s)
            *s++ = '\0';
        char *v = trim(s);
        if (!*v) {
            why = "a key wants a value";
            goto fail;
        }
        int rc;
        if (!sect) {
            rc = global_key(c, k, v, &why);
        } else if (pool && !strcmp(k, "mode")) {
            rc = 0;
            if (!strcmp(v, "cgi"))
                pool->mode = RUNNER_MODE_CGI;
            else if (!strcmp(v, "cgiplus"))
                pool->mode = RUNNER_MODE_CGIPLUS;
            else
                rc = -1, why = "mode is cgiplus or cgi";
        } else {
            rc = runner_set_parse(sect, k, strlen(k), v, strlen(v), &why);
        }
        if (rc > 0) {
            why = sect ? "unknown pool setting" : "unknown global setting (pool settings go "
                  "under [defaults] or [pool PATH])";
            snprintf(err, errlen, "line %u: %s: %s", lineno, k, why);
            goto fail_quiet;
        }
        if (rc < 0) {
            snprintf(err, errlen, "line %u: %s: %s", lineno, k, why);
            goto fail_quiet;
        }
    }
    if (ferror(f)) {
        snprintf(err, errlen, "read error: %s", strerror(errno));
        goto fail_quiet;
    }
    if (c->backoff_max < c->backoff_base)
        c->backoff_max = c->backoff_base;
    return 0;
fail:
    snprintf(err, errlen, "line %u: %s", lineno, why);
fail_quiet:
    runner_conf_free(c);
    return -1;
}
