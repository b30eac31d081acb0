/* cgiplus_response.c: the runner's answer to one request: STDOUT, STDERR
 * and END frames; the script's CGI header parsed by httpd's own scanner;
 * the body streamed to the client as it arrives; END outcomes mapped to
 * HTTP statuses. */
#include "cgiplus_private.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"
#include "util_script.h"
#include "apr_portable.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* Bytes collected from frames that are already there before they are
 * passed down in one go; anything less waits only if more is readable. */
#define RESP_PASS_BYTES (64 * 1024)

/* Logs a STDERR payload, one error-log line per script line: each line is
 * one write to the log of the request's own virtual host, so lines of
 * concurrent scripts never mix inside a line. */
void cgiplus_resp_log_stderr(cgiplus_req *q, apr_size_t len)
{
    char *p = q->errbuf, *end = q->errbuf + len;

    while (p < end) {
        char *nl = memchr(p, '\n', (apr_size_t)(end - p));
        char *eol = nl ? nl : end;
        apr_size_t n = (apr_size_t)(eol - p);

        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (n > 0 || nl) {
            if (q->worker_pid)
                ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1050)
                              "stderr from %s (pid %lu): %.*s", q->r->filename,
                              (unsigned long)q->worker_pid, (int)n, p);
            else /* the runner did not say which process (it breaks the protocol) */
                ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1050)
                              "stderr from %s: %.*s", q->r->filename, (int)n, p);
            if (q->slog)
                cgiplus_scriptlog_stderr(q, p, n);
        }
        p = nl ? nl + 1 : end;
    }
}

static apr_status_t resp_proto_error(cgiplus_req *q, const char *what)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1051)
                  "protocol error from cgiplus-runner (pid %lu) serving %s: %s",
                  (unsigned long)q->conn->runner_pid, q->r->filename, what);
    q->conn_dirty = 1;
    return APR_EGENERAL;
}

apr_status_t cgiplus_resp_read_frame(cgiplus_req *q)
{
    apr_bucket_alloc_t *ba = q->r->connection->bucket_alloc;
    unsigned char hb[CGP_HDR_LEN], eb[CGP_GRANT_LEN]; /* the longest fixed payload */
    cgp_started st;
    cgp_hdr h;
    apr_status_t rv;
    char *buf;
    int crc;

    if (q->dx)
        return cgiplus_direct_read(q);
    if ((rv = cgiplus_conn_read_exact(q->conn, hb, CGP_HDR_LEN)) != APR_SUCCESS)
        return rv;
    if ((crc = cgp_hdr_unpack(hb, &h)) != CGP_OK)
        return resp_proto_error(q, cgp_strerror(crc));
    if (h.reqid != q->reqid)
        return resp_proto_error(q, apr_psprintf(q->r->pool, "%s frame for request "
                                "%lu, expected %lu", cgp_type_name(h.type),
                                (unsigned long)h.reqid, (unsigned long)q->reqid));
    if (q->got_end)
        return resp_proto_error(q, "a frame after END");

    switch (h.type) {
    case CGP_T_STDOUT:
        if (h.len == 0)
            return APR_SUCCESS;
        /* Read straight into the bucket's memory: no second copy. */
        buf = apr_bucket_alloc(h.len, ba);
        if (!buf)
            return APR_ENOMEM;
        if ((rv = cgiplus_conn_read_exact(q->conn, buf, h.len)) != APR_SUCCESS) {
            apr_bucket_free(buf);
            return rv;
        }
        APR_BRIGADE_INSERT_TAIL(q->out, apr_bucket_heap_create(buf, h.len,
                                apr_bucket_free, ba));
        q->out_len += h.len;
        q->got_stdout = 1;
        return APR_SUCCESS;
    case CGP_T_STDERR:
        if (!q->errbuf) /* most requests never need it */
            q->errbuf = apr_palloc(q->r->pool, CGP_MAX_PAYLOAD + 1);
        if ((rv = cgiplus_conn_read_exact(q->conn, q->errbuf, h.len)) != APR_SUCCESS)
            return rv;
        cgiplus_resp_log_stderr(q, h.len);
        return APR_SUCCESS;
    case CGP_T_END:
        if (h.len != CGP_END_LEN)
            return resp_proto_error(q, "END of the wrong length");
        if ((rv = cgiplus_conn_read_exact(q->conn, eb, CGP_END_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_end_unpack(eb, CGP_END_LEN, &q->end)) != CGP_OK)
            return resp_proto_error(q, apr_psprintf(q->r->pool, "END: %s",
                                                    cgp_strerror(crc)));
        q->got_end = 1;
        return APR_SUCCESS;
    case CGP_T_STARTED:
        if (h.len != CGP_STARTED_LEN)
            return resp_proto_error(q, "STARTED of the wrong length");
        if ((rv = cgiplus_conn_read_exact(q->conn, eb, CGP_STARTED_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_started_unpack(eb, CGP_STARTED_LEN, &st)) != CGP_OK)
            return resp_proto_error(q, apr_psprintf(q->r->pool, "STARTED: %s",
                                                    cgp_strerror(crc)));
        q->worker_pid = st.pid;
        return APR_SUCCESS;
    case CGP_T_POOL:
        if (h.len != CGP_PAIR_LEN)
            return resp_proto_error(q, "POOL of the wrong length");
        if ((rv = cgiplus_conn_read_exact(q->conn, eb, CGP_PAIR_LEN)) != APR_SUCCESS)
            return rv;
        cgiplus_direct_learn(q, eb, CGP_PAIR_LEN);
        return APR_SUCCESS;
    case CGP_T_GRANT: {
        cgp_grant g;
        int st;

        if (h.len != CGP_GRANT_LEN)
            return resp_proto_error(q, "GRANT of the wrong length");
        if ((rv = cgiplus_conn_read_exact(q->conn, eb, CGP_GRANT_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_grant_unpack(eb, CGP_GRANT_LEN, &g)) != CGP_OK)
            return resp_proto_error(q, apr_psprintf(q->r->pool, "GRANT: %s",
                                                    cgp_strerror(crc)));
        /* After an ABORT the worker goes back unused: no state change. */
        if (!q->aborting && cgiplus_req_step(q, CGIPLUS_RE_GRANTED) != OK)
            return APR_EGENERAL;
        /* The runner is done with the request: the connection is free. */
        cgiplus_conn_release(q->conn);
        q->conn = NULL;
        st = cgiplus_direct_grant(q, &g);
        if (st != OK || !q->dx) {
            q->got_end = 1;
            q->end.outcome = q->aborting ? CGP_O_ABORTED : CGP_O_OVERLOADED;
            q->end.retry_after = 1;
        }
        return APR_SUCCESS;
    }
    case CGP_T_PROGRESS:
        /* Read: the next wait starts afresh, which is all it is for. */
        if (h.len != 0)
            return resp_proto_error(q, "PROGRESS with a payload");
        return APR_SUCCESS;
    case CGP_T_CALLOUT:
        if ((rv = cgiplus_callout_read(q, h.len)) == APR_EINVAL)
            return resp_proto_error(q, "a CALLOUT that is not one text line");
        return rv;
    default:
        return resp_proto_error(q, apr_psprintf(q->r->pool, "unexpected %s frame",
                                                cgp_type_name(h.type)));
    }
}

/* The client's socket, watched while the request waits for its first
 * frame (queued, or its worker starting). HTTP/1.x only: an HTTP/2
 * stream's connection is the shared one of all its streams. NULL: none. */
apr_socket_t *cgiplus_resp_client_socket(cgiplus_req *q)
{
    conn_rec *c = q->r->connection;

    if (c->master || c->aborted)
        return NULL;
    return ap_get_conn_socket(c);
}

/* What a readable client socket holds (enum cgiplus_client_state). */
static int resp_client_state(apr_socket_t *cs)
{
    apr_os_sock_t fd;
    ssize_t n;
    char b;

    if (apr_os_sock_get(&fd, cs) != APR_SUCCESS)
        return 0;
    do
        n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        return CGIPLUS_CLIENT_THERE;
    if (n == 0)
        return CGIPLUS_CLIENT_EOF;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return CGIPLUS_CLIENT_NOTHING;
    return CGIPLUS_CLIENT_GONE;
}

void cgiplus_resp_watch_init(cgiplus_req *q, cgiplus_client_watch *w)
{
    w->cs = cgiplus_resp_client_socket(q);
    w->eof = 0;
}

int cgiplus_resp_client_seen(cgiplus_client_watch *w, int client_rd)
{
    /* after its end of file, only a hang-up or error is reported */
    int st = client_rd == 2 ? CGIPLUS_CLIENT_GONE : resp_client_state(w->cs);

    if (st == CGIPLUS_CLIENT_THERE)
        w->cs = NULL; /* a pipelined request: the client is there */
    else if (st == CGIPLUS_CLIENT_EOF)
        /* Half-closed, or closed: only writing can tell. It gets its
         * response; a client that is gone fails the first write
         * (CGIPLUS1070) or resets the socket meanwhile. */
        w->eof = 1;
    return st;
}

int cgiplus_resp_client_left(cgiplus_req *q)
{
    q->client_gone = 1;
    q->r->connection->aborted = 1;
    return cgiplus_req_step(q, CGIPLUS_RE_CLIENT_GONE) == OK;
}

/* Waits up to q->timeout until the runner or the client is readable; with
 * client_eof set, only an error or hang-up of the client counts (its end
 * of file is known and would make every poll return at once). */
static apr_status_t resp_wait_both(cgiplus_req *q, apr_socket_t *cs, int client_eof,
                                   int *runner_rd, int *client_rd)
{
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
    pfd[0].desc.s = q->conn->sock;
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

apr_status_t cgiplus_resp_wait_first(cgiplus_req *q)
{
    cgiplus_client_watch w;
    apr_status_t rv = APR_SUCCESS;

    if (q->dx)
        return cgiplus_direct_wait_first(q);
    cgiplus_resp_watch_init(q, &w);
    while (rv == APR_SUCCESS && q->out_len == 0 && !q->got_end) {
        int runner_rd = 1, client_rd = 0;

        if (w.cs && (rv = resp_wait_both(q, w.cs, w.eof, &runner_rd,
                                         &client_rd)) != APR_SUCCESS)
            break;
        if (runner_rd) {
            rv = cgiplus_resp_read_frame(q);
            if (rv == APR_SUCCESS && q->dx)
                return cgiplus_direct_wait_first(q); /* GRANT: ours from now on */
            continue;
        }
        if (!client_rd || cgiplus_resp_client_seen(&w, client_rd) != CGIPLUS_CLIENT_GONE)
            continue;
        /* Reset while queued or waiting for its worker: the runner drops
         * the request (a queued one never runs); nobody gets a response. */
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1077)
                      "client connection reset before the response of %s began (%s); "
                      "sending ABORT to the runner", q->r->filename,
                      q->worker_pid ? apr_psprintf(q->r->pool, "worker pid %lu",
                                                   (unsigned long)q->worker_pid)
                                    : "no worker yet");
        if (cgiplus_resp_client_left(q))
            cgiplus_req_abort(q);
        return APR_ECONNABORTED;
    }
    return rv;
}

apr_status_t cgiplus_resp_drain(cgiplus_req *q)
{
    apr_status_t rv = APR_SUCCESS;

    for (;;) {
        apr_brigade_cleanup(q->out);
        q->out_len = 0;
        if (q->got_end || rv != APR_SUCCESS)
            return rv;
        rv = cgiplus_resp_read_frame(q);
    }
}

void cgiplus_resp_drain_rest(cgiplus_req *q)
{
    if (cgiplus_resp_drain(q) != APR_SUCCESS) {
        cgiplus_req_step(q, CGIPLUS_RE_LOST); /* DRAIN: the answer is decided */
        cgiplus_req_abandon(q);
    }
    else {
        cgiplus_req_finish(q);
    }
}

static void resp_wait_status(char *buf, apr_size_t len, apr_uint32_t st)
{
    int s = (int)st;

    if (st == CGIPLUS_END_CLOSED) /* the direct path sees the pipe, not the exit */
        apr_snprintf(buf, len, "closed its output (it died or exited)");
    else if (st == CGIPLUS_END_BROKEN)
        apr_snprintf(buf, len, "left its callout answers unread (it is stopped)");
    else if (WIFSIGNALED(s))
        apr_snprintf(buf, len, "killed by signal %d", WTERMSIG(s));
    else if (WIFEXITED(s))
        apr_snprintf(buf, len, "exited with status %d", WEXITSTATUS(s));
    else
        apr_snprintf(buf, len, "wait status %d", s);
}

int cgiplus_resp_end_status(cgiplus_req *q)
{
    request_rec *r = q->r;
    const cgp_end *e = &q->end;
    char how[64], err[120];
    apr_status_t detail = APR_FROM_OS_ERROR((int)e->detail);

    switch (e->outcome) {
    case CGP_O_OK:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1060)
                      "End of script output before headers: %s (worker pid %lu "
                      "wrote nothing before its end marker)", r->filename,
                      (unsigned long)e->pid);
        return HTTP_BAD_GATEWAY;
    case CGP_O_OVERLOADED:
    case CGP_O_SPAWN_FAILED:
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_itoa(r->pool, e->retry_after ? e->retry_after : 1));
        if (e->outcome == CGP_O_OVERLOADED)
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, CGIPLUS_LOGNO(1061)
                          "all workers of %s are busy and its queue is full; "
                          "answering 503 (raise CGIplusMaxWorkers if this persists)",
                          r->filename);
        else if (e->detail == 0) /* no process was tried: the crash-loop backoff */
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1069)
                          "workers of %s keep ending before serving a request: the runner "
                          "backs off starting new ones; answering 503 (retry after %u s)",
                          r->filename, (unsigned)(e->retry_after ? e->retry_after : 1));
        else
            ap_log_rerror(APLOG_MARK, APLOG_ERR, detail, r, CGIPLUS_LOGNO(1062)
                          "the runner could not start a worker for %s; answering "
                          "503 (retry after %u s)", r->filename,
                          (unsigned)(e->retry_after ? e->retry_after : 1));
        return HTTP_SERVICE_UNAVAILABLE;
    case CGP_O_TIMEOUT:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1063)
                      "script %s (worker pid %lu) timed out before its response",
                      r->filename, (unsigned long)e->pid);
        return HTTP_GATEWAY_TIME_OUT;
    case CGP_O_CRASHED:
        resp_wait_status(how, sizeof(how), e->detail);
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1064)
                      "script %s (worker pid %lu) %s before its response",
                      r->filename, (unsigned long)e->pid, how);
        return HTTP_BAD_GATEWAY;
    case CGP_O_NOT_FOUND:
        apr_strerror(detail, err, sizeof(err));
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1065)
                      "the runner cannot run %s: %s", r->filename, err);
        if (e->detail == EACCES || e->detail == EPERM || e->detail == ENOEXEC)
            return HTTP_FORBIDDEN;
        return HTTP_NOT_FOUND;
    case CGP_O_TOO_LARGE:
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1066)
                      "the request body for %s is over the runner's limit",
                      r->filename);
        return HTTP_REQUEST_ENTITY_TOO_LARGE;
    case CGP_O_BAD_REQUEST:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1067)
                      "the runner rejected the request for %s as a protocol "
                      "error (a module/runner version mismatch or a bug)",
                      r->filename);
        return HTTP_INTERNAL_SERVER_ERROR;
    default:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1068)
                      "the runner ended the request for %s with outcome %s "
                      "before any output", r->filename, cgp_outcome_name(e->outcome));
        return HTTP_BAD_GATEWAY;
    }
}

/* After the response has started, a failure can only cut the connection:
 * the error bucket makes httpd end it without a proper last chunk, so the
 * client sees a truncated response, never one that looks complete. */
static int resp_cut(cgiplus_req *q, apr_bucket_brigade *bb)
{
    request_rec *r = q->r;
    conn_rec *c = r->connection;

    r->connection->keepalive = AP_CONN_CLOSE;
    if (q->slog)
        cgiplus_scriptlog_write(r, q, HTTP_BAD_GATEWAY,
                                "the response was cut after it had started");
    if (!q->nph)
        APR_BRIGADE_INSERT_TAIL(bb, ap_bucket_error_create(HTTP_BAD_GATEWAY, NULL,
                                r->pool, c->bucket_alloc));
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(c->bucket_alloc));
    ap_pass_brigade(r->output_filters, bb);
    apr_brigade_cleanup(bb);
    return OK;
}

/* Streams the body: what is in q->out, then frame by frame until END.
 * Passes data down with a FLUSH whenever no further frame is readable at
 * once, so output reaches the client when the script writes it. */
static int resp_stream(cgiplus_req *q)
{
    request_rec *r = q->r;
    conn_rec *c = r->connection;
    apr_bucket_brigade *bb = apr_brigade_create(r->pool, c->bucket_alloc);
    apr_off_t pending = 0;
    apr_status_t rv;
    int flushed_head = q->nph;

    for (;;) {
        int more;

        if (q->out_len > 0) {
            pending += q->out_len;
            APR_BRIGADE_CONCAT(bb, q->out);
            q->out_len = 0;
        }
        if (q->got_end)
            break;
        more = cgiplus_req_readable(q, 0);
        if (!more && (pending > 0 || !flushed_head)) {
            /* Nothing more yet: what we have (or the header alone, so a
             * slow stream shows its header at once) goes to the client. */
            flushed_head = 1;
            APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_flush_create(c->bucket_alloc));
        }
        if (!APR_BRIGADE_EMPTY(bb) && (!more || pending >= RESP_PASS_BYTES)) {
            rv = ap_pass_brigade(r->output_filters, bb);
            apr_brigade_cleanup(bb);
            pending = 0;
            if (rv != APR_SUCCESS || c->aborted) {
                ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1070)
                              "client went away during the response of %s; "
                              "sending ABORT to the runner", r->filename);
                apr_brigade_cleanup(q->out);
                q->out_len = 0;
                if (cgiplus_req_step(q, CGIPLUS_RE_CLIENT_GONE) != OK)
                    return HTTP_INTERNAL_SERVER_ERROR;
                cgiplus_req_abort(q);
                return OK;
            }
            flushed_head = 1;
        }
        if ((rv = cgiplus_resp_read_frame(q)) != APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1071)
                          "lost the runner in the middle of the response of %s; "
                          "cutting the client connection", r->filename);
            cgiplus_req_abandon(q);
            if (cgiplus_req_step(q, CGIPLUS_RE_LOST) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            return resp_cut(q, bb);
        }
    }

    if (cgiplus_req_step(q, cgiplus_req_end_event(q)) != OK)
        return HTTP_INTERNAL_SERVER_ERROR;
    if (q->end.outcome != CGP_O_OK) {
        char how[64] = "";

        if (q->end.outcome == CGP_O_CRASHED)
            resp_wait_status(how, sizeof(how), q->end.detail);
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1072)
                      "script %s (worker pid %lu) ended with outcome %s%s%s after "
                      "its response started; cutting the client connection",
                      r->filename, (unsigned long)q->end.pid,
                      cgp_outcome_name(q->end.outcome), *how ? ": " : "", how);
        cgiplus_req_finish(q);
        return resp_cut(q, bb);
    }
    cgiplus_req_finish(q);
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(c->bucket_alloc));
    rv = ap_pass_brigade(r->output_filters, bb);
    apr_brigade_cleanup(bb);
    if (rv != APR_SUCCESS && !c->aborted)
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r, CGIPLUS_LOGNO(1073)
                      "passing the end of the response of %s failed", r->filename);
    return OK;
}

/* nph- scripts write the whole HTTP response themselves: everything up to
 * the protocol filters is bypassed, as mod_cgi does. */
static int resp_nph(cgiplus_req *q)
{
    request_rec *r = q->r;
    ap_filter_t *cur = r->proto_output_filters;

    while (cur && cur->frec->ftype < AP_FTYPE_CONNECTION)
        cur = cur->next;
    r->output_filters = r->proto_output_filters = cur;
    /* httpd cannot know where this response ends: no keep-alive. */
    r->connection->keepalive = AP_CONN_CLOSE;
    return resp_stream(q);
}

/* A failed exchange before the response started (the caller has logged
 * it with its id and dealt with the connection): writes the script log
 * entry, the reason taken from END if none is given. Returns status. */
static int resp_fail(cgiplus_req *q, int status, const char *why)
{
    if (!why && q->got_end) {
        /* the runner's END says why: outcome, exit, worker */
        char how[64] = "";

        if (q->end.outcome == CGP_O_CRASHED)
            resp_wait_status(how, sizeof(how), q->end.detail);
        why = apr_psprintf(q->r->pool, "the runner ended the request: %s%s%s "
                           "(worker pid %lu)", cgp_outcome_name(q->end.outcome),
                           *how ? ", " : "", how, (unsigned long)q->end.pid);
    }
    if (q->slog)
        cgiplus_scriptlog_write(q->r, q, status, why);
    return status;
}

/* How long the header of a HEAD response waits for the script's end. */
#define RESP_HEAD_HOLD apr_time_from_sec(1)

/* HEAD: the body is counted and dropped, and the header waits for the end
 * of the response (at most RESP_HEAD_HOLD), so that Content-Length does not
 * depend on timing: the length of the body the script wrote, none for an
 * empty one (httpd drops a 0 on HEAD). A script that fails meanwhile gets
 * its failure's status; one still writing after the hold gets its header
 * sent at once, without a length. */
static int resp_head(cgiplus_req *q)
{
    request_rec *r = q->r;
    apr_time_t until = apr_time_now() + RESP_HEAD_HOLD;
    apr_off_t body = 0;
    apr_status_t rv;
    int ret;

    for (;;) {
        apr_interval_time_t left = until - apr_time_now();

        body += q->out_len;
        apr_brigade_cleanup(q->out);
        q->out_len = 0;
        if (q->got_end)
            break;
        if (left <= 0 || !cgiplus_req_readable(q, left))
            return cgiplus_req_step(q, CGIPLUS_RE_HOLD_OVER) != OK ? HTTP_INTERNAL_SERVER_ERROR
                                                                   : resp_stream(q);
        if ((rv = cgiplus_resp_read_frame(q)) != APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1400)
                          "lost the runner while holding the header of HEAD %s "
                          "for its end; answering 502", r->filename);
            cgiplus_req_abandon(q);
            if (cgiplus_req_step(q, CGIPLUS_RE_LOST) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            return resp_fail(q, HTTP_BAD_GATEWAY, "lost the runner during a HEAD response");
        }
    }
    if (cgiplus_req_step(q, cgiplus_req_end_event(q)) != OK)
        return HTTP_INTERNAL_SERVER_ERROR;
    if (q->end.outcome != CGP_O_OK) {
        ret = cgiplus_resp_end_status(q);
        cgiplus_req_finish(q);
        return resp_fail(q, ret, NULL);
    }
    ap_set_content_length(r, body);
    return resp_stream(q); /* only EOS is left to pass */
}

int cgiplus_resp_handle(cgiplus_req *q)
{
    request_rec *r = q->r;
    const char *location, *why = NULL;
    int ret;

    if (q->out_len == 0) {
        /* END came before any output */
        if (cgiplus_req_step(q, cgiplus_req_end_event(q)) != OK)
            return HTTP_INTERNAL_SERVER_ERROR;
        ret = cgiplus_resp_end_status(q);
        cgiplus_req_finish(q);
        return resp_fail(q, ret, NULL);
    }
    if (cgiplus_req_step(q, CGIPLUS_RE_OUTPUT) != OK)
        return HTTP_INTERNAL_SERVER_ERROR;
    q->io_status = APR_SUCCESS;
    if (q->nph && (ret = cgiplus_header_nph(q, &why)) == OK)
        return cgiplus_req_step(q, CGIPLUS_RE_HEADER) != OK ? HTTP_INTERNAL_SERVER_ERROR
                                                            : resp_nph(q);
    if (!q->nph)
        ret = cgiplus_header_scan(q, &why);
    /* CGI has its own framing: let the core choose C-L or chunked from
     * what is really sent, as mod_cgi does. */
    if (!apr_table_get(r->subprocess_env, AP_TRUST_CGILIKE_CL_ENVVAR))
        apr_table_unset(r->headers_out, "Content-Length");
    apr_table_unset(r->headers_out, "Transfer-Encoding");
    if (q->dx)
        cgiplus_direct_script_control(q); /* the runner applies it when relayed */
    apr_table_unset(r->headers_out, "Script-Control");
    apr_table_unset(r->err_headers_out, "Script-Control");

    if (ret != OK) {
        if (ret == HTTP_GATEWAY_TIME_OUT || APR_STATUS_IS_TIMEUP(q->io_status)) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, q->io_status, r, CGIPLUS_LOGNO(1074)
                          "timed out reading the header of %s", r->filename);
            cgiplus_req_abandon(q);
            if (cgiplus_req_step(q, CGIPLUS_RE_LOST) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            return resp_fail(q, HTTP_GATEWAY_TIME_OUT, "timed out reading the header");
        }
        if (q->io_status != APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, q->io_status, r, CGIPLUS_LOGNO(1075)
                          "lost the runner while reading the header of %s",
                          r->filename);
            cgiplus_req_abandon(q);
            if (cgiplus_req_step(q, CGIPLUS_RE_LOST) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            return resp_fail(q, HTTP_BAD_GATEWAY, why);
        }
        if (q->got_end && q->end.outcome != CGP_O_OK) {
            /* the script failed inside its header: that is the reason */
            if (cgiplus_req_step(q, cgiplus_req_end_event(q)) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            ret = cgiplus_resp_end_status(q);
            cgiplus_req_finish(q);
            return resp_fail(q, ret, NULL);
        }
        if (why) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1076)
                          "bad header from script %s: %s; answering %d",
                          r->filename, why, cgiplus_fail_status(q, HTTP_BAD_GATEWAY));
            if (cgiplus_req_step(q, CGIPLUS_RE_BAD_HEADER) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            /* the rest of the output is of no use; keep the connection
             * only if the runner can end the request cleanly */
            if (q->got_end)
                cgiplus_req_finish(q);
            else
                cgiplus_req_abort(q);
            return resp_fail(q, HTTP_BAD_GATEWAY, why);
        }
        /* 304 or 412 from the conditional checks: drop the output. */
        if (cgiplus_req_step(q, CGIPLUS_RE_DIVERT) != OK)
            return HTTP_INTERNAL_SERVER_ERROR;
        cgiplus_resp_drain_rest(q);
        if (cgiplus_req_step(q, ret == HTTP_NOT_MODIFIED ? CGIPLUS_RE_FINISH
                                                         : CGIPLUS_RE_ERROR) != OK)
            return HTTP_INTERNAL_SERVER_ERROR;
        if (ret == HTTP_NOT_MODIFIED) {
            /* as mod_cgi: no error document, so mod_cache validation works */
            r->status = ret;
            return OK;
        }
        return ret;
    }

    /* X-CGIplus-File: the static fast path sends that file instead */
    if ((ret = cgiplus_static_offload(q)) != DECLINED)
        return cgiplus_req_step(q, ret == OK ? CGIPLUS_RE_FINISH : CGIPLUS_RE_ERROR) != OK
               ? HTTP_INTERNAL_SERVER_ERROR : ret;

    location = apr_table_get(r->headers_out, "Location");
    if (location && r->status == HTTP_OK) {
        /* A redirect, internal or not: the rest of the output is dropped. */
        if (cgiplus_req_step(q, CGIPLUS_RE_DIVERT) != OK)
            return HTTP_INTERNAL_SERVER_ERROR;
        cgiplus_resp_drain_rest(q);
        if (cgiplus_req_step(q, CGIPLUS_RE_FINISH) != OK)
            return HTTP_INTERNAL_SERVER_ERROR;
        if (location[0] == '/') {
            /* The body is read already; the redirect is always a GET. */
            r->method = "GET";
            r->method_number = M_GET;
            apr_table_unset(r->headers_in, "Content-Length");
            ap_internal_redirect_handler(location, r);
            return OK;
        }
        return HTTP_MOVED_TEMPORARILY;
    }
    if (cgiplus_req_step(q, r->header_only ? CGIPLUS_RE_HEADER_HEAD : CGIPLUS_RE_HEADER) != OK)
        return HTTP_INTERNAL_SERVER_ERROR;
    return r->header_only ? resp_head(q) : resp_stream(q);
}
