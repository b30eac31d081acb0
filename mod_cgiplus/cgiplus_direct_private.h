/* cgiplus_direct_private.h: what the direct path's files share
 * (cgiplus_direct*.c; docs/DESIGN.md, "The direct path"). Private to them. */
#ifndef CGIPLUS_DIRECT_PRIVATE_H
#define CGIPLUS_DIRECT_PRIVATE_H

#include "cgiplus_conn.h"
#include "cgiplus_direct.h"
#include "cgiplus_req.h"

#include <time.h>

#include "apr_hash.h"
#include "apr_portable.h"
#include "apr_thread_mutex.h"

#include "cgp_parse.h"
#include "cgp_ready.h"
#include "cgp_scan.h"
#include "cgp_table.h"
#include "cgp_twait.h"

#define DIRECT_TAIL_CAP    (CGP_SCAN_LINE_MAX + 2 * CGP_MARK_LEN + 16)
#define DIRECT_LOG_MAX     100          /* LOG and WATCH callouts logged per request */
#define DIRECT_REDO_MAX    4            /* unfit workers one request may meet */

/* One worker's descriptors, cached per process. Owned by cgiplus_dp.chans while
 * current; a request holding it keeps it alive (refs) after it is replaced. */
typedef struct direct_chan {
    uint32_t slot, gen, pid;
    int fd_in, fd_body, fd_out, fd_peer, fd_err;
    char eof[CGP_MARK_LEN + 1], esc[CGP_MARK_LEN + 1], eot[CGP_MARK_LEN + 1];
    char ready[CGP_READY_MAX]; /* its ready line (cgp_ready.h) */
    size_t ready_len;
    int refs;
    int dead;                 /* no longer in cgiplus_dp.chans: closed at the last unref */
    int per_request;          /* FastCGI: fd_out names the worker's socket (O_PATH), and
                               * each request connects anew (cgiplus_fcgi_direct.c) */
} direct_chan;

/* A pool key's entry in the table, as the runner named it (POOL). */
typedef struct direct_poolref {
    uint32_t idx, gen;
} direct_poolref;

/* This httpd child's view of the direct path; set up in child_init, lives
 * until the child exits. mu guards the maps only, never I/O that waits. */
typedef struct cgiplus_direct_proc {
    apr_thread_mutex_t *mu;   /* NULL: no direct path in this process */
    apr_pool_t *pool;         /* unmanaged: pool keys */
    uint32_t pid;
    void *base;               /* the current runner's table, NULL: none */
    uint32_t runner_pid;
    cgiplus_conn *anchor;     /* held for the child's life: its close tells the runner */
    apr_time_t next_check;
    int opening;
    uint32_t refused_pid;     /* a runner that has no table for us */
    apr_hash_t *pools;        /* pool key -> direct_poolref */
    unsigned npools;
    direct_chan *chans[CGP_TABLE_SLOTS];
} cgiplus_direct_proc;

extern cgiplus_direct_proc cgiplus_dp; /* cgiplus_direct_chan.c */

/* One request's exchange with its worker: q->xd while the direct path has
 * the request. From r->pool; lives for the handler call. The worker is the
 * child's from claim to release. */
typedef struct cgiplus_direct {
    direct_chan *ch;
    cgp_tslot *slot;
    cgp_tpool *tp;
    uint32_t sidx, sgen, pidx, pgen;
    cgp_scan scan;
    unsigned char tail[DIRECT_TAIL_CAP]; /* bytes the scanner holds back */
    apr_size_t tail_len;
    char *in;                 /* CGIPLUSIN bytes not yet written */
    apr_size_t in_off, in_len, in_cap;
    const char *body;
    apr_size_t body_off, body_len;
    apr_uint64_t t_start, t_progress; /* monotonic ms */
    apr_int64_t over_out, over_np;    /* 0 the pool's, -1 none, >0 ms */
    int no_abort;
    int eof;                  /* stdout closed before the sentinel */
    int out_ready;            /* stdout is known readable: the next read needs no poll */
    /* The record's last byte is not written yet: it goes once the worker
     * has read the rest (CGIPLUSIN, one page, is writable) and its stdout
     * is still empty. Output before that is not this request's. */
    int held;
    int unfit;                /* it wrote, or ended, while held: it never had the request */
    apr_size_t junk;          /* bytes it wrote with no request, read already */
    int ready;                /* its ready line came after the sentinel */
    int broken;               /* the worker cannot be reused as it is */
    int released;
    unsigned logs;
    char *errbuf;             /* stderr read, not yet logged; allocated on first use */
    apr_size_t err_len;       /* stderr bytes of an unfinished line in errbuf */
    int err_eof;              /* the script closed its stderr */
    int lifetime_set;         /* LIFETIME or X-lifetime: the runner's timer must know */
    /* A FastCGI worker: its script learns that its client left and may
     * run on (ignore_user_abort), bounded as the running request was. */
    int orphan_runs;
} cgiplus_direct;

/* q's exchange (the direct path has q). */
static inline cgiplus_direct *direct_x(cgiplus_req *q)
{
    return q->xd;
}

static inline apr_uint64_t cgiplus_direct_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts); /* the runner's clock; vDSO, no syscall */
    return (apr_uint64_t)ts.tv_sec * 1000u + (apr_uint64_t)ts.tv_nsec / 1000000u;
}

/* cgiplus_direct_chan.c: the descriptors of workers, cached per process */
void cgiplus_direct_chan_close(direct_chan *ch);
/* One holder fewer (takes cgiplus_dp.mu); the last closes a dead channel. */
void cgiplus_direct_chan_unref(direct_chan *ch);
apr_status_t cgiplus_direct_recv(cgiplus_conn *c, unsigned want, unsigned char *pl,
                                 apr_size_t len, int *fds, int maxfds, int *nfds);
apr_status_t cgiplus_direct_send(cgiplus_conn *c, unsigned type, const unsigned char *pl,
                                 apr_size_t len);
/* Asks the runner (on a connection of the pool, from the table's runner)
 * with a pair-sized frame and reads its answer of alen bytes with up to
 * maxfds descriptors (CHANNEL, FCGI_CHANNEL). */
apr_status_t cgiplus_direct_ask(request_rec *r, unsigned type, const unsigned char pl[CGP_PAIR_LEN],
                                unsigned want, unsigned char *ans, apr_size_t alen, int *fds,
                                int maxfds, int *nfds);
/* The descriptors of the worker in slot sidx, generation sgen: cached, or
 * asked of the runner once. NULL if it is gone. */
direct_chan *cgiplus_direct_chan_get(request_rec *r, uint32_t sidx, uint32_t sgen);
/* The cached channel of (sidx, sgen), referenced, or NULL; and a new one
 * (refs 1) into the cache, replacing the slot's previous worker's. */
direct_chan *cgiplus_direct_chan_cached(uint32_t sidx, uint32_t sgen);
void cgiplus_direct_chan_keep(direct_chan *ch);

/* cgiplus_direct_table.c: the table, the pool keys, claim and release */
/* A POOL frame (through the relay): the pool of q's key is at that entry
 * of the table of runner_pid. */
void cgiplus_direct_learn(cgiplus_req *q, const cgp_pair *pool, apr_uint32_t runner_pid);
/* The table entry of q's pool key, as the runner named it: 0 if unknown. */
int cgiplus_direct_pool_ref(cgiplus_req *q, direct_poolref *ref);
/* Claims an idle worker of the pool: IDLE -> CHILD(our pid) by CAS. 1: x
 * holds it; 0: none idle, or requests wait (the request may wait too); -1:
 * not for the direct path now (the runner must see it). */
int cgiplus_direct_claim(cgiplus_req *q, const direct_poolref *ref, cgiplus_direct *x);
/* x takes the slot sidx (generation sgen) this child now holds: 0 if the
 * runner wants the worker back or the pool changed (handed back). */
int cgiplus_direct_hold(cgiplus_req *q, const direct_poolref *ref, uint32_t sidx,
                        uint32_t sgen, cgiplus_direct *x);
/* Tells the runner to look at a pool (KICK). */
void cgiplus_direct_kick(request_rec *r, uint32_t pidx, uint32_t pgen);
/* An engine pool's request of r's script file got worker x (delta 1), or
 * was handed back unrun (-1): its count in the table's script entries. */
void cgiplus_direct_script_count(cgiplus_req *q, cgiplus_direct *x, int delta);
/* Drops the table if its runner went away (looked at every 200 ms). */
void cgiplus_direct_check(void);
/* The slot GRANT names, if this child holds it in the current table (the
 * runner did the CAS for it): x is filled as by a claim. */
int cgiplus_direct_granted_slot(request_rec *r, const cgp_grant *g, cgiplus_direct *x);
/* Gives back a worker claimed but not used (its channel could not be had). */
void cgiplus_direct_unclaim(request_rec *r, cgiplus_direct *x);
/* Hands q's worker back unused, for the runner to stop (flag: why). */
void cgiplus_direct_hand_back(cgiplus_req *q, uint32_t flag);
/* The worker goes back: IDLE for anyone, or RETURNED with what the runner
 * must do. */
void cgiplus_direct_release(cgiplus_req *q, int client_gone);
/* Counts a request of q's pool that no worker had (cause: enum cgp_cause)
 * in the table, if this process knows the pool's entry; 0 if it does not. */
int cgiplus_direct_count(cgiplus_req *q, unsigned cause);

/* The clean worker x holds goes to the oldest waiting request (the
 * table's queue, common/cgp_twait.c), or IDLE: 0 if the slot was no
 * longer ours. */
int cgiplus_direct_pass(request_rec *r, cgiplus_direct *x);

/* cgiplus_direct_wait.c: waiting in the table's queue */
/* No idle worker: q waits for one in the pool's queue. OK: x holds one;
 * DECLINED: the runner must see the request; 503 (Retry-After set): the
 * queue is full or the wait passed; DONE: the client left. */
int cgiplus_direct_wait(cgiplus_req *q, const direct_poolref *ref, cgiplus_direct *x);

/* cgiplus_direct_record.c: the request record for CGIPLUSIN */
apr_status_t cgiplus_direct_record(cgiplus_req *q, int struct_mode, apr_size_t cl);

/* cgiplus_direct_callout.c: callouts answered in the child */
/* One callout line of q's script: answered on CGIPLUSIN (or not, as it
 * asks). Nonzero if the script leaves its answers unread: it broke the
 * protocol, and its request fails. */
int cgiplus_direct_callout(cgiplus_req *q, const unsigned char *line, apr_size_t len,
                           int too_long);
/* The script's header is parsed: its Script-Control (the header op). */
void cgiplus_direct_script_control(cgiplus_req *q);

/* What differs between the workers the direct path claims, each a kind
 * of its own (cgiplus_xport.h): a CGIplus worker (cgiplus_direct.c) and a
 * FastCGI one (cgiplus_fcgi_direct.c). How its descriptors are had, how a
 * request goes to it, one round of its I/O. Static and const. */
typedef struct direct_proto {
    const cgiplus_xport *xp;  /* the kind, attached to the request a worker takes */
    apr_size_t xsize;         /* its state of a request: a cgiplus_direct first */
    direct_chan *(*chan_get)(request_rec *r, uint32_t sidx, uint32_t sgen);
    /* The claimed (or granted) worker x takes q (cgiplus_direct_started):
     * OK; DECLINED: the request never reached it (x went back, q is
     * detached: the relay takes it); or an HTTP status (logged, x back). */
    int (*start)(cgiplus_req *q, cgiplus_direct *x, const char *body, apr_size_t blen);
    /* One round: waits (at most wait; -1: until something happens or a
     * deadline passes) and does what the descriptors allow; a client
     * socket cs (-1: none) is watched too (*client_rd: 1, 2 after its end
     * of file). APR_TIMEUP: wait passed, nothing happened. */
    apr_status_t (*step)(cgiplus_req *q, apr_interval_time_t wait, apr_os_sock_t cs,
                         int cs_eof, int *client_rd);
} direct_proto;

/* cgiplus_direct.c: what the kinds of the direct path share, and the
 * CGIplus worker's I/O */
/* The ops start, grant and wait_first of a kind of the direct path: claims
 * an idle worker of q's pool, or one handed to it in the table's queue
 * (cgiplus_direct_wait), and starts q on it (CLAIMED; NO_IDLE: the relay
 * takes it; ERROR: 503 from the queue, or a failure; CLIENT_GONE: it left
 * the queue); takes the worker the runner granted (as the
 * grant op); waits for the first output, watching the client. */
unsigned cgiplus_direct_take(cgiplus_req *q, const direct_proto *p);
int cgiplus_direct_take_granted(cgiplus_req *q, const cgp_grant *g, int take,
                                const direct_proto *p);
unsigned cgiplus_direct_wait_first(cgiplus_req *q, const direct_proto *p);
/* The op read_watch, for p's kind. */
apr_status_t cgiplus_direct_read_watch(cgiplus_req *q, const direct_proto *p,
                                       cgiplus_client_watch *w, int *gone);
/* The op report: a request that failed before any worker had it, counted
 * in the table if this process knows its pool's entry. */
int cgiplus_direct_report(cgiplus_req *q);
/* x has q from here (p's kind is attached): its body, start time, pid. */
void cgiplus_direct_started(cgiplus_req *q, const direct_proto *p, cgiplus_direct *x,
                            const char *body, apr_size_t blen);
/* How long one wait may be (ms): wait, or httpd's Timeout for -1, cut at
 * the request's output or no-progress deadline (then *by_deadline). */
apr_int64_t cgiplus_direct_wait_ms(cgiplus_req *q, apr_interval_time_t wait, int *by_deadline);
/* What is left (ms, at least 1) of what bounds q's run: its output and
 * no-progress deadlines; 0: neither (httpd's Timeout then). */
apr_uint64_t cgiplus_direct_left_ms(cgiplus_req *q);
/* A wait that ended with nothing: the request timed out (504), logged. */
void cgiplus_direct_timeout(cgiplus_req *q, int by_deadline);
/* The wait status of a worker whose output closed: the runner reaps it at
 * once and stores it in the slot; waited for briefly (a crash path only). */
uint32_t cgiplus_direct_exit_status(cgiplus_direct *x);
/* The end of q's output (detail: cgp_end's), with the rest of its stderr. */
void cgiplus_direct_end(cgiplus_req *q, int outcome, apr_uint32_t detail);

#endif
