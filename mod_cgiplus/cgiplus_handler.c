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
    return status;
}

const char *cgiplus_status_text(request_rec *r, int status)
{
    if (status == AP_FILTER_ERROR)
        return "an input filter already answered, e.g. 413 for LimitRequestBody";
    return apr_psprintf(r->pool, "answering %d", status);
}

void cgiplus_req_abandon(cgiplus_req *q)
{
    cgiplus_conn *c = q->conn;

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

void cgiplus_req_finish(cgiplus_req *q)
{
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

/* Connects (retrying a dead reused connection once) and sends the request;
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
            apr_table_setn(r->err_headers_out, "Retry-After",
                           apr_itoa(r->pool, CGIPLUS_RETRY_AFTER));
            return HTTP_SERVICE_UNAVAILABLE;
        }
        apr_socket_timeout_set(q->conn->sock, q->timeout);
        q->stdin_done = 0;
        rv = cgiplus_body_send_first(q, frames, flen);
        if (rv == APR_SUCCESS && !q->stdin_done)
            rv = cgiplus_body_stream(q, &status);
        if (rv == APR_SUCCESS)
            rv = cgiplus_resp_wait_first(q);
        if (rv == APR_SUCCESS)
            return OK;
        if (status) {
            /* the client's side failed (body too large, gone, bad chunk) */
            cgiplus_req_abandon(q);
            return status;
        }
        if (attempt == 0 && q->conn->reused && cgiplus_conn_is_dead(rv) &&
            !q->body_streamed && !q->got_stdout && !q->got_end) {
            /* The runner closed this idle connection as we took it (it
             * restarted, say); nothing is lost by trying a fresh one. */
            ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r, CGIPLUS_LOGNO(1080)
                          "reused runner connection was closed; retrying %s "
                          "on a fresh one", r->filename);
            cgiplus_conn_close(q->conn);
            q->conn = NULL;
            continue;
        }
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1081)
                      "lost the runner (pid %lu) before the response of %s began",
                      (unsigned long)q->conn->runner_pid, r->filename);
        cgiplus_req_abandon(q);
        return APR_STATUS_IS_TIMEUP(rv) ? HTTP_GATEWAY_TIME_OUT : HTTP_BAD_GATEWAY;
    }
}

int cgiplus_handler(request_rec *r)
{
    cgiplus_req *q;
    unsigned char *frames;
    apr_size_t flen;
    apr_status_t rv;
    int nph, is_included, ret;

    if (!r->handler || strcmp(r->handler, CGIPLUS_HANDLER))
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
    q->timeout = r->server->timeout;
    q->out = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    do {
        q->reqid = apr_atomic_inc32(&cgiplus_reqids) + 1;
    } while (q->reqid == 0);
    apr_pool_cleanup_register(r->pool, q, handler_cleanup, apr_pool_cleanup_null);

    if ((rv = cgiplus_env_pack(q, &frames, &flen)) != APR_SUCCESS)
        return HTTP_INTERNAL_SERVER_ERROR; /* logged */

    /* The first body chunk (often all of it) goes out with BEGIN. */
    if ((rv = cgiplus_body_first(q)) != APR_SUCCESS) {
        ret = ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
        ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1087)
                      "reading the request body for %s failed (%s)",
                      r->filename, cgiplus_status_text(r, ret));
        return ret;
    }

    if ((ret = handler_exchange(q, frames, flen)) != OK)
        return ret;
    return cgiplus_resp_handle(q);
}
