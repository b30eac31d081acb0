/* runner_req.c: one request's life: its PARAMS, its body, its END. */
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define URI_MAX 1024u

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
    r->reqid = reqid;
    r->state = RUNNER_R_PARAMS;
    r->t_arrive = runner_g.now;
    runner_spool_init(&r->body);
    return r;
}

void runner_req_free(runner_req *r)
{
    if (!r)
        return;
    runner_spool_free(&r->body);
    runner_buf_free(&r->params);
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
        if (runner_parse_u64(v, vl, &r->cl) < 0) {
            *why = "CONTENT_LENGTH is not a decimal number";
            return -1;
        }
        r->have_cl = r->cl_given = 1;
    }
    if (rc < 0) {
        *why = cgp_strerror(rc);
        return -1;
    }
    if (runner_buf_append(&r->params, pl, len) < 0) {
        *why = "out of memory";
        return -1;
    }
    return 0;
}

int runner_req_add_body(runner_req *r, const unsigned char *d, size_t n)
{
    /* Never more than CONTENT_LENGTH reaches the script. */
    if (r->have_cl && r->state != RUNNER_R_SPOOL) {
        uint64_t room = r->cl > r->body.total ? r->cl - r->body.total : 0;
        if (n > room)
            n = (size_t)room;
    }
    return runner_spool_append(&r->body, d, n, RUNNER_SPOOL_MEM, runner_g.conf.spool_max);
}

int runner_req_body_short(const runner_req *r)
{
    return r->have_cl && r->body.total < r->cl;
}

/* An ended request: its worker (if any) frees it when done, else it goes now. */
static void req_release(runner_req *r)
{
    if (r->worker) {
        runner_worker_orphaned(r->worker);
        return;
    }
    if (r->state == RUNNER_R_QUEUED)
        runner_pool_dequeue(r);
    runner_req_free(r);
}

void runner_req_end(runner_req *r, int outcome, unsigned retry, uint32_t pid, uint32_t detail)
{
    if (r->ended)
        return;
    r->ended = 1;
    if (r->pool && (unsigned)outcome <= CGP_O_MAX_)
        r->pool->outcomes[outcome]++;
    if (r->pool && r->t_start && runner_g.now - r->t_start > runner_g.conf.slow_request) {
        /* php-fpm's slowlog, as one line: which request, how long, on which worker */
        r->pool->slow++;
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2016) "slow request %u (%s) of %s: %.1f s on worker "
                   "pid %u (slow_request %.1f s), ended %s", r->reqid, r->uri, r->pool->script,
                   (double)(runner_g.now - r->t_start) / 1000, (unsigned)pid,
                   (double)runner_g.conf.slow_request / 1000, cgp_outcome_name((unsigned)outcome));
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2004) "request %u (%s) for %s ended: %s",
               r->reqid, r->uri, r->pool ? r->pool->script : "?", cgp_outcome_name((unsigned)outcome));
    if (r->client) {
        runner_client *c = r->client;
        runner_client_send_end(c, r->reqid, outcome, retry, pid, detail);
        c->req = NULL;
        r->client = NULL;
        runner_loop_kick(c); /* frames behind this request may now be read */
    }
    req_release(r);
}

void runner_req_progress(runner_req *r)
{
    r->t_progress = runner_g.now;
    if (r->client && !r->ended && r->progress_ms && runner_g.now - r->t_sent >= r->progress_ms)
        runner_client_send(r->client, CGP_T_PROGRESS, 0, r->reqid, NULL, 0);
}

void runner_req_client_gone(runner_req *r)
{
    r->client = NULL;
    if (r->ended)
        return;
    r->ended = 1;
    if (r->pool)
        r->pool->outcomes[CGP_O_ABORTED]++;
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2005) "request %u (%s): the module went away",
               r->reqid, r->uri);
    req_release(r);
}
