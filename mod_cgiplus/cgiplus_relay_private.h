/* cgiplus_relay_private.h: what the relay's files share (cgiplus_relay.c:
 * its ops; cgiplus_relay_send.c: the frames that go out;
 * cgiplus_relay_frame.c: the frames that come back). Private to them. */
#ifndef CGIPLUS_RELAY_PRIVATE_H
#define CGIPLUS_RELAY_PRIVATE_H

#include "cgiplus_conn.h"
#include "cgiplus_relay.h"
#include "cgiplus_req.h"

/* One request's exchange with the runner: q->xd while the relay has it.
 * From r->pool; lives for the handler call (the connection may outlive
 * it, back on the idle stack). Changed by the relay's files only. */
typedef struct cgiplus_relay {
    cgiplus_conn *conn;        /* held connection; NULL once released or closed */
    int attempt;               /* connections tried (a second only if the first took no byte) */
    int unsent;                /* the runner's socket took no byte of the request */
    int body_eos;              /* the body's EOS went into a STDIN frame */
    int stdin_done;            /* STDIN|END is sent */
    int mid_frame;             /* a body frame is half written: answers wait */
    int dirty;                 /* a frame was left half sent: no reuse */
    int aborting;              /* ABORT sent: a GRANT then gives the worker back */
    int granted;               /* GRANT read: the runner is done with the request */
    char *errbuf;              /* one STDERR payload; allocated on first use */
    struct cgiplus_answer *answers; /* callout answers not yet sent */
} cgiplus_relay;

/* cgiplus_relay_frame.c */
/* Reads and dispatches one frame from the runner. */
apr_status_t cgiplus_relay_frame(cgiplus_req *q);
/* Sends the queued callout answers (between whole frames). */
apr_status_t cgiplus_relay_answers(cgiplus_req *q);

/* cgiplus_relay_send.c */
/* Sends BEGIN, PARAMS and the first body frame in one write (which says
 * whether the runner took any byte: rl->unsent), then the rest of the body
 * (the pre-read, then the client's, at the minimum rate), reading the
 * runner's frames meanwhile; stops early if the runner sends END. A
 * failure on the client's side sets *http_status. */
apr_status_t cgiplus_relay_send(cgiplus_req *q, int *http_status);

#endif
