/* cgiplus_env.h: a request's BEGIN and PARAMS frames (cgiplus_env.c). */
#ifndef CGIPLUS_ENV_H
#define CGIPLUS_ENV_H

#include "cgiplus_req.h"

/* BEGIN entries the pool settings may add, more than all sources can give
 * (nothing is dropped): httpd's generation and the pool rows (at most 33),
 * CGIplusSetEnv's and FcgidInitialEnv's variables (64 each), a wrapper's
 * arguments (CGP_MAX_ARGS), the Fcgid numbers (7), an engine's (2). */
#define CGIPLUS_BEGIN_MAX 256

/* Makes the request's BEGIN entries and CGI variables (q->begin_kv,
 * q->params) and, for the direct path, q->pool_key; checks that they fit
 * the protocol. */
apr_status_t cgiplus_env_make(cgiplus_req *q);
/* Packs the BEGIN and PARAMS frames into q->begin once, when the runner
 * is to see the request (a direct request never needs them). */
void cgiplus_env_frames(cgiplus_req *q);

#endif
