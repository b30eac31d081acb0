/* cgiplus_static.h: the static fast path as the rest of the module sees it
 * (cgiplus_static_*.c, docs/STATIC.md): its hooks, its settings, and the
 * one function the response calls (X-CGIplus-File). The files of the fast
 * path share cgiplus_static_private.h. */
#ifndef CGIPLUS_STATIC_H
#define CGIPLUS_STATIC_H

#include "cgiplus_module.h"

/* The script header that hands a file to the fast path. */
#define CGIPLUS_OFFLOAD_HEADER  "X-CGIplus-File"

struct cgiplus_static_sconf;

struct cgiplus_static_sconf *cgiplus_static_merge_sconf(
    apr_pool_t *p, const struct cgiplus_static_sconf *base,
    const struct cgiplus_static_sconf *add);
int cgiplus_static_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s);
void cgiplus_static_child_init(apr_pool_t *pchild, server_rec *s);
int cgiplus_static_quick_handler(request_rec *r, int lookup);
int cgiplus_static_translate(request_rec *r);
int cgiplus_static_handler(request_rec *r);
/* A script answered with X-CGIplus-File: path (its value, as the script
 * gave it), once the script's body is dropped. Sends that file, with the
 * script's status and other headers, if it lies under a
 * CGIplusOffloadRoot: OK, or an HTTP status (logged). */
int cgiplus_static_offload(request_rec *r, const char *path);
/* Whether r's own server (the virtual host itself, or the main server for
 * its own requests; not roots a virtual host inherits) configures a
 * CGIplusOffloadRoot: in a drop-in scope, the opt-in to X-CGIplus-File. */
int cgiplus_static_offload_own(request_rec *r);

#endif
