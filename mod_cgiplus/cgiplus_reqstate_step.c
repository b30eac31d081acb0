/* cgiplus_reqstate_step.c: the one place a request changes state
 * (cgiplus_reqstate.h has the table). A pair the table refuses is a bug:
 * logged, and the request fails with 500; never an abort(). */
#include "cgiplus_private.h"

#include "http_log.h"

APLOG_USE_MODULE(cgiplus);

int cgiplus_req_step(cgiplus_req *q, unsigned ev)
{
    cgiplus_rnext n = cgiplus_req_next(q->rstate, ev);

    if (q->rbad)
        return HTTP_INTERNAL_SERVER_ERROR; /* refused once: logged, abandoned */
    if (n.action == CGIPLUS_RA_INVALID) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1091)
                      "request %lu for %s: event %s cannot happen in state %s (a bug); "
                      "answering 500", (unsigned long)q->reqid, q->r->filename,
                      cgiplus_revent_name(ev), cgiplus_rstate_name(q->rstate));
        q->rstate = CGIPLUS_RS_FAILED;
        q->rbad = 1;
        cgiplus_req_abandon(q);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, q->r, CGIPLUS_LOGNO(1090)
                  "request %lu for %s: %s, %s: %s -> %s", (unsigned long)q->reqid,
                  q->r->filename, cgiplus_revent_name(ev), cgiplus_raction_name(n.action),
                  cgiplus_rstate_name(q->rstate), cgiplus_rstate_name(n.next));
    q->rstate = n.next;
    return OK;
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
