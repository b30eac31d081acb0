/* cgiplus_env.h: a request's BEGIN and PARAMS frames (cgiplus_env.c). */
#ifndef CGIPLUS_ENV_H
#define CGIPLUS_ENV_H

#include "cgiplus_req.h"

#define CGIPLUS_BEGIN_MAX 128 /* BEGIN entries the pool settings and arguments may add */

/* Packs BEGIN and PARAMS frames into one buffer; sets q->params (the CGI
 * variables) and, for the direct path, q->pool_key. */
apr_status_t cgiplus_env_pack(cgiplus_req *q, unsigned char **buf, apr_size_t *len);

#endif
