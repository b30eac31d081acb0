/* cgiplus_direct.h: the direct path as the rest of the module sees it
 * (cgiplus_direct*.c; docs/DESIGN.md, "The direct path"): a kind of worker
 * (cgiplus_xport.h) that claims an idle persistent worker in the runner's
 * shared table and does the request's I/O with it itself. The files of the
 * direct path share cgiplus_direct_private.h. */
#ifndef CGIPLUS_DIRECT_H
#define CGIPLUS_DIRECT_H

#include "cgiplus_conf.h"
#include "cgiplus_req.h"

/* A CGIplus worker (cgiplus_direct.c) and a FastCGI one
 * (cgiplus_fcgi_direct.c): two kinds, one claim. */
extern const cgiplus_xport cgiplus_direct_xport;
extern const cgiplus_xport cgiplus_fcgi_xport;

void cgiplus_direct_child_init(apr_pool_t *pchild, server_rec *s);
/* CGIplusDirect: on unless CGIplusDirect off. */
int cgiplus_direct_on(const cgiplus_dir_conf *dc);
/* Gets the runner's table if this process has none yet (and drops one of
 * a runner that is gone); nonzero if it has one: q may claim. */
int cgiplus_direct_begin(cgiplus_req *q);

#endif
