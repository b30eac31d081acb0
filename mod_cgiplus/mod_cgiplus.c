/* mod_cgiplus.c: the module record, its directive entries and hook
 * wiring. Each concern lives in its own file: cgiplus_conf.c (settings),
 * cgiplus_runner.c (starting the runner), cgiplus_conn.c (connections),
 * cgiplus_handler.c (requests). */
#include "cgiplus_conf.h"
#include "cgiplus_conn.h"
#include "cgiplus_domain.h"
#include "cgiplus_direct.h"
#include "cgiplus_engine.h"
#include "cgiplus_fcgid.h"
#include "cgiplus_handler.h"
#include "cgiplus_header.h"
#include "cgiplus_include.h"
#include "cgiplus_outbuf.h"
#include "cgiplus_runner.h"
#include "cgiplus_scriptlog.h"
#include "cgiplus_static_private.h"
#include "cgiplus_status.h"
#include "cgiplus_suexec.h"
#include "cgiplus_ws.h"

#include <stdint.h>

#include "httpd.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_request.h"
#include "mpm_common.h"

/* The directives: one entry per row of the settings table that has one
 * (include/cgp_settings.def): its form, its context from its scope, its id
 * in cmd->info; then mod_cgi's and mod_fcgid's names, and the static fast
 * path's. */
#define CGIPLUS_CTX_POOL   RSRC_CONF | ACCESS_CONF
#define CGIPLUS_CTX_DIR    RSRC_CONF | ACCESS_CONF
#define CGIPLUS_CTX_RUNNER RSRC_CONF
#define CGIPLUS_CTX_SERVER RSRC_CONF
#define CGIPLUS_CMD_TAKE1(dir, set, id, ctx, help) AP_INIT_TAKE1(dir, set, id, ctx, help),
#define CGIPLUS_CMD_TAKE2(dir, set, id, ctx, help) AP_INIT_TAKE2(dir, set, id, ctx, help),
#define CGIPLUS_CMD_TAKE12(dir, set, id, ctx, help) AP_INIT_TAKE12(dir, set, id, ctx, help),
/* On|Off read by the module, not AP_INIT_FLAG: httpd's FLAG ignores words
 * after the first ("CGIplusDirect on off" passed) */
#define CGIPLUS_CMD_FLAG(dir, set, id, ctx, help) AP_INIT_TAKE1(dir, set, id, ctx, help),
#define CGIPLUS_CMD_NONE(dir, set, id, ctx, help)
#define CGP_SETTING(id, key, directive, type, scope, min, max, dflt, flags, form, set, most, \
                    names, help)                                                          \
    CGIPLUS_CMD_##form(directive, set, (void *)(intptr_t)CGP_S_##id, CGIPLUS_CTX_##scope, help)

static const command_rec cgiplus_cmds[] = {
#include "cgp_settings.def"
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
    AP_INIT_TAKE1("CGIDScriptTimeout", cgiplus_conf_set_cgid_timeout, NULL,
                  RSRC_CONF | ACCESS_CONF, "mod_cgid's script timeout: CGIplusTimeoutNoProgress"),
    AP_INIT_TAKE1("CGIScriptTimeout", cgiplus_conf_set_cgid_timeout, NULL,
                  RSRC_CONF | ACCESS_CONF, "mod_cgi's script timeout: CGIplusTimeoutNoProgress"),
    AP_INIT_TAKE1("ScriptSock", cgiplus_conf_set_script_sock, NULL, RSRC_CONF,
                  "mod_cgid's daemon socket: accepted, no meaning here"),
    /* mod_fcgid's, under both its names, where it is not loaded: into the
     * table's FCGID_* rows (cgiplus_fcgid_conf.c) */
    CGIPLUS_FCGID_CMDS,
    CGIPLUS_STATIC_CMDS,
    { NULL }
};
#undef CGP_SETTING


static void cgiplus_register_hooks(apr_pool_t *p)
{
    /* Before mod_cgi/mod_cgid: CGIplusCompat takes their handler over. */
    static const char *const cgi_modules[] = { "mod_cgi.c", "mod_cgid.c", NULL };
    static const char *const cgiplus_static_succ[] = { "mod_alias.c", NULL };
    /* while still root: only root may make a domain without no_new_privs */
    static const char *const unixd[] = { "mod_unixd.c", NULL };

    ap_hook_check_config(cgiplus_conf_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(cgiplus_runner_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(cgiplus_outbuf_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    /* suEXEC's settings first: the runner's configuration file names them */
    ap_hook_post_config(cgiplus_suexec_post_config, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_post_config(cgiplus_runner_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(cgiplus_outbuf_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(cgiplus_conf_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(cgiplus_conf_server_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(cgiplus_version_post_config, NULL, NULL, APR_HOOK_LAST);
    ap_hook_monitor(cgiplus_runner_monitor, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_drop_privileges(cgiplus_domain_drop_privileges, NULL, unixd, APR_HOOK_FIRST);
    ap_hook_child_init(cgiplus_key_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_conn_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_direct_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_fixups(cgiplus_engine_fixups, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(cgiplus_handler, NULL, cgi_modules, APR_HOOK_MIDDLE);
    ap_hook_handler(cgiplus_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_optional_fn_retrieve(cgiplus_include_retrieve, NULL, NULL, APR_HOOK_MIDDLE);
    /* the static fast path: cgiplus_static_*.c */
    ap_hook_check_config(cgiplus_static_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_static_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_quick_handler(cgiplus_static_quick_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_translate_name(cgiplus_static_translate, NULL, cgiplus_static_succ,
                           APR_HOOK_MIDDLE);
    /* WebSocket connections (cgiplus_ws_*.c): under the event MPM they wait
     * in it without a thread, and come back to us first */
    ap_hook_child_init(cgiplus_ws_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_process_connection(cgiplus_ws_process_connection, NULL, NULL,
                               APR_HOOK_REALLY_FIRST);
    ap_hook_pre_close_connection(cgiplus_ws_pre_close, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_suspend_connection(cgiplus_ws_suspended, NULL, NULL, APR_HOOK_MIDDLE);
    /* last but before the core's default handler: other handlers first */
    ap_hook_handler(cgiplus_static_handler, NULL, NULL, APR_HOOK_LAST);
}

CGIPLUS_EXPORT AP_DECLARE_MODULE(cgiplus) = {
    STANDARD20_MODULE_STUFF,
    cgiplus_create_dir_conf,
    cgiplus_merge_dir_conf,
    cgiplus_create_server_conf,
    cgiplus_merge_server_conf,
    cgiplus_cmds,
    cgiplus_register_hooks
};
