/* cgiplus_relay.c: the relay (cgiplus_relay.h), the kind of worker every
 * request can fall back to: its ops. A request goes to the runner on one
 * of this child's connections (cgiplus_relay_send.c), the runner's answer
 * comes back frame by frame (cgiplus_relay_frame.c); the connection goes
 * back to the idle stack once the runner has ended the request, and is
 * closed otherwise. */
#include "cgiplus_env.h"
#include "cgiplus_relay_private.h"
#include "cgiplus_scriptlog.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "http_log.h"
#include "http_protocol.h"
#include "apr_portable.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

/* How long to wait for END after ABORT before giving the connection up. */
#define RELAY_ABORT_WAIT apr_time_from_sec(2)
#define RELAY_H2_LOOK    apr_time_from_msec(200) /* h2: how often a reset stream is looked for */

/* q's ABORT frame into out: with the cause the module failed q for, if
 * not told yet (the runner counts that cause, not "aborted"), else empty
 * (the client left). Returns its length. */
static apr_size_t relay_abort_frame(cgiplus_req *q, unsigned char out[CGP_HDR_LEN + CGP_ABORT_LEN])
{
    unsigned cause = cgiplus_req_report(q);
    cgp_hdr h = { 0 };

    h.type = CGP_T_ABORT;
    h.reqid = q->reqid;
    if (cause && cgp_abort_pack(out + CGP_HDR_LEN, cause) == CGP_OK)
        h.len = CGP_ABORT_LEN;
    cgp_hdr_pack(out, &h);
    return CGP_HDR_LEN + h.len;
}

/* Reads frames to END, dropping the output (stderr is still logged). */
static apr_status_t relay_drain(cgiplus_req *q)
{
    apr_status_t rv = APR_SUCCESS;

    for (;;) {
        apr_brigade_cleanup(q->out);
        q->out_len = 0;
        if (q->ended || rv != APR_SUCCESS)
            return rv;
        rv = cgiplus_relay_frame(q);
    }
}

static void relay_abandon(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    cgiplus_conn *c = rl->conn;

    if (!c)
        return;
    rl->conn = NULL;
    if (!q->ended && !rl->dirty) {
        /* Tell the runner at once; closing alone would also end it. */
        unsigned char ab[CGP_HDR_LEN + CGP_ABORT_LEN];
        struct iovec iov;

        iov.iov_base = ab;
        iov.iov_len = relay_abort_frame(q, ab);
        apr_socket_timeout_set(c->sock, apr_time_from_sec(1));
        cgiplus_conn_sendv(c, &iov, 1);
    }
    cgiplus_conn_close(c);
}

/* Puts the connection back if END was read, else abandons it. */
static void relay_finish(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;

    if (!rl->conn)
        return;
    if (q->ended && !rl->dirty && q->fail_cause && !q->fail_reported) {
        /* The runner ended it well (END ok), the module failed it (its
         * header, say): an ABORT with the cause after the END counts it. */
        unsigned char ab[CGP_HDR_LEN + CGP_ABORT_LEN];
        struct iovec iov;

        iov.iov_base = ab;
        iov.iov_len = relay_abort_frame(q, ab);
        if (cgiplus_conn_sendv(rl->conn, &iov, 1) != APR_SUCCESS)
            rl->dirty = 1;
    }
    if (q->ended && !rl->dirty) {
        cgiplus_conn_release(rl->conn);
        rl->conn = NULL;
    }
    else {
        relay_abandon(q);
    }
}

/* Client went away: ABORT, then wait briefly for the runner's END so the
 * connection can be reused; closes it if END does not come. */
static void relay_abort(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    cgiplus_conn *c = rl->conn;
    unsigned char ab[CGP_HDR_LEN + CGP_ABORT_LEN];
    struct iovec iov;
    apr_status_t rv;

    if (!c)
        return;
    if (q->ended || rl->dirty) {
        relay_finish(q);
        return;
    }
    iov.iov_base = ab;
    iov.iov_len = relay_abort_frame(q, ab);
    apr_socket_timeout_set(c->sock, q->timeout < RELAY_ABORT_WAIT
                                    ? q->timeout : RELAY_ABORT_WAIT);
    rv = cgiplus_conn_sendv(c, &iov, 1);
    rl->aborting = 1;
    /* Whatever the script still writes is of no use; its stderr is logged. */
    if (rv == APR_SUCCESS)
        rv = relay_drain(q);
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, q->r, CGIPLUS_LOGNO(1088)
                      "sent ABORT for %s, but the runner did not end the "
                      "request; closing the connection", q->r->filename);
        rl->dirty = 1;
        relay_abandon(q);
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1089)
                  "sent ABORT for %s; the runner ended the request: %s "
                  "(worker pid %lu); the connection is kept", q->r->filename,
                  cgp_outcome_name(q->end.outcome), (unsigned long)q->end.pid);
    if (rl->conn) /* a GRANT released it already */
        apr_socket_timeout_set(c->sock, q->timeout);
    relay_finish(q);
}

/* A failed exchange (before the response began) goes to the script log
 * too; returns ev. */
static unsigned relay_failed(cgiplus_req *q, int status, unsigned ev)
{
    q->status = status;
    if (status >= HTTP_INTERNAL_SERVER_ERROR && q->slog)
        cgiplus_scriptlog_write(q->r, q, status, "the exchange with the runner failed");
    return ev;
}

/* The runner connection failed after the request may have reached it: it
 * is not sent again (a request never runs twice). */
static unsigned relay_lost(cgiplus_req *q, apr_status_t rv)
{
    cgiplus_relay *rl = q->xd;
    request_rec *r = q->r;

    /* A timeout is httpd's Timeout between two frames, not a runner gone:
     * say so, or an admin looks for a runner restart that never was. */
    ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1081)
                  "%s (pid %lu) before the response of %s began "
                  "(%s); not sent again, as it may have run",
                  APR_STATUS_IS_TIMEUP(rv) ? "httpd's Timeout passed waiting for the runner"
                                           : "lost the runner",
                  (unsigned long)(rl->conn ? rl->conn->runner_pid : 0), r->filename,
                  q->worker_pid ? apr_psprintf(r->pool, "worker pid %lu had it",
                                               (unsigned long)q->worker_pid)
                                : "no worker had it yet");
    if (APR_STATUS_IS_TIMEUP(rv))
        cgiplus_req_failed(q, CGP_O_TIMEOUT); /* httpd's Timeout for a frame of it */
    return relay_failed(q, APR_STATUS_IS_TIMEUP(rv) ? HTTP_GATEWAY_TIME_OUT : HTTP_BAD_GATEWAY,
                        CGIPLUS_RE_LOST);
}

/* Connects (a fresh connection if an earlier one took none of the
 * request) and sends the request and its body. */
static unsigned relay_start(cgiplus_req *q)
{
    request_rec *r = q->r;
    cgiplus_relay *rl = q->xp == &cgiplus_relay_xport ? q->xd : NULL;
    apr_status_t rv;
    int status = 0;

    if (!rl) {
        rl = apr_pcalloc(r->pool, sizeof(*rl));
        cgiplus_req_attach(q, &cgiplus_relay_xport, rl);
    }
    rl->attempt++;
    if ((rv = cgiplus_conn_acquire(r, rl->attempt > 1 || q->own_conn, &rl->conn)) != APR_SUCCESS) {
        /* cgiplus_conn_acquire logged why */
        rl->conn = NULL;
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_itoa(r->pool, CGIPLUS_RETRY_AFTER));
        return relay_failed(q, HTTP_SERVICE_UNAVAILABLE, CGIPLUS_RE_ERROR);
    }
    apr_socket_timeout_set(rl->conn->sock, q->timeout);
    rv = cgiplus_relay_send(q, &status);
    if (rv == APR_SUCCESS)
        return CGIPLUS_RE_SENT;
    if (status) { /* the client's side failed (body too large, gone, bad chunk) */
        cgiplus_req_failed(q, cgiplus_body_cause(r, status));
        return relay_failed(q, status, CGIPLUS_RE_ERROR);
    }
    if (rl->attempt == 1 && rl->unsent && cgiplus_conn_is_dead(rv)) {
        /* The runner closed the connection before it took a byte of
         * the request (it restarted, say): it never ran, so a fresh
         * connection may carry it. Anything more and it may have run:
         * a request never runs twice. */
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r, CGIPLUS_LOGNO(1080)
                      "runner connection was closed before it took any of "
                      "the request; sending %s on a fresh one", r->filename);
        cgiplus_conn_close(rl->conn);
        rl->conn = NULL;
        return CGIPLUS_RE_RETRY;
    }
    return relay_lost(q, rv);
}

/* A request that failed before it reached the runner (its body could not
 * be read) still counts for its pool: a BEGIN that an ABORT with the cause
 * ends at once (no worker takes it: it is never submitted), whose END is
 * read so the connection is reused. */
static int relay_report(cgiplus_req *q)
{
    cgiplus_relay *rl;
    unsigned char ab[CGP_HDR_LEN + CGP_ABORT_LEN];
    struct iovec iov[2];
    cgp_hdr h;

    if (!q->fail_cause || q->fail_reported || !q->begin_kv)
        return 0;
    cgiplus_env_frames(q);
    if (cgp_hdr_unpack(q->begin, &h) != CGP_OK)
        return 0;
    rl = apr_pcalloc(q->r->pool, sizeof(*rl));
    cgiplus_req_attach(q, &cgiplus_relay_xport, rl);
    if (cgiplus_conn_acquire(q->r, 0, &rl->conn) != APR_SUCCESS) {
        rl->conn = NULL; /* logged */
        return 0;
    }
    apr_socket_timeout_set(rl->conn->sock, q->timeout);
    iov[0].iov_base = q->begin; /* BEGIN alone, not the PARAMS after it */
    iov[0].iov_len = CGP_HDR_LEN + h.len;
    iov[1].iov_base = ab;
    iov[1].iov_len = relay_abort_frame(q, ab);
    if (cgiplus_conn_sendv(rl->conn, iov, 2) != APR_SUCCESS || relay_drain(q) != APR_SUCCESS)
        rl->dirty = 1;
    relay_finish(q);
    return 1;
}

/* Waits up to q->timeout until the runner or the client is readable; with
 * client_eof set, only an error or hang-up of the client counts (its end
 * of file is known and would make every poll return at once). */
static apr_status_t relay_wait_both(cgiplus_req *q, apr_socket_t *cs, int client_eof,
                                    int *runner_rd, int *client_rd)
{
    cgiplus_relay *rl = q->xd;
    apr_pollfd_t pfd[2];
    apr_int32_t nready = 0;
    apr_status_t rv;
    int i;

    memset(pfd, 0, sizeof(pfd));
    for (i = 0; i < 2; i++) {
        pfd[i].p = q->r->pool;
        pfd[i].desc_type = APR_POLL_SOCKET;
        pfd[i].reqevents = APR_POLLIN;
    }
    pfd[0].desc.s = rl->conn->sock;
    pfd[1].desc.s = cs;
    if (client_eof)
        pfd[1].reqevents = 0; /* POLLERR and POLLHUP are always reported */
    do
        rv = apr_poll(pfd, 2, &nready, q->timeout);
    while (APR_STATUS_IS_EINTR(rv));
    if (rv != APR_SUCCESS)
        return rv; /* APR_TIMEUP: as a read on the runner would */
    /* A hang-up or error counts as readable: the read or peek reports it. */
    *runner_rd = (pfd[0].rtnevents & (APR_POLLIN | APR_POLLHUP | APR_POLLERR)) != 0;
    *client_rd = (pfd[1].rtnevents & (APR_POLLIN | APR_POLLHUP | APR_POLLERR)) != 0;
    if (client_eof && *client_rd)
        *client_rd = 2; /* a reset or error after its end of file */
    return APR_SUCCESS;
}

/* HTTP/2: a stream has no socket to watch, but mod_http2 marks its
 * connection aborted when the client resets it (RST_STREAM, or the
 * connection goes): waits up to q->timeout for the runner, looking at that
 * mark every RELAY_H2_LOOK, as the direct path's queue does. *runner_rd
 * stays 0 when the stream was reset. */
static apr_status_t relay_wait_stream(cgiplus_req *q, int *runner_rd)
{
    cgiplus_relay *rl = q->xd;
    conn_rec *c = q->r->connection;
    apr_time_t until = apr_time_now() + q->timeout;
    apr_pollfd_t pfd;
    apr_int32_t nready;
    apr_status_t rv;

    memset(&pfd, 0, sizeof(pfd));
    pfd.p = q->r->pool;
    pfd.desc_type = APR_POLL_SOCKET;
    pfd.reqevents = APR_POLLIN;
    pfd.desc.s = rl->conn->sock;
    *runner_rd = 0;
    while (!c->aborted) {
        apr_interval_time_t left = until - apr_time_now();

        if (left <= 0)
            return APR_TIMEUP; /* as a read on the runner would */
        rv = apr_poll(&pfd, 1, &nready, left < RELAY_H2_LOOK ? left : RELAY_H2_LOOK);
        if (rv == APR_SUCCESS) {
            *runner_rd = 1;
            return APR_SUCCESS;
        }
        if (!APR_STATUS_IS_TIMEUP(rv) && !APR_STATUS_IS_EINTR(rv))
            return rv;
    }
    return APR_SUCCESS;
}

/* Reads frames until a STDOUT byte, END or GRANT is there. Watches an
 * HTTP/1.x client (or an HTTP/2 stream) meanwhile: if it goes away, the
 * request gets no response (the ABORT action tells the runner). */
static unsigned relay_wait_first(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    cgiplus_client_watch w;
    apr_status_t rv = APR_SUCCESS;

    cgiplus_req_watch_init(q, &w);
    while (rv == APR_SUCCESS && q->out_len == 0 && !q->ended) {
        int runner_rd = 1, client_rd = 0;

        if (w.cs && (rv = relay_wait_both(q, w.cs, w.eof, &runner_rd,
                                          &client_rd)) != APR_SUCCESS)
            break;
        if (!w.cs && q->r->connection->master) {
            if ((rv = relay_wait_stream(q, &runner_rd)) != APR_SUCCESS)
                break;
            client_rd = !runner_rd ? 2 : 0; /* 2: gone, as after an end of file */
        }
        if (runner_rd) {
            rv = cgiplus_relay_frame(q);
            if (rv == APR_SUCCESS && rl->granted) {
                cgiplus_req_detach(q); /* the kind that claims workers takes it on */
                return CGIPLUS_RE_GRANTED;
            }
            continue;
        }
        if (!client_rd || cgiplus_req_client_seen(&w, client_rd) != CGIPLUS_CLIENT_GONE)
            continue;
        /* Reset while queued or waiting for its worker: the runner drops
         * the request (a queued one never runs); nobody gets a response. */
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1077)
                      "client connection reset before the response of %s began (%s); "
                      "sending ABORT to the runner", q->r->filename,
                      q->worker_pid ? apr_psprintf(q->r->pool, "worker pid %lu",
                                                   (unsigned long)q->worker_pid)
                                    : "no worker yet");
        return cgiplus_req_client_left(q);
    }
    if (rv != APR_SUCCESS)
        return relay_lost(q, rv);
    return cgiplus_req_first_event(q);
}

static apr_status_t relay_read(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;

    if (!rl->conn)
        return APR_EGENERAL; /* given up, or granted: nothing more comes here */
    return cgiplus_relay_frame(q);
}

/* As relay_read, watching the client meanwhile, as relay_wait_first. */
static apr_status_t relay_read_watch(cgiplus_req *q, cgiplus_client_watch *w, int *gone)
{
    cgiplus_relay *rl = q->xd;
    apr_status_t rv;

    *gone = 0;
    if (!rl->conn)
        return APR_EGENERAL;
    for (;;) {
        int runner_rd = 1, client_rd = 0;

        if (w->cs && (rv = relay_wait_both(q, w->cs, w->eof, &runner_rd,
                                           &client_rd)) != APR_SUCCESS)
            return rv;
        if (!w->cs && q->r->connection->master) {
            if ((rv = relay_wait_stream(q, &runner_rd)) != APR_SUCCESS)
                return rv;
            client_rd = !runner_rd ? 2 : 0; /* 2: gone, as after an end of file */
        }
        if (runner_rd)
            return cgiplus_relay_frame(q);
        if (client_rd && cgiplus_req_client_seen(w, client_rd) == CGIPLUS_CLIENT_GONE) {
            *gone = 1;
            return APR_SUCCESS;
        }
    }
}

static int relay_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    cgiplus_relay *rl = q->xd;

    return rl->conn ? cgiplus_conn_readable(rl->conn, wait) : 0;
}

static int relay_out_fd(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xd;
    apr_os_sock_t fd = -1;

    if (rl->conn && apr_os_sock_get(&fd, rl->conn->sock) != APR_SUCCESS)
        fd = -1;
    return fd;
}

int cgiplus_relay_take(cgiplus_req *q)
{
    cgiplus_relay *rl = q->xp == &cgiplus_relay_xport ? q->xd : NULL;
    apr_os_sock_t os;
    int fd;

    if (!rl || !rl->conn || apr_os_sock_get(&os, rl->conn->sock) != APR_SUCCESS) {
        errno = EBADF;
        return -1;
    }
    if ((fd = fcntl(os, F_DUPFD_CLOEXEC, 0)) < 0)
        return -1;
    cgiplus_conn_close(rl->conn); /* the duplicate is the exchange's */
    rl->conn = NULL;
    return fd;
}

const cgiplus_xport cgiplus_relay_xport = {
    .name = "relay",
    .start = relay_start,
    .report = relay_report,
    .grant = NULL,
    .learn = NULL,
    .wait_first = relay_wait_first,
    .read = relay_read,
    .read_watch = relay_read_watch,
    .readable = relay_readable,
    .out_fd = relay_out_fd,
    .header = NULL, /* the runner applies Script-Control */
    .finish = relay_finish,
    .abort = relay_abort,
    .abandon = relay_abandon,
};
