/* runner_req.h: one request from the module to a worker (runner_req.c). */
#ifndef RUNNER_REQ_H
#define RUNNER_REQ_H

#include "runner_types.h"
#include "runner_buf.h"
#include "runner_hdr.h"
#include "runner_spool.h"

typedef enum runner_rstate {
    RUNNER_R_PARAMS,  /* collecting PARAMS */
    RUNNER_R_SPOOL,   /* no CONTENT_LENGTH: spooling the body to count it */
    RUNNER_R_QUEUED,  /* in its pool's queue */
    RUNNER_R_RUNNING  /* on a worker */
} runner_rstate;

/* One request. Owned by its client until END is sent; then, if a worker still
 * runs it, by that worker (an orphan whose output is discarded). */
struct runner_req {
    runner_client *client;    /* NULL once END was sent or the client left */
    runner_pool *pool;
    runner_worker *worker;    /* NULL unless RUNNING */
    uint32_t reqid;
    runner_rstate state;
    int ended;                /* END sent (or nobody to send it to) */
    char *uri;
    runner_buf params;        /* concatenated, validated PARAMS kv lists */
    int have_cl;
    int cl_given;             /* PARAMS carried a CONTENT_LENGTH value */
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
    TAILQ_ENTRY(runner_req) qlink;
};

runner_req *runner_req_new(runner_client *c, uint32_t reqid, const char *uri, size_t ulen);
int runner_req_add_params(runner_req *r, const unsigned char *pl, size_t len, const char **why);
int runner_req_add_body(runner_req *r, const unsigned char *d, size_t n);
int runner_req_body_short(const runner_req *r);
void runner_req_end(runner_req *r, int outcome, unsigned retry, uint32_t pid, uint32_t detail);
void runner_req_client_gone(runner_req *r);
/* The script made progress (output, body taken, a callout): restarts the
 * no-progress timer; tells the module (PROGRESS) if it saw nothing lately. */
void runner_req_progress(runner_req *r);
void runner_req_free(runner_req *r);

#endif
