/* mod_cgiplus.c: the module record and hook wiring. Each concern lives in
 * its own file: cgiplus_conf.c (directives), cgiplus_runner.c (starting the
 * runner), cgiplus_conn.c (connections), cgiplus_handler.c (requests). */
#include "cgiplus_private.h"

#include "httpd.h"
#include "http_config.h"
#include "http_request.h"
#include "mpm_common.h"


static void cgiplus_register_hooks(apr_pool_t *p)
{
    /* Before mod_cgi/mod_cgid: CGIplusCompat takes their handler over. */
    static const char *const cgi_modules[] = { "mod_cgi.c", "mod_cgid.c", NULL };
    static const char *const cgiplus_static_succ[] = { "mod_alias.c", NULL };

    ap_hook_check_config(cgiplus_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(cgiplus_runner_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(cgiplus_version_post_config, NULL, NULL, APR_HOOK_LAST);
    ap_hook_monitor(cgiplus_runner_monitor, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_key_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_conn_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_direct_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(cgiplus_handler, NULL, cgi_modules, APR_HOOK_MIDDLE);
    ap_hook_handler(cgiplus_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_open_logs(cgiplus_scriptlog_open_logs, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_optional_fn_retrieve(cgiplus_include_retrieve, NULL, NULL, APR_HOOK_MIDDLE);
    /* the static fast path: cgiplus_static_*.c */
    ap_hook_check_config(cgiplus_static_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(cgiplus_static_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_quick_handler(cgiplus_static_quick_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_translate_name(cgiplus_static_translate, NULL, cgiplus_static_succ,
                           APR_HOOK_MIDDLE);
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
