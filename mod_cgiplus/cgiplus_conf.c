/* cgiplus_conf.c: the directives of mod_cgiplus, their validation and their
 * defaults. Each setting is a row of the shared table (include/
 * cgp_settings.def): the directive's entry, its parsing, its refusal, its
 * merging and its default all come from the row. Every value is checked
 * when it is read: a bad one stops httpd from starting with a sentence that
 * says why. */
#include "cgiplus_conf.h"
#include "cgiplus_engine.h"
#include "cgiplus_module.h"
#include "cgiplus_runner.h"
#include "cgiplus_static.h"
#include "cgp_defaults.h"

#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

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
#include "unixd.h"
#include <grp.h>


APLOG_USE_MODULE(cgiplus);

/* Users named by CGIplusUser anywhere in this generation: the runner may
 * run scripts as these only. Reset with pconf. */
static apr_array_header_t *cgiplus_users;

static apr_status_t users_reset(void *unused)
{
    cgiplus_users = NULL;
    return APR_SUCCESS;
}

static cgiplus_settings *settings_make(apr_pool_t *p)
{
    cgiplus_settings *c = apr_palloc(p, sizeof(*c));
    int i;

    for (i = 0; i < CGP_S_N_; i++) {
        c->v[i].n = CGP_UNSET;
        c->v[i].p = c->v[i].at = NULL;
    }
    c->named = 0;
    return c;
}

void *cgiplus_create_server_conf(apr_pool_t *p, server_rec *s)
{
    cgiplus_server_conf *c = apr_pcalloc(p, sizeof(cgiplus_server_conf));

    c->global = settings_make(p);
    return c;
}

void *cgiplus_merge_server_conf(apr_pool_t *p, void *basev, void *addv)
{
    const cgiplus_server_conf *base = basev, *add = addv;
    cgiplus_server_conf *c = apr_palloc(p, sizeof(*c));

    c->global = base->global; /* main server only: the main server's */
    c->fcgid_queue_wait = c->fcgid_queue_depth = c->php_queue_wait = c->engine_site = NULL; /* post_config's */
    c->vh_noprogress = c->vh_queue_wait = NULL;
    c->static_sc = cgiplus_static_merge_sconf(p, base->static_sc, add->static_sc);
    return c;
}

void *cgiplus_create_dir_conf(apr_pool_t *p, char *dir)
{
    return settings_make(p);
}

/* What a section names wins; the rest comes from the section around it.
 * A list's entries follow the outer section's (CGP_SF_LIST). */
void *cgiplus_merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const cgiplus_settings *base = basev, *add = addv;
    cgiplus_settings *c;
    int i;

    /* Most sections of a request's walk name no CGIplus row: settings
     * never change after configuration, so either side serves as is. */
    if (!add->named)
        return basev;
    if (!base->named)
        return addv;
    c = apr_palloc(p, sizeof(*c));
    c->named = base->named + add->named;
    for (i = 0; i < CGP_S_N_; i++) {
        c->v[i] = add->v[i].n != CGP_UNSET ? add->v[i] : base->v[i];
        if ((cgp_settings[i].flags & CGP_SF_LIST) && add->v[i].n > 0 && base->v[i].n > 0)
            c->v[i].p = apr_array_append(p, base->v[i].p, add->v[i].p);
    }
    return c;
}

/* ---- getters ---- */

static cgiplus_settings *global_of(server_rec *s)
{
    cgiplus_server_conf *sc = ap_get_module_config(s->module_config, &cgiplus_module);

    return sc->global;
}

static apr_int64_t val_i(const cgiplus_settings *c, cgp_setting_id id)
{
    return c->v[id].n != CGP_UNSET ? c->v[id].n : cgp_settings[id].dflt;
}

static const char *val_s(const cgiplus_settings *c, cgp_setting_id id)
{
    return c->v[id].n > 0 ? c->v[id].p : NULL;
}

apr_int64_t cgiplus_conf_geti(const cgiplus_dir_conf *dc, cgp_setting_id id)
{
    return val_i(dc, id);
}

const char *cgiplus_conf_gets(const cgiplus_dir_conf *dc, cgp_setting_id id)
{
    return val_s(dc, id);
}

int cgiplus_conf_named(const cgiplus_dir_conf *dc, cgp_setting_id id)
{
    return dc->v[id].n != CGP_UNSET;
}

apr_int64_t cgiplus_conf_sgeti(server_rec *s, cgp_setting_id id)
{
    return val_i(global_of(s), id);
}

const char *cgiplus_conf_sgets(server_rec *s, cgp_setting_id id)
{
    return val_s(global_of(s), id);
}

void cgiplus_conf_sset(server_rec *s, cgp_setting_id id, apr_int64_t n, const void *p)
{
    cgiplus_val *v = &global_of(s)->v[id];

    v->n = n;
    v->p = p;
    v->at = NULL;
}

const char *cgiplus_conf_runner_path(server_rec *s)
{
    const char *path = cgiplus_conf_sgets(s, CGP_S_RUNNER_PATH);

    return path ? path : CGIPLUS_RUNNER_PATH;
}

/* ---- reading a directive ---- */

/* Where the directive being read is: "file:line", for warnings later. */
static const char *conf_at(cmd_parms *cmd)
{
    return cmd->directive ? apr_psprintf(cmd->pool, "%s:%d", cmd->directive->filename,
                                         cmd->directive->line_num)
                          : "(command line)";
}

/* The settings a directive of row id goes into: the directory's, or for
 * runner-wide and server rows the main server's (NULL and *err elsewhere). */
static cgiplus_settings *conf_target(cmd_parms *cmd, void *dcv, cgp_setting_id id,
                                     const char **err)
{
    unsigned scope = cgp_settings[id].scope;

    if (scope == CGP_SC_POOL || scope == CGP_SC_DIR)
        return dcv;
    if ((*err = ap_check_cmd_context(cmd, GLOBAL_ONLY)) != NULL)
        return NULL;
    return global_of(cmd->server);
}

static void conf_put(cmd_parms *cmd, cgiplus_settings *c, cgp_setting_id id, apr_int64_t n,
                     const void *p)
{
    if (c->v[id].n == CGP_UNSET)
        c->named++;
    c->v[id].n = n;
    c->v[id].p = p;
    c->v[id].at = conf_at(cmd);
}

const char *cgiplus_conf_store(cmd_parms *cmd, void *dcv, cgp_setting_id id, apr_int64_t n,
                               const void *p)
{
    const char *err = NULL;
    cgiplus_settings *c = conf_target(cmd, dcv, id, &err);

    if (c)
        conf_put(cmd, c, id, n, p);
    return err;
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

/* "'a' (what a is), 'b' (...) or 'c' (...)": the names an enum row takes
 * (up to its max). */
static const char *enum_text(apr_pool_t *p, const cgp_setting *d)
{
    const char *t = "";
    int i;

    for (i = 0; i <= d->max; i++)
        t = apr_psprintf(p, "%s%s'%s' (%s)", t, !i ? "" : i < d->max ? ", " : " or ",
                         d->names[i].name, d->names[i].what);
    return t;
}

/* Reads arg as a value of number row id: NULL, or the refusal, which says
 * name (the directive, as its user wrote it). */
static const char *conf_number(cmd_parms *cmd, cgp_setting_id id, const char *name,
                               const char *arg, apr_int64_t *out)
{
    const cgp_setting *d = &cgp_settings[id];
    apr_pool_t *p = cmd->pool;
    int rc = cgp_setting_parse(id, arg, strlen(arg), out);
    char t[24];

    if (rc == 0)
        return NULL;
    switch (d->type) {
    case CGP_ST_COUNT:
        return apr_psprintf(p, "%s takes a whole number from %" APR_INT64_T_FMT " to %"
                            APR_INT64_T_FMT "%s, not '%s'", name, d->min, d->max,
                            d->flags & CGP_SF_NONE ? ", or 'none'" : "", arg);
    case CGP_ST_SIZE:
        if (d->flags & CGP_SF_NONE) {
            cgp_size_text(d->min, t);
            return apr_psprintf(p, "%s takes a size of at least %s (K, M or G allowed) or "
                                "'none', not '%s'", name, t, arg);
        }
        if (rc == CGP_SE_HIGH)
            return apr_psprintf(p, "%s takes at most %s, not '%s'", name, d->most ? d->most
                                : apr_psprintf(p, "%" APR_INT64_T_FMT " bytes", d->max), arg);
        if (rc == CGP_SE_LOW)
            return apr_psprintf(p, "%s takes a number of bytes of at least %" APR_INT64_T_FMT
                                " (K, M or G allowed)", name, d->min);
        return apr_psprintf(p, "%s takes a whole number of bytes (K, M or G allowed), "
                            "not '%s'", name, arg);
    case CGP_ST_DURATION:
        if (rc == CGP_SE_LOW && d->min > 1)
            return apr_psprintf(p, "%s takes a duration of at least %" APR_INT64_T_FMT "ms%s, "
                                "not '%s'", name, d->min,
                                d->flags & CGP_SF_NONE ? ", or 'none'" : "", arg);
        if (rc == CGP_SE_LOW)
            return apr_psprintf(p, "%s takes a duration, not 'none'", name);
        if (rc == CGP_SE_HIGH)
            return apr_psprintf(p, "%s: '%s' is too long a time", name, arg);
        return apr_psprintf(p, "%s takes a duration: a number of seconds (fractions "
                            "allowed, or with a unit: 1500ms, 2s, 1.5m, 1h) or 'none', "
                            "not '%s'", name, arg);
    case CGP_ST_ENUM:
        return apr_psprintf(p, "%s takes %s, not '%s'", name, enum_text(p, d), arg);
    default:
        return apr_psprintf(p, "%s: '%s' is not a value it takes", name, arg);
    }
}

/* Any row whose directive takes one value: a number, or a path. cmd->info
 * is the row's id. */
const char *cgiplus_conf_set(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgp_setting_id id = (cgp_setting_id)(intptr_t)cmd->info;
    const char *err = NULL, *path = NULL;
    cgiplus_settings *c = conf_target(cmd, dcv, id, &err);
    apr_int64_t n = 1;

    if (!c)
        return err;
    if (cgp_settings[id].type == CGP_ST_PATH)
        path = conf_path(cmd, arg, &err);
    else
        err = conf_number(cmd, id, cmd->cmd->name, arg, &n);
    if (err)
        return err;
    conf_put(cmd, c, id, n, path);
    return NULL;
}

/* On or Off, any case, as httpd's flags; one word only (TAKE1) */
const char *cgiplus_conf_set_flag(cmd_parms *cmd, void *dcv, const char *arg)
{
    int on = !strcasecmp(arg, "on");

    if (!on && strcasecmp(arg, "off"))
        return apr_pstrcat(cmd->pool, cmd->cmd->name, " must be On or Off", NULL);
    return cgiplus_conf_store(cmd, dcv, (cgp_setting_id)(intptr_t)cmd->info, on, NULL);
}

const char *cgiplus_conf_set_runner_socket(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *err = NULL, *path;
    cgiplus_settings *c = conf_target(cmd, dcv, CGP_S_RUNNER_SOCKET, &err);
    struct sockaddr_un sun;

    if (!c || !(path = conf_path(cmd, arg, &err)))
        return err;
    if (strlen(path) >= sizeof(sun.sun_path))
        return apr_psprintf(cmd->pool, "CGIplusRunnerSocket: the path '%s' is "
                            "%" APR_SIZE_T_FMT " bytes long, but a UNIX socket "
                            "path must be shorter than %" APR_SIZE_T_FMT " bytes",
                            path, strlen(path), sizeof(sun.sun_path));
    conf_put(cmd, c, CGP_S_RUNNER_SOCKET, 1, path);
    return NULL;
}

/* CGIplusRunnerUser NAME|#UID: who a runner started on its own may run
 * as, besides root (the module checks its peer before it sends the key). */
const char *cgiplus_conf_set_runner_user(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *err = NULL;
    cgiplus_settings *c = conf_target(cmd, dcv, CGP_S_RUNNER_USER, &err);
    struct passwd *pw;
    uid_t uid;

    if (!c)
        return err;
    if (arg[0] == '#') {
        const char *p;
        unsigned long n = 0;

        for (p = arg + 1; *p >= '0' && *p <= '9' && n <= 0xffffffffUL; p++)
            n = n * 10 + (unsigned long)(*p - '0');
        if (p == arg + 1 || *p || n >= 0xffffffffUL)
            return apr_psprintf(cmd->pool, "CGIplusRunnerUser takes a user name or #UID "
                                "(a number), not '%s'", arg);
        uid = (uid_t)n;
    }
    else if ((pw = getpwnam(arg)) != NULL) {
        uid = pw->pw_uid;
    }
    else {
        return apr_psprintf(cmd->pool, "CGIplusRunnerUser: there is no user named '%s' "
                            "(a user name, or #UID)", arg);
    }
    conf_put(cmd, c, CGP_S_RUNNER_USER, (apr_int64_t)uid, NULL);
    return NULL;
}

int cgiplus_cgi_module_loaded(void)
{
    return ap_find_linked_module("mod_cgi.c") || ap_find_linked_module("mod_cgid.c");
}

/* mod_cgi's CGIScriptTimeout and mod_cgid's CGIDScriptTimeout: how long
 * the script may write nothing, so the no-progress timeout (their syntax:
 * seconds, or ms/mi/h). httpd hands it to every module that declares it:
 * mod_cgi(d), if loaded, keeps it for what it serves; here it applies to
 * what mod_cgiplus serves. 0 is their "not set" (httpd's Timeout): ours is
 * not set either, so the default applies. */
const char *cgiplus_conf_set_cgid_timeout(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *u = arg;
    apr_interval_time_t t;
    apr_int64_t ms;
    int strict;

    while (apr_isdigit(*u))
        u++;
    /* httpd's parser takes "soon" as 0 s and "5min" as 5 minutes: only
     * digits and a unit it knows, unless mod_cgi(d) is loaded beside us
     * and takes the rest, which must not stop httpd then */
    strict = u > arg && u - arg <= 12 && (!*u || !strcmp(u, "s") || !strcmp(u, "ms") ||
                                          !strcmp(u, "mi") || !strcmp(u, "h"));
    if ((!strict && !cgiplus_cgi_module_loaded()) ||
        ap_timeout_parameter_parse(arg, &t, "s") != APR_SUCCESS || t < 0)
        return apr_psprintf(cmd->pool, "%s takes a time in seconds (or with a "
                            "unit: 500ms, 2mi, 1h), not '%s'", cmd->cmd->name, arg);
    if (t == 0)
        return NULL;
    ms = (apr_int64_t)apr_time_as_msec(t);
    if (ms > CGP_MS_MAX)
        return apr_psprintf(cmd->pool, "%s: '%s' is too long a time", cmd->cmd->name, arg);
    if (ms == 0)
        ms = 1; /* 0 means none */
    return cgiplus_conf_store(cmd, dcv, CGP_S_TIMEOUT_NOPROGRESS, ms, NULL);
}

/* mod_cgid's ScriptSock names its daemon's socket: there is no such daemon
 * here (the runner's socket is DefaultRuntimeDir's, or CGIplusRunnerSocket),
 * so it is accepted for an unedited configuration and means nothing. Where
 * mod_cgid refuses it (in a <VirtualHost>), so does this. */
const char *cgiplus_conf_set_script_sock(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    (void)dummy;
    if (err)
        return err;
    if (!*arg || !ap_server_root_relative(cmd->temp_pool, arg))
        return apr_psprintf(cmd->pool, "ScriptSock needs a path, not '%s'", arg);
    return NULL;
}

/* CGIplusRLimit cpu|as|nofile|nproc N: the rows from CGP_S_RLIMIT_CPU on. */
const char *cgiplus_conf_set_rlimit(cmd_parms *cmd, void *dcv, const char *what, const char *arg)
{
    static const char *const names[] = { "cpu", "as", "nofile", "nproc" };
    cgp_setting_id id;
    apr_int64_t n;
    const char *err;
    int i;

    for (i = 0; i < 4; i++)
        if (!strcasecmp(what, names[i])) {
            id = (cgp_setting_id)(CGP_S_RLIMIT_CPU + i);
            err = conf_number(cmd, id, apr_pstrcat(cmd->pool, "CGIplusRLimit ", names[i],
                                                   NULL), arg, &n);
            return err ? err : cgiplus_conf_store(cmd, dcv, id, n, NULL);
        }
    return apr_psprintf(cmd->pool, "CGIplusRLimit takes cpu (seconds), as (bytes of "
                        "address space), nofile or nproc, then a number; not '%s'", what);
}

const char *cgiplus_conf_set_env(cmd_parms *cmd, void *dcv, const char *name, const char *val)
{
    cgiplus_dir_conf *dc = dcv;
    cgiplus_val *e = &dc->v[CGP_S_ENV];
    apr_array_header_t *env;
    const char *s;

    for (s = name; *s; s++)
        if (!(apr_isalnum(*s) || *s == '_') || (s == name && apr_isdigit(*s)))
            return apr_psprintf(cmd->pool, "CGIplusSetEnv: '%s' is not a variable name "
                                "(letters, digits and _, not starting with a digit)", name);
    if (!*name || strlen(name) + strlen(val) + 1 > 4096 || strchr(val, '\n'))
        return "CGIplusSetEnv: NAME=value must fit 4096 bytes on one line";
    /* A section's first CGIplusSetEnv starts its own list (no inheritance
     * of single variables: the set replaces the outer one). */
    env = e->n != CGP_UNSET ? (apr_array_header_t *)e->p
                            : apr_array_make(cmd->pool, 4, sizeof(const char *));
    if (env->nelts >= 64)
        return "CGIplusSetEnv: at most 64 variables per section";
    APR_ARRAY_PUSH(env, const char *) = apr_pstrcat(cmd->pool, name, "=", val, NULL);
    return cgiplus_conf_store(cmd, dcv, CGP_S_ENV, 1, env);
}

/* "#N": N all digits, 0 to 2147483647 (the runner's most: uid_t's -1 is
 * no id, and "#12abc" is a typo, not 12); -1 if not. */
static apr_int64_t conf_hash_id(const char *s)
{
    apr_int64_t n = 0;

    if (*s++ != '#' || !*s)
        return -1;
    for (; *s; s++) {
        if (!apr_isdigit(*s) || (n = n * 10 + (*s - '0')) > 2147483647)
            return -1;
    }
    return n;
}

const char *cgiplus_conf_set_user(cmd_parms *cmd, void *dcv, const char *user, const char *group)
{
    uid_t uid;
    gid_t gid;
    const char *v;
    apr_int64_t id;
    int i;

    struct passwd *pw = NULL;

    /* As httpd's User: a name, or #uid. */
    if (user[0] == '#') {
        if ((id = conf_hash_id(user)) < 0)
            return apr_psprintf(cmd->pool, "CGIplusUser takes a user name or #UID (0 to "
                                "2147483647), not '%s'", user);
        uid = (uid_t)id;
    }
    else if ((pw = getpwnam(user)))
        uid = pw->pw_uid;
    else
        return apr_psprintf(cmd->pool, "CGIplusUser: no user '%s'", user);
    if (group) {
        struct group *gr = NULL;
        if (group[0] == '#') {
            if ((id = conf_hash_id(group)) < 0)
                return apr_psprintf(cmd->pool, "CGIplusUser takes a group name or #GID (0 to "
                                    "2147483647) after the user, not '%s'", group);
            gid = (gid_t)id;
        }
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
    cgiplus_conf_store(cmd, dcv, CGP_S_USER, 1, v);
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

/* CGIplusSpawnBackoff FIRST [LONGEST]: rows backoff_base and backoff_max. */
const char *cgiplus_conf_set_backoff(cmd_parms *cmd, void *dcv, const char *base, const char *max)
{
    const char *err = NULL, *name = cmd->cmd->name;
    cgiplus_settings *c = conf_target(cmd, dcv, CGP_S_BACKOFF_BASE, &err);
    apr_int64_t b = 0, m = 0;
    int rb, rm = 0;

    if (!c)
        return err;
    rb = cgp_setting_parse(CGP_S_BACKOFF_BASE, base, strlen(base), &b);
    if (max)
        rm = cgp_setting_parse(CGP_S_BACKOFF_MAX, max, strlen(max), &m);
    /* a malformed delay says so; 'none' (below the least) gets the sentence below */
    if (rb && rb != CGP_SE_LOW)
        return conf_number(cmd, CGP_S_BACKOFF_BASE, name, base, &b);
    if (rm && rm != CGP_SE_LOW)
        return conf_number(cmd, CGP_S_BACKOFF_MAX, name, max, &m);
    if (rb || rm || (max && m < b))
        return "CGIplusSpawnBackoff takes a first delay and an optional longest delay, "
               "not 'none', the longest no shorter than the first";
    conf_put(cmd, c, CGP_S_BACKOFF_BASE, b, NULL);
    if (max)
        conf_put(cmd, c, CGP_S_BACKOFF_MAX, m, NULL);
    return NULL;
}

/* ---- what the module tells the runner ---- */

int cgiplus_conf_begin(request_rec *r, const cgiplus_dir_conf *dc, int ws,
                       const char **names, const char **vals, int max)
{
    int last = ws ? CGP_S_POOL_N_ : CGP_S_WS_FIRST_; /* a WebSocket pool's rows: ws only */
    const apr_array_header_t *env = dc->v[CGP_S_ENV].p;
    int i, n = 0, gen = 0;

    /* The configuration generation: after a restart, pools only older
     * generations use are retired by the runner. */
    if (ap_mpm_query(AP_MPMQ_GENERATION, &gen) == APR_SUCCESS && n < max) {
        names[n] = "generation";
        vals[n++] = apr_itoa(r->pool, gen);
    }
    /* A pool's settings this directory names; the runner has the rest. */
    for (i = 0; i < last && n < max; i++) {
        char t[24];

        if (!cgiplus_conf_named(dc, i))
            continue;
        names[n] = cgp_settings[i].key;
        if (cgp_settings[i].type == CGP_ST_USER) {
            vals[n++] = val_s(dc, i);
            continue;
        }
        cgp_setting_format(i, dc->v[i].n, t);
        vals[n++] = apr_pstrdup(r->pool, t);
    }
    for (i = 0; env && i < env->nelts && n < max; i++) {
        names[n] = "env";
        vals[n++] = APR_ARRAY_IDX(env, i, const char *);
    }
    /* defaults below a virtual host's own Timeout (an fcgid-script or php
     * pool's queue_wait, sent after these, wins: the runner takes the last) */
    if (!ws) {
        const cgiplus_server_conf *sc = ap_get_module_config(r->server->module_config,
                                                              &cgiplus_module);

        if (sc->vh_noprogress && !cgiplus_conf_named(dc, CGP_S_TIMEOUT_NOPROGRESS) && n < max) {
            names[n] = cgp_settings[CGP_S_TIMEOUT_NOPROGRESS].key;
            vals[n++] = sc->vh_noprogress;
        }
        if (sc->vh_queue_wait && !cgiplus_conf_named(dc, CGP_S_QUEUE_WAIT) && n < max) {
            names[n] = cgp_settings[CGP_S_QUEUE_WAIT].key;
            vals[n++] = sc->vh_queue_wait;
        }
    }
    return n;
}

/* mod_cgi and mod_cgid bound each CGI process with core's RLimitCPU,
 * RLimitMEM (address space) and RLimitNPROC of the script's directory: a
 * plain CGI run of a drop-in scope gets the same soft limits, unless
 * CGIplusRLimit names its own. (A persistent worker would count its whole
 * life against RLimitCPU, so those keep CGIplusRLimit alone.) */
int cgiplus_conf_core_rlimits(request_rec *r, const cgiplus_dir_conf *dc,
                              const char **names, const char **vals, int max)
{
    static const cgp_setting_id rows[3] = { CGP_S_RLIMIT_CPU, CGP_S_RLIMIT_AS,
                                            CGP_S_RLIMIT_NPROC };
    core_dir_config *cd = ap_get_core_module_config(r->per_dir_config);
    const struct rlimit *rl[3] = { cd->limit_cpu, cd->limit_mem, cd->limit_nproc };
    int i, n = 0;

    for (i = 0; i < 3 && n < max; i++) {
        apr_uint64_t v;
        char t[24];

        if (!rl[i] || rl[i]->rlim_cur == RLIM_INFINITY || cgiplus_conf_named(dc, rows[i]))
            continue;
        /* 0 means "not set" to the runner; the kernel takes a CPU limit
         * of 0 as 1 s */
        v = rl[i]->rlim_cur ? (apr_uint64_t)rl[i]->rlim_cur : 1;
        if (v > (apr_uint64_t)cgp_settings[rows[i]].max)
            v = (apr_uint64_t)cgp_settings[rows[i]].max;
        cgp_setting_format(rows[i], (apr_int64_t)v, t);
        names[n] = cgp_settings[rows[i]].key;
        vals[n++] = apr_pstrdup(r->pool, t);
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

int cgiplus_conf_http_threads(void)
{
    int daemons = 0, threads = 0;

    if (ap_mpm_query(AP_MPMQ_MAX_DAEMONS, &daemons) != APR_SUCCESS ||
        ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS || daemons <= 0)
        return 0;
    return daemons * (threads > 0 ? threads : 1);
}

/* Every runner-wide row a directive named, and what httpd itself says
 * (its Timeout, its LogLevel, the users CGIplusUser names, suEXEC's
 * settings: cgiplus_conf_sset); the rest is the runner's default, the same
 * table's. */
apr_status_t cgiplus_conf_write_runner(apr_pool_t *p, server_rec *s, const char *path)
{
    const cgiplus_settings *g = global_of(s);
    /* A unique name made with O_EXCL (mkstemp), then renamed over path:
     * root never opens a name someone else may have planted (a symlink to
     * a root file, where DefaultRuntimeDir is writable by others), and
     * rename replaces a link at path instead of following it. */
    char *tmp = apr_pstrcat(p, path, ".XXXXXX", NULL);
    apr_file_t *f;
    apr_status_t rv;
    int i, j;

    rv = apr_file_mktemp(&f, tmp, APR_FOPEN_CREATE | APR_FOPEN_WRITE | APR_FOPEN_EXCL, p);
    if (rv != APR_SUCCESS)
        return rv;
    apr_file_puts("# Written by mod_cgiplus at every httpd (re)start; edits are lost.\n"
                  "# The runner reads it at start and on SIGHUP (docs/RUNNER.md).\n", f);
    for (i = 0; i < CGP_S_N_; i++) {
        const cgp_setting *d = &cgp_settings[i];
        char t[24];
        const char *v = t;

        if (d->scope != CGP_SC_RUNNER || !d->key)
            continue;
        if (i == CGP_S_HTTP_TIMEOUT)
            cgp_setting_format(i, (apr_int64_t)apr_time_as_msec(s->timeout), t);
        else if (i == CGP_S_HTTP_THREADS)
            cgp_setting_format(i, cgiplus_conf_http_threads(), t);
        else if (i == CGP_S_LOG_LEVEL)
            v = runner_log_level(s);
        else if (i == CGP_S_ALLOW_USER) {
            for (j = 0; cgiplus_users && j < cgiplus_users->nelts; j++)
                apr_file_printf(f, "%s %s\n", d->key,
                                APR_ARRAY_IDX(cgiplus_users, j, const char *));
            continue;
        }
        else if (g->v[i].n == CGP_UNSET)
            continue;
        else if (d->type == CGP_ST_PATH || d->type == CGP_ST_STRING)
            v = val_s(g, i);
        else
            cgp_setting_format(i, g->v[i].n, t);
        if (v && *v)
            apr_file_printf(f, "%s %s\n", d->key, v);
    }
    rv = apr_file_close(f);
    if (rv == APR_SUCCESS)
        rv = apr_file_rename(tmp, path, p);
    if (rv != APR_SUCCESS)
        apr_file_remove(tmp, p);
    return rv;
}

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
                         const cgiplus_dir_conf *dc, apr_int64_t total)
{
    static const cgp_setting_id below_timeout[] = { CGP_S_QUEUE_WAIT, CGP_S_TIMEOUT_NOPROGRESS };
    const char *mw_at = dc->v[CGP_S_MAX_WORKERS].at;
    /* unset: the runner's default, computed as it does */
    apr_int64_t mw = mw_at ? cgiplus_conf_geti(dc, CGP_S_MAX_WORKERS)
                           : cgp_default_max_workers(cgp_cpus(),
                                                     (unsigned)cgiplus_conf_http_threads(),
                                                     (unsigned)total);
    const char *mw_from = mw_at ? apr_psprintf(p, "CGIplusMaxWorkers %" APR_INT64_T_FMT " (%s)",
                                               mw, mw_at)
                                : apr_psprintf(p, "the default CGIplusMaxWorkers %"
                                               APR_INT64_T_FMT, mw);
    apr_int64_t timeout_ms = apr_time_as_msec(s->timeout);
    const char *mi_at = dc->v[CGP_S_MIN_IDLE].at;
    apr_int64_t mi = cgiplus_conf_geti(dc, CGP_S_MIN_IDLE);
    int i;

    if (mi > mw)
        warn_once(seen, s, mi_at, apr_psprintf(p, "%s: CGIplusMinIdle %" APR_INT64_T_FMT
                  " is more than %s: at most %" APR_INT64_T_FMT " worker%s %s kept warm",
                  mi_at, mi, mw_from, mw, CGIPLUS_S(mw), mw == 1 ? "is" : "are"));
    if (mi > total)
        warn_once(seen, s, apr_pstrcat(p, mi_at, "/total", NULL), apr_psprintf(p,
                  "%s: CGIplusMinIdle %" APR_INT64_T_FMT " is more than CGIplusMaxWorkersTotal %"
                  APR_INT64_T_FMT ": the runner never runs that many workers", mi_at, mi, total));
    if (mw_at && mw > total)
        warn_once(seen, s, mw_at, apr_psprintf(p, "%s: CGIplusMaxWorkers %" APR_INT64_T_FMT
                  " is more than CGIplusMaxWorkersTotal %" APR_INT64_T_FMT ": the pool never "
                  "reaches it", mw_at, mw, total));
    for (i = 0; i < 2; i++) {
        cgp_setting_id k = below_timeout[i];
        apr_int64_t v = cgiplus_conf_named(dc, k) ? dc->v[k].n : 0; /* 0: none */

        if (v > 0 && v >= timeout_ms)
            warn_once(seen, s, dc->v[k].at, apr_psprintf(p, "%s: %s %" APR_INT64_T_FMT "%s is "
                      "not below httpd's Timeout (%" APR_INT64_T_FMT " s in %s): httpd gives up "
                      "on the runner first and the client gets httpd's 504 instead of the "
                      "runner's answer; set it below Timeout",
                      dc->v[k].at, cgp_settings[k].directive, v % 1000 ? v : v / 1000,
                      v % 1000 ? "ms" : "s", timeout_ms / 1000,
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
    apr_int64_t total = cgiplus_conf_sgeti(main_s, CGP_S_MAX_WORKERS_TOTAL);
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

/* Interpreters that run code inside httpd's children, which hold the
 * runner's key and (direct path) every pool's channels: code they run can
 * drive the runner as any pool, so next to them CGIplusUser keeps nothing
 * apart (docs/RELIABILITY.md). Only a warning: the administrator may trust
 * that code as much as httpd itself. */
static void warn_in_process(apr_pool_t *p, server_rec *s)
{
    static const struct { const char *name, *hint; } mods[] = {
        { "mod_perl.c", "" },
        { "mod_wsgi.c", " in embedded mode (WSGIRestrictEmbedded On stops it)" },
        { "mod_python.c", "" },
        { "mod_php.c", "" }, { "mod_php7.c", "" }, { "mod_php5.c", "" },
        { "mod_lua.c", "" },
    };
    const char *users;
    int i;

    if (!cgiplus_users || !cgiplus_users->nelts)
        return;
    users = apr_array_pstrcat(p, cgiplus_users, ',');
    for (i = 0; i < (int)(sizeof(mods) / sizeof(mods[0])); i++)
        if (ap_find_linked_module(mods[i].name))
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, CGIPLUS_LOGNO(1180)
                         "%s is loaded beside pools with a CGIplusUser (uid:gid %s): "
                         "code it runs%s runs inside httpd's children, which hold the "
                         "runner's key and every pool's channels, so it can run "
                         "requests as any pool's user and see them; CGIplusUser "
                         "separates scripts from each other, not from it. Keep such "
                         "code as trusted as httpd, or run it out of process "
                         "(docs/RELIABILITY.md)", mods[i].name, users, mods[i].hint);
}

/* Each server's BEGIN values that depend only on it and the MPM, made
 * once: the engines' site, and the queues of the peers the drop-ins
 * replace (requests wait as long as theirs, within Timeout: 1 s less, as
 * the runner bounds its waits; and as many as there). */
int cgiplus_conf_server_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                                   server_rec *s)
{
    /* mod_fcgid bounds no queue: every request httpd holds may wait; so as
     * many may wait here as httpd serves at once (MaxRequestWorkers) where
     * that is more than the default CGIplusQueueDepth. */
    apr_int64_t depth = cgiplus_conf_http_threads();
    const cgiplus_server_conf *main_sc = ap_get_module_config(s->module_config, &cgiplus_module);
    const char *dv = NULL;
    char t24[24];

    if (depth > cgp_settings[CGP_S_QUEUE_DEPTH].dflt) {
        if (depth > cgp_settings[CGP_S_QUEUE_DEPTH].max)
            depth = cgp_settings[CGP_S_QUEUE_DEPTH].max;
        cgp_setting_format(CGP_S_QUEUE_DEPTH, depth, t24);
        dv = apr_pstrdup(pconf, t24);
    }
    for (server_rec *v = s; v; v = v->next) {
        cgiplus_server_conf *sc = ap_get_module_config(v->module_config, &cgiplus_module);
        apr_int64_t t = apr_time_as_msec(v->timeout);

        /* A virtual host without a directive of ours has the main server's
         * configuration itself (httpd shares it): one of its own here. */
        if (v != s && sc == main_sc) {
            sc = apr_pmemdup(pconf, sc, sizeof(*sc));
            ap_set_module_config(v->module_config, &cgiplus_module, sc);
        }
        apr_int64_t below = t > 1500 ? t - 1000 : 500;

        /* php-fpm keeps a request its children cannot take yet in its
         * socket's backlog, and mod_proxy_fcgi waits for the answer up to
         * Timeout: a php pool's request waits as long. */
        cgp_setting_format(CGP_S_QUEUE_WAIT, below, t24);
        sc->php_queue_wait = apr_pstrdup(pconf, t24);
        /* mod_fcgid keeps a request waiting for a process up to 64 s (32
         * rounds of 2 tries, a second apart) before its 503. */
        cgp_setting_format(CGP_S_QUEUE_WAIT, below < 64000 ? below : 64000, t24);
        sc->fcgid_queue_wait = apr_pstrdup(pconf, t24);
        sc->fcgid_queue_depth = dv;
        sc->engine_site = cgiplus_engine_site(pconf, v);
        /* The runner keeps its defaults below the main server's Timeout
         * (its http_timeout): a virtual host's own gets its own, or httpd
         * gives up first there, with its own 504 instead of ours. */
        sc->vh_noprogress = sc->vh_queue_wait = NULL;
        if (v != s && v->timeout != s->timeout) {
            cgp_setting_format(CGP_S_TIMEOUT_NOPROGRESS, below, t24);
            sc->vh_noprogress = apr_pstrdup(pconf, t24);
            cgp_setting_format(CGP_S_QUEUE_WAIT, below < 10000 ? below : 10000, t24);
            sc->vh_queue_wait = apr_pstrdup(pconf, t24);
        }
    }
    return OK;
}

int cgiplus_conf_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp, server_rec *s)
{
    /* httpd reads its configuration twice at startup: say it once. */
    if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG)
        warn_in_process(ptemp, s);
    return OK;
}

/* Warns (at configtest and every start) of settings that contradict each
 * other; never refuses. */
int cgiplus_conf_check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                              server_rec *s)
{
    warn_contradictions(ptemp, s);
    if (ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST)
        warn_in_process(ptemp, s); /* httpd -t: no post_config */
    return OK;
}
