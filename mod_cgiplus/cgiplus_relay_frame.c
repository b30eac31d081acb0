/* cgiplus_relay_frame.c: the runner's answer to a relayed request, frame
 * by frame: STDOUT, STDERR and END, STARTED (the worker's pid), POOL (the
 * table entry of the request's pool, for the kind that claims workers),
 * GRANT (a worker for the queued request, which that kind then takes
 * over), PROGRESS and CALLOUT (answered here, never in the middle of a
 * body frame). */
#include "cgiplus_relay_private.h"
#include "cgiplus_callout.h"
#include "cgiplus_scriptlog.h"
#include "cgp_scan.h"

#include <string.h>

#include "http_log.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

/* One queued callout answer; lives in r->pool until the request ends. */
struct cgiplus_answer {
    struct cgiplus_answer *next;
    const char *text;
};

apr_status_t cgiplus_relay_answers(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    unsigned char hb[CGP_HDR_LEN];
    struct iovec iov[2];
    apr_status_t rv = APR_SUCCESS;

    while (rl->answers && rv == APR_SUCCESS) {
        cgp_hdr h = { CGP_VERSION, CGP_T_CALLOUT_ANSWER, 0, q->reqid,
                      (uint32_t)strlen(rl->answers->text) };

        if (cgp_hdr_pack(hb, &h) != CGP_OK)
            return APR_EINVAL;
        iov[0].iov_base = hb;
        iov[0].iov_len = CGP_HDR_LEN;
        iov[1].iov_base = (void *)rl->answers->text;
        iov[1].iov_len = h.len;
        rv = cgiplus_conn_sendv(rl->conn, iov, 2);
        rl->answers = rl->answers->next;
    }
    return rv;
}

/* A CALLOUT frame's payload of len bytes: read and answered (now, or once
 * the body frame being sent is whole). APR_EINVAL: not one text line. */
static apr_status_t relay_callout(cgiplus_req *q, apr_size_t len)
{
    cgiplus_relay *rl = q->xd;
    struct cgiplus_answer *a, **tail;
    char *line = apr_palloc(q->r->pool, len + 1);
    apr_status_t rv;

    if ((rv = cgiplus_conn_read_exact(rl->conn, line, len)) != APR_SUCCESS)
        return rv;
    line[len] = '\0';
    if (memchr(line, '\0', len) || strpbrk(line, "\r\n"))
        return APR_EINVAL;
    a = apr_pcalloc(q->r->pool, sizeof(*a));
    a->text = cgiplus_callout_answer(q->r, line);
    for (tail = &rl->answers; *tail; tail = &(*tail)->next)
        ;
    *tail = a;
    return rl->mid_frame ? APR_SUCCESS : cgiplus_relay_answers(q);
}

static apr_status_t relay_proto_error(cgiplus_req *q, const char *what)
{
    cgiplus_relay *rl = q->xd;

    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1051)
                  "protocol error from cgiplus-runner (pid %lu) serving %s: %s",
                  (unsigned long)rl->conn->runner_pid, q->r->filename, what);
    rl->dirty = 1;
    return APR_EGENERAL;
}

/* The runner handed q a worker (GRANT): the runner is done with the
 * request, so the connection goes back at once; the kind that claims
 * workers takes it over (the GRANTED event), or, after an ABORT, gives it
 * back unused. */
static apr_status_t relay_granted(cgiplus_req *q, const cgp_grant *g)
{
    cgiplus_relay *rl = q->xd;
    cgp_end e = { 0 };

    if (!q->claim || !q->claim->grant)
        return relay_proto_error(q, "a GRANT for a request that asked for none");
    cgiplus_conn_release(rl->conn);
    rl->conn = NULL;
    if (!rl->aborting) {
        q->grant = *g;
        rl->granted = 1;
        return APR_SUCCESS;
    }
    q->claim->grant(q, g, 0);
    e.outcome = CGP_O_ABORTED;
    e.retry_after = 1;
    cgiplus_req_end(q, &e);
    return APR_SUCCESS;
}

apr_status_t cgiplus_relay_frame(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    apr_bucket_alloc_t *ba = q->r->connection->bucket_alloc;
    unsigned char hb[CGP_HDR_LEN], eb[CGP_GRANT_LEN]; /* the longest fixed payload */
    cgp_started st;
    cgp_grant g;
    cgp_pair pr;
    cgp_end e;
    cgp_hdr h;
    apr_status_t rv;
    char *buf;
    int crc;

    if ((rv = cgiplus_conn_read_exact(rl->conn, hb, CGP_HDR_LEN)) != APR_SUCCESS)
        return rv;
    if ((crc = cgp_hdr_unpack(hb, &h)) != CGP_OK)
        return relay_proto_error(q, cgp_strerror(crc));
    if (h.reqid != q->reqid)
        return relay_proto_error(q, apr_psprintf(q->r->pool, "%s frame for request "
                                 "%lu, expected %lu", cgp_type_name(h.type),
                                 (unsigned long)h.reqid, (unsigned long)q->reqid));
    if (q->ended)
        return relay_proto_error(q, "a frame after END");

    switch (h.type) {
    case CGP_T_STDOUT:
        if (h.len == 0)
            return APR_SUCCESS;
        /* Read straight into the bucket's memory: no second copy. */
        buf = apr_bucket_alloc(h.len, ba);
        if (!buf)
            return APR_ENOMEM;
        if ((rv = cgiplus_conn_read_exact(rl->conn, buf, h.len)) != APR_SUCCESS) {
            apr_bucket_free(buf);
            return rv;
        }
        cgiplus_req_out(q, apr_bucket_heap_create(buf, h.len, apr_bucket_free, ba));
        return APR_SUCCESS;
    case CGP_T_STDERR:
        if (!rl->errbuf) /* most requests never need it */
            rl->errbuf = apr_palloc(q->r->pool, CGP_MAX_PAYLOAD + 1);
        if ((rv = cgiplus_conn_read_exact(rl->conn, rl->errbuf, h.len)) != APR_SUCCESS)
            return rv;
        cgiplus_script_stderr(q, rl->errbuf, h.len);
        return APR_SUCCESS;
    case CGP_T_END:
        if (h.len != CGP_END_LEN)
            return relay_proto_error(q, "END of the wrong length");
        if ((rv = cgiplus_conn_read_exact(rl->conn, eb, CGP_END_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_end_unpack(eb, CGP_END_LEN, &e)) != CGP_OK)
            return relay_proto_error(q, apr_psprintf(q->r->pool, "END: %s",
                                                     cgp_strerror(crc)));
        cgiplus_req_end(q, &e);
        return APR_SUCCESS;
    case CGP_T_STARTED:
        if (h.len != CGP_STARTED_LEN)
            return relay_proto_error(q, "STARTED of the wrong length");
        if ((rv = cgiplus_conn_read_exact(rl->conn, eb, CGP_STARTED_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_started_unpack(eb, CGP_STARTED_LEN, &st)) != CGP_OK)
            return relay_proto_error(q, apr_psprintf(q->r->pool, "STARTED: %s",
                                                     cgp_strerror(crc)));
        q->worker_pid = st.pid;
        return APR_SUCCESS;
    case CGP_T_POOL:
        if (h.len != CGP_PAIR_LEN)
            return relay_proto_error(q, "POOL of the wrong length");
        if ((rv = cgiplus_conn_read_exact(rl->conn, eb, CGP_PAIR_LEN)) != APR_SUCCESS)
            return rv;
        /* for the kind that claims workers of that pool from now on */
        if (q->claim && q->claim->learn && cgp_pair_unpack(eb, CGP_PAIR_LEN, &pr) == CGP_OK)
            q->claim->learn(q, &pr, rl->conn->runner_pid);
        return APR_SUCCESS;
    case CGP_T_GRANT:
        if (h.len != CGP_GRANT_LEN)
            return relay_proto_error(q, "GRANT of the wrong length");
        if ((rv = cgiplus_conn_read_exact(rl->conn, eb, CGP_GRANT_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_grant_unpack(eb, CGP_GRANT_LEN, &g)) != CGP_OK)
            return relay_proto_error(q, apr_psprintf(q->r->pool, "GRANT: %s",
                                                     cgp_strerror(crc)));
        return relay_granted(q, &g);
    case CGP_T_PROGRESS:
        /* Read: the next wait starts afresh, which is all it is for. */
        if (h.len != 0)
            return relay_proto_error(q, "PROGRESS with a payload");
        return APR_SUCCESS;
    case CGP_T_CALLOUT:
        /* one callout line: the runner drops longer ones */
        if (h.len > CGP_SCAN_LINE_MAX)
            return relay_proto_error(q, "a CALLOUT over 4096 bytes");
        if ((rv = relay_callout(q, h.len)) == APR_EINVAL)
            return relay_proto_error(q, "a CALLOUT that is not one text line");
        return rv;
    default:
        if (q->on_frame) { /* an exchange built on the relay knows it */
            if ((rv = q->on_frame(q, h.type, h.len)) != APR_SUCCESS)
                rl->dirty = 1;
            return rv;
        }
        return relay_proto_error(q, apr_psprintf(q->r->pool, "unexpected %s frame",
                                                 cgp_type_name(h.type)));
    }
}

apr_status_t cgiplus_relay_payload(cgiplus_req *q, void *buf, apr_size_t len)
{
    cgiplus_relay *rl = q->xd;

    return cgiplus_conn_read_exact(rl->conn, buf, len);
}
