/* cgiplus_body.c: the request body. A body up to CGIplusBodyBuffer is read
 * whole before the request goes to the runner, so a slow client never holds
 * a worker (as nginx's request buffering and mod_fcgid's
 * FcgidMaxRequestInMem do); the rest of a larger one is streamed to the
 * runner as STDIN frames, one frame's worth at a time, and must keep
 * CGIplusBodyMinRate (as mod_reqtimeout's body MinRate). While sending,
 * frames from the runner are read too, so a script that answers before it
 * reads its body cannot deadlock the two sides. */
#include "cgiplus_private.h"

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

#define BODY_IOV 64
/* STDOUT kept while the body is still being sent; past this the module
 * stops reading and waits for the runner to take the body. */
#define BODY_PENDING_MAX (1024 * 1024)
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
    in->buffer = cgiplus_conf_body_buffer(dc);
    in->min_rate = cgiplus_conf_body_min_rate(dc);
    in->cl = -1;
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

/* One read of at most max bytes: copied into the pre-read buffer (flat: a
 * slow client's many small reads would otherwise each keep a socket
 * buffer), or else appended to in->bb, which is sent before the next read.
 * Below the minimum rate the read is cut short by the socket's timeout:
 * 408. OK or an HTTP status (logged). */
static int body_read(request_rec *r, cgiplus_body_in *in, apr_off_t max, int flat)
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
                      APR_OFF_T_FMT " bytes/s (%" APR_OFF_T_FMT " bytes in %" APR_TIME_T_FMT
                      " ms); answering 408", r->filename, in->min_rate, in->got,
                      apr_time_as_msec(apr_time_now() - in->t0));
        status = HTTP_REQUEST_TIME_OUT;
        c->keepalive = AP_CONN_CLOSE;
    }
    apr_brigade_cleanup(in->tmp);
    return status;
}

int cgiplus_body_preread(request_rec *r, cgiplus_body_in *in)
{
    apr_bucket_alloc_t *ba = r->connection->bucket_alloc;
    int status;

    if (in->buffer == 0) /* streamed as it comes: one read to go with BEGIN */
        return body_read(r, in, CGP_MAX_PAYLOAD, 0);
    /* At least one read: a body-less request has its EOS at once. */
    do {
        apr_off_t want = in->buffer - in->got;

        if (want > CGP_MAX_PAYLOAD)
            want = CGP_MAX_PAYLOAD;
        status = body_read(r, in, want, 1);
    } while (status == OK && !in->eos && in->got < in->buffer);
    if (status != OK)
        return status;
    if (in->len) /* r->pool memory: outlives every use of the bucket */
        APR_BRIGADE_INSERT_TAIL(in->bb, apr_bucket_immortal_create(in->buf, in->len, ba));
    if (in->eos)
        APR_BRIGADE_INSERT_TAIL(in->bb, apr_bucket_eos_create(ba));
    return OK;
}

/* Describes the head of q->in.bb as one STDIN frame: iov[0] the header (in
 * hdr), then data buckets (split to fit CGP_MAX_PAYLOAD). *stop is the
 * first bucket not in the frame. Notes EOS (the frame then carries END). */
static apr_status_t body_iov(cgiplus_req *q, unsigned char *hdr, struct iovec *iov,
                             int max, int *n, apr_bucket **stop)
{
    apr_bucket_brigade *bb = q->in.bb;
    apr_bucket *b;
    apr_size_t total = 0;
    cgp_hdr h = { 0 };
    int k = 1;

    for (b = APR_BRIGADE_FIRST(bb); b != APR_BRIGADE_SENTINEL(bb); b = APR_BUCKET_NEXT(b)) {
        const char *data;
        apr_size_t len;
        apr_status_t rv;

        if (APR_BUCKET_IS_EOS(b)) {
            q->body_eos = 1;
            b = APR_BRIGADE_SENTINEL(bb);
            break;
        }
        if (APR_BUCKET_IS_METADATA(b))
            continue;
        if (k == max || total == CGP_MAX_PAYLOAD)
            break;
        if (b->length != (apr_size_t)-1 && total + b->length > CGP_MAX_PAYLOAD)
            apr_bucket_split(b, CGP_MAX_PAYLOAD - total);
        if ((rv = apr_bucket_read(b, &data, &len, APR_BLOCK_READ)) != APR_SUCCESS)
            return rv;
        if (total + len > CGP_MAX_PAYLOAD) { /* was of unknown length */
            apr_bucket_split(b, CGP_MAX_PAYLOAD - total);
            len = CGP_MAX_PAYLOAD - total;
        }
        if (len == 0)
            continue;
        if (q->slog)
            cgiplus_scriptlog_body(q, data, len);
        iov[k].iov_base = (void *)data;
        iov[k].iov_len = len;
        total += len;
        k++;
    }
    *stop = b;
    h.type = CGP_T_STDIN;
    h.reqid = q->reqid;
    h.len = (uint32_t)total;
    h.flags = q->body_eos ? CGP_F_END : 0;
    cgp_hdr_pack(hdr, &h);
    iov[0].iov_base = hdr;
    iov[0].iov_len = CGP_HDR_LEN;
    *n = k;
    return APR_SUCCESS;
}

/* The buckets a sent frame described are done with. */
static void body_sent(cgiplus_req *q, apr_bucket *stop)
{
    while (APR_BRIGADE_FIRST(q->in.bb) != stop)
        apr_bucket_delete(APR_BRIGADE_FIRST(q->in.bb));
}

apr_status_t cgiplus_body_send_first(cgiplus_req *q, unsigned char *frames,
                                     apr_size_t flen)
{
    struct iovec iov[BODY_IOV + 1];
    unsigned char hdr[CGP_HDR_LEN];
    apr_bucket *stop;
    apr_status_t rv;
    int n;

    /* BEGIN, PARAMS and the first body frame (maybe all of it) in one go. */
    if ((rv = body_iov(q, hdr, iov + 1, BODY_IOV, &n, &stop)) != APR_SUCCESS)
        return rv;
    iov[0].iov_base = frames;
    iov[0].iov_len = flen;
    /* A first write the socket took nothing of proves the runner never saw
     * this request: only then may it be sent again (cgiplus_handler.c). */
    {
        struct iovec *v = iov;
        int nv = n + 1;

        rv = cgiplus_conn_send_part(q->conn, &v, &nv);
        q->unsent = rv != APR_SUCCESS;
        if (rv == APR_SUCCESS)
            rv = cgiplus_conn_sendv(q->conn, v, nv);
    }
    if (rv == APR_SUCCESS) {
        body_sent(q, stop);
        if (q->body_eos)
            q->stdin_done = 1;
    }
    return rv;
}

/* Sends iov while also reading what the runner sends. Stops early, with
 * success, once the runner has sent END. */
static apr_status_t body_send_duplex(cgiplus_req *q, struct iovec *iov, int n)
{
    apr_size_t frame_len = 0, left;
    int i;

    for (i = 0; i < n; i++)
        frame_len += iov[i].iov_len;
    left = frame_len;
    while (n > 0) {
        int rd = 0, wr = 0;
        apr_int16_t ev = APR_POLLOUT;
        apr_status_t rv;

        if (q->out_len < BODY_PENDING_MAX)
            ev |= APR_POLLIN;
        rv = cgiplus_conn_wait(q->conn, ev, q->timeout, &rd, &wr);
        if (rv != APR_SUCCESS)
            return rv;
        if (rd && (ev & APR_POLLIN)) {
            if ((rv = cgiplus_resp_read_frame(q)) != APR_SUCCESS)
                return rv;
            if (q->got_end) {
                /* The runner drops the rest; a half frame would break the
                 * framing of the next request, so then do not reuse. */
                if (left != frame_len)
                    q->conn_dirty = 1;
                return APR_SUCCESS;
            }
            continue;
        }
        if (wr) {
            if ((rv = cgiplus_conn_send_part(q->conn, &iov, &n)) != APR_SUCCESS)
                return rv;
            for (left = 0, i = 0; i < n; i++)
                left += iov[i].iov_len;
            q->mid_frame = n > 0;
        }
    }
    return cgiplus_callout_flush(q);
}

apr_status_t cgiplus_body_stream(cgiplus_req *q, int *http_status)
{
    request_rec *r = q->r;
    struct iovec iov[BODY_IOV];
    unsigned char hdr[CGP_HDR_LEN];
    apr_bucket *stop;
    apr_status_t rv;
    int n;

    *http_status = 0;
    while (!q->stdin_done && !q->got_end) {
        /* What the pre-read holds goes first; then one read at a time. */
        if (APR_BRIGADE_EMPTY(q->in.bb) &&
            (*http_status = body_read(r, &q->in, CGP_MAX_PAYLOAD, 0)) != OK)
            return APR_EGENERAL; /* logged */
        if ((rv = body_iov(q, hdr, iov, BODY_IOV, &n, &stop)) != APR_SUCCESS) {
            *http_status = HTTP_INTERNAL_SERVER_ERROR;
            return rv;
        }
        if ((rv = body_send_duplex(q, iov, n)) != APR_SUCCESS)
            return rv;
        body_sent(q, stop);
        if (q->body_eos && !q->got_end)
            q->stdin_done = 1;
    }
    apr_brigade_cleanup(q->in.bb);
    if (!q->stdin_done && !q->in.eos) {
        /* The runner answered before the whole body came: what is left
         * unread can only be skipped by closing the client connection. */
        r->connection->keepalive = AP_CONN_CLOSE;
    }
    return APR_SUCCESS;
}
