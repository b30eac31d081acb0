/* cgiplus_response.c: the request from its first output on, as the
 * actions of its state machine (cgiplus_req.h; docs/DESIGN.md, "A
 * request's states"): the script's CGI header parsed by httpd's own
 * scanner; the body streamed to the client as it arrives, held for a slow
 * one (cgiplus_outbuf.c); a HEAD response held for its length; what
 * replaces the script's body (a redirect, X-CGIplus-File, 304/412); END
 * outcomes mapped to HTTP statuses; the request's end, whichever it is.
 * The output comes through q's kind of worker (q->xp), never named here. */
#include "cgiplus_engine.h"
#include "cgiplus_header.h"
#include "cgiplus_outbuf.h"
#include "cgiplus_resp.h"
#include "cgiplus_scriptlog.h"
#include "cgiplus_static.h"
#include "cgp_shebang.h"
#include "cgp_suexec.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"
#include "util_script.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* Bytes collected from output that is already there before they are
 * passed down in one go; anything less waits only if more is readable. */
#define RESP_PASS_BYTES (64 * 1024)
/* How long the header of a HEAD response waits for the script's end. */
#define RESP_HEAD_HOLD apr_time_from_sec(1)

/* The response's own state of one request (q->resp). From r->pool; lives
 * for the request. Changed by this file only. */
typedef struct resp_state {
    cgiplus_outbuf *ob;        /* the stream's, once it began */
    apr_bucket_brigade *bb;
    const char *why;           /* a bad header: what is wrong with it */
    int replace;               /* 304 or 412 from the conditional checks, 0: none */
    const char *file;          /* X-CGIplus-File, NULL: none */
    const char *location;      /* a redirect, NULL: none */
} resp_state;

static resp_state *resp_get(cgiplus_req *q)
{
    if (!q->resp)
        q->resp = apr_pcalloc(q->r->pool, sizeof(resp_state));
    return q->resp;
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

/* Why the runner answered overloaded (END's detail, docs/PROTOCOL.md). */
static const char *overloaded_why(apr_pool_t *p, apr_uint32_t detail)
{
    switch (detail) {
    case ETIMEDOUT:
        return "it waited CGIplusQueueWait in the runner's queue and no worker came free";
    case ENOBUFS:
        return "the runner holds too much for requests not yet on a worker (queue_memory)";
    case ESHUTDOWN:
        return "the runner is stopping";
    case EBUSY:
        return "its FastCGI application refused the request (FCGI_OVERLOADED)";
    case ECHILD:
        return "the worker the runner handed it could not take it";
    case 0:
        return "all of its workers are busy and its queue is full (raise CGIplusMaxWorkers "
               "or CGIplusQueueDepth if this persists)";
    /* a WebSocket upgrade's (the runner's 2823 line says more) */
    case CGP_OVL_WS_CONNS:
        return "the WebSocket upgrade is over its connection limit "
               "(CGIplusWebSocketMaxConnections)";
    case CGP_OVL_WS_MEMORY:
        return "the WebSocket upgrade came with the runner's WebSocket buffers full "
               "(CGIplusWebSocketMemory)";
    case CGP_OVL_WS_QUEUE:
        return "the WebSocket upgrade found CGIplusQueueDepth upgrades waiting for a worker "
               "to be ready";
    case CGP_OVL_WS_WAIT:
        return "the WebSocket upgrade waited CGIplusQueueWait and no worker was ready";
    case CGP_OVL_WS_NO_WORKER:
        return "the WebSocket upgrade found no worker, and none may start (the runner's "
               "max_workers_total is reached, or the pool was retiring)";
    default: /* taking its body failed */
        return apr_psprintf(p, "the runner could not take it (%s)", strerror((int)detail));
    }
}

/* The script cannot be executed, and will not be until someone fixes it
 * (its interpreter is missing, its #! line ends in a CR, it is no program):
 * 500, as mod_cgi answers it, with the reason in this virtual host's log,
 * read from the script's first line as the runner does for its own. */
static int resp_exec_failed(cgiplus_req *q)
{
    request_rec *r = q->r;
    char head[CGP_SHEBANG_MAX], why[512], err[120];
    apr_size_t len = sizeof(head);
    apr_file_t *f;

    if (apr_file_open(&f, r->filename, APR_FOPEN_READ, APR_OS_DEFAULT, r->pool) != APR_SUCCESS)
        len = 0;
    else if (apr_file_read(f, head, &len) != APR_SUCCESS || apr_file_close(f) != APR_SUCCESS)
        len = 0;
    apr_strerror(APR_FROM_OS_ERROR((int)q->end.detail), err, sizeof(err));
    cgp_shebang_explain(head, len, (int)q->end.detail, err, why, sizeof(why));
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1261)
                  "cannot run %s: %s; answering 500", r->filename, why);
    return HTTP_INTERNAL_SERVER_ERROR;
}

/* Maps a non-ok END (before any output) to an HTTP status, logged. */
static int resp_end_status(cgiplus_req *q)
{
    request_rec *r = q->r;
    const cgp_end *e = &q->end;
    char how[64], err[120];
    const char *why;
    apr_status_t detail = APR_FROM_OS_ERROR((int)e->detail);

    switch (e->outcome) {
    case CGP_O_OK:
        /* Only the end marker was seen: whether the process goes on or
         * exits right after (a script failing in its request loop) is
         * known later, to the runner (2028). No header: the runner saw a
         * good end, the client gets none. */
        cgiplus_req_failed(q, CGP_C_BAD_HEADER);
        cgiplus_req_error_notes(q, "End of script output before headers", NULL, 0);
        if (q->engine && !q->fcgid) {
            /* how an engine answers a script that failed before its
             * header: its error is on its stderr, just before */
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1324)
                          "End of script output before headers: %s (engine %s, pid %lu; "
                          "the script's error, if any, is in the lines before); answering %d",
                          r->filename, q->engine, (unsigned long)e->pid,
                          cgiplus_fail_status(q, HTTP_BAD_GATEWAY));
            return HTTP_BAD_GATEWAY;
        }
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1060)
                      "End of script output before headers: %s (worker pid %lu "
                      "ended the request with its end marker before any output; "
                      "if it then exited, the runner's line 2028 for pid %lu says how)",
                      r->filename, (unsigned long)e->pid, (unsigned long)e->pid);
        return HTTP_BAD_GATEWAY;
    case CGP_O_SPAWN_FAILED:
        /* (EACCES comes as a spawn failure only for a refused interpreter:
         * a script closed to its user is CGP_O_NOT_FOUND, 403) */
        if (e->detail && (cgp_exec_err_permanent((int)e->detail) || e->detail == EACCES))
            return resp_exec_failed(q);
        /* fall through */
    case CGP_O_OVERLOADED:
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_itoa(r->pool, e->retry_after ? e->retry_after : 1));
        if (e->outcome == CGP_O_OVERLOADED)
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, CGIPLUS_LOGNO(1061)
                          "%s: %s; answering 503", r->filename, overloaded_why(r->pool, e->detail));
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
        cgiplus_req_error_notes(q, "Script timed out before returning headers", NULL, 0);
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1063)
                      "script %s (worker pid %lu) timed out before its response",
                      r->filename, (unsigned long)e->pid);
        return HTTP_GATEWAY_TIME_OUT;
    case CGP_O_CRASHED:
        /* mod_cgi's words when a script exits before its header, whatever
         * its status, in the notes and the log (what admins search for) */
        why = q->hdr_raw_len ? "Premature end of script headers"
                             : "End of script output before headers";
        cgiplus_req_error_notes(q, why, NULL, 0);
        resp_wait_status(how, sizeof(how), e->detail);
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1064)
                      "%s: %s (worker pid %lu %s before its response)", why,
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
    case CGP_O_REFUSED:
        /* mod_cgi answers 500 when suexec refuses; the runner logged the
         * details in suexec's words (CGIPLUS2700) */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1320)
                      "suEXEC refused to run %s as %s: %s; answering 500", r->filename,
                      q->suexec ? q->suexec : "?", cgp_suexec_why_text(e->detail));
        return HTTP_INTERNAL_SERVER_ERROR;
    case CGP_O_BAD_REQUEST:
        if (e->detail) { /* an errno: the runner lost the body (its 2902, 2903, 3670, 2024) */
            apr_strerror(detail, err, sizeof(err));
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(3671)
                          "the runner could not pass the request body to %s: %s; "
                          "answering 500", r->filename, err);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
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
 * what is held goes first, then the error bucket makes httpd end it
 * without a proper last chunk, so the client sees a truncated response,
 * never one that looks complete. */
static int resp_cut(cgiplus_req *q, cgiplus_outbuf *ob, apr_bucket_brigade *bb)
{
    request_rec *r = q->r;
    conn_rec *c = r->connection;

    /* 502 makes httpd's chunk filter leave out the last chunk. Before
     * httpd has made the header (sent_bodyct), the error bucket replaces
     * what is held with an error page of its status: 500 in mod_cgi's and
     * mod_fcgid's scopes, as they answer there. */
    int status = r->sent_bodyct ? HTTP_BAD_GATEWAY : cgiplus_fail_status(q, HTTP_BAD_GATEWAY);

    r->connection->keepalive = AP_CONN_CLOSE;
    if (q->slog)
        cgiplus_scriptlog_write(r, q, status, "the response was cut after it had started");
    if (!q->nph)
        APR_BRIGADE_INSERT_TAIL(bb, ap_bucket_error_create(status, NULL, r->pool,
                                                           c->bucket_alloc));
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(c->bucket_alloc));
    cgiplus_outbuf_end(ob, bb);
    apr_brigade_cleanup(bb);
    return OK;
}

/* A failed exchange before the response started (the caller has logged
 * it with its id and dealt with the connection): writes the script log
 * entry, the reason taken from END if none is given. Returns status. */
static int resp_fail(cgiplus_req *q, int status, const char *why)
{
    if (!why && q->ended) {
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

/* apr_table_do callback: a Script-Control value holding the directive
 * X-location-as-is (in any case, among others) sets *rec. */
static int resp_location_as_is(void *rec, const char *key, const char *val)
{
    static const char name[] = "X-location-as-is";
    const char *p = val;

    (void)key;
    while (*p) {
        const char *b, *e;

        p += strspn(p, " \t;,");
        b = p;
        p += strcspn(p, ";,");
        for (e = p; e > b && (e[-1] == ' ' || e[-1] == '\t'); e--)
            ;
        if ((size_t)(e - b) == sizeof(name) - 1 && !ap_cstr_casecmpn(b, name, sizeof(name) - 1)) {
            *(int *)rec = 1;
            return 0;
        }
    }
    return 1;
}

/* nph- scripts write the whole HTTP response themselves: everything up to
 * the protocol filters is bypassed, as mod_cgi does. */
static void resp_nph(cgiplus_req *q)
{
    request_rec *r = q->r;
    ap_filter_t *cur = r->proto_output_filters;

    while (cur && cur->frec->ftype < AP_FTYPE_CONNECTION)
        cur = cur->next;
    r->output_filters = r->proto_output_filters = cur;
    /* httpd cannot know where this response ends: no keep-alive. */
    r->connection->keepalive = AP_CONN_CLOSE;
}

unsigned cgiplus_resp_act_parse(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    resp_state *rs = resp_get(q);
    const char *location, *file, *why = NULL;
    apr_status_t io = APR_SUCCESS;
    int ret, as_is = 0;

    (void)ev;
    ret = q->nph ? cgiplus_header_nph(q, &why, &io) : cgiplus_header_scan(q, &why, &io);
    if (q->nph && ret == OK) {
        resp_nph(q);
        return CGIPLUS_RE_HEADER;
    }
    /* CGI has its own framing: let the core choose C-L or chunked from
     * what is really sent, as mod_cgi does. */
    if (!apr_table_get(r->subprocess_env, AP_TRUST_CGILIKE_CL_ENVVAR))
        apr_table_unset(r->headers_out, "Content-Length");
    apr_table_unset(r->headers_out, "Transfer-Encoding");
    if (q->xp && q->xp->header)
        q->xp->header(q); /* Script-Control, where the runner does not apply it */
    /* X-location-as-is is httpd's to apply: the runner leaves it in */
    apr_table_do(resp_location_as_is, &as_is, r->headers_out, "Script-Control", NULL);
    apr_table_do(resp_location_as_is, &as_is, r->err_headers_out, "Script-Control", NULL);
    apr_table_unset(r->headers_out, "Script-Control");
    apr_table_unset(r->err_headers_out, "Script-Control");

    if (ret != OK) {
        if (ret == HTTP_GATEWAY_TIME_OUT || APR_STATUS_IS_TIMEUP(io)) {
            cgiplus_req_error_notes(q, "Script timed out before returning headers", NULL, 0);
            ap_log_rerror(APLOG_MARK, APLOG_ERR, io, r, CGIPLUS_LOGNO(1074)
                          "timed out reading the header of %s", r->filename);
            cgiplus_req_failed(q, CGP_O_TIMEOUT);
            q->status = resp_fail(q, HTTP_GATEWAY_TIME_OUT, "timed out reading the header");
            return CGIPLUS_RE_LOST;
        }
        if (io != APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, io, r, CGIPLUS_LOGNO(1075)
                          "lost the runner while reading the header of %s",
                          r->filename);
            q->status = resp_fail(q, HTTP_BAD_GATEWAY, why);
            return CGIPLUS_RE_LOST;
        }
        if (q->ended && q->end.outcome != CGP_O_OK)
            return cgiplus_req_end_event(q); /* the script failed inside its header */
        if (why) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1076)
                          "bad header from script %s: %s; answering %d",
                          r->filename, why, cgiplus_fail_status(q, HTTP_BAD_GATEWAY));
            rs->why = why;
            cgiplus_req_failed(q, CGP_C_BAD_HEADER);
            return CGIPLUS_RE_BAD_HEADER;
        }
        rs->replace = ret; /* 304 or 412 from the conditional checks */
        return CGIPLUS_RE_DIVERT;
    }
    /* X-CGIplus-File: the static fast path sends that file instead */
    file = apr_table_get(r->headers_out, CGIPLUS_OFFLOAD_HEADER);
    if (!file)
        file = apr_table_get(r->err_headers_out, CGIPLUS_OFFLOAD_HEADER);
    /* In mod_cgi's and mod_fcgid's scopes it is the peer's: a header like
     * any other, sent to the client with the script's body (a CGI proxy
     * copying an upstream's headers must not make httpd send a file),
     * unless this server itself names an offload root (STATIC.md). */
    if (file && (q->compat || q->fcgid) && !cgiplus_static_offload_own(r))
        file = NULL;
    if (file) {
        rs->file = apr_pstrdup(r->pool, file);
        /* never shown to the client */
        apr_table_unset(r->headers_out, CGIPLUS_OFFLOAD_HEADER);
        apr_table_unset(r->err_headers_out, CGIPLUS_OFFLOAD_HEADER);
        return CGIPLUS_RE_DIVERT;
    }
    location = apr_table_get(r->headers_out, "Location");
    /* mod_cgi's redirect; php-fpm behind mod_proxy_fcgi and mod_php send a
     * 200 with a Location as it is (a framework's 200 that names a
     * resource), so a php pool does too, and a response that says
     * X-location-as-is (cgiplus-wsgi's, as mod_wsgi sends it) */
    if (location && r->status == HTTP_OK && !as_is &&
        !cgiplus_engine_php_pool(q->engine, q->mode_name, q->fcgid)) {
        /* A redirect, internal or not: the rest of the output is dropped. */
        rs->location = location;
        return CGIPLUS_RE_DIVERT;
    }
    /* mod_cgi, mod_fcgid and php-fpm behind mod_proxy_fcgi never cut a
     * script's output to a Range: their body is a pipe or a stream of
     * unknown length, which httpd's byterange filter passes whole. Here a
     * short body may all be there when the header goes out, and the filter
     * would answer 206, or 416, by timing. A sub-request's chain goes on
     * into its parent's, whose filter is not this one's to drop. */
    if (!r->main && (q->as_cgi || q->fcgid ||
                     cgiplus_engine_php_pool(q->engine, q->mode_name, q->fcgid)))
        ap_remove_output_filter_byhandle(r->output_filters, "BYTERANGE");
    return r->header_only ? CGIPLUS_RE_HEADER_HEAD : CGIPLUS_RE_HEADER;
}

/* What replaces the script's body, once its output is dropped: the file
 * is sent now (FINISH, or ERROR with its status); a redirect and a 304
 * are answered on FINISH (cgiplus_resp_act_replace); a 412 is an error
 * document (ERROR), as mod_cgi sends it, but in a php pool the script's
 * headers without a body (FINISH), as mod_proxy_fcgi sends php-fpm's. */
static unsigned resp_replace(cgiplus_req *q)
{
    resp_state *rs = resp_get(q);
    int ret;

    if (rs->file) {
        if ((ret = cgiplus_static_offload(q->r, rs->file)) == OK)
            return CGIPLUS_RE_FINISH;
        q->status = ret;
        return CGIPLUS_RE_ERROR;
    }
    if (rs->location || rs->replace == HTTP_NOT_MODIFIED ||
        (rs->replace == HTTP_PRECONDITION_FAILED &&
         cgiplus_engine_php_pool(q->engine, q->mode_name, q->fcgid)))
        return CGIPLUS_RE_FINISH;
    q->status = rs->replace;
    return CGIPLUS_RE_ERROR;
}

unsigned cgiplus_resp_act_drop(cgiplus_req *q, unsigned ev)
{
    apr_status_t rv = APR_SUCCESS;

    (void)ev;
    /* Whatever the script writes after its header is not the response. */
    for (;;) {
        apr_brigade_cleanup(q->out);
        q->out_len = 0;
        if (q->ended || rv != APR_SUCCESS)
            break;
        rv = cgiplus_req_read(q);
    }
    if (rv != APR_SUCCESS)
        return CGIPLUS_RE_LOST; /* the answer is decided: given up, then answered */
    cgiplus_req_finish(q);
    return resp_replace(q);
}

unsigned cgiplus_resp_act_replace(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    resp_state *rs = resp_get(q);

    (void)ev;
    q->status = OK;
    if (rs->location && rs->location[0] == '/') {
        /* The redirect is always a GET, without a body: what the script
         * left unread would otherwise be the redirected request's. */
        int status = cgiplus_body_drain(r, &q->in);

        if (status != OK) {
            q->status = status;
            return CGIPLUS_RE_NONE;
        }
        r->method = "GET";
        r->method_number = M_GET;
        apr_table_unset(r->headers_in, "Content-Length");
        ap_internal_redirect_handler(rs->location, r);
    }
    else if (rs->location) {
        q->status = HTTP_MOVED_TEMPORARILY;
    }
    else if (rs->replace) {
        /* as mod_cgi: no error document, so mod_cache validation works;
         * a php pool's 412 too (resp_replace) */
        r->status = rs->replace;
    }
    return CGIPLUS_RE_NONE;
}

/* Streams the body: what is in q->out, then whatever comes until the end.
 * Output goes on whenever no more is readable at once, so it reaches the
 * client when the script writes it; what the client does not take at once
 * is held (cgiplus_outbuf.c), so the worker is free when the script is
 * done, however slow the client. Returns the end's event, CLIENT_GONE or
 * LOST. */
unsigned cgiplus_resp_act_pass(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    conn_rec *c = r->connection;
    resp_state *rs = resp_get(q);
    apr_off_t pending = 0;
    apr_status_t rv;
    cgiplus_client_watch cw;

    (void)ev;
    rs->bb = apr_brigade_create(r->pool, c->bucket_alloc);
    rs->ob = cgiplus_outbuf_make(r);
    cgiplus_req_watch_init(q, &cw);
    for (;;) {
        int more, src_ready, gone = 0;

        if (q->out_len > 0) {
            pending += q->out_len;
            APR_BRIGADE_CONCAT(rs->bb, q->out);
            q->out_len = 0;
        }
        if (q->ended)
            return cgiplus_req_end_event(q);
        more = cgiplus_req_readable(q, 0);
        rv = APR_SUCCESS;
        if (!more || pending >= RESP_PASS_BYTES) {
            rv = cgiplus_outbuf_put(rs->ob, rs->bb, !more);
            pending = 0;
        }
        /* the client lags: wait for it too, not only for the script */
        while (rv == APR_SUCCESS && !more && !c->aborted && cgiplus_outbuf_held(rs->ob)) {
            rv = cgiplus_outbuf_wait(rs->ob, cgiplus_req_out_fd(q), &src_ready);
            if (src_ready)
                break;
        }
        if (rv == AP_FILTER_ERROR && !c->aborted) {
            /* a filter answered the request itself: httpd's header filter
             * for a header it cannot send, as under mod_cgi */
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(3770)
                          "an output filter refused the response of %s and answered "
                          "it itself (httpd's header filter: a header it cannot send, "
                          "logged before); sending ABORT to the runner", r->filename);
            apr_brigade_cleanup(q->out);
            q->out_len = 0;
            return CGIPLUS_RE_CLIENT_GONE;
        }
        if (rv != APR_SUCCESS || c->aborted) {
            ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1070)
                          "client went away during the response of %s; "
                          "sending ABORT to the runner", r->filename);
            apr_brigade_cleanup(q->out);
            q->out_len = 0;
            return CGIPLUS_RE_CLIENT_GONE;
        }
        /* Everything went to the client and the script is quiet: the
         * client is watched while it is (a stream of server-sent events
         * reset between two events), not only at the next write. */
        if (!more && !cgiplus_outbuf_held(rs->ob) && q->xp && q->xp->read_watch)
            rv = q->xp->read_watch(q, &cw, &gone);
        else
            rv = cgiplus_req_read(q);
        if (rv == APR_SUCCESS && gone) {
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(3610)
                          "client reset its connection (or HTTP/2 stream) while the "
                          "response of %s waited for the script's output; sending ABORT "
                          "to the runner", r->filename);
            c->aborted = 1; /* nothing more is written to it */
            apr_brigade_cleanup(q->out);
            q->out_len = 0;
            return CGIPLUS_RE_CLIENT_GONE;
        }
        if (rv != APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1071)
                          "lost the runner in the middle of the response of %s; "
                          "cutting the client connection", r->filename);
            return CGIPLUS_RE_LOST;
        }
    }
}

unsigned cgiplus_resp_act_eos(cgiplus_req *q, unsigned ev)
{
    conn_rec *c = q->r->connection;
    resp_state *rs = resp_get(q);
    apr_status_t rv;

    (void)ev;
    /* The worker goes back first: what is held follows at the client's pace. */
    cgiplus_req_finish(q);
    APR_BRIGADE_INSERT_TAIL(rs->bb, apr_bucket_eos_create(c->bucket_alloc));
    rv = cgiplus_outbuf_end(rs->ob, rs->bb);
    apr_brigade_cleanup(rs->bb);
    if (rv != APR_SUCCESS && !c->aborted)
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, q->r, CGIPLUS_LOGNO(1073)
                      "passing the end of the response of %s failed", q->r->filename);
    q->status = OK;
    return CGIPLUS_RE_NONE;
}

unsigned cgiplus_resp_act_cut(cgiplus_req *q, unsigned ev)
{
    resp_state *rs = resp_get(q);

    if (ev == CGIPLUS_RE_LOST) {
        cgiplus_req_abandon(q);
    }
    else {
        char how[64] = "";

        if (q->end.outcome == CGP_O_CRASHED)
            resp_wait_status(how, sizeof(how), q->end.detail);
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1072)
                      "script %s (worker pid %lu) ended with outcome %s%s%s after "
                      "its response started; cutting the client connection",
                      q->r->filename, (unsigned long)q->end.pid,
                      cgp_outcome_name(q->end.outcome), *how ? ": " : "", how);
        cgiplus_req_finish(q);
    }
    q->status = resp_cut(q, rs->ob, rs->bb);
    return CGIPLUS_RE_NONE;
}

/* HEAD: the body is counted and dropped, and the header waits for the end
 * of the response (at most RESP_HEAD_HOLD), so that Content-Length does not
 * depend on timing: the length of the body the script wrote, none for an
 * empty one (httpd drops a 0 on HEAD). A script that fails meanwhile gets
 * its failure's status; one still writing after the hold gets its header
 * sent at once, without a length (HOLD_OVER). */
unsigned cgiplus_resp_act_hold(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    apr_time_t until = apr_time_now() + RESP_HEAD_HOLD;
    apr_off_t body = 0;
    apr_status_t rv;

    (void)ev;
    for (;;) {
        apr_interval_time_t left = until - apr_time_now();

        body += q->out_len;
        apr_brigade_cleanup(q->out);
        q->out_len = 0;
        if (q->ended)
            break;
        if (left <= 0 || !cgiplus_req_readable(q, left))
            return CGIPLUS_RE_HOLD_OVER;
        if ((rv = cgiplus_req_read(q)) != APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1400)
                          "lost the runner while holding the header of HEAD %s "
                          "for its end; answering 502", r->filename);
            q->status = resp_fail(q, HTTP_BAD_GATEWAY, "lost the runner during a HEAD response");
            return CGIPLUS_RE_LOST;
        }
    }
    /* A trusted length (ap_trust_cgilike_cl) with no body stays, as
     * httpd's content-length filter leaves it for mod_cgi: a framework
     * answers HEAD with the header alone. */
    if (q->end.outcome == CGP_O_OK &&
        !(body == 0 && apr_table_get(r->subprocess_env, AP_TRUST_CGILIKE_CL_ENVVAR) &&
          apr_table_get(r->headers_out, "Content-Length")))
        ap_set_content_length(r, body); /* only the end is left to pass */
    return cgiplus_req_end_event(q);
}

unsigned cgiplus_resp_act_end_status(cgiplus_req *q, unsigned ev)
{
    int ret = resp_end_status(q);

    (void)ev;
    cgiplus_req_finish(q);
    q->status = resp_fail(q, ret, NULL);
    return CGIPLUS_RE_NONE;
}

unsigned cgiplus_resp_act_answer(cgiplus_req *q, unsigned ev)
{
    if (ev == CGIPLUS_RE_BAD_HEADER) {
        /* the rest of the output is of no use; keep the connection only
         * if the runner can end the request cleanly */
        if (q->ended)
            cgiplus_req_finish(q);
        else
            cgiplus_req_abort(q);
        q->status = resp_fail(q, HTTP_BAD_GATEWAY, resp_get(q)->why);
    }
    else {
        cgiplus_req_abandon(q); /* q->status says what */
    }
    return CGIPLUS_RE_NONE;
}

unsigned cgiplus_resp_act_abandon(cgiplus_req *q, unsigned ev)
{
    (void)ev;
    cgiplus_req_abandon(q); /* q->status says what (502, 504) */
    /* DRAIN: the answer is decided, and given all the same */
    return q->rstate == CGIPLUS_RS_DRAIN ? resp_replace(q) : CGIPLUS_RE_NONE;
}

unsigned cgiplus_resp_act_abort(cgiplus_req *q, unsigned ev)
{
    (void)ev;
    cgiplus_req_abort(q); /* no response: the client is gone */
    q->status = OK;
    return CGIPLUS_RE_NONE;
}
