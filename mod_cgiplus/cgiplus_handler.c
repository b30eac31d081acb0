/* cgiplus_handler.c: the cgiplus-script handler. Checks the request as
 * mod_cgi does, then runs the exchange with the runner: BEGIN + PARAMS +
 * the first body chunk in one write, the rest of the body, the response. */
#include "cgiplus_private.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_atomic.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* Request ids only need to differ between consecutive requests on one
 * connection; a process-wide counter is simplest. 0 is never used. */
static apr_uint32_t cgiplus_reqids;

/* As mod_cgi: a ScriptAlias'd directory needs no Options ExecCGI. */
static int handler_scriptaliased(request_rec *r)
{
    const char *t = apr_table_get(r->notes, "alias-forced-type");

    return t && (!strcasecmp(t, "cgi-script") || !strcasecmp(t, CGIPLUS_HANDLER));
}

/* Refuses a request before anything runs, logged in mod_cgi's style. */
static int handler_refuse(request_rec *r, int status, const char *logno,
                          const char *why)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "%s%s: %s", logno, why, r->filename);
    cgiplus_scriptlog_write(r, NULL, status, why);
    return status;
}

int cgiplus_conf_compat(const cgiplus_dir_conf *dc)
{
    return dc->compat == 2;
}

const char *cgiplus_set_compat(cmd_parms *cmd, void *dcv, int on)
{
    cgiplus_dir_conf *dc = dcv;

    dc->compat = on ? 2 : 1;
    return NULL;
}

/* Which requests are ours: the cgiplus-script handler always; mod_cgi's
 * handler names where CGIplusCompat is on, or in an #exec cgi of our own
 * exec element. Sets *compat for the latter. */
static int handler_wanted(request_rec *r, const cgiplus_dir_conf *dc, int *compat)
{
    *compat = 0;
    if (!r->handler)
        return 0;
    if (!strcmp(r->handler, CGIPLUS_HANDLER))
        return 1;
    if ((!strcmp(r->handler, "cgi-script") ||
         !strcmp(r->handler, "application/x-httpd-cgi")) &&
        (cgiplus_conf_compat(dc) || apr_table_get(r->notes, CGIPLUS_INCLUDE_NOTE))) {
        *compat = 1;
        return 1;
    }
    return 0;
}

int cgiplus_fail_status(const cgiplus_req *q, int status)
{
    return q->compat && status == HTTP_BAD_GATEWAY ? HTTP_INTERNAL_SERVER_ERROR : status;
}

const char *cgiplus_status_text(request_rec *r, int status)
{
    if (status == AP_FILTER_ERROR)
        return "an input filter already answered, e.g. 413 for LimitRequestBody";
    return apr_psprintf(r->pool, "answering %d", status);
}

int cgiplus_req_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    return q->dx ? cgiplus_direct_readable(q, wait) : cgiplus_conn_readable(q->conn, wait);
}

void cgiplus_req_abandon(cgiplus_req *q)
{
    cgiplus_conn *c = q->conn;

    if (q->dx)
        cgiplus_direct_finish(q, 0);
    if (!c)
        return;
    q->conn = NULL;
    if (!q->got_end && !q->conn_dirty) {
        /* Tell the runner at once; closing alone would also end it. */
        unsigned char hb[CGP_HDR_LEN];
        struct iovec iov;
        cgp_hdr h = { 0 };

        h.type = CGP_T_ABORT;
        h.reqid = q->reqid;
        cgp_hdr_pack(hb, &h);
        iov.iov_base = hb;
        iov.iov_len = sizeof(hb);
        apr_socket_timeout_set(c->sock, apr_time_from_sec(1));
        cgiplus_conn_sendv(c, &iov, 1);
    }
    cgiplus_conn_close(c);
}

/* How long to wait for END after ABORT before giving the connection up. */
#define HANDLER_ABORT_WAIT apr_time_from_sec(2)

void cgiplus_req_abort(cgiplus_req *q)
{
    cgiplus_conn *c = q->conn;
    unsigned char hb[CGP_HDR_LEN];
    struct iovec iov;
    cgp_hdr h = { 0 };
    apr_status_t rv;

    if (q->dx) {
        /* the runner drains the worker; this thread is free at once */
        cgiplus_direct_finish(q, 1);
        return;
    }
    if (!c)
        return;
    if (q->got_end || q->conn_dirty) {
        cgiplus_req_finish(q);
        return;
    }
    h.type = CGP_T_ABORT;
    h.reqid = q->reqid;
    cgp_hdr_pack(hb, &h);
    iov.iov_base = hb;
    iov.iov_len = sizeof(hb);
    apr_socket_timeout_set(c->sock, q->timeout < HANDLER_ABORT_WAIT
                                    ? q->timeout : HANDLER_ABORT_WAIT);
    rv = cgiplus_conn_sendv(c, &iov, 1);
    q->aborting = 1;
    /* Whatever the script still writes is of no use; its stderr is logged. */
    while (rv == APR_SUCCESS && !q->got_end) {
        rv = cgiplus_resp_read_frame(q);
        apr_brigade_cleanup(q->out);
        q->out_len = 0;
    }
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, q->r, CGIPLUS_LOGNO(1088)
                      "sent ABORT for %s, but the runner did not end the "
                      "request; closing the connection", q->r->filename);
        q->conn_dirty = 1;
        cgiplus_req_abandon(q);
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1089)
                  "sent ABORT for %s; the runner ended the request: %s "
                  "(worker pid %lu); the connection is kept", q->r->filename,
                  cgp_outcome_name(q->end.outcome), (unsigned long)q->end.pid);
    if (q->conn) /* a GRANT released it already */
        apr_socket_timeout_set(c->sock, q->timeout);
    cgiplus_req_finish(q);
}

void cgiplus_req_finish(cgiplus_req *q)
{
    if (q->dx) {
        cgiplus_direct_finish(q, 0);
        return;
    }
    if (!q->conn)
        return;
    if (q->got_end && !q->conn_dirty) {
        cgiplus_conn_release(q->conn);
        q->conn = NULL;
    }
    else {
        cgiplus_req_abandon(q);
    }
}

/* Safety net: a connection still held when the request ends is closed. */
static apr_status_t handler_cleanup(void *data)
{
    cgiplus_req_abandon(data);
    return APR_SUCCESS;
}

/* Connects (retrying once if the runner took none of the request) and sends it;
 * returns OK with the first response frame read, or an HTTP status. */
static int handler_exchange(cgiplus_req *q, unsigned char *frames, apr_size_t flen)
{
    request_rec *r = q->r;
    int attempt;

    for (attempt = 0; ; attempt++) {
        apr_status_t rv;
        int status = 0;

        rv = cgiplus_conn_acquire(r, attempt > 0, &q->conn);
        if (rv != APR_SUCCESS) {
            /* cgiplus_conn_acquire logged why */
            if ((status = cgiplus_req_step(q, CGIPLUS_RE_ERROR)) != OK)
                return status;
            apr_table_setn(r->err_headers_out, "Retry-After",
                           apr_itoa(r->pool, CGIPLUS_RETRY_AFTER));
            return HTTP_SERVICE_UNAVAILABLE;
        }
        apr_socket_timeout_set(q->conn->sock, q->timeout);
        cgiplus_direct_runner_seen(q->conn->runner_pid);
        q->stdin_done = 0;
        rv = cgiplus_body_send_first(q, frames, flen);
        if (rv == APR_SUCCESS && !q->stdin_done)
            rv = cgiplus_body_stream(q, &status);
        if (rv == APR_SUCCESS) {
            if (cgiplus_req_step(q, CGIPLUS_RE_SENT) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
            rv = cgiplus_resp_wait_first(q);
        }
        if (rv == APR_SUCCESS || q->client_gone)
            return OK; /* client_gone: ABORT sent and logged, no response */
        if (status) {
            /* the client's side failed (body too large, gone, bad chunk) */
            cgiplus_req_abandon(q);
            return cgiplus_req_step(q, CGIPLUS_RE_ERROR) != OK ? HTTP_INTERNAL_SERVER_ERROR
                                                               : status;
        }
        if (attempt == 0 && q->unsent && cgiplus_conn_is_dead(rv)) {
            /* The runner closed the connection before it took a byte of
             * the request (it restarted, say): it never ran, so a fresh
             * connection may carry it. Anything more and it may have run:
             * a request never runs twice. */
            ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r, CGIPLUS_LOGNO(1080)
                          "runner connection was closed before it took any of "
                          "the request; sending %s on a fresh one", r->filename);
            cgiplus_conn_close(q->conn);
            q->conn = NULL;
            if ((status = cgiplus_req_step(q, CGIPLUS_RE_RETRY)) != OK)
                return status;
            continue;
        }
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1081)
                      "lost the runner (pid %lu) before the response of %s began "
                      "(%s); not sent again, as it may have run",
                      (unsigned long)q->conn->runner_pid, r->filename,
                      q->worker_pid ? apr_psprintf(r->pool, "worker pid %lu had it",
                                                   (unsigned long)q->worker_pid)
                                    : "no worker had it yet");
        cgiplus_req_abandon(q);
        if ((status = cgiplus_req_step(q, CGIPLUS_RE_LOST)) != OK)
            return status;
        return APR_STATUS_IS_TIMEUP(rv) ? HTTP_GATEWAY_TIME_OUT : HTTP_BAD_GATEWAY;
    }
}

static int handler_serve(cgiplus_req *q, cgiplus_dir_conf *dc);

int cgiplus_handler(request_rec *r)
{
    cgiplus_req *q;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    int nph, is_included, ret, compat;

    if (!handler_wanted(r, dc, &compat))
        return DECLINED;

    /* The checks of mod_cgi's handler, in its order. */
    is_included = !strcmp(r->protocol, "INCLUDED");
    nph = !strncmp(apr_filepath_name_get(r->filename), "nph-", 4);
    if (!(ap_allow_options(r) & OPT_EXECCGI) && !handler_scriptaliased(r))
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1082),
                              "Options ExecCGI is off in this directory");
    if (nph && is_included)
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1083),
                              "attempt to include NPH CGI script");
    if (r->finfo.filetype == APR_NOFILE)
        return handler_refuse(r, HTTP_NOT_FOUND, CGIPLUS_LOGNO(1084),
                              "script not found or unable to stat");
    if (r->finfo.filetype == APR_DIR)
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1085),
                              "attempt to invoke directory as script");
    if (r->used_path_info == AP_REQ_REJECT_PATH_INFO &&
        r->path_info && *r->path_info)
        return handler_refuse(r, HTTP_NOT_FOUND, CGIPLUS_LOGNO(1086),
                              "AcceptPathInfo off disallows user's path");

    q = apr_pcalloc(r->pool, sizeof(*q));
    q->r = r;
    q->nph = nph;
    q->compat = compat;
    /* Drop-in: plain CGI unless this scope asks for persistent workers. */
    q->mode_name = compat && dc->mode == CGIPLUS_MODE_UNSET ? "cgi"
                                                            : cgiplus_conf_mode_name(dc);
    cgiplus_scriptlog_start(q);
    q->timeout = r->server->timeout;
    q->out = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    do {
        q->reqid = apr_atomic_inc32(&cgiplus_reqids) + 1;
    } while (q->reqid == 0);
    apr_pool_cleanup_register(r->pool, q, handler_cleanup, apr_pool_cleanup_null);

    ret = handler_serve(q, dc);
    if (q->rbad) /* a state change the table refused: logged (CGIPLUS1091) */
        return r->sent_bodyct ? OK : HTTP_INTERNAL_SERVER_ERROR;
    return ret;
}

/* The request after the checks: body, direct path or relay, response. */
static int handler_serve(cgiplus_req *q, cgiplus_dir_conf *dc)
{
    request_rec *r = q->r;
    unsigned char *frames;
    apr_size_t flen;
    apr_status_t rv;
    int ret;

    /* The direct path: persistent workers, no script log (it wants what the
     * runner relays); the body must be read whole (cgiplus_direct_run). */
    q->want_direct = cgiplus_direct_on(dc) && !strcmp(q->mode_name, "cgiplus") && !q->slog &&
                     cgiplus_direct_begin(q);

    /* The body, whole if small, before the runner (and a worker) sees the
     * request; its first frame goes out with BEGIN, which says whether it
     * is whole (grant). */
    if ((ret = cgiplus_req_step(q, CGIPLUS_RE_START)) != OK)
        return ret;
    cgiplus_body_init(r, &q->in);
    if ((ret = cgiplus_body_preread(r, &q->in)) != OK) {
        cgiplus_req_step(q, CGIPLUS_RE_ERROR);
        return ret; /* logged */
    }
    if ((ret = cgiplus_req_step(q, CGIPLUS_RE_BODY_READ)) != OK)
        return ret;

    if ((rv = cgiplus_env_pack(q, &frames, &flen)) != APR_SUCCESS) {
        cgiplus_req_step(q, CGIPLUS_RE_ERROR);
        return HTTP_INTERNAL_SERVER_ERROR; /* logged */
    }

    ret = q->want_direct ? cgiplus_direct_run(q) : DECLINED;
    if (cgiplus_req_step(q, ret == OK ? CGIPLUS_RE_CLAIMED : ret == DECLINED
                            ? CGIPLUS_RE_NO_IDLE : CGIPLUS_RE_ERROR) != OK)
        return HTTP_INTERNAL_SERVER_ERROR;
    if (ret != DECLINED) {
        if (ret == OK && cgiplus_resp_wait_first(q) != APR_SUCCESS && !q->client_gone) {
            ret = HTTP_BAD_GATEWAY;
            if (cgiplus_req_step(q, CGIPLUS_RE_LOST) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
        }
        if (ret != OK || q->client_gone) {
            cgiplus_req_abandon(q);
            return ret == OK ? OK : cgiplus_fail_status(q, ret);
        }
        return cgiplus_fail_status(q, cgiplus_resp_handle(q));
    }
    if ((ret = handler_exchange(q, frames, flen)) != OK) {
        if (ret >= HTTP_INTERNAL_SERVER_ERROR && q->slog)
            cgiplus_scriptlog_write(r, q, ret, "the exchange with the runner failed");
        return cgiplus_fail_status(q, ret);
    }
    if (q->client_gone)
        return OK;
    return cgiplus_fail_status(q, cgiplus_resp_handle(q));
}
