/* cgiplus_fcgid_name.c: a second module in mod_cgiplus.so that answers to
 * mod_fcgid's name, loaded by its own line in place of mod_fcgid's:
 *
 *     LoadModule cgiplus_fcgid_module .../mod_cgiplus.so
 *
 * Packaged mod_fcgid set-ups guard their lines with <IfModule mod_fcgid.c>
 * (Debian's fcgid.conf: AddHandler fcgid-script .fcgi; munin's
 * apache24.conf: SetHandler fcgid-script, else cgi-script). Without this
 * those sections are skipped once mod_fcgid goes, and the scripts fall
 * back to plain CGI or 404, so the configuration does not run unedited.
 * It has no directives, handler or settings: mod_cgiplus serves them
 * (cgiplus_fcgid_conf.c); it only refuses to stand in where there is
 * nothing behind the name. */
#include "cgiplus_fcgid.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"

#include "cgiplus_module.h"

APLOG_USE_MODULE(cgiplus);

#define FCGID_NAME "mod_fcgid.c"

static void fcgid_name_register_hooks(apr_pool_t *p);

CGIPLUS_EXPORT module AP_MODULE_DECLARE_DATA cgiplus_fcgid_module = {
    /* STANDARD20_MODULE_STUFF, with mod_fcgid's name for <IfModule> */
    MODULE_MAGIC_NUMBER_MAJOR, MODULE_MAGIC_NUMBER_MINOR, -1, FCGID_NAME, NULL, NULL,
    MODULE_MAGIC_COOKIE, NULL,
    NULL, NULL, NULL, NULL, NULL,
    fcgid_name_register_hooks,
#if AP_MODULE_MAGIC_AT_LEAST(20120211, 124)
    AP_MODULE_FLAG_NONE,
#endif
};

int cgiplus_fcgid_peer_loaded(void)
{
    module *m;

    for (m = ap_top_module; m; m = m->next)
        if (m != &cgiplus_fcgid_module && m->name && !strcmp(m->name, FCGID_NAME))
            return 1;
    return 0;
}

static int fcgid_name_check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                                   server_rec *s)
{
    (void)pconf; (void)plog; (void)ptemp;
    /* Its name says fcgid-script is served: refuse where it would not be
     * (no mod_cgiplus), or where two modules would claim it. */
    if (!ap_find_linked_module("mod_cgiplus.c")) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s, CGIPLUS_LOGNO(1390)
                     "cgiplus_fcgid_module is loaded without cgiplus_module: it only "
                     "answers to mod_fcgid's name for <IfModule mod_fcgid.c>, mod_cgiplus "
                     "serves fcgid-script; load cgiplus_module too");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (cgiplus_fcgid_peer_loaded()) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s, CGIPLUS_LOGNO(1391)
                     "cgiplus_fcgid_module and mod_fcgid are both loaded: it stands in for "
                     "mod_fcgid, so load one of them (mod_fcgid serves fcgid-script where "
                     "it is loaded)");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

static void fcgid_name_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_check_config(fcgid_name_check_config, NULL, NULL, APR_HOOK_MIDDLE);
}
