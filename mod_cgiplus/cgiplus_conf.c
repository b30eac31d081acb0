/* cgiplus_conf.c: the directives of mod_cgiplus, their validation and their
 * defaults. Every value is checked when it is read: a bad one stops httpd
 * from starting with a sentence that says why. */
#include "cgiplus_private.h"
#include "cgiplus_static.h"

#include <pwd.h>
#include <string.h>
#include <sys/un.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_hash.h"
#include "apr_strings.h"
#include "apr_file_info.h"
#include "apr_file_io.h"
#include "apr_lib.h"
#include "ap_mpm.h"
#include <grp.h>


APLOG_USE_MODULE(cgiplus);

/* Built-in defaults: the value of every setting that no directive names.
 * The runner socket has no default here: without CGIplusRunnerSocket the
 * module starts its own runner on DefaultRuntimeDir/cgiplus-runner.sock. */
static const struct {
    const char *runner_path;   /* the runner binary the module starts */
    int max_workers;           /* the most workers of one pool (BEGIN) */
    cgiplus_mode_e mode;       /* persistent workers rather than plain CGI */
    int max_workers_total;     /* CGIplusMaxWorkersTotal */
    apr_int64_t backoff_base, backoff_max, kill_grace, callout_timeout; /* ms */
} cgiplus_defaults = {
    CGIPLUS_RUNNER_PATH,
    4,
    CGIPLUS_MODE_CGIPLUS,
    256,
    1000, 60000, 2000, 5000,
};

/* Pool settings sent in BEGIN when a directive names them; the runner's
 * own defaults (docs/RUNNER.md) apply otherwise. Index = bit in have. */
enum pool_kind { PK_COUNT, PK_TIME, PK_SIZE };
static const struct pool_key {
    const char *directive, *key;
    enum pool_kind kind;
    apr_int64_t max;
} pool_keys[] = {
    { "CGIplusMinIdle", "min_idle", PK_COUNT, 4096 },
    { "CGIplusMaxRequests", "max_requests", PK_COUNT, 4294967295LL },
    { "CGIplusMaxAge", "max_age", PK_TIME, 0 },
    { "CGIplusIdleTimeout", "idle_timeout", PK_TIME, 0 },
    { "CGIplusSpawnRate", "spawn_rate", PK_COUNT, 10000 },
    { "CGIplusQueueDepth", "queue_depth", PK_COUNT, 100000 },
    { "CGIplusQueueWait", "queue_wait", PK_TIME, 0 },
    { "CGIplusTimeoutOutput", "timeout_output", PK_TIME, 0 },
    { "CGIplusTimeoutNoProgress", "timeout_noprogress", PK_TIME, 0 },
    { "CGIplusRLimit cpu", "rlimit_cpu", PK_COUNT, 4294967295LL },
    { "CGIplusRLimit as", "rlimit_as", PK_SIZE, 0 },
    { "CGIplusRLimit nofile", "rlimit_nofile", PK_COUNT, 1 << 20 },
    { "CGIplusRLimit nproc", "rlimit_nproc", PK_COUNT, 1 << 22 },
};
#define POOL_N (int)(sizeof(pool_keys) / sizeof(pool_keys[0]))
#define POOL_MIN_IDLE 0   /* indexes the contradiction checks need */
#define POOL_QUEUE_WAIT 6
#define POOL_NOPROGRESS 8
#define POOL_RLIMIT 9 /* index of the first CGIplusRLimit key */
#define POOL_NOPROGRESS 8 /* index of CGIplusTimeoutNoProgress */

/* Pool settings of one directory; from pconf, lives one generation. */
struct cgiplus_pool_conf {
    apr_int64_t v[POOL_N];     /* counts, bytes, or ms (-1: none) */
    unsigned have;             /* bit i: v[i] was named here */
    const char *at[POOL_N];    /* "file:line" that set v[i], for warnings */
    const char *mw_at;         /* "file:line" of the CGIplusMaxWorkers in force */
    apr_array_header_t *env;   /* CGIplusSetEnv "NAME=value", NULL: not here */
    const char *user;          /* CGIplusUser as "uid:gid", NULL: not here */
};

/* Runner-wide settings (main server only); from pconf. 0: unset. */
struct cgiplus_global_conf {
    int max_workers_total;
    apr_int64_t backoff_base, backoff_max, kill_grace, callout_timeout;
    const char *spool_dir;    /* CGIplusSpoolDir, NULL: the runner's default */
    apr_int64_t spool_max;    /* CGIplusSpoolMax, bytes */
};

/* Users named by CGIplusUser anywhere in this generation: the runner may
 * run scripts as these only. Reset with pconf. */
static apr_array_header_t *cgiplus_users;

static apr_status_t users_reset(void *unused)
{
    cgiplus_users = NULL;
    return APR_SUCCESS;
}

void *cgiplus_create_server_conf(apr_pool_t *p, server_rec *s)
{
    cgiplus_server_conf *c = apr_pcalloc(p, sizeof(cgiplus_server_conf));

    c->global = apr_pcalloc(p, sizeof(*c->global));
    return c;
}

void *cgiplus_merge_server_conf(apr_pool_t *p, void *basev, void *addv)
{
    const cgiplus_server_conf *base = basev, *add = addv;
    cgiplus_server_conf *c = apr_palloc(p, sizeof(*c));

    c->runner_socket = add->runner_socket ? add->runner_socket : base->runner_socket;
    c->runner_path = add->runner_path ? add->runner_path : base->runner_path;
    c->runner_key_file = add->runner_key_file ? add->runner_key_file
                                              : base->runner_key_file;
    c->global = base->global; /* runner-wide: the main server's */
    c->static_sc = cgiplus_static_merge_sconf(p, base->static_sc, add->static_sc);
    return c;
}

void *cgiplus_create_dir_conf(apr_pool_t *p, char *dir)
{
    cgiplus_dir_conf *c = apr_pcalloc(p, sizeof(cgiplus_dir_conf));

    c->scriptlog_len = c->scriptlog_buf = -1; /* 0 is a real value */
    c->body_buffer = c->body_min_rate = -1;
    c->pool = apr_pcalloc(p, sizeof(*c->pool));
    return c;
}

static struct cgiplus_pool_conf *pool_merge(apr_pool_t *p,
                                            const struct cgiplus_pool_conf *base,
                                            const struct cgiplus_pool_conf *add)
{
    struct cgiplus_pool_conf *c = apr_pcalloc(p, sizeof(*c));
    int i;

    for (i = 0; i < POOL_N; i++) {
        c->v[i] = (add->have & (1u << i)) ? add->v[i] : base->v[i];
        c->at[i] = (add->have & (1u << i)) ? add->at[i] : base->at[i];
    }
    c->have = base->have | add->have;
    c->env = add->env ? add->env : base->env;
    c->user = add->user ? add->user : base->user;
    return c;
}

void *cgiplus_merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const cgiplus_dir_conf *base = basev, *add = addv;
    cgiplus_dir_conf *c = apr_palloc(p, sizeof(*c));

    c->max_workers = add->max_workers ? add->max_workers : base->max_workers;
    c->mode = add->mode != CGIPLUS_MODE_UNSET ? add->mode : base->mode;
    c->pool = pool_merge(p, base->pool, add->pool);
    c->pool->mw_at = add->max_workers ? add->pool->mw_at : base->pool->mw_at;
    c->compat = add->compat ? add->compat : base->compat;
    c->direct = add->direct ? add->direct : base->direct;
    c->max_header = add->max_header ? add->max_header : base->max_header;
    c->scriptlog = add->scriptlog ? add->scriptlog : base->scriptlog;
    c->scriptlog_len = add->scriptlog_len >= 0 ? add->scriptlog_len : base->scriptlog_len;
    c->scriptlog_buf = add->scriptlog_buf >= 0 ? add->scriptlog_buf : base->scriptlog_buf;
    c->body_buffer = add->body_buffer >= 0 ? add->body_buffer : base->body_buffer;
    c->body_min_rate = add->body_min_rate >= 0 ? add->body_min_rate : base->body_min_rate;
    return c;
}

const char *cgiplus_set_direct(cmd_parms *cmd, void *dcv, int on)
{
    cgiplus_dir_conf *dc = dcv;

    dc->direct = on ? 2 : 1;
    return NULL;
}

const char *cgiplus_conf_runner_path(const cgiplus_server_conf *sc)
{
    return sc->runner_path ? sc->runner_path : cgiplus_defaults.runner_path;
}

int cgiplus_conf_max_workers(const cgiplus_dir_conf *dc)
{
    return dc->max_workers ? dc->max_workers : cgiplus_defaults.max_workers;
}

const char *cgiplus_conf_mode_name(const cgiplus_dir_conf *dc)
{
    cgiplus_mode_e m = dc->mode != CGIPLUS_MODE_UNSET ? dc->mode
                                                      : cgiplus_defaults.mode;
    return m == CGIPLUS_MODE_CGI ? "cgi" : "cgiplus";
}

/* Where the directive being read is: "file:line", for warnings later. */
static const char *conf_at(cmd_parms *cmd)
{
    return cmd->directive ? apr_psprintf(cmd->pool, "%s:%d", cmd->directive->filename,
                                         cmd->directive->line_num)
                          : "(command line)";
}

/* Resolves a path against ServerRoot; NULL with *err set if it is unusable. */
static const char *conf_path(cmd_parms *cmd, const char *arg, const char **err)
{
    const char *path;

    if (!*arg) {
        *err = apr_psprintf(cmd->pool, "%s needs a path, not an empty string",
                            cmd->cmd->name);
        return NULL;
    }
    path = ap_server_root_relative(cmd->pool, arg);
    if (!path) {
        *err = apr_psprintf(cmd->pool, "%s: '%s' is not a valid path",
                            cmd->cmd->name, arg);
        return NULL;
    }
    return path;
}

static const char *set_runner_socket(cmd_parms *cmd, void *dummy, const char *arg)
{
    cgiplus_server_conf *sc =
        ap_get_module_config(cmd->server->module_config, &cgiplus_module);
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *path;
    struct sockaddr_un sun;

    if (err)
        return err;
    if (!(path = conf_path(cmd, arg, &err)))
        return err;
    if (strlen(path) >= sizeof(sun.sun_path))
        return apr_psprintf(cmd->pool, "CGIplusRunnerSocket: the path '%s' is "
                            "%" APR_SIZE_T_FMT " bytes long, but a UNIX socket "
                            "path must be shorter than %" APR_SIZE_T_FMT " bytes",
                            path, strlen(path), sizeof(sun.sun_path));
    sc->runner_socket = path;
    return NULL;
}

/* CGIplusRunnerPath, CGIplusRunnerKeyFile: a path into the server conf
 * field at cmd->info, checked once all is read (check_config, post_config). */
static const char *set_server_path(cmd_parms *cmd, void *dummy, const char *arg)
{
    cgiplus_server_conf *sc =
        ap_get_module_config(cmd->server->module_config, &cgiplus_module);
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *path;

    if (err)
        return err;
    if (!(path = conf_path(cmd, arg, &err)))
        return err;
    *(const char **)((char *)sc + (apr_size_t)cmd->info) = path;
    return NULL;
}

static const char *set_max_workers(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;
    const char *p;
    long n = 0;

    for (p = arg; *p >= '0' && *p <= '9' && n <= CGIPLUS_MAX_WORKERS; p++)
        n = n * 10 + (*p - '0');
    if (p == arg || *p || n < 1 || n > CGIPLUS_MAX_WORKERS)
        return apr_psprintf(cmd->pool, "CGIplusMaxWorkers takes a whole number "
                            "from 1 to %d, not '%s'", CGIPLUS_MAX_WORKERS, arg);
    dc->max_workers = (int)n;
    dc->pool->mw_at = conf_at(cmd);
    return NULL;
}

static const char *set_mode(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;

    if (!strcasecmp(arg, "cgiplus"))
        dc->mode = CGIPLUS_MODE_CGIPLUS;
    else if (!strcasecmp(arg, "cgi"))
        dc->mode = CGIPLUS_MODE_CGI;
    else
        return apr_psprintf(cmd->pool, "CGIplusMode takes 'cgiplus' (persistent "
                            "workers) or 'cgi' (one process per request), not '%s'",
                            arg);
    return NULL;
}

/* "none" | N[.F][ms|s|m|h] (seconds by default) -> ms, -1 for none; the
 * runner reads the same syntax. NULL, or why the value is wrong. */
static const char *parse_duration(apr_pool_t *p, const char *name, const char *arg,
                                  apr_int64_t *ms)
{
    const char *s = arg;
    apr_int64_t whole = 0, frac = 0, scale = 1, unit = 1000;
    int digits = 0;

    if (!strcasecmp(arg, "none")) {
        *ms = -1;
        return NULL;
    }
    for (; *s >= '0' && *s <= '9' && digits < 12; s++, digits++)
        whole = whole * 10 + (*s - '0');
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            if (scale < 1000000) {
                frac = frac * 10 + (*s - '0');
                scale *= 10;
            }
    if (!strcasecmp(s, "ms"))
        unit = 1;
    else if (!strcasecmp(s, "s") || !*s)
        unit = 1000;
    else if (!strcasecmp(s, "m"))
        unit = 60000;
    else if (!strcasecmp(s, "h"))
        unit = 3600000;
    else
        digits = 0;
    if (!digits)
        return apr_psprintf(p, "%s takes a duration: a number of seconds (fractions "
                            "allowed, or with a unit: 1500ms, 2s, 1.5m, 1h) or 'none', "
                            "not '%s'", name, arg);
    *ms = whole * unit + frac * unit / scale;
    if (*ms > (APR_INT64_C(1) << 40))
        return apr_psprintf(p, "%s: '%s' is too long a time", name, arg);
    if (*ms == 0)
        *ms = (whole || frac) ? 1 : -1; /* 0 means none, as in the runner */
    return NULL;
}

static const char *parse_count(apr_pool_t *p, const char *name, const char *arg,
                               apr_int64_t max, int size, apr_int64_t *out)
{
    const char *s;
    apr_int64_t v = 0, mul = 1;

    /* max 0 means no maximum: the digits still all count (only the bound
     * below stops an overflow). */
    for (s = arg; *s >= '0' && *s <= '9' && v < (APR_INT64_C(1) << 40); s++)
        v = v * 10 + (*s - '0');
    if (size && *s && !s[1] && strchr("kKmMgG", *s)) {
        mul = (*s == 'k' || *s == 'K') ? 1024 : (*s == 'm' || *s == 'M') ? 1048576
                                                                       : 1073741824;
        s++;
    }
    if (s == arg || *s || (max && v > max) || v > (APR_INT64_C(1) << 62) / mul)
        return apr_psprintf(p, "%s takes a whole number%s%s, not '%s'", name,
                            max ? apr_psprintf(p, " from 0 to %" APR_INT64_T_FMT, max) : "",
                            size ? " of bytes (K, M or G allowed)" : "", arg);
    *out = v * mul;
    return NULL;
}

static const char *pool_value(cmd_parms *cmd, struct cgiplus_pool_conf *pc, int i,
                              const char *arg)
{
    const struct pool_key *k = &pool_keys[i];
    const char *err;
    apr_int64_t v;

    if (k->kind == PK_TIME)
        err = parse_duration(cmd->pool, k->directive, arg, &v);
    else
        err = parse_count(cmd->pool, k->directive, arg, k->max, k->kind == PK_SIZE, &v);
    if (err)
        return err;
    pc->v[i] = v;
    pc->have |= 1u << i;
    pc->at[i] = conf_at(cmd);
    return NULL;
}

static const char *set_pool(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;

    return pool_value(cmd, dc->pool, (int)((const struct pool_key *)cmd->info - pool_keys), arg);
}

int cgiplus_cgi_module_loaded(void)
{
    return ap_find_linked_module("mod_cgi.c") || ap_find_linked_module("mod_cgid.c");
}

/* mod_cgi's CGIScriptTimeout and mod_cgid's CGIDScriptTimeout: how long
 * the script may write nothing, so the no-progress timeout (their syntax:
 * seconds, or ms/mi/h). httpd hands it to every module that declares it:
 * mod_cgi(d), if loaded, keeps it for what it serves; here it applies to
 * what mod_cgiplus serves. */
static const char *set_cgid_timeout(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;
    const char *u = arg;
    apr_interval_time_t t;

    while (apr_isdigit(*u))
        u++;
    /* httpd's parser takes "soon" as 0 s: only digits and a unit it knows */
    if (u == arg || u - arg > 12 || (*u && strcmp(u, "s") && strcmp(u, "ms") &&
                                     strcmp(u, "mi") && strcmp(u, "h")) ||
        ap_timeout_parameter_parse(arg, &t, "s") != APR_SUCCESS || t < 0)
        return apr_psprintf(cmd->pool, "%s takes a time in seconds (or with a "
                            "unit: 500ms, 2mi, 1h), not '%s'", cmd->cmd->name, arg);
    dc->pool->v[POOL_NOPROGRESS] = t ? (apr_int64_t)apr_time_as_msec(t) : -1;
    if (t && dc->pool->v[POOL_NOPROGRESS] == 0)
        dc->pool->v[POOL_NOPROGRESS] = 1;
    dc->pool->have |= 1u << POOL_NOPROGRESS;
    return NULL;
}

/* mod_cgid's ScriptSock names its daemon's socket: there is no such daemon
 * here (the runner's socket is DefaultRuntimeDir's, or CGIplusRunnerSocket),
 * so it is accepted for an unedited configuration and means nothing. */
static const char *set_script_sock(cmd_parms *cmd, void *dummy, const char *arg)
{
    if (!*arg)
        return "ScriptSock needs a path";
    return NULL;
}

static const char *set_rlimit(cmd_parms *cmd, void *dcv, const char *what, const char *arg)
{
    static const char *const names[] = { "cpu", "as", "nofile", "nproc" };
    cgiplus_dir_conf *dc = dcv;
    int i;

    for (i = 0; i < 4; i++)
        if (!strcasecmp(what, names[i]))
            return pool_value(cmd, dc->pool, POOL_RLIMIT + i, arg);
    return apr_psprintf(cmd->pool, "CGIplusRLimit takes cpu (seconds), as (bytes of "
                        "address space), nofile or nproc, then a number; not '%s'", what);
}

static const char *set_env(cmd_parms *cmd, void *dcv, const char *name, const char *val)
{
    cgiplus_dir_conf *dc = dcv;
    const char *s;

    for (s = name; *s; s++)
        if (!(apr_isalnum(*s) || *s == '_') || (s == name && apr_isdigit(*s)))
            return apr_psprintf(cmd->pool, "CGIplusSetEnv: '%s' is not a variable name "
                                "(letters, digits and _, not starting with a digit)", name);
    if (!*name || strlen(name) + strlen(val) + 1 > 4096 || strchr(val, '\n'))
        return "CGIplusSetEnv: NAME=value must fit 4096 bytes on one line";
    /* A section's first CGIplusSetEnv starts its own list (no inheritance
     * of single variables: the set replaces the outer one). */
    if (!dc->pool->env)
        dc->pool->env = apr_array_make(cmd->pool, 4, sizeof(const char *));
    if (dc->pool->env->nelts >= 64)
        return "CGIplusSetEnv: at most 64 variables per section";
    APR_ARRAY_PUSH(dc->pool->env, const char *) = apr_pstrcat(cmd->pool, name, "=", val, NULL);
    return NULL;
}

static const char *set_user(cmd_parms *cmd, void *dcv, const char *user, const char *group)
{
    cgiplus_dir_conf *dc = dcv;
    uid_t uid;
    gid_t gid;
    const char *v;
    int i;

    struct passwd *pw = NULL;

    /* As httpd's User: a name, or #uid. */
    if (user[0] == '#' && apr_isdigit(user[1]))
        uid = (uid_t)apr_atoi64(user + 1);
    else if ((pw = getpwnam(user)))
        uid = pw->pw_uid;
    else
        return apr_psprintf(cmd->pool, "CGIplusUser: no user '%s'", user);
    if (group) {
        struct group *gr = NULL;
        if (group[0] == '#' && apr_isdigit(group[1]))
            gid = (gid_t)apr_atoi64(group + 1);
        else if ((gr = getgrnam(group)))
            gid = gr->gr_gid;
        else
            return apr_psprintf(cmd->pool, "CGIplusUser: no group '%s'", group);
    }
    else {
        if (!pw)
            pw = getpwuid(uid);
        if (!pw)
            return apr_psprintf(cmd->pool, "CGIplusUser: user '%s' has no passwd entry; "
                                "name its group too", user);
        gid = pw->pw_gid;
    }
    if (uid == 0 || gid == 0)
        return "CGIplusUser: scripts never run as root (uid or gid 0)";
    v = apr_psprintf(cmd->pool, "%ld:%ld", (long)uid, (long)gid);
    dc->pool->user = v;
    if (!cgiplus_users) {
        cgiplus_users = apr_array_make(cmd->pool, 4, sizeof(const char *));
        apr_pool_cleanup_register(cmd->pool, NULL, users_reset, apr_pool_cleanup_null);
    }
    for (i = 0; i < cgiplus_users->nelts; i++)
        if (!strcmp(APR_ARRAY_IDX(cgiplus_users, i, const char *), v))
            return NULL;
    APR_ARRAY_PUSH(cgiplus_users, const char *) = v;
    return NULL;
}

static struct cgiplus_global_conf *global_conf(cmd_parms *cmd, const char **err)
{
    cgiplus_server_conf *sc =
        ap_get_module_config(cmd->server->module_config, &cgiplus_module);

    *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    return sc->global;
}

static const char *set_max_total(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err;
    struct cgiplus_global_conf *g = global_conf(cmd, &err);
    apr_int64_t v;

    if (err || (err = parse_count(cmd->pool, "CGIplusMaxWorkersTotal", arg, 65536, 0, &v)))
        return err;
    if (v < 1)
        return "CGIplusMaxWorkersTotal takes a whole number from 1 to 65536";
    g->max_workers_total = (int)v;
    return NULL;
}

static const char *set_backoff(cmd_parms *cmd, void *dummy, const char *base, const char *max)
{
    const char *err;
    struct cgiplus_global_conf *g = global_conf(cmd, &err);

    if (err || (err = parse_duration(cmd->pool, "CGIplusSpawnBackoff", base, &g->backoff_base)))
        return err;
    if (max && (err = parse_duration(cmd->pool, "CGIplusSpawnBackoff", max, &g->backoff_max)))
        return err;
    if (g->backoff_base < 0 || (max && g->backoff_max < g->backoff_base))
        return "CGIplusSpawnBackoff takes a first delay and an optional longest delay, "
               "not 'none', the longest no shorter than the first";
    return NULL;
}

static const char *set_kill_grace(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err;
    struct cgiplus_global_conf *g = global_conf(cmd, &err);

    if (err || (err = parse_duration(cmd->pool, "CGIplusKillGrace", arg, &g->kill_grace)))
        return err;
    if (g->kill_grace < 0)
        return "CGIplusKillGrace takes a duration, not 'none'";
    return NULL;
}

static const char *set_callout_timeout(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err;
    struct cgiplus_global_conf *g = global_conf(cmd, &err);

    if (err || (err = parse_duration(cmd->pool, "CGIplusCalloutTimeout", arg,
                                     &g->callout_timeout)))
        return err;
    if (g->callout_timeout < 0)
        return "CGIplusCalloutTimeout takes a duration, not 'none'";
    return NULL;
}

static const char *set_spool_dir(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err;
    struct cgiplus_global_conf *g = global_conf(cmd, &err);

    if (err || !(g->spool_dir = conf_path(cmd, arg, &err)))
        return err;
    return NULL;
}

static const char *set_spool_max(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err;
    struct cgiplus_global_conf *g = global_conf(cmd, &err);

    if (err || (err = parse_count(cmd->pool, "CGIplusSpoolMax", arg, 0, 1, &g->spool_max)))
        return err;
    if (g->spool_max < 1)
        return "CGIplusSpoolMax takes a number of bytes of at least 1 (K, M or G allowed)";
    return NULL;
}

/* A request body up to this is read whole before the runner sees the
 * request (mod_fcgid's FcgidMaxRequestInMem); a larger one must come at
 * this many bytes a second at least (mod_reqtimeout's body MinRate). */
#define BODY_BUFFER_DEFAULT (64 * 1024)
#define BODY_BUFFER_MAX     (16 * 1024 * 1024)
#define BODY_RATE_DEFAULT   500
#define BODY_RATE_MAX       (1024 * 1024 * 1024)

/* CGIplusBodyBuffer (cmd->info NULL) and CGIplusBodyMinRate. */
static const char *set_body(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;
    int rate = cmd->info != NULL;
    const char *name = rate ? "CGIplusBodyMinRate" : "CGIplusBodyBuffer";
    apr_int64_t v, max = rate ? BODY_RATE_MAX : BODY_BUFFER_MAX;
    const char *err = parse_count(cmd->pool, name, arg, 0, 1, &v);

    if (!err && v > max)
        err = apr_psprintf(cmd->pool, "%s takes at most %" APR_INT64_T_FMT " bytes%s, not '%s'",
                           name, max, rate ? " a second" : "", arg);
    if (err)
        return err;
    if (rate)
        dc->body_min_rate = v;
    else
        dc->body_buffer = v;
    return NULL;
}

apr_off_t cgiplus_conf_body_buffer(const cgiplus_dir_conf *dc)
{
    return dc->body_buffer >= 0 ? dc->body_buffer : BODY_BUFFER_DEFAULT;
}

apr_off_t cgiplus_conf_body_min_rate(const cgiplus_dir_conf *dc)
{
    return dc->body_min_rate >= 0 ? dc->body_min_rate : BODY_RATE_DEFAULT;
}

static const char *ms_text(apr_pool_t *p, apr_int64_t ms)
{
    return ms < 0 ? "none" : apr_psprintf(p, "%" APR_INT64_T_FMT "ms", ms);
}

int cgiplus_conf_begin(request_rec *r, const cgiplus_dir_conf *dc,
                       const char **names, const char **vals, int max)
{
    const struct cgiplus_pool_conf *pc = dc->pool;
    int i, n = 0, gen = 0;

    /* The configuration generation: after a restart, pools only older
     * generations use are retired by the runner. */
    if (ap_mpm_query(AP_MPMQ_GENERATION, &gen) == APR_SUCCESS && n < max) {
        names[n] = "generation";
        vals[n++] = apr_itoa(r->pool, gen);
    }
    if (dc->max_workers && n < max) {
        names[n] = "max_workers";
        vals[n++] = apr_itoa(r->pool, dc->max_workers);
    }
    for (i = 0; i < POOL_N && n < max; i++) {
        if (!(pc->have & (1u << i)))
            continue;
        names[n] = pool_keys[i].key;
        vals[n++] = pool_keys[i].kind == PK_TIME ? ms_text(r->pool, pc->v[i])
                    : apr_psprintf(r->pool, "%" APR_INT64_T_FMT, pc->v[i]);
    }
    if (pc->user && n < max) {
        names[n] = "user";
        vals[n++] = pc->user;
    }
    for (i = 0; pc->env && i < pc->env->nelts && n < max; i++) {
        names[n] = "env";
        vals[n++] = APR_ARRAY_IDX(pc->env, i, const char *);
    }
    return n;
}

/* The runner's level for httpd's LogLevel of this module (cgiplus:LEVEL or
 * the server's): notice keeps the runner's info chatter out, as httpd's
 * default warn does. */
static const char *runner_log_level(server_rec *s)
{
    int l = ap_get_server_module_loglevel(s, APLOG_MODULE_INDEX);

    return l <= APLOG_ERR ? "error" : l <= APLOG_NOTICE ? "warn"
           : l == APLOG_INFO ? "info" : "debug";
}

apr_status_t cgiplus_conf_write_runner(apr_pool_t *p, server_rec *s, const char *path)
{
    cgiplus_server_conf *sc = ap_get_module_config(s->module_config, &cgiplus_module);
    const struct cgiplus_global_conf *g = sc->global;
    const char *tmp = apr_pstrcat(p, path, ".new", NULL);
    apr_int64_t base = g->backoff_base > 0 ? g->backoff_base : cgiplus_defaults.backoff_base;
    apr_int64_t max = g->backoff_max > 0 ? g->backoff_max
                      : base > cgiplus_defaults.backoff_max ? base : cgiplus_defaults.backoff_max;
    apr_file_t *f;
    apr_status_t rv;
    int i;

    rv = apr_file_open(&f, tmp, APR_FOPEN_WRITE | APR_FOPEN_CREATE | APR_FOPEN_TRUNCATE,
                       APR_FPROT_UREAD | APR_FPROT_UWRITE, p);
    if (rv != APR_SUCCESS)
        return rv;
    apr_file_printf(f, "# Written by mod_cgiplus at every httpd (re)start; edits are lost.\n"
                    "# The runner reads it at start and on SIGHUP (docs/RUNNER.md).\n"
                    "max_workers_total %d\nkill_grace %" APR_INT64_T_FMT "ms\n"
                    "backoff_base %" APR_INT64_T_FMT "ms\nbackoff_max %" APR_INT64_T_FMT "ms\n"
                    "http_timeout %" APR_INT64_T_FMT "ms\n"
                    "callout_timeout %" APR_INT64_T_FMT "ms\n"
                    "log_level %s\n",
                    g->max_workers_total ? g->max_workers_total
                                         : cgiplus_defaults.max_workers_total,
                    g->kill_grace > 0 ? g->kill_grace : cgiplus_defaults.kill_grace,
                    base, max, (apr_int64_t)apr_time_as_msec(s->timeout),
                    g->callout_timeout > 0 ? g->callout_timeout
                                           : cgiplus_defaults.callout_timeout,
                    runner_log_level(s));
    for (i = 0; cgiplus_users && i < cgiplus_users->nelts; i++)
        apr_file_printf(f, "allow_user %s\n", APR_ARRAY_IDX(cgiplus_users, i, const char *));
    if (g->spool_dir)
        apr_file_printf(f, "spool_dir %s\n", g->spool_dir);
    if (g->spool_max)
        apr_file_printf(f, "spool_max %" APR_INT64_T_FMT "\n", g->spool_max);
    rv = apr_file_close(f);
    if (rv == APR_SUCCESS)
        rv = apr_file_rename(tmp, path, p);
    if (rv != APR_SUCCESS)
        apr_file_remove(tmp, p);
    return rv;
}

/* The one directive table of the module. */
const command_rec cgiplus_cmds[] = {
    AP_INIT_TAKE1("CGIplusRunnerSocket", set_runner_socket, NULL, RSRC_CONF,
                  "path of the socket of a separately started cgiplus-runner; "
                  "without it the module starts its own runner"),
    AP_INIT_TAKE1("CGIplusRunnerPath", set_server_path,
                  (void *)APR_OFFSETOF(cgiplus_server_conf, runner_path), RSRC_CONF,
                  "the cgiplus-runner binary the module starts"),
    AP_INIT_TAKE1("CGIplusRunnerKeyFile", set_server_path,
                  (void *)APR_OFFSETOF(cgiplus_server_conf, runner_key_file), RSRC_CONF,
                  "a file (mode 0600, read as root at startup) holding the key "
                  "that lets httpd talk to the runner: 64 hex digits; required "
                  "with CGIplusRunnerSocket, else a random key is made"),
    AP_INIT_TAKE1("CGIplusMaxWorkers", set_max_workers, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the most persistent workers of one script (1-4096)"),
    AP_INIT_TAKE1("CGIplusMode", set_mode, NULL, RSRC_CONF | ACCESS_CONF,
                  "'cgiplus' (persistent workers) or 'cgi' (one process per request)"),
    AP_INIT_TAKE1("CGIplusMinIdle", set_pool, (void *)&pool_keys[0], RSRC_CONF | ACCESS_CONF,
                  "idle workers of a pool kept warm (0-4096)"),
    AP_INIT_TAKE1("CGIplusMaxRequests", set_pool, (void *)&pool_keys[1], RSRC_CONF | ACCESS_CONF,
                  "requests a worker serves before it is replaced (0: no limit)"),
    AP_INIT_TAKE1("CGIplusMaxAge", set_pool, (void *)&pool_keys[2], RSRC_CONF | ACCESS_CONF,
                  "how long a worker lives before it is replaced (duration or none)"),
    AP_INIT_TAKE1("CGIplusIdleTimeout", set_pool, (void *)&pool_keys[3], RSRC_CONF | ACCESS_CONF,
                  "how long a worker may stay idle (CGIplus LIFETIME; duration or none)"),
    AP_INIT_TAKE1("CGIplusSpawnRate", set_pool, (void *)&pool_keys[4], RSRC_CONF | ACCESS_CONF,
                  "workers a pool may start per second (0: no limit)"),
    AP_INIT_TAKE1("CGIplusQueueDepth", set_pool, (void *)&pool_keys[5], RSRC_CONF | ACCESS_CONF,
                  "requests that may wait for a busy pool (0: none wait)"),
    AP_INIT_TAKE1("CGIplusQueueWait", set_pool, (void *)&pool_keys[6], RSRC_CONF | ACCESS_CONF,
                  "how long a request may wait for a worker (duration or none)"),
    AP_INIT_TAKE1("CGIplusTimeoutOutput", set_pool, (void *)&pool_keys[7], RSRC_CONF | ACCESS_CONF,
                  "how long a script may take for one response (duration or none)"),
    AP_INIT_TAKE1("CGIplusTimeoutNoProgress", set_pool, (void *)&pool_keys[8],
                  RSRC_CONF | ACCESS_CONF,
                  "how long a script may write nothing during a request (duration or none)"),
    AP_INIT_TAKE2("CGIplusRLimit", set_rlimit, NULL, RSRC_CONF | ACCESS_CONF,
                  "a resource limit of the workers: cpu, as, nofile or nproc, then a number"),
    AP_INIT_TAKE2("CGIplusSetEnv", set_env, NULL, RSRC_CONF | ACCESS_CONF,
                  "a variable in the workers' environment: NAME value"),
    AP_INIT_TAKE12("CGIplusUser", set_user, NULL, RSRC_CONF | ACCESS_CONF,
                   "the user (and group) scripts run as; default httpd's User and Group"),
    AP_INIT_TAKE1("CGIplusMaxWorkersTotal", set_max_total, NULL, RSRC_CONF,
                  "the most worker processes of the runner across all pools"),
    AP_INIT_TAKE12("CGIplusSpawnBackoff", set_backoff, NULL, RSRC_CONF,
                   "crash-loop backoff: first delay and longest delay"),
    AP_INIT_TAKE1("CGIplusKillGrace", set_kill_grace, NULL, RSRC_CONF,
                  "time between SIGTERM and SIGKILL when a worker is stopped"),
    AP_INIT_TAKE1("CGIplusSpoolDir", set_spool_dir, NULL, RSRC_CONF,
                  "the directory (made 0700 by the runner) where the runner spools "
                  "request bodies; default DefaultRuntimeDir/cgiplus-spool"),
    AP_INIT_TAKE1("CGIplusSpoolMax", set_spool_max, NULL, RSRC_CONF,
                  "the most bytes of one request body the runner spools to disk; a "
                  "chunked body needing more is answered 413 (K, M or G allowed)"),
    AP_INIT_TAKE1("CGIplusCalloutTimeout", set_callout_timeout, NULL, RSRC_CONF,
                  "how long a script's MAP-PATH or LOG callout waits for httpd's answer"),
    AP_INIT_FLAG("CGIplusDirect", cgiplus_set_direct, NULL, RSRC_CONF | ACCESS_CONF,
                 "On: the httpd child talks to an idle persistent worker itself (the "
                 "direct path); Off: every request goes through the runner"),
    AP_INIT_FLAG("CGIplusCompat", cgiplus_set_compat, NULL, RSRC_CONF | ACCESS_CONF,
                 "On: serve the cgi-script handler (mod_cgi/mod_cgid) here through "
                 "the runner, as plain CGI unless CGIplusMode says otherwise"),
    AP_INIT_TAKE1("CGIplusBodyBuffer", set_body, NULL, RSRC_CONF | ACCESS_CONF,
                  "a request body up to this many bytes is read whole before a "
                  "worker is taken (0 to 16M, K or M allowed)"),
    AP_INIT_TAKE1("CGIplusBodyMinRate", set_body, (void *)1, RSRC_CONF | ACCESS_CONF,
                  "bytes a second a larger request body must keep, else 408 (0: none)"),
    AP_INIT_TAKE1("CGIplusMaxHeaderSize", cgiplus_set_max_header, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the most bytes of a script's CGI header block (1024-1048576)"),
    AP_INIT_TAKE1("CGIplusScriptLog", cgiplus_set_scriptlog, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "file logging failed script requests (as mod_cgi's ScriptLog), "
                  "or 'none'"),
    AP_INIT_TAKE1("CGIplusScriptLogLength", cgiplus_set_scriptlog_len, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the script log is written only while smaller than this (bytes)"),
    AP_INIT_TAKE1("CGIplusScriptLogBuffer", cgiplus_set_scriptlog_buf, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the most request body bytes written to the script log"),
    /* mod_cgi's and mod_cgid's names: a configuration written for them
     * starts unedited. Where they are loaded too, httpd hands these to
     * them as well: ScriptLog* are theirs then (docs/cgi-compat.md). */
    AP_INIT_TAKE1("ScriptLog", cgiplus_set_cgi_scriptlog, NULL, RSRC_CONF,
                  "mod_cgi's script log (without mod_cgi/mod_cgid: "
                  "CGIplusScriptLog for this server)"),
    AP_INIT_TAKE1("ScriptLogLength", cgiplus_set_cgi_scriptlog, (void *)1, RSRC_CONF,
                  "mod_cgi's ScriptLogLength (CGIplusScriptLogLength)"),
    AP_INIT_TAKE1("ScriptLogBuffer", cgiplus_set_cgi_scriptlog, (void *)2, RSRC_CONF,
                  "mod_cgi's ScriptLogBuffer (CGIplusScriptLogBuffer)"),
    AP_INIT_TAKE1("CGIDScriptTimeout", set_cgid_timeout, NULL, RSRC_CONF | ACCESS_CONF,
                  "mod_cgid's script timeout: CGIplusTimeoutNoProgress"),
    AP_INIT_TAKE1("CGIScriptTimeout", set_cgid_timeout, NULL, RSRC_CONF | ACCESS_CONF,
                  "mod_cgi's script timeout: CGIplusTimeoutNoProgress"),
    AP_INIT_TAKE1("ScriptSock", set_script_sock, NULL, RSRC_CONF,
                  "mod_cgid's daemon socket: accepted, no meaning here"),
    CGIPLUS_STATIC_CMDS,
    { NULL }
};

/* ---- contradictions: warnings at configtest and at every (re)start ---- */

/* One warning per directive line, however many sections inherit it. */
static void warn_once(apr_hash_t *seen, server_rec *s, const char *at, const char *msg)
{
    if (apr_hash_get(seen, at, APR_HASH_KEY_STRING))
        return;
    apr_hash_set(seen, at, APR_HASH_KEY_STRING, msg);
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, CGIPLUS_LOGNO(1611) "%s", msg);
}

/* The settings in force in one section (dc merged with its server's). */
static void warn_section(apr_pool_t *p, apr_hash_t *seen, server_rec *s,
                         const cgiplus_dir_conf *dc, int total)
{
    const struct cgiplus_pool_conf *pc = dc->pool;
    int mw = cgiplus_conf_max_workers(dc);
    const char *mw_from = dc->max_workers ? apr_psprintf(p, "CGIplusMaxWorkers %d (%s)", mw,
                                                         pc->mw_at)
                                          : apr_psprintf(p, "the default CGIplusMaxWorkers %d", mw);
    apr_int64_t timeout_ms = apr_time_as_msec(s->timeout);
    static const int below_timeout[] = { POOL_QUEUE_WAIT, POOL_NOPROGRESS };
    int i;

    const char *mi_at = pc->at[POOL_MIN_IDLE];
    apr_int64_t mi = (pc->have & (1u << POOL_MIN_IDLE)) ? pc->v[POOL_MIN_IDLE] : 0;

    if (mi > mw)
        warn_once(seen, s, mi_at, apr_psprintf(p, "%s: CGIplusMinIdle %" APR_INT64_T_FMT
                  " is more than %s: at most %d workers are kept warm", mi_at, mi, mw_from, mw));
    if (mi > total)
        warn_once(seen, s, apr_pstrcat(p, mi_at, "/total", NULL), apr_psprintf(p,
                  "%s: CGIplusMinIdle %" APR_INT64_T_FMT " is more than CGIplusMaxWorkersTotal "
                  "%d: the runner never runs that many workers", mi_at, mi, total));
    if (dc->max_workers > total)
        warn_once(seen, s, pc->mw_at, apr_psprintf(p, "%s: CGIplusMaxWorkers %d is more than "
                  "CGIplusMaxWorkersTotal %d: the pool never reaches it", pc->mw_at, mw, total));
    for (i = 0; i < 2; i++) {
        int k = below_timeout[i];

        if ((pc->have & (1u << k)) && pc->v[k] >= timeout_ms)
            warn_once(seen, s, pc->at[k], apr_psprintf(p, "%s: %s %s is "
                      "not below httpd's Timeout (%" APR_INT64_T_FMT " s in %s): httpd gives up "
                      "on the runner first and the client gets httpd's 504 instead of the "
                      "runner's answer; set it below Timeout",
                      pc->at[k], pool_keys[k].directive,
                      pc->v[k] % 1000 ? ms_text(p, pc->v[k])
                                      : apr_psprintf(p, "%" APR_INT64_T_FMT "s", pc->v[k] / 1000),
                      timeout_ms / 1000,
                      s->is_virtual ? "this virtual host" : "the main server"));
    }
}

/* A section's settings merged onto base; a section that names none of
 * this module's directives has no configuration of ours. */
static cgiplus_dir_conf *section_conf(apr_pool_t *p, cgiplus_dir_conf *base,
                                      ap_conf_vector_t *v)
{
    cgiplus_dir_conf *add = ap_get_module_config(v, &cgiplus_module);

    return add ? cgiplus_merge_dir_conf(p, base, add) : base;
}

/* Walks every server's defaults and its <Directory>/<Location> sections
 * (with their <Files>), each merged with the server's own settings. */
static void warn_contradictions(apr_pool_t *p, server_rec *main_s)
{
    cgiplus_server_conf *msc = ap_get_module_config(main_s->module_config, &cgiplus_module);
    int total = msc->global->max_workers_total ? msc->global->max_workers_total
                                               : cgiplus_defaults.max_workers_total;
    apr_hash_t *seen = apr_hash_make(p);
    server_rec *s;
    int i, j, k;

    for (s = main_s; s; s = s->next) {
        core_server_config *csc = ap_get_core_module_config(s->module_config);
        cgiplus_dir_conf *base = ap_get_module_config(s->lookup_defaults, &cgiplus_module);
        apr_array_header_t *secs[2] = { csc->sec_dir, csc->sec_url };

        if (!base)
            continue;
        warn_section(p, seen, s, base, total);
        for (k = 0; k < 2; k++) {
            for (i = 0; secs[k] && i < secs[k]->nelts; i++) {
                ap_conf_vector_t *v = APR_ARRAY_IDX(secs[k], i, ap_conf_vector_t *);
                cgiplus_dir_conf *dc = section_conf(p, base, v);
                core_dir_config *cdc = ap_get_core_module_config(v);

                warn_section(p, seen, s, dc, total);
                for (j = 0; cdc && cdc->sec_file && j < cdc->sec_file->nelts; j++)
                    warn_section(p, seen, s, section_conf(p, dc, APR_ARRAY_IDX(cdc->sec_file, j,
                                 ap_conf_vector_t *)), total);
            }
        }
    }
}

/* Checks what can only be checked once the whole configuration is read. */
int cgiplus_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                         apr_pool_t *ptemp, server_rec *s)
{
    cgiplus_server_conf *sc = ap_get_module_config(s->module_config,
                                                   &cgiplus_module);
    const char *bin = cgiplus_conf_runner_path(sc);
    const char *sock;
    struct sockaddr_un sun;
    apr_finfo_t fi;
    apr_status_t rv;

    if (sc->runner_socket && !sc->runner_key_file) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1203) "mod_cgiplus: CGIplusRunnerSocket needs "
                     "CGIplusRunnerKeyFile: the runner accepts only connections "
                     "that prove the key its key_file holds (docs/RUNNER.md)");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    warn_contradictions(ptemp, s);
    if (sc->runner_socket)
        return OK; /* a runner started by someone else: nothing to start */

    rv = apr_stat(&fi, bin, APR_FINFO_TYPE | APR_FINFO_PROT, ptemp);
    if (rv != APR_SUCCESS || fi.filetype != APR_REG ||
        !(fi.protection & (APR_FPROT_UEXECUTE | APR_FPROT_GEXECUTE |
                           APR_FPROT_WEXECUTE))) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, rv, s,
                     CGIPLUS_LOGNO(1001) "mod_cgiplus cannot start the runner: "
                     "'%s' is not an executable file; install cgiplus-runner, "
                     "point CGIplusRunnerPath at it, or name an already running "
                     "runner with CGIplusRunnerSocket", bin);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    sock = ap_runtime_dir_relative(ptemp, CGIPLUS_SOCK_NAME);
    if (!sock || strlen(sock) >= sizeof(sun.sun_path)) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1002) "mod_cgiplus: the runner socket path "
                     "'%s' is too long for a UNIX socket (at most %" APR_SIZE_T_FMT
                     " bytes); choose a shorter DefaultRuntimeDir",
                     sock ? sock : "(invalid)", sizeof(sun.sun_path) - 1);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}
