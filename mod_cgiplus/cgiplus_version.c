/* cgiplus_version.c: the module's version where an administrator looks for
 * it: the Server banner (ServerTokens Full) and one startup line. The
 * version comes from configure.ac (AC_INIT) through CGIPLUS_VERSION. */
#include "cgiplus_conf.h"
#include "cgiplus_runner.h"
#include "cgp_proto.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"


APLOG_USE_MODULE(cgiplus);

int cgiplus_version_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s)
{
    ap_add_version_component(pconf, "mod_cgiplus/" CGIPLUS_VERSION);
    /* httpd reads its configuration twice at startup: say it once. */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    /* notice: httpd writes notice lines whatever LogLevel says */
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, CGIPLUS_LOGNO(1610)
                 "mod_cgiplus/%s (protocol %u) configured; runner %s %s",
                 CGIPLUS_VERSION, CGP_VERSION,
                 cgiplus_conf_sgets(s, CGP_S_RUNNER_SOCKET) ? "started separately, on"
                                                            : "started by httpd, on",
                 cgiplus_runner_socket_path());
    return OK;
}
