/* cgiplus_body.c: the request body as it comes from the client. A body up
 * to CGIplusBodyBuffer is read whole before any worker is taken, so a slow
 * client never holds one (as nginx's request buffering and mod_fcgid's
 * FcgidMaxRequestInMem do); the rest of a larger one is read as the relay
 * sends it on (cgiplus_relay_send.c) and must keep CGIplusBodyMinRate (as
 * mod_reqtimeout's body MinRate). */
#include "cgiplus_body.h"
#include "cgiplus_conf.h"
#include "cgiplus_req.h"
#include "cgp_proto.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "util_filter.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* A body held to the minimum rate gets this long before its first byte
 * counts: the rate is an average, not a demand on the first read. */
#define BODY_RATE_GRACE apr_time_from_sec(1)

void cgiplus_body_init(request_rec *r, cgiplus_body_in *in)
{
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    char *end;

    memset(in, 0, sizeof(*in));
    in->bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    in->tmp = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    in->buffer = cgiplus_conf_geti(dc, CGP_S_BODY_BUFFER);
    in->min_rate = cgiplus_conf_geti(dc, CGP_S_BODY_MIN_RATE);
    in->cl = -1;
    in->limit = -1;
    if (cl && !apr_table_get(r->headers_in, "Transfer-Encoding") &&
        (apr_strtoff(&in->cl, cl, &end, 10) != APR_SUCCESS || *end || in->cl < 0))
        in->cl = -1; /* HTTP_IN refuses it anyway */
    in->t0 = apr_time_now();
}

/* When a body bigger than the buffer must be in: the minimum rate from the
 * first read on, with BODY_RATE_GRACE. 0: no rate applies (yet). */
static apr_time_t body_deadline(const cgiplus_body_in *in)
{
    if (!in->min_rate || (in->cl <= in->buffer && in->got <= in->buffer))
        return 0;
    return in->t0 + BODY_RATE_GRACE +
           (apr_time_t)((double)in->got * APR_USEC_PER_SEC / (double)in->min_rate);
}

/* Room for want more bytes in the pre-read buffer: grown by doubling up to
 * CGIplusBodyBuffer (a small chunked body never costs the whole of it). */
static void body_room(request_rec *r, cgiplus_body_in *in, apr_size_t want)
{
    apr_size_t cap = in->cap ? in->cap : 8192;
    char *p;

    if (in->len + want <= in->cap)
        return;
    while (cap < in->len + want)
        cap *= 2;
    if (cap > (apr_size_t)in->buffer)
        cap = (apr_size_t)in->buffer;
    p = apr_palloc(r->pool, cap);
    if (in->len)
        memcpy(p, in->buf, in->len);
    in->buf = p;
    in->cap = cap;
}

int cgiplus_body_read(request_rec *r, cgiplus_body_in *in, apr_off_t max, int flat)
{
    conn_rec *c = r->connection;
    /* An HTTP/2 stream's socket is the connection's, shared by every
     * stream: the rate is then checked after each read only. */
    apr_socket_t *sock = c->master ? NULL : ap_get_conn_socket(c);
    apr_interval_time_t saved = 0;
    apr_time_t dl = body_deadline(in), now = apr_time_now();
    apr_status_t rv = APR_SUCCESS;
    apr_off_t len = 0;
    int status = OK, capped = 0, slow = dl && now >= dl;

    if (slow)
        goto done;
    if (dl && sock) {
        apr_socket_timeout_get(sock, &saved);
        if (saved < 0 || dl - now < saved) {
            apr_socket_timeout_set(sock, dl - now);
            capped = 1; /* a timeout now is the rate's */
        }
    }
    rv = ap_get_brigade(r->input_filters, in->tmp, AP_MODE_READBYTES, APR_BLOCK_READ,
                        (apr_size_t)max);
    if (capped)
        apr_socket_timeout_set(sock, saved);
    if ((slow = capped && APR_STATUS_IS_TIMEUP(rv)))
        goto done;
    if (rv != APR_SUCCESS) {
        status = ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
        ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1041)
                      "reading the request body for %s failed (%s)",
                      r->filename, cgiplus_status_text(r, status));
        goto done;
    }
    if (apr_brigade_length(in->tmp, 1, &len) != APR_SUCCESS || len > max) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1040)
                      "an input filter returned more than the %" APR_OFF_T_FMT
                      " bytes asked for in one body read", max);
        status = HTTP_INTERNAL_SERVER_ERROR;
        goto done;
    }
    in->got += len;
    if (in->limit >= 0 && in->got > in->limit) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1906)
                      "the request body for %s is over %" APR_OFF_T_FMT " bytes "
                      "(FcgidMaxRequestLen); answering 413", r->filename, in->limit);
        status = HTTP_REQUEST_ENTITY_TOO_LARGE;
        goto done;
    }
    if (!APR_BRIGADE_EMPTY(in->tmp) && APR_BUCKET_IS_EOS(APR_BRIGADE_LAST(in->tmp)))
        in->eos = 1;
    if (flat) {
        apr_size_t n = (apr_size_t)len;

        body_room(r, in, n);
        apr_brigade_flatten(in->tmp, in->buf + in->len, &n);
        in->len += n;
    }
    else {
        APR_BRIGADE_CONCAT(in->bb, in->tmp);
    }
    dl = body_deadline(in);
    slow = !sock && dl && !in->eos && apr_time_now() > dl;
done:
    if (slow) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1042)
                      "the request body of %s arrives slower than CGIplusBodyMinRate %"
                      APR_OFF_T_FMT " bytes/s (%" APR_OFF_T_FMT " byte%s in %" APR_TIME_T_FMT
                      " ms); answering 408", r->filename, in->min_rate, in->got, CGIPLUS_S(in->got),
                      apr_time_as_msec(apr_time_now() - in->t0));
        status = HTTP_REQUEST_TIME_OUT;
        c->keepalive = AP_CONN_CLOSE;
    }
    apr_brigade_cleanup(in->tmp);
    if (status != OK)
        in->failed = 1;
    return status;
}

int cgiplus_body_preread(request_rec *r, cgiplus_body_in *in)
{
    apr_bucket_alloc_t *ba = r->connection->bucket_alloc;
    int status;

    if (in->buffer == 0) /* streamed as it comes: one read to go with BEGIN */
        return cgiplus_body_read(r, in, CGP_MAX_PAYLOAD, 0);
    /* At least one read: a body-less request has its EOS at once. */
    do {
        apr_off_t want = in->buffer - in->got;

        if (want > CGP_MAX_PAYLOAD)
            want = CGP_MAX_PAYLOAD;
        status = cgiplus_body_read(r, in, want, 1);
    } while (status == OK && !in->eos && in->got < in->buffer);
    if (status != OK)
        return status;
    if (in->len) /* r->pool memory: outlives every use of the bucket */
        APR_BRIGADE_INSERT_TAIL(in->bb, apr_bucket_immortal_create(in->buf, in->len, ba));
    if (in->eos)
        APR_BRIGADE_INSERT_TAIL(in->bb, apr_bucket_eos_create(ba));
    return OK;
}

int cgiplus_body_drain(request_rec *r, cgiplus_body_in *in)
{
    int status = OK;

    if (!in->bb)
        return OK; /* never read (a WebSocket) */
    apr_brigade_cleanup(in->bb);
    while (status == OK && !in->eos && !in->failed) {
        status = cgiplus_body_read(r, in, CGP_MAX_PAYLOAD, 0);
        apr_brigade_cleanup(in->bb);
    }
    return status;
}

void cgiplus_body_reset(cgiplus_body_in *in, const char *data, apr_size_t len,
                        apr_bucket_alloc_t *ba)
{
    apr_brigade_cleanup(in->bb);
    if (len)
        APR_BRIGADE_INSERT_TAIL(in->bb, apr_bucket_immortal_create(data, len, ba));
    APR_BRIGADE_INSERT_TAIL(in->bb, apr_bucket_eos_create(ba));
}

int cgiplus_body_filtered(request_rec *r)
{
    ap_filter_t *f;

    /* above HTTP_IN (a protocol filter): the body's content, not its framing */
    for (f = r->input_filters; f; f = f->next)
        if (f->frec->ftype < AP_FTYPE_PROTOCOL)
            return 1;
    return 0;
}

unsigned cgiplus_body_cause(request_rec *r, int status)
{
    if (r->connection->aborted)
        return CGP_O_ABORTED;
    if (status == AP_FILTER_ERROR)
        status = r->status; /* HTTP_IN answered already (LimitRequestBody, a bad chunk) */
    return status == HTTP_REQUEST_ENTITY_TOO_LARGE ? CGP_O_TOO_LARGE : CGP_C_BAD_BODY;
}
