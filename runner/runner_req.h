/* runner_req.h: one request from the module to a worker (runner_req.c):
 * its states, one table applied by one step, its PARAMS and body, its
 * place in its pool's queue, its END. */
#ifndef RUNNER_REQ_H
#define RUNNER_REQ_H

#include "runner_types.h"
#include "runner_buf.h"
#include "runner_hdr.h"
#include "runner_spool.h"

typedef enum runner_rstate {
    RUNNER_R_PARAMS,  /* collecting PARAMS */
    RUNNER_R_SPOOL,   /* no CONTENT_LENGTH: spooling the body to count it */
    RUNNER_R_READY,   /* submitted to its pool, neither queued nor on a worker yet */
    RUNNER_R_QUEUED,  /* in its pool's queue */
    RUNNER_R_RUNNING, /* on a worker, not answered yet */
    RUNNER_R_ORPHAN,  /* answered (or its client gone): its worker still runs it */
    RUNNER_R_DONE,    /* answered and let go: freed by the step that got here */
    RUNNER_R_N_
} runner_rstate;

/* What happens to a request. */
typedef enum runner_revent {
    RUNNER_RE_COUNT,   /* its last PARAMS had no CONTENT_LENGTH: its body is counted first */
    RUNNER_RE_SUBMIT,  /* all it needs is in: its pool takes it */
    RUNNER_RE_QUEUE,   /* it waits in its pool's queue */
    RUNNER_RE_DEQUEUE, /* out of the queue, for the pool to decide */
    RUNNER_RE_ASSIGN,  /* a worker has it */
    RUNNER_RE_DETACH,  /* its worker let it go: done, dead, or it never got it */
    RUNNER_RE_END,     /* answered: END sent, GRANT sent, or its client gone */
    RUNNER_RE_DRAIN,   /* no request: a worker's unwanted output, read and dropped */
    RUNNER_RE_N_
} runner_revent;

/* The request's state machine, in the shape of the slot's cgp_tnext():
 * [state][event] -> new state, 0xff where the event cannot happen (an
 * answered request is not answered again). Applied by runner_req.c's step
 * alone; reaching DONE frees the request. */
static inline unsigned runner_rnext(unsigned state, unsigned ev)
{
    enum { P = RUNNER_R_PARAMS, S = RUNNER_R_SPOOL, Y = RUNNER_R_READY, Q = RUNNER_R_QUEUED,
           R = RUNNER_R_RUNNING, O = RUNNER_R_ORPHAN, D = RUNNER_R_DONE, X = 0xff };
    static const unsigned char t[RUNNER_R_N_][RUNNER_RE_N_] = {
        /*             COUNT SUBMIT QUEUE DEQUEUE ASSIGN DETACH END DRAIN */
        /* PARAMS */  { S,   Y,     X,    X,      X,     X,     D,  O },
        /* SPOOL */   { X,   Y,     X,    X,      X,     X,     D,  X },
        /* READY */   { X,   X,     Q,    X,      R,     X,     D,  X },
        /* QUEUED */  { X,   X,     X,    Y,      X,     X,     D,  X },
        /* RUNNING */ { X,   X,     X,    X,      X,     Y,     O,  X },
        /* ORPHAN */  { X,   X,     X,    X,      X,     D,     X,  X },
        /* DONE */    { X,   X,     X,    X,      X,     X,     X,  X },
    };
    return state < RUNNER_R_N_ && ev < RUNNER_RE_N_ ? t[state][ev] : 0xff;
}

/* One request. Owned by its client until END is sent (in its pool's queue
 * while QUEUED); then, if a worker still runs it, by that worker (an
 * orphan whose output is discarded); freed when it reaches DONE. */
struct runner_req {
    runner_client *client;    /* NULL once END was sent or the client left */
    runner_pool *pool;
    runner_worker *worker;    /* NULL unless RUNNING or ORPHAN */
    uint32_t reqid;
    runner_rstate state;      /* written by runner_req.c's step alone */
    char *uri;
    runner_buf params;        /* concatenated, validated PARAMS kv lists; freed once running */
    size_t held;              /* params bytes counted against queue_memory(_pool) */
    int have_cl;
    int cl_given;             /* PARAMS carried a CONTENT_LENGTH value */
    int nocl;                 /* BEGIN nocl 1: a worker gets no CONTENT_LENGTH for no body, as mod_cgi */
    int struct_rec;           /* BEGIN struct 1: its record in struct mode, whatever the worker's */
    uint64_t cl;              /* exact body length given to the script */
    runner_spool body;
    int body_end;             /* STDIN END seen */
    int callouts;             /* the module answers CALLOUT frames */
    int grant;                /* BEGIN grant 1: the child may take a published worker itself */
    uint64_t progress_ms;     /* BEGIN progress: PROGRESS at most this often, 0: never */
    uint64_t t_sent;          /* the last frame of this request to the module */
    uint64_t t_arrive, t_start, t_progress; /* monotonic ms */
    int64_t tmo_output, tmo_noprogress; /* overrides: 0 pool's, -1 none, >0 ms */
    int no_abort;             /* Script-Control: no-abort */
    runner_hdr hdr;           /* the response header block (Script-Control) */
    uint64_t out_bytes;       /* response bytes sent to the module */
    int drain;                /* no request: a worker handed back mid-response, drained */
    uint32_t ticket;          /* its ticket in the pool's queue in the table (runner_twait.c) */
    int ticketed;             /* it holds that ticket */
    int counted;              /* in its pool's requests */
    int script_counted;       /* its script was counted (runner_table_script_add), at its first worker */
    unsigned cause;           /* ABORT's cause: counted instead of its outcome, 0: none */
    int client_left;          /* ended by ABORT or the module going away, not by the runner */
    TAILQ_ENTRY(runner_req) qlink;
};

/* Answered (END sent, or nobody to send it to): ORPHAN or DONE. */
static inline int runner_req_ended(const runner_req *r)
{
    return r->state == RUNNER_R_ORPHAN || r->state == RUNNER_R_DONE;
}

runner_req *runner_req_new(runner_client *c, uint32_t reqid, const char *uri, size_t ulen);
/* The moves that take no action but the move (COUNT, SUBMIT, ASSIGN,
 * DRAIN; QUEUE and DEQUEUE are runner_req_enqueue's and _dequeue's): 1 if
 * the table allows it from r's state, which is then the new one. */
int runner_req_step(runner_req *r, runner_revent ev);
/* r waits in its pool's queue, with a ticket of the table's queue after
 * the children's waiting requests (runner_twait.c): 0, or -1 if that queue
 * is full (CGIplusQueueDepth). head: it was first to be served, and waits
 * first for the runner's workers even without a ticket. */
int runner_req_enqueue(runner_req *r, int head);
/* r leaves its pool's queue and its ticket, for the pool to decide (READY). */
void runner_req_dequeue(runner_req *r);
/* r's worker let it go (r->worker is NULL already): 1 if r waits for an
 * answer still (READY), 0 if it had one and is freed. */
int runner_req_detach(runner_req *r);
/* GRANT went out instead of END: the request is over here, freed. */
void runner_req_granted(runner_req *r);
/* 0; -1 with *why: a bad frame; 1: past queue_memory or queue_memory_pool. */
int runner_req_add_params(runner_req *r, const unsigned char *pl, size_t len, const char **why);
/* r is on its worker: it no longer counts as waiting, and its PARAMS
 * are freed unless keep (a worker that has not read the whole record may
 * yet turn out broken, and r go to another one: called again without
 * keep once the record is delivered). */
void runner_req_running(runner_req *r, int keep);
/* r, taken back from a worker that never had it, waits again: its PARAMS
 * count as waiting (the pool's requeue). */
void runner_req_waiting(runner_req *r);
int runner_req_add_body(runner_req *r, const unsigned char *d, size_t n);
int runner_req_body_short(const runner_req *r);
void runner_req_end(runner_req *r, int outcome, unsigned retry, uint32_t pid, uint32_t detail);
void runner_req_client_gone(runner_req *r);
/* The script made progress (output, body taken, a callout): restarts the
 * no-progress timer; tells the module (PROGRESS) if it saw nothing lately. */
void runner_req_progress(runner_req *r);
/* Frees r outright: at exit, or a worker's drain that never started. */
void runner_req_free(runner_req *r);

#endif
