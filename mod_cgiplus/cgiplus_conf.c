/* cgiplus_conf.c: the directives of mod_cgiplus, their validation and their
 * defaults. Every value is checked when it is read: a bad one stops httpd
 * from starting with a sentence that says why. */
#include "cgiplus_private.h"
#include "cgiplus_static.h"

#include <string.h>
#include <sys/un.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"
#include "apr_file_info.h"


APLOG_USE_MODULE(cgiplus);

/* Built-in defaults: the value of every setting that no directive names.
 * The runner socket has no default here: without CGIplusRunnerSocket the
 * module starts its own runner on DefaultRuntimeDir/cgiplus-runner.sock. */
static const struct {
    const char *runner_path;   /* the runner binary the module starts */
    int max_workers;           /* the most workers of one pool (BEGIN) */
    cgiplus_mode_e mode;       /* persistent workers rather than plain CGI */
} cgiplus_defaults = {
    CGIPLUS_RUNNER_PATH,
    4,
    CGIPLUS_MODE_CGIPLUS,
};

void *cgiplus_create_server_conf(apr_pool_t *p, server_rec *s)
{
    return apr_pcalloc(p, sizeof(cgiplus_server_conf));
}

void *cgiplus_merge_server_conf(apr_pool_t *p, void *basev, void *addv)
{
    const cgiplus_server_conf *base = basev, *add = addv;
    cgiplus_server_conf *c = apr_palloc(p, sizeof(*c));

    c->runner_socket = add->runner_socket ? add->runner_socket : base->runner_socket;
    c->runner_path = add->runner_path ? add->runner_path : base->runner_path;
    c->static_sc = cgiplus_static_merge_sconf(p, base->static_sc, add->static_sc);
    return c;
}

void *cgiplus_create_dir_conf(apr_pool_t *p, char *dir)
{
    return apr_pcalloc(p, sizeof(cgiplus_dir_conf));
}

void *cgiplus_merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const cgiplus_dir_conf *base = basev, *add = addv;
    cgiplus_dir_conf *c = apr_palloc(p, sizeof(*c));

    c->max_workers = add->max_workers ? add->max_workers : base->max_workers;
    c->mode = add->mode != CGIPLUS_MODE_UNSET ? add->mode : base->mode;
    return c;
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

static const char *set_runner_path(cmd_parms *cmd, void *dummy, const char *arg)
{
    cgiplus_server_conf *sc =
        ap_get_module_config(cmd->server->module_config, &cgiplus_module);
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *path;

    if (err)
        return err;
    if (!(path = conf_path(cmd, arg, &err)))
        return err;
    sc->runner_path = path; /* checked in check_config, once all is read */
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

/* The one directive table of the module. */
const command_rec cgiplus_cmds[] = {
    AP_INIT_TAKE1("CGIplusRunnerSocket", set_runner_socket, NULL, RSRC_CONF,
                  "path of the socket of a separately started cgiplus-runner; "
                  "without it the module starts its own runner"),
    AP_INIT_TAKE1("CGIplusRunnerPath", set_runner_path, NULL, RSRC_CONF,
                  "the cgiplus-runner binary the module starts"),
    AP_INIT_TAKE1("CGIplusMaxWorkers", set_max_workers, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the most persistent workers of one script (1-4096)"),
    AP_INIT_TAKE1("CGIplusMode", set_mode, NULL, RSRC_CONF | ACCESS_CONF,
                  "'cgiplus' (persistent workers) or 'cgi' (one process per request)"),
    CGIPLUS_STATIC_CMDS,
    { NULL }
};

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
