/* cgiplus_body.h: the request body (cgiplus_body.c): read from the client
 * ahead of any worker; the kind that carries the request sends it on. */
#ifndef CGIPLUS_BODY_H
#define CGIPLUS_BODY_H

#include "cgiplus_module.h"

#include "apr_buckets.h"

/* The request body as read from the client: what was read and not yet
 * sent, and the minimum-rate guard. In its request's cgiplus_req, from
 * r->pool; lives for the request. */
typedef struct cgiplus_body_in {
    apr_bucket_brigade *bb;  /* read, not yet sent; EOS last once all is read */
    apr_bucket_brigade *tmp; /* scratch of one read */
    char *buf;               /* the pre-read bytes, flat (r->pool) */
    apr_size_t len, cap;
    apr_off_t got;           /* bytes read from the client so far */
    apr_off_t buffer;        /* CGIplusBodyBuffer: read whole up to this */
    apr_off_t min_rate;      /* CGIplusBodyMinRate (bytes/s) past it, 0: none */
    apr_off_t cl;            /* Content-Length, -1: none (chunked, HTTP/2) */
    apr_time_t t0;           /* when reading began */
    int eos;                 /* the body is read to its end */
    apr_off_t limit;         /* the most body bytes, past them 413 (FcgidMaxRequestLen); -1: none */
    int failed;              /* a read failed (answered): nothing more is read */
} cgiplus_body_in;

/* Sets in up for r: CGIplusBodyBuffer, CGIplusBodyMinRate, Content-Length. */
void cgiplus_body_init(request_rec *r, cgiplus_body_in *in);
/* Reads the body into in->bb, all of it if it is at most CGIplusBodyBuffer
 * bytes, else that much: before the request goes to the runner, so a slow
 * client holds no worker (the direct path calls it before claiming one).
 * Past the buffer the body must keep CGIplusBodyMinRate. OK, or an HTTP
 * status, logged (408 too slow, 413 LimitRequestBody, 400...). */
int cgiplus_body_preread(request_rec *r, cgiplus_body_in *in);
/* One read of at most max bytes: copied into the pre-read buffer (flat: a
 * slow client's many small reads would otherwise each keep a socket
 * buffer), or else appended to in->bb, which is sent before the next read.
 * Below the minimum rate the read is cut short by the socket's timeout:
 * 408. OK or an HTTP status (logged). */
int cgiplus_body_read(request_rec *r, cgiplus_body_in *in, apr_off_t max, int flat);
/* Reads what is left of the body and drops it, with what was read and not
 * sent: a local redirect, or a local ErrorDocument, is a GET whose body is
 * none (mod_cgi's script has had the whole body before its header is read;
 * ours may answer first). OK (a body that failed already is left alone) or
 * an HTTP status (logged), as cgiplus_body_read. */
int cgiplus_body_drain(request_rec *r, cgiplus_body_in *in);
/* Whether an input filter above the protocol's (SetInputFilter: mod_sed,
 * mod_deflate) may change r's body, and so its length. */
int cgiplus_body_filtered(request_rec *r);
/* The cause (enum cgp_cause) a failure to read r's body, answered with
 * status, is counted under: the client left, too large, or a bad body. */
unsigned cgiplus_body_cause(request_rec *r, int status);
/* The whole body again (data, len), for a request that goes on to another
 * worker before any of it was taken. */
void cgiplus_body_reset(cgiplus_body_in *in, const char *data, apr_size_t len,
                        apr_bucket_alloc_t *ba);

#endif
