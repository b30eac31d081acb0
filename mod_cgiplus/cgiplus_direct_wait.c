/* cgiplus_direct_wait.c: a request that finds no idle worker waits for one
 * in the table's queue (common/cgp_twait.c; docs/DESIGN.md, "Waiting in
 * the table"): it takes a ticket and sleeps on its entry's futex, and the
 * child that frees a worker hands it over and wakes it. The runner is not
 * involved: no frame, no wake-up, unless it may start a worker (a new
 * worker's first request goes through it). The waiting thread looks at its
 * client and CGIplusQueueWait every WAIT_TICK_MS (the first time after one:
 * most waits are shorter, and cost the futex alone). */
#include "cgiplus_direct_private.h"

#include <poll.h>

#include "http_log.h"
#include "http_protocol.h"
#include "apr_portable.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

#define WAIT_TICK_MS 200u /* how often a waiting request looks at its client */

/* A worker freed before this request took its ticket: claimed, then passed
 * to the oldest ticket (maybe ours). */
static void wait_pass_idle(request_rec *r, const direct_poolref *ref, void *base)
{
    cgp_tpool *tp = cgp_table_pool(base, ref->idx);
    uint32_t first = atomic_load(&tp->first_slot), n = atomic_load(&tp->nslots), i;

    if (first >= CGP_TABLE_SLOTS || n > CGP_TABLE_SLOTS - first)
        return;
    for (i = first; i < first + n; i++) {
        cgp_tslot *s = cgp_table_slot(base, i);
        uint64_t w = atomic_load(&s->word);
        cgiplus_direct x = { .slot = s, .tp = tp, .sidx = i, .sgen = cgp_tword_gen(w),
                             .pidx = ref->idx, .pgen = ref->gen };

        if (cgp_tword_state(w) == CGP_TS_IDLE &&
            cgp_tslot_step(s, CGP_TS_IDLE, x.sgen, 0, CGP_TE_CLAIM_CHILD, cgiplus_dp.pid))
            cgiplus_direct_pass(r, &x);
    }
}

/* 1 if the client reset its connection (or is known gone). */
static int wait_client_gone(cgiplus_client_watch *cw, apr_os_sock_t fd, conn_rec *c)
{
    struct pollfd pf = { fd, (short)(cw->eof ? 0 : POLLIN), 0 };

    if (c->aborted)
        return 1;
    if (fd < 0 || !cw->cs || poll(&pf, 1, 0) <= 0)
        return 0;
    return cgiplus_req_client_seen(cw, cw->eof ? 2 : 1) == CGIPLUS_CLIENT_GONE;
}

/* Out of the queue with the worker handed to it: x holds it (OK), or it
 * goes on to the next waiter when this request leaves anyway. */
static int wait_took(cgiplus_req *q, const direct_poolref *ref, const cgp_tq *tq,
                     uint32_t ticket, int leave, cgiplus_direct *x)
{
    uint32_t slot, gen;

    if (!cgp_tq_accept(tq, ticket, CGP_TE_ACCEPT, cgiplus_dp.pid, &slot, &gen))
        return leave ? leave : DECLINED; /* taken back: the runner has it */
    if (leave || cgiplus_dp.base != tq->base) {
        /* nobody here wants it (or its runner is gone): the next one */
        cgiplus_direct y = { .slot = cgp_table_slot(tq->base, slot),
                             .tp = cgp_table_pool(tq->base, ref->idx), .sidx = slot,
                             .sgen = gen, .pidx = ref->idx, .pgen = ref->gen };

        cgiplus_direct_pass(q->r, &y);
        return leave ? leave : DECLINED;
    }
    return cgiplus_direct_hold(q, ref, slot, gen, x) ? OK : DECLINED;
}

/* Waits with ticket until a worker is handed to it (OK), the runner asks
 * for the request (DECLINED), CGIplusQueueWait passes (503) or the client
 * leaves (DONE). */
static int wait_loop(cgiplus_req *q, const direct_poolref *ref, const cgp_tq *tq,
                     uint32_t ticket, apr_uint64_t t0, cgiplus_direct *x)
{
    request_rec *r = q->r;
    void *base = tq->base;
    cgp_tpool *tp = cgp_table_pool(base, ref->idx);
    apr_uint64_t wait_ms = atomic_load(&tq->q->wait_ms), now, look = t0 + WAIT_TICK_MS;
    cgiplus_client_watch cw;
    apr_os_sock_t cfd = -1;
    uint32_t slot, wk;
    int leave = 0; /* DONE once the client left: a worker that comes goes on */

    cgiplus_req_watch_init(q, &cw);
    if (cw.cs && apr_os_sock_get(&cfd, cw.cs) != APR_SUCCESS)
        cfd = -1;
    for (;;) {
        unsigned st = cgp_tq_look(tq, ticket, &slot, &wk);

        if (st == CGP_TW_HANDED)
            return wait_took(q, ref, tq, ticket, leave, x);
        if (st == CGP_TW_RELAY) /* its worker starts: the request goes through the runner */
            cgp_tq_relayed(tq, ticket);
        if (st != CGP_TW_WAITING)
            return leave ? leave : DECLINED;
        now = cgiplus_direct_now_ms();
        int why = leave;
        if (!why && wait_ms && now - t0 >= wait_ms)
            why = HTTP_SERVICE_UNAVAILABLE;
        else if (!why && (cgiplus_dp.base != base || atomic_load(&tp->gen) != ref->gen ||
                          !(atomic_load(&tp->flags) & CGP_TP_DIRECT)))
            why = DECLINED; /* the runner restarted, or retired the pool: it decides */
        else if (!why && now >= look) {
            look = now + WAIT_TICK_MS;
            if (wait_client_gone(&cw, cfd, r->connection))
                why = DONE;
        }
        if (why) {
            if (cgp_tq_cancel(tq, ticket)) {
                if (why == HTTP_SERVICE_UNAVAILABLE) {
                    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, CGIPLUS_LOGNO(1732)
                                  "%s: waited %" APR_UINT64_T_FMT " ms for a worker "
                                  "(CGIplusQueueWait); answering 503", r->filename, now - t0);
                    apr_table_setn(r->err_headers_out, "Retry-After", "1");
                }
                return why;
            }
            /* A worker came meanwhile: taken (or, the client gone, passed on). */
            if (why == DONE)
                leave = DONE;
            continue;
        }
        {
            apr_uint64_t until = wait_ms && t0 + wait_ms < look ? t0 + wait_ms : look;

            cgp_tq_sleep(tq, ticket, wk, until > now ? (unsigned)(until - now) : 0);
        }
        cgiplus_direct_check();
    }
}

int cgiplus_direct_wait(cgiplus_req *q, const direct_poolref *ref, cgiplus_direct *x)
{
    request_rec *r = q->r;
    void *base = cgiplus_dp.base;
    apr_uint64_t t0;
    uint32_t ticket;
    cgp_tq tq;
    int ret;

    if (!base || !cgp_tq_get(base, ref->idx, &tq))
        return DECLINED;
    /* The runner may start a worker for it, and a worker's first request
     * goes through the runner: no waiting then, unless others wait (FIFO). */
    if ((atomic_load(&tq.q->flags) & CGP_TQ_GROW) && atomic_load(&tq.q->queued) == 0)
        return DECLINED;
    t0 = cgiplus_direct_now_ms();
    if (cgp_tq_enqueue(&tq, cgiplus_dp.pid, &ticket) < 0) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, CGIPLUS_LOGNO(1731)
                      "%s: queue full (%u waiting, CGIplusQueueDepth %u); answering 503 "
                      "at once", r->filename, (unsigned)atomic_load(&tq.q->queued),
                      (unsigned)atomic_load(&tq.q->depth));
        cgiplus_direct_count(q, CGP_O_OVERLOADED);
        apr_table_setn(r->err_headers_out, "Retry-After", "1");
        return HTTP_SERVICE_UNAVAILABLE;
    }
    /* It may start workers: it must learn that requests wait (once). */
    if ((atomic_load(&tq.q->flags) & CGP_TQ_GROW) &&
        !(atomic_fetch_or(&tq.q->flags, CGP_TQ_KICKED) & CGP_TQ_KICKED))
        cgiplus_direct_kick(r, ref->idx, ref->gen);
    wait_pass_idle(r, ref, base);
    ret = wait_loop(q, ref, &tq, ticket, t0, x);

    if (ret == HTTP_SERVICE_UNAVAILABLE)
        cgiplus_direct_count(q, CGP_O_OVERLOADED);
    else if (ret == DONE) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1730)
                      "client connection reset while the request for %s waited for a "
                      "worker (%" APR_UINT64_T_FMT " ms); it leaves the queue and never runs",
                      r->filename, cgiplus_direct_now_ms() - t0);
        cgiplus_direct_count(q, CGP_O_ABORTED);
    }
    return ret;
}
