/* cgiplus_fcgid_conf.c: a drop-in for mod_fcgid configurations, as
 * CGIplusCompat is for mod_cgi's (docs/cgi-compat.md, "mod_fcgid"). With
 * mod_fcgid not loaded, requests for its handler (fcgid-script) run on
 * pools of FastCGI workers, and its directives mean what they mean in
 * mod_fcgid's documentation: FcgidWrapper names the command a pool runs
 * (one pool per command line: the request carries its script, as an
 * engine's),
 * the numbers become the pool's settings for those requests only, and what
 * has no counterpart is accepted without meaning or refused, saying why.
 * With mod_fcgid loaded, every directive is its own (httpd hands them to
 * both modules) and these handlers only accept them. */
#include "cgiplus_fcgid.h"
#include "cgp_proto.h"

#include <string.h>

#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_lib.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

/* One FcgidWrapper: the program and its arguments, its suffix ("" for the
 * default). An element of row FCGID_WRAPPER's list; from pconf, one
 * generation. */
typedef struct fcgid_wrapper {
    const char *suffix;
    const char *program;
    char **args;              /* the command line's words after the program, NULL-ended */
    int virt;                 /* the requested file need not exist */
} fcgid_wrapper;

/* The numbers that are a pool's settings of fcgid-script requests: each
 * row and the pool's row (its BEGIN key) it stands for. */
static const struct {
    cgp_setting_id row, pool;
} fcgid_pool[] = {
    { CGP_S_FCGID_MAX_REQUESTS, CGP_S_MAX_REQUESTS },
    { CGP_S_FCGID_MAX_CLASS, CGP_S_MAX_WORKERS },
    { CGP_S_FCGID_MIN_CLASS, CGP_S_MIN_IDLE },
    { CGP_S_FCGID_IDLE, CGP_S_IDLE_TIMEOUT },
    { CGP_S_FCGID_LIFETIME, CGP_S_MAX_AGE },
    { CGP_S_FCGID_IO, CGP_S_TIMEOUT_NOPROGRESS },
    { CGP_S_FCGID_BUSY, CGP_S_TIMEOUT_OUTPUT },
};
#define FCGID_POOL_N (int)(sizeof(fcgid_pool) / sizeof(fcgid_pool[0]))

/* FcgidCmdOptions for one program: its numbers (by fcgid_pool's index) and
 * environment, in place of the scope's. An element of row
 * FCGID_CMD_OPTIONS's list; from pconf, one generation. */
typedef struct fcgid_cmd {
    const char *program;
    apr_int64_t v[FCGID_POOL_N];
    unsigned have;            /* bit per fcgid_pool index named */
    apr_array_header_t *env;  /* "NAME=value" (InitialEnv), NULL: none */
} fcgid_cmd;

static int fcgid_loaded(void)
{
    return cgiplus_fcgid_peer_loaded(); /* not our own stand-in of that name */
}

/* A list row's entries in force, NULL: none. */
static const apr_array_header_t *list_of(const cgiplus_dir_conf *dc, cgp_setting_id row)
{
    return dc->v[row].n > 0 ? dc->v[row].p : NULL;
}

/* This section's list of a row, made on its first entry (an outer
 * section's entries are added at merge time). */
static apr_array_header_t *list_here(cmd_parms *cmd, void *dcv, cgp_setting_id row,
                                     int elt_size)
{
    cgiplus_dir_conf *dc = dcv;
    apr_array_header_t *l = dc->v[row].n > 0 ? (apr_array_header_t *)dc->v[row].p : NULL;

    if (!l) {
        l = apr_array_make(cmd->pool, 2, elt_size);
        cgiplus_conf_store(cmd, dcv, row, 1, l);
    }
    return l;
}

int cgiplus_fcgid_wanted(request_rec *r)
{
    return r->handler && !strcmp(r->handler, CGIPLUS_FCGID_HANDLER) && !fcgid_loaded();
}

/* The scope's FcgidWrapper for r's file: its suffix's, else the default;
 * NULL: none. */
static const fcgid_wrapper *wrapper_of(request_rec *r, const cgiplus_dir_conf *dc)
{
    const apr_array_header_t *w = list_of(dc, CGP_S_FCGID_WRAPPER);
    /* mod_fcgid's key: from the last '.' of the path (none: the default) */
    const char *ext = r->filename ? strrchr(r->filename, '.') : NULL;
    const fcgid_wrapper *found = NULL, *dflt = NULL;

    for (int i = 0; w && i < w->nelts; i++) {
        const fcgid_wrapper *x = &APR_ARRAY_IDX(w, i, fcgid_wrapper);

        if (!*x->suffix)
            dflt = x;
        else if (ext && !strcmp(x->suffix, ext))
            found = x;
    }
    return found ? found : dflt;
}

const char *cgiplus_fcgid_wrapper(request_rec *r, const cgiplus_dir_conf *dc, int *virt)
{
    const fcgid_wrapper *found = wrapper_of(r, dc);

    *virt = found && found->virt;
    return found ? found->program : NULL;
}

/* mod_fcgid's name for a passed header: the header's, and the HTTP_ one. */
static const char *http_name(apr_pool_t *p, const char *h)
{
    char *n = apr_pstrcat(p, "HTTP_", h, NULL), *c;

    for (c = n + 5; *c; c++)
        *c = *c == '-' ? '_' : apr_toupper(*c);
    return n;
}

void cgiplus_fcgid_env(request_rec *r, const cgiplus_dir_conf *dc)
{
    static const char *const hop[] = { "HTTP_KEEP_ALIVE", "HTTP_TE", "HTTP_TRAILER",
                                       "HTTP_TRANSFER_ENCODING", "HTTP_UPGRADE" };
    const apr_array_header_t *pass = list_of(dc, CGP_S_FCGID_PASS_HEADER);
    apr_table_t *e = r->subprocess_env;

    /* as mod_fcgid: the client's hop-by-hop headers are not the
     * application's, and its connection is said to close (mod_fcgid: "to
     * prevent the CGI from hanging") */
    for (size_t i = 0; i < sizeof(hop) / sizeof(hop[0]); i++)
        apr_table_unset(e, hop[i]);
    apr_table_setn(e, "HTTP_CONNECTION", "close");
    for (int i = 0; pass && i < pass->nelts; i++) {
        const char *h = APR_ARRAY_IDX(pass, i, const char *);
        const char *v = apr_table_get(r->headers_in, h);

        if (v) {
            apr_table_setn(e, h, v);
            apr_table_setn(e, http_name(r->pool, h), v);
        }
    }
    if (cgiplus_conf_geti(dc, CGP_S_FCGID_FIX_PATHINFO) == 1) {
        /* as mod_fcgid: SCRIPT_NAME becomes DOCUMENT_ROOT + SCRIPT_NAME */
        const char *root = apr_table_get(e, "DOCUMENT_ROOT");
        const char *name = apr_table_get(e, "SCRIPT_NAME");
        char *merged;

        if (root && name && apr_filepath_merge(&merged, root, name, 0, r->pool) == APR_SUCCESS)
            apr_table_setn(e, "SCRIPT_NAME", merged);
    }
}

int cgiplus_fcgid_begin(request_rec *r, const cgiplus_dir_conf *dc, const char *program,
                        const char **names, const char **vals, int max)
{
    const apr_array_header_t *cmds = list_of(dc, CGP_S_FCGID_CMD_OPTIONS), *env;
    const fcgid_wrapper *w = wrapper_of(r, dc);
    const fcgid_cmd *cmd = NULL;
    int n = 0;

    /* the wrapper's arguments, in order (program is its string when the
     * wrapper runs): part of its pool's key */
    for (int i = 0; w && w->program == program && w->args[i] && n < max; i++) {
        names[n] = "arg";
        vals[n++] = w->args[i];
    }

    /* FcgidCmdOptions for the program (its last) replace the scope's settings */
    for (int i = cmds ? cmds->nelts - 1 : -1; i >= 0 && !cmd; i--)
        if (!strcmp(APR_ARRAY_IDX(cmds, i, fcgid_cmd).program, program))
            cmd = &APR_ARRAY_IDX(cmds, i, fcgid_cmd);
    for (int i = 0; i < FCGID_POOL_N && n < max; i++) {
        cgp_setting_id row = fcgid_pool[i].row, pool = fcgid_pool[i].pool;
        apr_int64_t v;
        char t[24];

        if (cmd ? !(cmd->have & (1u << i)) : !cgiplus_conf_named(dc, row))
            continue;
        v = cmd ? cmd->v[i] : cgiplus_conf_geti(dc, row);
        cgp_setting_format(pool, v, t);
        names[n] = cgp_settings[pool].key;
        vals[n++] = apr_pstrdup(r->pool, t);
    }
    /* The server's wait and depth (cgiplus_conf_server_post_config), unless
     * the scope names its own. */
    if (cgiplus_fcgid_wanted(r)) {
        const cgiplus_server_conf *sc = ap_get_module_config(r->server->module_config,
                                                              &cgiplus_module);

        if (sc->fcgid_queue_wait && !cgiplus_conf_named(dc, CGP_S_QUEUE_WAIT) && n < max) {
            names[n] = cgp_settings[CGP_S_QUEUE_WAIT].key;
            vals[n++] = sc->fcgid_queue_wait;
        }
        if (sc->fcgid_queue_depth && !cgiplus_conf_named(dc, CGP_S_QUEUE_DEPTH) && n < max) {
            names[n] = cgp_settings[CGP_S_QUEUE_DEPTH].key;
            vals[n++] = sc->fcgid_queue_depth;
        }
    }
    env = cmd ? cmd->env : list_of(dc, CGP_S_FCGID_ENV);
    for (int i = 0; env && i < env->nelts && n < max; i++) {
        names[n] = "env";
        vals[n++] = APR_ARRAY_IDX(env, i, const char *);
    }
    return n;
}


/* ---- directives ---- */

/* mod_fcgid refuses its process manager's settings and FcgidFixPathinfo
 * in a <VirtualHost> (its own words); its connect timeout and output
 * buffer it takes there. */
static const char *global_only(cmd_parms *cmd)
{
    const char *n = cmd->cmd->name;

    if (!strncasecmp(n, "Fcgid", 5))
        n += 5;
    if (!strcasecmp(n, "ConnectTimeout") || !strcasecmp(n, "IPCConnectTimeout") ||
        !strcasecmp(n, "OutputBufferSize"))
        return NULL;
    return ap_check_cmd_context(cmd, GLOBAL_ONLY);
}

/* Bounds past which mod_cgiplus can do no more: a larger value (which
 * mod_fcgid takes) means the most there is here, so an admin's
 * FcgidMaxRequestInMem 64M or FcgidMaxProcessesPerClass 10000 starts. */
static int capped(cgp_setting_id row)
{
    return row == CGP_S_FCGID_IN_MEM || row == CGP_S_FCGID_MAX_CLASS ||
           row == CGP_S_MAX_WORKERS_TOTAL || row == CGP_S_FCGID_MAX_REQUESTS;
}

/* A whole number in mod_fcgid's syntax for row (seconds where the row
 * holds ms), within the row's range (capped rows: at most its maximum):
 * *out in the row's unit. */
static const char *parse_num(cmd_parms *cmd, const char *name, const char *arg,
                             cgp_setting_id row, apr_int64_t *out)
{
    const cgp_setting *d = &cgp_settings[row];
    int seconds = d->type == CGP_ST_DURATION;
    apr_int64_t unit = seconds ? 1000 : 1, v = 0;
    /* FcgidMaxRequestsPerProcess -1: no limit, as 0 */
    apr_int64_t min = row == CGP_S_FCGID_MAX_REQUESTS ? -1 : d->min / unit;
    const char *s = arg + (*arg == '-');

    for (; apr_isdigit(*s) && v < (APR_INT64_C(1) << 52); s++)
        v = v * 10 + (*s - '0');
    if (*arg == '-')
        v = -v;
    if (capped(row) && v > 0) {
        while (apr_isdigit(*s))
            s++;
        if (v > d->max / unit)
            v = d->max / unit;
    }
    if (!*arg || s == arg + (*arg == '-') || *s || v < min || v > d->max / unit)
        return capped(row) ? apr_psprintf(cmd->pool, "%s takes a whole number, at least %"
                                          APR_INT64_T_FMT " (more than %" APR_INT64_T_FMT
                                          " counts as %" APR_INT64_T_FMT "), not '%s'", name,
                                          min, d->max / unit, d->max / unit, arg)
               : apr_psprintf(cmd->pool, "%s takes a whole number from %" APR_INT64_T_FMT
                              " to %" APR_INT64_T_FMT "%s, not '%s'", name, min, d->max / unit,
                              seconds ? " (seconds)" : "", arg);
    *out = v < 0 ? 0 : v * unit;
    return NULL;
}

const char *cgiplus_fcgid_set_number(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgp_setting_id row = (cgp_setting_id)(apr_uintptr_t)cmd->info;
    apr_int64_t v;
    const char *err;

    if (fcgid_loaded())
        return NULL;
    if ((err = parse_num(cmd, cmd->cmd->name, arg, row, &v)))
        return err;
    return cgiplus_conf_store(cmd, dcv, row, v, NULL);
}

/* Appends NAME=value to *env (made if NULL). */
static const char *env_entry(cmd_parms *cmd, apr_array_header_t **env, const char *name,
                             const char *val)
{
    const char *s;

    for (s = name; *s; s++)
        if (!(apr_isalnum(*s) || *s == '_') || (s == name && apr_isdigit(*s)))
            return apr_psprintf(cmd->pool, "%s: '%s' is not a variable name (letters, "
                                "digits and _, not starting with a digit)", cmd->cmd->name, name);
    if (!*name || strlen(name) + strlen(val) + 1 > 4096 || strchr(val, '\n'))
        return apr_psprintf(cmd->pool, "%s: NAME=value must fit 4096 bytes on one line",
                            cmd->cmd->name);
    if (!*env)
        *env = apr_array_make(cmd->pool, 4, sizeof(const char *));
    if ((*env)->nelts >= 64)
        return apr_psprintf(cmd->pool, "%s: at most 64 variables", cmd->cmd->name);
    APR_ARRAY_PUSH(*env, const char *) = apr_pstrcat(cmd->pool, name, "=", val, NULL);
    return NULL;
}

const char *cgiplus_fcgid_set_env(cmd_parms *cmd, void *dcv, const char *name,
                                  const char *val)
{
    apr_array_header_t *env;

    if (fcgid_loaded())
        return NULL;
    env = list_here(cmd, dcv, CGP_S_FCGID_ENV, sizeof(const char *));
    return env_entry(cmd, &env, name, val ? val : "");
}

const char *cgiplus_fcgid_set_pass_header(cmd_parms *cmd, void *dcv, const char *name)
{
    if (fcgid_loaded())
        return NULL;
    if (!*name || ap_strchr_c(name, ':') || ap_strchr_c(name, ' '))
        return apr_psprintf(cmd->pool, "%s takes a request header's name, not '%s'",
                            cmd->cmd->name, name);
    APR_ARRAY_PUSH(list_here(cmd, dcv, CGP_S_FCGID_PASS_HEADER, sizeof(const char *)),
                   const char *) = name;
    return NULL;
}

const char *cgiplus_fcgid_set_fix_pathinfo(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *err;

    if (fcgid_loaded())
        return NULL;
    if ((err = global_only(cmd)))
        return err;
    if (strcmp(arg, "0") && strcmp(arg, "1"))
        return apr_psprintf(cmd->pool, "%s takes 1 (php's cgi.fix_pathinfo is 1) or 0, "
                            "not '%s'", cmd->cmd->name, arg);
    return cgiplus_conf_store(cmd, dcv, CGP_S_FCGID_FIX_PATHINFO, *arg == '1', NULL);
}

/* The program of a command line: its first word, an executable file now
 * (a typo stops httpd). With args, the other words go to *args (as
 * mod_fcgid splits them: apr_tokenize_to_argv); without, there must be
 * none (FcgidCmdOptions names a program). */
static const char *program_of(cmd_parms *cmd, const char *cmdline, const char **program,
                              char ***args)
{
    char **words;
    apr_finfo_t fi;
    apr_status_t rv;
    int n;

    if (apr_tokenize_to_argv(cmdline, &words, cmd->pool) != APR_SUCCESS || !words[0] ||
        !*words[0])
        return apr_psprintf(cmd->pool, "%s needs a command", cmd->cmd->name);
    for (n = 1; words[n]; n++)
        ;
    if (strlen(cmdline) > CGP_MAX_ARG) /* BEGIN's one frame must hold it */
        return apr_psprintf(cmd->pool, "%s: the command line is longer than %d bytes",
                            cmd->cmd->name, (int)CGP_MAX_ARG);
    if (n > 1 && !args)
        return apr_psprintf(cmd->pool, "%s names a program, not a command line: '%s'",
                            cmd->cmd->name, cmdline);
    if (n - 1 > (int)CGP_MAX_ARGS)
        return apr_psprintf(cmd->pool, "%s: '%s' has more than %d arguments", cmd->cmd->name,
                            cmdline, (int)CGP_MAX_ARGS);
    if (words[0][0] != '/')
        return apr_psprintf(cmd->pool, "%s: '%s' is not an absolute path", cmd->cmd->name,
                            words[0]);
    rv = apr_stat(&fi, words[0], APR_FINFO_TYPE | APR_FINFO_PROT, cmd->temp_pool);
    if (rv != APR_SUCCESS || fi.filetype != APR_REG ||
        !(fi.protection & (APR_FPROT_UEXECUTE | APR_FPROT_GEXECUTE | APR_FPROT_WEXECUTE)))
        return apr_psprintf(cmd->pool, "%s: '%s' is not an executable file", cmd->cmd->name,
                            words[0]);
    *program = words[0];
    if (args)
        *args = words + 1;
    return NULL;
}

const char *cgiplus_fcgid_set_wrapper(cmd_parms *cmd, void *dcv, const char *cmdline,
                                      const char *suffix, const char *flag)
{
    fcgid_wrapper w = { "", NULL, NULL, 0 };
    const char *err;

    if (fcgid_loaded())
        return NULL;
    if (!flag && suffix && !strcasecmp(suffix, "virtual")) {
        flag = suffix;
        suffix = NULL;
    }
    if (flag && strcasecmp(flag, "virtual"))
        return apr_psprintf(cmd->pool, "%s: the flag is 'virtual', not '%s'", cmd->cmd->name,
                            flag);
    if (suffix && (suffix[0] != '.' || !suffix[1] || ap_strchr_c(suffix, '/') ||
                   ap_strchr_c(suffix, '\\')))
        return apr_psprintf(cmd->pool, "%s: a suffix starts with '.' (.php), not '%s'",
                            cmd->cmd->name, suffix);
    if ((err = program_of(cmd, cmdline, &w.program, &w.args)))
        return err;
    w.suffix = suffix ? suffix : "";
    w.virt = flag != NULL;
    APR_ARRAY_PUSH(list_here(cmd, dcv, CGP_S_FCGID_WRAPPER, sizeof(fcgid_wrapper)),
                   fcgid_wrapper) = w;
    return NULL;
}

/* FcgidCmdOptions command option value ...: mod_fcgid's options, by name. */
const char *cgiplus_fcgid_set_cmd_options(cmd_parms *cmd, void *dcv, const char *args)
{
    static const struct { const char *name; cgp_setting_id row; } opts[] = {
        { "IdleTimeout", CGP_S_FCGID_IDLE }, { "IOTimeout", CGP_S_FCGID_IO },
        { "MaxProcesses", CGP_S_FCGID_MAX_CLASS },
        { "MaxProcessLifetime", CGP_S_FCGID_LIFETIME },
        { "MaxRequestsPerProcess", CGP_S_FCGID_MAX_REQUESTS },
        { "MinProcesses", CGP_S_FCGID_MIN_CLASS },
        { "ConnectTimeout", CGP_S_FCGID_IDLE }, /* checked, unused (as mod_fcgid on Unix) */
    };
    fcgid_cmd c = { NULL, { 0 }, 0, NULL };
    const char *err, *word = ap_getword_conf(cmd->temp_pool, &args);

    if (fcgid_loaded())
        return NULL;
    if ((err = program_of(cmd, word, &c.program, NULL)))
        return err;
    if (!*args)
        return "FcgidCmdOptions: at least one option must follow the command";
    while (*args) {
        const char *opt = ap_getword_conf(cmd->temp_pool, &args);
        const char *val = ap_getword_conf(cmd->pool, &args);
        apr_int64_t v;
        apr_size_t i;
        int k;

        if (!*val)
            return apr_psprintf(cmd->pool, "FcgidCmdOptions: %s needs a value", opt);
        if (!strcasecmp(opt, "InitialEnv")) {
            char *eq = strchr(val, '=');

            if (eq)
                *eq++ = '\0';
            if ((err = env_entry(cmd, &c.env, val, eq ? eq : "")))
                return err;
            continue;
        }
        for (i = 0; i < sizeof(opts) / sizeof(opts[0]) && strcasecmp(opt, opts[i].name); i++)
            ;
        if (i == sizeof(opts) / sizeof(opts[0]))
            return apr_psprintf(cmd->pool, "FcgidCmdOptions: unknown option '%s' (ConnectTimeout, "
                                "IdleTimeout, InitialEnv, IOTimeout, MaxProcesses, "
                                "MaxProcessLifetime, MaxRequestsPerProcess, MinProcesses)", opt);
        if ((err = parse_num(cmd, apr_pstrcat(cmd->pool, "FcgidCmdOptions ", opts[i].name, NULL),
                             val, opts[i].row, &v)))
            return err;
        if (!strcasecmp(opts[i].name, "ConnectTimeout"))
            continue;
        for (k = 0; fcgid_pool[k].row != opts[i].row; k++)
            ;
        c.v[k] = v;
        c.have |= 1u << k;
    }
    APR_ARRAY_PUSH(list_here(cmd, dcv, CGP_S_FCGID_CMD_OPTIONS, sizeof(fcgid_cmd)),
                   fcgid_cmd) = c;
    return NULL;
}

/* Accepted for an unedited configuration, with no meaning here: the
 * runner's timers are exact (no scan intervals), its sockets and table its
 * own (FcgidIPCDir, FcgidProcessTableFile), CGIplusSpawnRate and the
 * crash-loop backoff limit spawning (the scores), output streams as it is
 * written (FcgidOutputBufferSize), and UNIX sockets connect at once. */
const char *cgiplus_fcgid_set_unused(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *n = cmd->cmd->name, *s = arg + (*arg == '-');

    (void)dcv;
    if (fcgid_loaded())
        return NULL;
    if ((s = global_only(cmd)))
        return s;
    s = arg + (*arg == '-');
    if (!strcasecmp(n, "FcgidIPCDir") || !strcasecmp(n, "FcgidProcessTableFile") ||
        !strcasecmp(n, "SocketPath") || !strcasecmp(n, "SharememPath"))
        return *arg ? NULL : apr_psprintf(cmd->pool, "%s needs a path", n);
    while (apr_isdigit(*s))
        s++;
    if (s == arg + (*arg == '-') || *s)
        return apr_psprintf(cmd->pool, "%s takes a whole number, not '%s'", n, arg);
    return NULL;
}

static const char *refused(cmd_parms *cmd)
{
    if (fcgid_loaded())
        return NULL;
    return apr_psprintf(cmd->pool, "%s: FastCGI authenticators, authorizers and access "
                        "checkers are not supported by mod_cgiplus, which runs FastCGI "
                        "responders only; load mod_fcgid for them, or check access with "
                        "httpd's own modules (Require, mod_authn_*)", cmd->cmd->name);
}

const char *cgiplus_fcgid_set_refused(cmd_parms *cmd, void *dcv, const char *arg)
{
    (void)dcv;
    (void)arg;
    return refused(cmd);
}

const char *cgiplus_fcgid_set_refused_flag(cmd_parms *cmd, void *dcv, int on)
{
    (void)dcv;
    (void)on;
    return refused(cmd);
}
