/* cgiplus_xport.h: the seam between a request and what carries it to a
 * worker (docs/ARCHITECTURE.md, "Kinds of worker"). A kind is one of these
 * ops structs: the relay (cgiplus_relay.c: through the runner, every
 * request's fallback) and the direct path (cgiplus_direct.c: a worker the
 * httpd child claims in the runner's table) with the CGIplus protocol,
 * or with FastCGI (cgiplus_fcgi_direct.c). The request's state
 * machine (cgiplus_req.c) and the response (cgiplus_response.c) call a
 * kind only through its ops, never by name; the handler names the kinds
 * a request may use (q->claim, q->relay). */
#ifndef CGIPLUS_XPORT_H
#define CGIPLUS_XPORT_H

#include "apr_buckets.h"

#include "cgp_proto.h"

struct cgiplus_req;
struct cgiplus_client_watch;

/* One kind of worker. Static and const: lives as long as the module. An
 * op that does not apply to the kind is NULL where noted. Each op that
 * returns unsigned returns the request's next event (enum cgiplus_revent;
 * docs/DESIGN.md, "A request's states"). The kind keeps what it needs per
 * request in q->xd (cgiplus_req_attach). */
typedef struct cgiplus_xport {
    const char *name;           /* for log lines: "relay", "direct", "fastcgi" */
    /* Takes the request (BEGIN and PARAMS are packed, the body pre-read).
     * A kind that claims a worker itself: CLAIMED (the worker has the
     * request), NO_IDLE (none now: the relay takes it), ERROR (q->status
     * set), CLIENT_GONE (it left while the request waited). The relay:
     * SENT, RETRY (the runner took no byte: again, on a fresh
     * connection), LOST or ERROR (q->status set). */
    unsigned (*start)(struct cgiplus_req *q);
    /* q failed before any worker had it (its cause: cgiplus_req_failed):
     * its pool counts it, told on this kind's own terms. Nonzero if
     * counted; 0: the next kind may. */
    int (*report)(struct cgiplus_req *q);
    /* The runner's GRANT (g): a worker the runner claimed for this child.
     * take: run q on it (OK), or give it back unused (after an ABORT).
     * DECLINED: the worker was gone before a byte of q reached it (the
     * runner takes q again); an HTTP status if it cannot. NULL: a kind
     * that takes no grants. */
    int (*grant)(struct cgiplus_req *q, const cgp_grant *g, int take);
    /* The runner's POOL frame, on a connection to runner_pid: q's pool is
     * at this table entry. NULL: none. */
    void (*learn)(struct cgiplus_req *q, const cgp_pair *pool, apr_uint32_t runner_pid);
    /* Waits for the first output or the end, watching the client: OUTPUT,
     * an end event (SENTINEL, EOF, TIMEOUT, REFUSED), LOST (q->status
     * set), CLIENT_GONE, GRANTED (the relay: a worker for q, in q->grant),
     * RETRY (the worker was unfit before it had the request). */
    unsigned (*wait_first)(struct cgiplus_req *q);
    /* Reads until more output (q->out), the end (cgiplus_req_end) or a
     * failure (an error). */
    apr_status_t (*read)(struct cgiplus_req *q);
    /* As read, watching the client while it waits (w: the response's,
     * cgiplus_req_watch_init; an HTTP/2 stream by its connection's aborted
     * mark, looked at every 200 ms): *gone set if it left first (a reset
     * connection or stream), with nothing read. */
    apr_status_t (*read_watch)(struct cgiplus_req *q, struct cgiplus_client_watch *w,
                               int *gone);
    /* Nonzero if output (or the end) can be read within wait. */
    int (*readable)(struct cgiplus_req *q, apr_interval_time_t wait);
    /* The descriptor more output comes on, to wait on with the client's. */
    int (*out_fd)(struct cgiplus_req *q);
    /* The script's header is parsed (Script-Control). NULL: nothing to do. */
    void (*header)(struct cgiplus_req *q);
    /* The request is over: the worker (or connection) goes back, clean or
     * not as q's end says. */
    void (*finish)(struct cgiplus_req *q);
    /* The client left: the worker is told (ABORT) or handed back to drain. */
    void (*abort)(struct cgiplus_req *q);
    /* Given up at once: nothing waits for an end. Safe to call again. */
    void (*abandon)(struct cgiplus_req *q);
} cgiplus_xport;

#endif
