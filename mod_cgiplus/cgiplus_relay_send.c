/* cgiplus_relay_send.c: the request as the relay writes it to the runner:
 * BEGIN, PARAMS and the first body frame in one write, then the rest of
 * the body as STDIN frames, one frame's worth at a time. While sending,
 * frames from the runner are read too, so a script that answers before it
 * reads its body cannot deadlock the two sides; the answers to its
 * callouts wait for a whole frame. */
#include "cgiplus_env.h"
#include "cgiplus_relay_private.h"
#include "cgiplus_scriptlog.h"

#include <string.h>

#include "http_protocol.h"
#include "apr_strings.h"

#define SEND_IOV 64
/* STDOUT kept while the body is still being sent; past this the module
 * stops reading and waits for the runner to take the body. */
#define SEND_PENDING_MAX (1024 * 1024)

/* Describes the head of q->in.bb as one STDIN frame: iov[0] the header (in
 * hdr), then data buckets (split to fit CGP_MAX_PAYLOAD). *stop is the
 * first bucket not in the frame. Notes EOS (the frame then carries END). */
static apr_status_t send_iov(cgiplus_req *q, unsigned char *hdr, struct iovec *iov,
                             int max, int *n, apr_bucket **stop)
{
    cgiplus_relay *rl = q->xd;
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
            rl->body_eos = 1;
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
    h.flags = rl->body_eos ? CGP_F_END : 0;
    cgp_hdr_pack(hdr, &h);
    iov[0].iov_base = hdr;
    iov[0].iov_len = CGP_HDR_LEN;
    *n = k;
    return APR_SUCCESS;
}

/* The buckets a sent frame described are done with. */
static void send_done(cgiplus_req *q, apr_bucket *stop)
{
    while (APR_BRIGADE_FIRST(q->in.bb) != stop)
        apr_bucket_delete(APR_BRIGADE_FIRST(q->in.bb));
}

/* BEGIN, PARAMS and the first body frame (maybe all of it) in one go. */
static apr_status_t send_first(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    struct iovec iov[SEND_IOV + 1], *v = iov;
    unsigned char hdr[CGP_HDR_LEN];
    apr_bucket *stop;
    apr_status_t rv;
    int n, nv;

    if ((rv = send_iov(q, hdr, iov + 1, SEND_IOV, &n, &stop)) != APR_SUCCESS)
        return rv;
    cgiplus_env_frames(q);
    iov[0].iov_base = q->begin;
    iov[0].iov_len = q->begin_len;
    /* A first write the socket took nothing of proves the runner never saw
     * this request: only then may it be sent again (relay_start). */
    nv = n + 1;
    rv = cgiplus_conn_send_part(rl->conn, &v, &nv);
    rl->unsent = rv != APR_SUCCESS;
    if (rv == APR_SUCCESS)
        rv = cgiplus_conn_sendv(rl->conn, v, nv);
    if (rv == APR_SUCCESS) {
        send_done(q, stop);
        if (rl->body_eos)
            rl->stdin_done = 1;
    }
    return rv;
}

/* Sends iov while also reading what the runner sends. Stops early, with
 * success, once the runner has sent END. */
static apr_status_t send_duplex(cgiplus_req *q, struct iovec *iov, int n)
{
    cgiplus_relay *rl = q->xd;
    apr_size_t frame_len = 0, left;
    int i;

    for (i = 0; i < n; i++)
        frame_len += iov[i].iov_len;
    left = frame_len;
    while (n > 0) {
        int rd = 0, wr = 0;
        apr_int16_t ev = APR_POLLOUT;
        apr_status_t rv;

        if (q->out_len < SEND_PENDING_MAX)
            ev |= APR_POLLIN;
        rv = cgiplus_conn_wait(rl->conn, ev, q->timeout, &rd, &wr);
        if (rv != APR_SUCCESS)
            return rv;
        if (rd && (ev & APR_POLLIN)) {
            if ((rv = cgiplus_relay_frame(q)) != APR_SUCCESS)
                return rv;
            if (q->ended) {
                /* The runner drops the rest; a half frame would break the
                 * framing of the next request, so then do not reuse. */
                if (left != frame_len)
                    rl->dirty = 1;
                return APR_SUCCESS;
            }
            continue;
        }
        if (wr) {
            if ((rv = cgiplus_conn_send_part(rl->conn, &iov, &n)) != APR_SUCCESS)
                return rv;
            for (left = 0, i = 0; i < n; i++)
                left += iov[i].iov_len;
            rl->mid_frame = n > 0;
        }
    }
    return cgiplus_relay_answers(q);
}

/* The rest of the body: what the pre-read holds, then one read from the
 * client at a time. */
static apr_status_t send_body(cgiplus_req *q, int *http_status)
{
    cgiplus_relay *rl = q->xd;
    request_rec *r = q->r;
    struct iovec iov[SEND_IOV];
    unsigned char hdr[CGP_HDR_LEN];
    apr_bucket *stop;
    apr_status_t rv;
    int n;

    while (!rl->stdin_done && !q->ended) {
        if (APR_BRIGADE_EMPTY(q->in.bb) &&
            (*http_status = cgiplus_body_read(r, &q->in, CGP_MAX_PAYLOAD, 0)) != OK)
            return APR_EGENERAL; /* logged */
        if ((rv = send_iov(q, hdr, iov, SEND_IOV, &n, &stop)) != APR_SUCCESS) {
            *http_status = HTTP_INTERNAL_SERVER_ERROR;
            return rv;
        }
        if ((rv = send_duplex(q, iov, n)) != APR_SUCCESS)
            return rv;
        send_done(q, stop);
        if (rl->body_eos && !q->ended)
            rl->stdin_done = 1;
    }
    apr_brigade_cleanup(q->in.bb);
    if (!rl->stdin_done && !q->in.eos) {
        /* The runner answered before the whole body came: what is left
         * unread can only be skipped by closing the client connection. */
        r->connection->keepalive = AP_CONN_CLOSE;
    }
    return APR_SUCCESS;
}

apr_status_t cgiplus_relay_send(cgiplus_req *q, int *http_status)
{
    cgiplus_relay *rl = q->xd;
    apr_status_t rv;

    *http_status = 0;
    rl->stdin_done = 0;
    rv = send_first(q);
    if (rv == APR_SUCCESS && !rl->stdin_done)
        rv = send_body(q, http_status);
    return rv;
}
