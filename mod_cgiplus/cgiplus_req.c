/* cgiplus_req.c: one request's room (cgiplus_req.h). The one step that
 * changes its state (the table is cgiplus_reqstate.c) and runs the
 * change's action; the fields only this file changes (the state, the kind
 * that carries it, its end); how its worker is let go, through the kind;
 * the client watch every kind's wait shares; the status helpers. */
#include "cgiplus_req.h"

#include <errno.h>
#include <sys/socket.h>

#include "http_connection.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_lib.h"
#include "apr_portable.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

/* The one place a request changes state: the table's row for (state, ev)
 * is checked and logged, the state set, and the row's action run; its
 * result is the next event. A pair the table refuses is a bug: logged, the
 * request fails with 500, never an abort(). */
static unsigned req_step(cgiplus_req *q, const cgiplus_ractions *acts, unsigned ev)
{
    cgiplus_rnext n = cgiplus_req_next(q->rstate, ev);

    if (n.action == CGIPLUS_RA_INVALID || !acts->run[n.action]) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1091)
                      "request %lu for %s: event %s cannot happen in state %s (a bug); "
                      "answering 500", (unsigned long)q->reqid, q->r->filename,
                      cgiplus_revent_name(ev), cgiplus_rstate_name(q->rstate));
        q->rstate = CGIPLUS_RS_FAILED;
        q->rbad = 1;
        q->status = HTTP_INTERNAL_SERVER_ERROR;
        cgiplus_req_abandon(q);
        return CGIPLUS_RE_NONE;
    }
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, q->r, CGIPLUS_LOGNO(1090)
                  "request %lu for %s: %s, %s: %s -> %s", (unsigned long)q->reqid,
                  q->r->filename, cgiplus_revent_name(ev), cgiplus_raction_name(n.action),
                  cgiplus_rstate_name(q->rstate), cgiplus_rstate_name(n.next));
    if (q->rstate == CGIPLUS_RS_WAIT && ev == CGIPLUS_RE_RETRY)
        q->redos++; /* its worker was unfit: counted against the kind's bound */
    q->rstate = n.next;
    return acts->run[n.action](q, ev);
}

int cgiplus_req_run(cgiplus_req *q, const cgiplus_ractions *acts)
{
    unsigned ev = CGIPLUS_RE_START;

    /* A final state takes no event; an action that stops short of one
     * (CGIPLUS_RE_NONE elsewhere) is refused by the table like any pair. */
    while (!cgiplus_rstate_final(q->rstate))
        ev = req_step(q, acts, ev);
    return q->status;
}

void cgiplus_req_attach(cgiplus_req *q, const cgiplus_xport *xp, void *xd)
{
    q->xp = xp;
    q->xd = xd;
}

void cgiplus_req_detach(cgiplus_req *q)
{
    q->xp = NULL;
    q->xd = NULL;
}

void cgiplus_req_end(cgiplus_req *q, const cgp_end *e)
{
    q->end = *e;
    q->ended = 1;
}

void cgiplus_req_failed(cgiplus_req *q, unsigned cause)
{
    if (!q->fail_cause)
        q->fail_cause = (unsigned char)cause;
}

unsigned cgiplus_req_report(cgiplus_req *q)
{
    if (!q->fail_cause || q->fail_reported)
        return 0;
    q->fail_reported = 1;
    return q->fail_cause;
}

void cgiplus_req_out(cgiplus_req *q, apr_bucket *b)
{
    APR_BRIGADE_INSERT_TAIL(q->out, b);
    q->out_len += (apr_off_t)b->length;
    q->out_total += (apr_off_t)b->length;
}

unsigned cgiplus_req_end_event(const cgiplus_req *q)
{
    switch (q->end.outcome) {
    case CGP_O_OK:
        return CGIPLUS_RE_SENTINEL;
    case CGP_O_CRASHED:
        return CGIPLUS_RE_EOF;
    case CGP_O_TIMEOUT:
        return CGIPLUS_RE_TIMEOUT;
    default:
        return CGIPLUS_RE_REFUSED;
    }
}

unsigned cgiplus_req_first_event(const cgiplus_req *q)
{
    return q->out_len > 0 ? CGIPLUS_RE_OUTPUT : cgiplus_req_end_event(q);
}

apr_status_t cgiplus_req_read(cgiplus_req *q)
{
    return q->xp ? q->xp->read(q) : APR_EGENERAL;
}

int cgiplus_req_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    return q->xp ? q->xp->readable(q, wait) : 0;
}

int cgiplus_req_out_fd(cgiplus_req *q)
{
    return q->xp ? q->xp->out_fd(q) : -1;
}

void cgiplus_req_finish(cgiplus_req *q)
{
    if (q->xp)
        q->xp->finish(q);
}

void cgiplus_req_abort(cgiplus_req *q)
{
    if (q->xp)
        q->xp->abort(q);
}

void cgiplus_req_abandon(cgiplus_req *q)
{
    if (q->xp)
        q->xp->abandon(q);
}

int cgiplus_fail_status(const cgiplus_req *q, int status)
{
    /* mod_cgi's 500, so the ErrorDocument 500 written for it applies */
    return q->as_cgi && status == HTTP_BAD_GATEWAY ? HTTP_INTERNAL_SERVER_ERROR
                                                               : status;
}

void cgiplus_req_error_notes(cgiplus_req *q, const char *what, const char *line,
                             apr_size_t len)
{
    request_rec *r = q->r;
    const char *name = apr_filepath_name_get(r->filename);
    const char *note;

    if (!q->as_cgi || apr_table_get(r->notes, "error-notes"))
        return;
    /* the texts of httpd's scanner (util_script.c), which mod_cgi's
     * ErrorDocuments see, logged there with APLOG_TOCLIENT */
    if (line)
        note = apr_psprintf(r->pool, "%s from script '%s': Bad header: %.*s", what, name,
                            (int)(len > 30 ? 30 : len), line);
    else
        note = apr_psprintf(r->pool, "%s: %s", what, name);
    apr_table_setn(r->notes, "error-notes", ap_escape_html(r->pool, note));
}

const char *cgiplus_status_text(request_rec *r, int status)
{
    if (status == AP_FILTER_ERROR)
        return "an input filter already answered, e.g. 413 for LimitRequestBody";
    return apr_psprintf(r->pool, "answering %d", status);
}

/* What a readable client socket holds (enum cgiplus_client_state). */
static int req_client_state(apr_socket_t *cs)
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

void cgiplus_req_watch_init(cgiplus_req *q, cgiplus_client_watch *w)
{
    conn_rec *c = q->r->connection;

    /* The client's socket, watched while the request waits for its first
     * output (queued, or its worker starting). */
    w->cs = c->master || c->aborted ? NULL : ap_get_conn_socket(c);
    w->eof = 0;
}

int cgiplus_req_client_seen(cgiplus_client_watch *w, int client_rd)
{
    /* after its end of file, only a hang-up or error is reported */
    int st = client_rd == 2 ? CGIPLUS_CLIENT_GONE : req_client_state(w->cs);

    if (st == CGIPLUS_CLIENT_THERE)
        w->cs = NULL; /* a pipelined request: the client is there */
    else if (st == CGIPLUS_CLIENT_EOF)
        /* Half-closed, or closed: only writing can tell. It gets its
         * response; a client that is gone fails the first write
         * (CGIPLUS1070) or resets the socket meanwhile. */
        w->eof = 1;
    return st;
}

unsigned cgiplus_req_client_left(cgiplus_req *q)
{
    q->r->connection->aborted = 1;
    return CGIPLUS_RE_CLIENT_GONE;
}
