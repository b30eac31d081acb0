/* cgiplus_suexec.h: suEXEC (cgiplus_suexec.c). The wrapper's settings,
 * read at startup, go into the runner's configuration file; a request's
 * identity goes into its BEGIN, and its CGI variables are cut to suexec's
 * safe list. */
#ifndef CGIPLUS_SUEXEC_H
#define CGIPLUS_SUEXEC_H

#include "cgiplus_module.h"

int cgiplus_suexec_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                               server_rec *s);
/* "UID:GID" (SuexecUserGroup) or "~UID:GID" (UserDir) where suexec is
 * enabled and mod_suexec or mod_userdir names r's identity; else NULL. */
const char *cgiplus_suexec_identity(request_rec *r);

#endif
