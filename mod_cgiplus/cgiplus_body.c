/* cgiplus_body.c: the request body, streamed to the runner as STDIN frames
 * one chunk (at most one frame) at a time; the whole body is never held.
 * While sending, frames from the runner are read too, so a script that
 * answers before it reads its body cannot deadlock the two sides. */
#include "cgiplus_private.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_log.h"
#include "http_protocol.h"
#include "util_filter.h"


APLOG_USE_MODULE(cgiplus);

#define BODY_IOV 64
/* STDOUT kept while the body is still being sent; past this the module
 * stops reading and waits for the runner to take the body. */
#define BODY_PENDING_MAX (1024 * 1024)

apr_status_t cgiplus_body_first(cgiplus_req *q)
{
    request_rec *r = q->r;

    q->body = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    return ap_get_brigade(r->input_filters, q->body, AP_MODE_READBYTES,
                          APR_BLOCK_READ, CGP_MAX_PAYLOAD);
}

/* Describes q->body as one STDIN frame: iov[0] the header (in hdr), then
 * the data buckets as they are. Notes EOS (the frame then carries END). */
static apr_status_t body_iov(cgiplus_req *q, unsigned char *hdr,
                             struct iovec *iov, int max, int *n)
{
    apr_bucket *b;
    apr_size_t total = 0;
    cgp_hdr h = { 0 };
    int k = 1;

    for (b = APR_BRIGADE_FIRST(q->body); b != APR_BRIGADE_SENTINEL(q->body);
         b = APR_BUCKET_NEXT(b)) {
        const char *data;
        apr_size_t len;
        apr_status_t rv;

        if (APR_BUCKET_IS_EOS(b)) {
            q->body_eos = 1;
            break;
        }
        if (APR_BUCKET_IS_METADATA(b))
            continue;
        if ((rv = apr_bucket_read(b, &data, &len, APR_BLOCK_READ)) != APR_SUCCESS)
            return rv;
        if (len == 0)
            continue;
        if (k == max || total + len > CGP_MAX_PAYLOAD) {
            /* ap_get_brigade was asked for at most one frame's worth in
             * few buckets; anything else is an input filter bug. */
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1040)
                          "an input filter returned more than %u bytes or %d "
                          "buckets for one body read", CGP_MAX_PAYLOAD, max - 1);
            return APR_EGENERAL;
        }
        if (q->slog)
            cgiplus_scriptlog_body(q, data, len);
        iov[k].iov_base = (void *)data;
        iov[k].iov_len = len;
        total += len;
        k++;
    }
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

apr_status_t cgiplus_body_send_first(cgiplus_req *q, unsigned char *frames,
                                     apr_size_t flen)
{
    struct iovec iov[BODY_IOV + 1];
    unsigned char hdr[CGP_HDR_LEN];
    apr_status_t rv;
    int n;

    /* BEGIN, PARAMS and the first body chunk (maybe all of it) in one go. */
    if ((rv = body_iov(q, hdr, iov + 1, BODY_IOV, &n)) != APR_SUCCESS)
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
    if (rv == APR_SUCCESS && q->body_eos)
        q->stdin_done = 1;
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
    apr_status_t rv;
    int n;

    *http_status = 0;
    while (!q->stdin_done && !q->got_end) {
        apr_brigade_cleanup(q->body);
        q->body_streamed = 1;
        rv = ap_get_brigade(r->input_filters, q->body, AP_MODE_READBYTES,
                            APR_BLOCK_READ, CGP_MAX_PAYLOAD);
        if (rv != APR_SUCCESS) {
            *http_status = ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
            ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1041)
                          "reading the request body for %s failed (%s)",
                          r->filename, cgiplus_status_text(r, *http_status));
            return rv;
        }
        if ((rv = body_iov(q, hdr, iov, BODY_IOV, &n)) != APR_SUCCESS) {
            *http_status = HTTP_INTERNAL_SERVER_ERROR;
            return rv;
        }
        if ((rv = body_send_duplex(q, iov, n)) != APR_SUCCESS)
            return rv;
        if (q->body_eos && !q->got_end)
            q->stdin_done = 1;
    }
    apr_brigade_cleanup(q->body);
    if (!q->stdin_done && !q->body_eos) {
        /* The runner answered before the whole body came: what is left
         * unread can only be skipped by closing the client connection. */
        r->connection->keepalive = AP_CONN_CLOSE;
    }
    return APR_SUCCESS;
}
