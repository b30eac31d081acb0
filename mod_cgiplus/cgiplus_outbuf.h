/* cgiplus_outbuf.h: a response on its way to a client that may be slower
 * than its script (cgiplus_outbuf.c; docs/DESIGN.md, "Slow readers").
 * Whoever reads the script's output puts it here as it comes; what the
 * client takes at once is passed on, the rest is held (memory, then a
 * spool file), so the script's worker can go back as soon as it has
 * written the whole response. Independent of where the output comes from
 * (the runner's frames, the direct path's pipe). */
#ifndef CGIPLUS_OUTBUF_H
#define CGIPLUS_OUTBUF_H

#include "httpd.h"
#include "util_filter.h"
#include "apr_buckets.h"

typedef struct cgiplus_outbuf cgiplus_outbuf;

/* The spool directory (CGIplusResponseSpoolDir, default
 * DefaultRuntimeDir/cgiplus-response): made mode 0700 for httpd's User,
 * refused if anyone else may use it. post_config hook. */
/* httpd -t only: refuses a response spool directory the start would
 * refuse (1330), changing nothing. */
int cgiplus_outbuf_check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                                server_rec *s);
int cgiplus_outbuf_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                               server_rec *s);

/* One response of r, passed to r->output_filters (the connection's for an
 * nph- script). From r->pool; lives for the request. */
cgiplus_outbuf *cgiplus_outbuf_make(request_rec *r);
/* Takes bb's buckets (data, emptied into ob) and passes on what the client
 * takes now; never waits for the client while the spool has room. idle:
 * the script has nothing more right now, so what was passed is flushed (a
 * stream shows each write). An error: the client is gone (c->aborted). */
apr_status_t cgiplus_outbuf_put(cgiplus_outbuf *ob, apr_bucket_brigade *bb, int idle);
/* Nonzero if data waits for the client: the caller then waits with
 * cgiplus_outbuf_wait rather than for its source alone. */
int cgiplus_outbuf_held(const cgiplus_outbuf *ob);
/* Waits until src (the descriptor more output comes on) is readable
 * (*src_ready) or the client took some of what is held (passed on then).
 * APR_TIMEUP: the client took nothing for httpd's Timeout; another error:
 * it is gone. */
apr_status_t cgiplus_outbuf_wait(cgiplus_outbuf *ob, int src, int *src_ready);
/* The script is done (its worker is free): passes what is held, then tail
 * (the end of the response: EOS, or an error bucket and EOS), at the
 * client's pace as httpd sends a file. */
apr_status_t cgiplus_outbuf_end(cgiplus_outbuf *ob, apr_bucket_brigade *tail);

#endif
