/* runner_req.c: one request's life: its states (runner_rnext, applied by
 * req_step alone), its PARAMS, its body, its place in its pool's queue,
 * its END. It calls no pool or worker code by name: a request that ends
 * on a worker tells it through the worker's kind (orphaned). */
#include "runner_req.h"
#include "runner_ctx.h"
#include "runner_loop.h"
#include "runner_client.h"
#include "runner_log.h"
#include "cgp_parse.h"
#include "runner_pool.h"
#include "runner_table.h"
#include "runner_twait.h"
#include "runner_worker.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#define URI_MAX 1024u
#define TRIM_AFTER (4u * 1024u * 1024u) /* held bytes after which the heap is trimmed */

/* The PARAMS of requests that are not on a worker (collecting, counting a
 * body, queued) are all a request keeps in the runner until it runs: they
 * are counted per pool and in all, and capped (queue_memory_pool,
 * queue_memory), so waiting requests cannot pin the runner's memory. */
static void held_add(runner_req *r, size_t len)
{
    r->held += len;
    r->pool->held += len;
    runner_g.held += len;
    if (runner_g.held > TRIM_AFTER)
        runner_g.trim_owed = 1;
}

static int held_take(runner_req *r, size_t len)
{
    const runner_conf *c = &runner_g.conf;
    if (runner_g.held + len > c->v[CGP_S_QUEUE_MEMORY] ||
        r->pool->held + len > c->v[CGP_S_QUEUE_MEMORY_POOL])
        return -1;
    held_add(r, len);
    return 0;
}

static void held_release(runner_req *r)
{
    if (!r->held)
        return;
    r->pool->held -= r->held;
    runner_g.held -= r->held;
    r->held = 0;
#ifdef __GLIBC__
    /* The large buffers were mapped on their own (runner_main.c); what a
     * burst left in the heap goes back once nothing waits. */
    if (!runner_g.held && runner_g.trim_owed) {
        runner_g.trim_owed = 0;
        malloc_trim(0);
    }
#endif
}

runner_req *runner_req_new(runner_client *c, uint32_t reqid, const char *uri, size_t ulen)
{
    runner_req *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    if (ulen > URI_MAX)
        ulen = URI_MAX;
    if (!(r->uri = malloc(ulen + 1))) {
        free(r);
        return NULL;
    }
    memcpy(r->uri, uri, ulen);
    r->uri[ulen] = '\0';
    r->client = c;
    r->reqid = reqid; /* zeroed: PARAMS */
    r->t_arrive = runner_g.now;
    runner_spool_init(&r->body);
    return r;
}

void runner_req_free(runner_req *r)
{
    if (!r)
        return;
    cgp_buf_free(&r->params);
    held_release(r);
    runner_spool_free(&r->body);
    runner_hdr_free(&r->hdr);
    free(r->uri);
    free(r);
}

int runner_req_add_params(runner_req *r, const unsigned char *pl, size_t len, const char **why)
{
    const char *n, *v;
    size_t nl, vl, off = 0;
    int rc;

    if (r->params.len + len > CGP_MAX_PARAMS) {
        *why = "PARAMS over 1 MiB";
        return -1;
    }
    while ((rc = cgp_kv_next(pl, len, &off, &n, &nl, &v, &vl)) == 1) {
        if (nl != 14 || memcmp(n, "CONTENT_LENGTH", 14) != 0)
            continue;
        if (vl == 0) { /* empty: no length known, the body gets counted */
            r->have_cl = r->cl_given = 0;
            continue;
        }
        if (cgp_parse_u64(v, vl, &r->cl) < 0) {
            *why = "CONTENT_LENGTH is not a decimal number";
            return -1;
        }
        r->have_cl = r->cl_given = 1;
    }
    if (rc < 0) {
        *why = cgp_strerror(rc);
        return -1;
    }
    if (held_take(r, len) < 0)
        return 1;
    if (cgp_buf_append(&r->params, pl, len) < 0) {
        *why = "out of memory";
        return -1;
    }
    return 0;
}

void runner_req_running(runner_req *r, int keep)
{
    if (!keep)
        cgp_buf_free(&r->params);
    held_release(r);
}

void runner_req_waiting(runner_req *r)
{
    /* Already admitted, and its bytes are in memory anyway: counted again
     * without the cap (a worker's fault must not cost it a 503). */
    if (!r->held)
        held_add(r, cgp_buf_used(&r->params));
}

int runner_req_add_body(runner_req *r, const unsigned char *d, size_t n)
{
    /* Never more than CONTENT_LENGTH reaches the script. */
    if (r->have_cl && r->state != RUNNER_R_SPOOL) {
        uint64_t room = r->cl > r->body.total ? r->cl - r->body.total : 0;
        if (n > room)
            n = (size_t)room;
    }
    return runner_spool_append(&r->body, d, n, RUNNER_SPOOL_MEM, runner_g.conf.v[CGP_S_SPOOL_MAX]);
}

int runner_req_body_short(const runner_req *r)
{
    return r->have_cl && r->body.total < r->cl;
}

/* The only writer of r->state: 1 if the table moved it. */
static int req_step(runner_req *r, runner_revent ev)
{
    unsigned to = runner_rnext(r->state, ev);
    if (to == 0xff)
        return 0;
    r->state = (runner_rstate)to;
    return 1;
}

int runner_req_step(runner_req *r, runner_revent ev)
{
    return req_step(r, ev);
}

int runner_req_enqueue(runner_req *r, int head)
{
    runner_pool *p = r->pool;

    /* One queue with the children's requests waiting in the table: a
     * ticket after them (else the runner's queue alone). One that was
     * first (head) waits even without one. */
    if (runner_twait_enqueue(r) < 0 && !head)
        return -1;
    req_step(r, RUNNER_RE_QUEUE);
    if (head)
        TAILQ_INSERT_HEAD(&p->queue, r, qlink);
    else
        TAILQ_INSERT_TAIL(&p->queue, r, qlink);
    if (++p->qlen > p->qmax)
        p->qmax = p->qlen;
    return 0;
}

void runner_req_dequeue(runner_req *r)
{
    TAILQ_REMOVE(&r->pool->queue, r, qlink);
    r->pool->qlen--;
    runner_twait_leave(r);
    req_step(r, RUNNER_RE_DEQUEUE);
}

/* END: out of the queue if it was there; 0 if it was answered already. */
static int answered(runner_req *r)
{
    if (runner_req_ended(r))
        return 0;
    if (r->state == RUNNER_R_QUEUED)
        runner_req_dequeue(r);
    return req_step(r, RUNNER_RE_END);
}

/* An answered request: its worker frees it when done (ORPHAN), else it
 * goes now (DONE). */
static void let_go(runner_req *r)
{
    if (r->state == RUNNER_R_ORPHAN)
        r->worker->kind->orphaned(r->worker);
    else
        runner_req_free(r);
}

int runner_req_detach(runner_req *r)
{
    req_step(r, RUNNER_RE_DETACH);
    if (r->state != RUNNER_R_DONE)
        return 1;
    runner_req_free(r);
    return 0;
}

void runner_req_granted(runner_req *r)
{
    runner_client *c = r->client;

    answered(r);
    /* Over on this side: no END follows, and the module's frames of this
     * request still on the way (its body) are dropped as answered ones. */
    r->client = NULL;
    c->req = NULL;
    runner_client_kick(c);
    runner_req_free(r);
}

/* Counts r for its pool, once: under the cause httpd gave with ABORT, if
 * any, else its outcome (ok: served); in the pool's requests if it ended
 * before it was submitted (a bad request, one httpd failed before its
 * body). Returns what it was counted under. */
static unsigned req_count(runner_req *r, unsigned outcome)
{
    unsigned as = r->cause ? r->cause : outcome;

    if (!r->pool)
        return as;
    if (!r->counted) {
        r->counted = 1;
        r->pool->requests++;
    }
    r->pool->outcomes[as]++;
    if (as == CGP_O_OK)
        r->pool->served++;
    return as;
}

void runner_req_end(runner_req *r, int outcome, unsigned retry, uint32_t pid, uint32_t detail)
{
    unsigned as = CGP_C_MAX_ + 1; /* not counted */

    if (!answered(r))
        return;
    if ((unsigned)outcome <= CGP_O_MAX_)
        as = req_count(r, (unsigned)outcome);
    if (r->pool && r->t_start && runner_g.now - r->t_start > runner_g.conf.v[CGP_S_SLOW_REQUEST]) {
        /* php-fpm's slowlog, as one line: which request, how long, on which worker */
        r->pool->slow++;
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2016) "slow request %u (%s) of %s: %.1f s on worker "
                   "pid %u (slow_request %.1f s), ended %s", r->reqid, r->uri, r->pool->script,
                   (double)(runner_g.now - r->t_start) / 1000, (unsigned)pid,
                   (double)runner_g.conf.v[CGP_S_SLOW_REQUEST] / 1000, cgp_outcome_name((unsigned)outcome));
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2004) "request %u (%s) for %s ended: %s",
               r->reqid, r->uri, r->pool ? r->pool->script : "?", cgp_outcome_name((unsigned)outcome));
    if (r->client) {
        runner_client *c = r->client;
        runner_client_send_end(c, r->reqid, outcome, retry, pid, detail);
        c->last_reqid = r->reqid;
        c->last_pool = r->pool ? r->pool->id : 0;
        c->last_as = as;
        c->req = NULL;
        r->client = NULL;
        runner_client_kick(c); /* frames behind this request may now be read */
    }
    let_go(r);
}

void runner_req_progress(runner_req *r)
{
    r->t_progress = runner_g.now;
    if (r->client && !runner_req_ended(r) && r->progress_ms &&
        runner_g.now - r->t_sent >= r->progress_ms)
        runner_client_send(r->client, CGP_T_PROGRESS, 0, r->reqid, NULL, 0);
}

void runner_req_client_gone(runner_req *r)
{
    r->client = NULL;
    r->client_left = 1;
    if (!answered(r))
        return;
    req_count(r, CGP_O_ABORTED);
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2005) "request %u (%s): the module went away",
               r->reqid, r->uri);
    let_go(r);
}
