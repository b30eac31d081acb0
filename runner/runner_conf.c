/* runner_conf.c: the settings of pools and of the runner. The shared table
 * (include/cgp_settings.def) names every one, its syntax, range and
 * default; the same names and value syntax serve BEGIN keys and the
 * configuration file (docs/RUNNER.md). Resolution order: built-ins,
 * [defaults], the script's [pool] section, then what BEGIN names. */
#include "runner_conf.h"
#include "runner_ctx.h"
#include "runner_log.h"
#include "runner_suexec.h"
#include "cgp_defaults.h"
#include "cgp_parse.h"
#include "cgp_proto.h"

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

/* "key is a, b or c": names[0..last]; in a static buffer (one thread),
 * read before the next call. */
static const char *names_why(const char *key, const cgp_enum *names, int64_t last)
{
    static char buf[128];
    size_t n = (size_t)snprintf(buf, sizeof(buf), "%s is", key);

    for (int64_t i = 0; i <= last && n < sizeof(buf); i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", !i ? " " : i < last ? ", "
                              : " or ", names[i].name);
    return buf;
}

/* Why a value of row id is refused (rc: cgp_setting_parse's), in the
 * runner's words; in a static buffer (one thread), read before the next
 * call. */
static const char *value_why(int id, int rc)
{
    static char buf[160];
    const cgp_setting *d = &cgp_settings[id];
    const char *none = d->flags & CGP_SF_NONE ? " or none" : "";
    char t[24];

    switch (d->type) {
    case CGP_ST_COUNT:
        snprintf(buf, sizeof(buf), "%s is not %lld..%lld%s", d->key, (long long)d->min,
                 (long long)d->max, none);
        return buf;
    case CGP_ST_DURATION:
        if (rc == CGP_SE_HIGH)
            snprintf(buf, sizeof(buf), "%s is too long a time", d->key);
        else if (rc == CGP_SE_LOW && d->min > 1)
            snprintf(buf, sizeof(buf), "%s wants a duration of at least %lldms%s", d->key,
                     (long long)d->min, none);
        else
            snprintf(buf, sizeof(buf), "%s wants a duration, N[.F][ms|s|m|h]%s", d->key,
                     d->min < 1 || (d->flags & CGP_SF_NONE) ? " or none" : " (and not none)");
        return buf;
    case CGP_ST_SIZE:
        if (rc == CGP_SE_LOW || rc == CGP_SE_HIGH) {
            cgp_size_text(rc == CGP_SE_LOW ? d->min : d->max, t);
            snprintf(buf, sizeof(buf), "%s wants a number of bytes %s %s%s", d->key,
                     rc == CGP_SE_LOW ? "of at least" : "of at most", t, none);
        } else {
            snprintf(buf, sizeof(buf), "%s wants a number of bytes (K, M or G allowed)%s",
                     d->key, none);
        }
        return buf;
    case CGP_ST_FLAG:
        snprintf(buf, sizeof(buf), "%s wants yes or no", d->key);
        return buf;
    case CGP_ST_ENUM: /* the names it takes: up to its max */
        return names_why(d->key, d->names, d->max);
    default:
        return "a bad value";
    }
}

int runner_mode_parse(const char *v, size_t len, int begin, runner_mode *mode, const char **why)
{
    int64_t m, last = 0;

    int rc;

    if (!begin && (rc = cgp_setting_parse(CGP_S_MODE, v, len, &m)) < 0) {
        *why = value_why(CGP_S_MODE, rc);
        return -1;
    }
    if (begin && (m = cgp_mode_find(v, len)) < 0) {
        while (cgp_mode_names[last + 1].name)
            last++;
        *why = names_why("mode", cgp_mode_names, last);
        return -1;
    }
    *mode = (runner_mode)m;
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
    if (cgp_parse_u64(buf, strlen(buf), &u) == 0) {
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
        if (cgp_parse_u64(colon, strlen(colon), &g) < 0) {
            struct group *gr = getgrnam(colon);
            if (!gr) {
                *why = "unknown group";
                return -1;
            }
            g = gr->gr_gid;
        }
    }
    if (u > INT_MAX || g > INT_MAX) {
        *why = "a uid or gid is at most 2147483647";
        return -1;
    }
    if (u == 0 || g == 0) {
        *why = "scripts never run as root (uid or gid 0)";
        return -1;
    }
    *out = u << 32 | g;
    return 0;
}

/* Appends v[0..vl) and a NUL to the list *l of *len bytes. */
static int list_add(char **l, size_t *len, const char *v, size_t vl, const char **why)
{
    char *n = realloc(*l, *len + vl + 1);

    if (!n) {
        *why = "out of memory";
        return -1;
    }
    memcpy(n + *len, v, vl);
    n[*len + vl] = '\0';
    *l = n;
    *len += vl + 1;
    return 0;
}

static size_t list_count(const char *l, size_t len)
{
    size_t count = 0;

    for (size_t i = 0; i < len; i++)
        count += l[i] == '\0';
    return count;
}

static int env_add(runner_pool_set *s, const char *val, size_t vlen, const char **why)
{
    const char *eq = memchr(val, '=', vlen);

    if (!eq || eq == val || vlen > RUNNER_ENV_BYTES || memchr(val, '\0', vlen) ||
        list_count(s->env, s->env_len) >= RUNNER_ENV_MAX) {
        *why = "env wants NAME=value (at most 64 of 4096 bytes)";
        return -1;
    }
    for (const char *p = val; p < eq; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_') || (p == val && isdigit((unsigned char)*p))) {
            *why = "env: a name is letters, digits and _";
            return -1;
        }
    return list_add(&s->env, &s->env_len, val, vlen, why);
}

int runner_arg_parse(runner_set_over *o, const char *v, size_t vl, const char **why)
{
    if (vl > CGP_MAX_ARG || memchr(v, '\0', vl) ||
        list_count(o->s.args, o->s.args_len) >= CGP_MAX_ARGS) {
        *why = "arg: at most 32 arguments of 4096 bytes, without NUL";
        return -1;
    }
    return list_add(&o->s.args, &o->s.args_len, v, vl, why);
}

int runner_set_parse(runner_set_over *o, const char *name, size_t nlen, const char *val,
                     size_t vlen, const char **why)
{
    int id = cgp_setting_find(name, nlen, CGP_SC_POOL), rc;
    uint64_t v = 0;
    int64_t n;

    if (id == CGP_S_ENV) {
        if (!o->have_env) {
            free(o->s.env);
            o->s.env = NULL;
            o->s.env_len = 0;
            o->have_env = 1;
        }
        return env_add(&o->s, val, vlen, why);
    }
    if (id < 0 || id >= CGP_S_POOL_N_)
        return 1; /* not a pool setting (the mode is the caller's) */
    if (cgp_settings[id].type == CGP_ST_USER) {
        if (parse_user(val, vlen, &v, why) < 0)
            return -1;
    } else if ((rc = cgp_setting_parse(id, val, vlen, &n)) < 0) {
        *why = value_why(id, rc);
        return -1;
    } else {
        v = (uint64_t)n;
    }
    o->s.v[id] = v;
    o->have |= 1u << id;
    return 0;
}

int runner_suexec_parse(struct runner_set_over *o, const char *v, size_t vl, const char **why)
{
    unsigned kind = RUNNER_SUEXEC_VHOST;
    const char *colon;
    uint64_t uid, gid;

    if (vl && v[0] == '~') {
        kind = RUNNER_SUEXEC_USERDIR;
        v++;
        vl--;
    }
    colon = memchr(v, ':', vl);
    if (!colon || cgp_parse_u64(v, (size_t)(colon - v), &uid) < 0 ||
        cgp_parse_u64(colon + 1, vl - (size_t)(colon - v) - 1, &gid) < 0 ||
        uid > INT_MAX || gid > INT_MAX) {
        *why = "suexec is not [~]UID:GID";
        return -1;
    }
    o->s.suexec = kind;
    o->suexec_user = uid << 32 | gid;
    return 0;
}

void runner_set_free(runner_pool_set *s)
{
    free(s->env);
    free(s->args);
    s->env = s->args = NULL;
    s->env_len = s->args_len = 0;
}

void runner_set_over_free(runner_set_over *o)
{
    runner_set_free(&o->s);
    o->have = 0;
    o->have_env = 0;
}

/* *dst = a copy of src[0..len) (NULL when empty); -1 out of memory. */
static int list_copy(char **dst, size_t *dlen, const char *src, size_t len)
{
    *dst = NULL;
    *dlen = 0;
    if (len) {
        if (!(*dst = malloc(len)))
            return -1;
        memcpy(*dst, src, len);
        *dlen = len;
    }
    return 0;
}

int runner_set_copy(runner_pool_set *dst, const runner_pool_set *src)
{
    memcpy(dst->v, src->v, sizeof(dst->v));
    dst->suexec = src->suexec;
    dst->args = NULL;
    dst->args_len = 0;
    if (list_copy(&dst->env, &dst->env_len, src->env, src->env_len) < 0 ||
        list_copy(&dst->args, &dst->args_len, src->args, src->args_len) < 0) {
        runner_set_free(dst);
        return -1;
    }
    return 0;
}

static int list_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

int runner_set_equal(const runner_pool_set *a, const runner_pool_set *b)
{
    return memcmp(a->v, b->v, sizeof(a->v)) == 0 && a->suexec == b->suexec &&
           list_equal(a->env, a->env_len, b->env, b->env_len) &&
           list_equal(a->args, a->args_len, b->args, b->args_len);
}

static uint64_t default_user(const runner_ctx *g)
{
    if (!g->o.have_user || g->o.uid == 0)
        return 0;
    return (uint64_t)g->o.uid << 32 | (uint64_t)g->o.gid;
}

static int user_allowed(const runner_ctx *g, uint64_t user)
{
    if (user == 0 || user == default_user(g))
        return 1;
    if (!g->is_root) /* we cannot switch: only our own uid works */
        return (user >> 32) == (uint64_t)geteuid();
    for (unsigned i = 0; i < g->conf.nallow; i++)
        if (g->conf.allow[i] == user)
            return 1;
    return 0;
}

static const runner_set_over *env_level;

static void overlay(runner_pool_set *out, uint32_t *have, const runner_set_over *o)
{
    if (!o)
        return;
    for (unsigned i = 0; i < CGP_S_POOL_N_; i++)
        if (o->have & (1u << i))
            out->v[i] = o->s.v[i];
    *have |= o->have;
    if (o->have_env)
        env_level = o;
}

unsigned runner_default_max_workers(const runner_ctx *g)
{
    static unsigned cpus;

    if (!cpus)
        cpus = cgp_cpus(); /* once: the runner's affinity does not change */
    return cgp_default_max_workers(cpus, (unsigned)g->conf.v[CGP_S_HTTP_THREADS],
                                   (unsigned)g->conf.v[CGP_S_MAX_WORKERS_TOTAL]);
}

int runner_set_resolve(const runner_ctx *g, const char *script, runner_mode mode,
                       const runner_set_over *begin, runner_pool_set *out)
{
    const runner_conf *c = &g->conf;
    uint32_t have = 0;
    int own = 0, set_aside;

    env_level = NULL;
    for (unsigned i = 0; i < CGP_S_POOL_N_; i++)
        out->v[i] = (uint64_t)cgp_settings[i].dflt;
    out->v[CGP_S_MAX_WORKERS] = runner_default_max_workers(g);
    overlay(out, &have, &c->defaults);
    if (g->o.have_max_workers) {
        out->v[CGP_S_MAX_WORKERS] = g->o.max_workers;
        have |= 1u << CGP_S_MAX_WORKERS;
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
    uint64_t http = c->v[CGP_S_HTTP_TIMEOUT];
    uint64_t below = http > 1500 ? http - 1000 : 500;
    if (!(have & (1u << CGP_S_TIMEOUT_NOPROGRESS)))
        out->v[CGP_S_TIMEOUT_NOPROGRESS] = below;
    if (!(have & (1u << CGP_S_QUEUE_WAIT)))
        out->v[CGP_S_QUEUE_WAIT] = below < 10000 ? below : 10000;
    if (out->v[CGP_S_MIN_IDLE] > out->v[CGP_S_MAX_WORKERS])
        out->v[CGP_S_MIN_IDLE] = out->v[CGP_S_MAX_WORKERS];
    /* suEXEC's identity decides the user, whatever a [pool] section or
     * CGIplusUser says; its checks come before each start, not allow_user. */
    out->suexec = begin ? begin->s.suexec : RUNNER_SUEXEC_NONE;
    if (out->suexec)
        out->v[CGP_S_USER] = begin->suexec_user;
    else if (out->v[CGP_S_USER] == 0)
        out->v[CGP_S_USER] = default_user(g);
    /* The program's arguments are part of its command, not a setting:
     * BEGIN's, whether or not a section sets its settings aside. */
    out->args = NULL;
    out->args_len = 0;
    if (list_copy(&out->env, &out->env_len, env_level ? env_level->s.env : NULL,
                  env_level ? env_level->s.env_len : 0) < 0 ||
        (begin && list_copy(&out->args, &out->args_len, begin->s.args, begin->s.args_len) < 0)) {
        runner_set_free(out);
        return -1;
    }
    if (!out->suexec && !user_allowed(g, out->v[CGP_S_USER])) {
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
    for (unsigned i = 0; i < CGP_S_N_; i++)
        if (cgp_settings[i].scope == CGP_SC_RUNNER && cgp_settings[i].dflt > 0)
            c->v[i] = (uint64_t)cgp_settings[i].dflt;
}

void runner_conf_free(runner_conf *c)
{
    runner_set_over_free(&c->defaults);
    for (unsigned i = 0; i < c->npools; i++) {
        free(c->pools[i].script);
        runner_set_over_free(&c->pools[i].over);
    }
    free(c->pools);
    for (unsigned i = 0; i < CGP_S_N_; i++)
        free(c->s[i]);
    runner_conf_init(c);
}

/* suEXEC's text rows (httpd writes them from its wrapper's settings): 0 if
 * v may be its value (or id is none of them), -1 with *why. */
static int suexec_path_check(int id, const char *v, const char **why)
{
    /* docroot and log absolute, userdir below a home: no way out */
    int rel = id == CGP_S_SUEXEC_USERDIR;

    if (id != CGP_S_SUEXEC_DOCROOT && id != CGP_S_SUEXEC_LOG && !rel)
        return 0;
    if (!*v || (v[0] == '/') == rel || strstr(v, "..") || strlen(v) >= PATH_MAX) {
        *why = rel ? "suexec_userdir wants a relative path without '..'"
                   : "suexec_docroot and suexec_log want an absolute path without '..'";
        return -1;
    }
    return 0;
}

/* One key of the global part. 1: not a global key. */
static int global_key(runner_conf *c, const char *k, const char *v, const char **why)
{
    int id = cgp_setting_find(k, strlen(k), CGP_SC_RUNNER), rc;
    int64_t n;

    if (id < 0)
        return 1;
    switch (cgp_settings[id].type) {
    case CGP_ST_USER: /* allow_user, repeated */
        if (c->nallow >= sizeof(c->allow) / sizeof(c->allow[0])) {
            *why = "at most 64 allow_user lines";
            return -1;
        }
        return parse_user(v, strlen(v), &c->allow[c->nallow++], why);
    case CGP_ST_STRING:
    case CGP_ST_PATH:
        if (suexec_path_check(id, v, why) < 0)
            return -1;
        free(c->s[id]);
        if (!(c->s[id] = strdup(v))) {
            *why = "out of memory";
            return -1;
        }
        return 0;
    default:
        if ((rc = cgp_setting_parse(id, v, strlen(v), &n)) < 0) {
            *why = value_why(id, rc);
            return -1;
        }
        c->v[id] = (uint64_t)n;
        return 0;
    }
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
        } else if (pool && cgp_setting_find(k, strlen(k), CGP_SC_POOL) == CGP_S_MODE) {
            rc = runner_mode_parse(v, strlen(v), 0, &pool->mode, &why);
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
    if (c->v[CGP_S_BACKOFF_MAX] < c->v[CGP_S_BACKOFF_BASE])
        c->v[CGP_S_BACKOFF_MAX] = c->v[CGP_S_BACKOFF_BASE];
    return 0;
fail:
    snprintf(err, errlen, "line %u: %s", lineno, why);
fail_quiet:
    runner_conf_free(c);
    return -1;
}
