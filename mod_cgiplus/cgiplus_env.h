/* cgiplus_env.h: a request's BEGIN and PARAMS frames (cgiplus_env.c). */
#ifndef CGIPLUS_ENV_H
#define CGIPLUS_ENV_H

#include "cgiplus_req.h"

/* BEGIN entries the pool settings may add, more than all sources can give
 * (nothing is dropped): httpd's generation and the pool rows (at most 33),
 * CGIplusSetEnv's and FcgidInitialEnv's variables (64 each), a wrapper's
 * arguments (CGP_MAX_ARGS), the Fcgid numbers (7), an engine's (2). */
#define CGIPLUS_BEGIN_MAX 256

/* Packs BEGIN and PARAMS frames into one buffer; sets q->params (the CGI
 * variables) and, for the direct path, q->pool_key. */
apr_status_t cgiplus_env_pack(cgiplus_req *q, unsigned char **buf, apr_size_t *len);

#endif
