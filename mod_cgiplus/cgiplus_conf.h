/* cgiplus_conf.h: the module's settings (cgiplus_conf.c). Each is a row of
 * the shared table (include/cgp_settings.def, ids CGP_S_*): its directive,
 * parsing, refusal, merging and default come from the row; code reads a
 * value through the getters, which apply the row's default. */
#ifndef CGIPLUS_CONF_H
#define CGIPLUS_CONF_H

#include "httpd.h"
#include "http_config.h"

#include "cgp_settings.h"
#include "cgiplus_module.h"

/* One setting as one scope names it. n: the number; for text and lists 1
 * (p holds it) or 0 (none); CGP_UNSET: not named here, whatever the type. */
typedef struct cgiplus_val {
    apr_int64_t n;
    const void *p;   /* text (const char *) or a list (apr_array_header_t *) */
    const char *at;  /* "file:line" of the directive that named it */
} cgiplus_val;

/* The settings of one scope, by row id: a directory's (its pool and
 * per-directory rows), or the main server's (runner-wide and server rows).
 * From pconf, lives one generation. */
typedef struct cgiplus_settings {
    cgiplus_val v[CGP_S_N_];
    int named; /* 0: no row named (a merge then keeps the other side) */
} cgiplus_settings;

typedef cgiplus_settings cgiplus_dir_conf;

/* Per server_rec; from pconf, lives one generation. */
typedef struct cgiplus_server_conf {
    cgiplus_settings *global; /* the main server's runner-wide and server rows, shared */
    struct cgiplus_static_sconf *static_sc; /* CGIplusStatic & co., NULL: none */
    /* BEGIN's queue_wait and queue_depth for this server's fcgid-script
     * scopes, queue_wait for its php pools (cgiplus_conf_server_post_config);
     * NULL: send none */
    const char *fcgid_queue_wait, *fcgid_queue_depth, *php_queue_wait;
    const char *engine_site; /* BEGIN's site of its engine pools (the same) */
    /* a virtual host with a Timeout of its own: BEGIN's default
     * timeout_noprogress and queue_wait below it, as the runner keeps its
     * own below the main server's; NULL: the runner's */
    const char *vh_noprogress, *vh_queue_wait;
} cgiplus_server_conf;

void *cgiplus_create_server_conf(apr_pool_t *p, server_rec *s);
void *cgiplus_merge_server_conf(apr_pool_t *p, void *basev, void *addv);
void *cgiplus_create_dir_conf(apr_pool_t *p, char *dir);
void *cgiplus_merge_dir_conf(apr_pool_t *p, void *basev, void *addv);
/* check_config: warns of settings that contradict each other. */
int cgiplus_conf_check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                              server_rec *s);
/* Startup warnings that must reach the error log (opened by then). */
/* post_config: each server's values above, made once. */
int cgiplus_conf_server_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                                   server_rec *s);
int cgiplus_conf_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp, server_rec *s);

/* The setters of the table's rows (their set column; mod_cgiplus.c makes
 * the directive entries): any row by its type (cmd->info is its id), and
 * the rows with a syntax of their own. */
const char *cgiplus_conf_set(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_conf_set_flag(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_conf_set_rlimit(cmd_parms *cmd, void *dcv, const char *what,
                                    const char *arg);
const char *cgiplus_conf_set_env(cmd_parms *cmd, void *dcv, const char *name,
                                 const char *val);
const char *cgiplus_conf_set_user(cmd_parms *cmd, void *dcv, const char *user,
                                  const char *group);
const char *cgiplus_conf_set_backoff(cmd_parms *cmd, void *dcv, const char *base,
                                     const char *max);
const char *cgiplus_conf_set_runner_socket(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_conf_set_runner_user(cmd_parms *cmd, void *dcv, const char *arg);
/* mod_cgi's and mod_cgid's timeouts (CGIplusTimeoutNoProgress) and socket. */
const char *cgiplus_conf_set_cgid_timeout(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_conf_set_script_sock(cmd_parms *cmd, void *dcv, const char *arg);

/* A directory's value, the row's default applied (CGP_UNSET: none). */
apr_int64_t cgiplus_conf_geti(const cgiplus_dir_conf *dc, cgp_setting_id id);
/* A directory's text, NULL: none. */
const char *cgiplus_conf_gets(const cgiplus_dir_conf *dc, cgp_setting_id id);
/* Nonzero if a directive named it for this directory (or above). */
int cgiplus_conf_named(const cgiplus_dir_conf *dc, cgp_setting_id id);
/* The same for runner-wide and server rows (the main server's). */
apr_int64_t cgiplus_conf_sgeti(server_rec *s, cgp_setting_id id);
/* Requests httpd serves at once (MaxRequestWorkers), 0 if the MPM says not. */
int cgiplus_conf_http_threads(void);
const char *cgiplus_conf_sgets(server_rec *s, cgp_setting_id id);
/* Records a runner-wide value httpd learns at startup, not from a directive
 * (suEXEC's settings), in the main server s; p lives one generation. */
void cgiplus_conf_sset(server_rec *s, cgp_setting_id id, apr_int64_t n, const void *p);
/* The runner binary: CGIplusRunnerPath, else the compile-time path. */
const char *cgiplus_conf_runner_path(server_rec *s);

/* For a row's own setter (its set column): records n, p as this
 * directive's value of row id; NULL, or why not (the context). */
const char *cgiplus_conf_store(cmd_parms *cmd, void *dcv, cgp_setting_id id, apr_int64_t n,
                               const void *p);

/* Appends the pool settings named for this directory as BEGIN entries
 * (names and values from r->pool), a WebSocket pool's too if ws (an
 * upgrade); returns how many, at most max. */
int cgiplus_conf_begin(request_rec *r, const cgiplus_dir_conf *dc, int ws,
                       const char **names, const char **vals, int max);
/* Core's RLimitCPU/MEM/NPROC as BEGIN keys, for a drop-in's plain CGI run. */
int cgiplus_conf_core_rlimits(request_rec *r, const cgiplus_dir_conf *dc,
                              const char **names, const char **vals, int max);
/* Writes the runner's configuration file (runner-wide settings and the
 * users scripts may run as) for the main server s. */
apr_status_t cgiplus_conf_write_runner(apr_pool_t *p, server_rec *s, const char *path);

/* Nonzero if mod_cgi or mod_cgid is loaded (valid once LoadModule ran). */
int cgiplus_cgi_module_loaded(void);

#endif
