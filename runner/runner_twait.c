/* runner_twait.c: the runner's side of the table's queue (include/cgp_twait.h;
 * docs/DESIGN.md, "Waiting in the table"). The children hand workers to
 * their waiting requests themselves; the runner takes part only where it
 * must: the requests it holds wait with tickets of the same queue (one
 * order for both), a worker it frees goes to the oldest ticket, what a
 * dead child left half done (a ticket, an offer) is cleaned up here, and
 * children's waiters are asked to relay when the pool grows (a new
 * worker's first request goes through the runner). A leaf: it calls only
 * the table; a worker that comes back to the runner is noted in its
 * pool's pass_owed (the pool's timer passes it on), a worker for one of
 * the runner's own requests is given by the pool (runner_pool.c). */
#include "runner_twait.h"
#include "runner_ctx.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_req.h"
#include "runner_table.h"
#include "runner_worker.h"
#include "cgp_twait.h"

static int tq_of(const runner_pool *p, cgp_tq *tq)
{
    return p->tidx >= 0 && cgp_tq_get(runner_table_base(), (uint32_t)p->tidx, tq);
}

/* The runner holds slot sl again (generation g): its worker is idle and
 * clean, and goes on at its pool's next timer (pass_owed). */
static void reclaimed(uint32_t sl, uint32_t g)
{
    runner_worker *w = runner_table_owner(sl);

    if (w && w->sgen == g && !w->pool->pass_owed) {
        w->pool->pass_owed = 1;
        TAILQ_INSERT_TAIL(&runner_g.owed, w->pool, olink); /* the pools' timers find it */
    }
}

runner_worker *runner_twait_accept(runner_req *r, uint32_t grant_pid)
{
    runner_worker *w;
    uint32_t sl, g;
    cgp_tq tq;

    r->ticketed = 0;
    if (!tq_of(r->pool, &tq) ||
        !cgp_tq_accept(&tq, r->ticket, grant_pid ? CGP_TE_ACCEPT : CGP_TE_TAKE_BACK, grant_pid,
                       &sl, &g) ||
        !(w = runner_table_owner(sl)) || w->sgen != g) {
        runner_twait_enqueue(r); /* cannot happen: wait again, last */
        return NULL;
    }
    if (grant_pid)
        runner_table_busy(w->pool, 1); /* to CHILD: the child's release takes it back */
    return w;
}

int runner_twait_handed(const runner_req *r)
{
    uint32_t sl, wk;
    cgp_tq tq;

    return r->ticketed && tq_of(r->pool, &tq) &&
           cgp_tq_look(&tq, r->ticket, &sl, &wk) == CGP_TW_HANDED;
}

runner_req *runner_twait_holder(runner_pool *p, uint32_t t)
{
    runner_req *r;

    TAILQ_FOREACH(r, &p->queue, qlink)
        if (r->ticketed && (r->ticket & CGP_TW_MASK) == t)
            return r;
    return NULL;
}

int runner_twait_enqueue(runner_req *r)
{
    cgp_tq tq;

    if (!tq_of(r->pool, &tq))
        return r->pool->qlen >= r->pool->set.v[CGP_S_QUEUE_DEPTH] ? -1 : 0;
    if (cgp_tq_enqueue(&tq, runner_table_pid(), &r->ticket) < 0)
        return -1;
    r->ticketed = 1;
    return 0;
}

void runner_twait_leave(runner_req *r)
{
    uint32_t sl, g;
    cgp_tq tq;

    if (!r->ticketed)
        return;
    r->ticketed = 0;
    if (!tq_of(r->pool, &tq) || cgp_tq_cancel(&tq, r->ticket))
        return;
    /* a worker was handed to it meanwhile: the next one gets it */
    if (cgp_tq_accept(&tq, r->ticket, CGP_TE_TAKE_BACK, 0, &sl, &g))
        reclaimed(sl, g);
}

int runner_twait_offer(runner_worker *w, uint32_t *ticket)
{
    uint32_t me = runner_table_pid();
    cgp_tq tq;

    if (!tq_of(w->pool, &tq))
        return runner_table_slot_publish(w) ? CGP_TQ_IDLE : CGP_TQ_LOST;
    return cgp_tq_pass(&tq, (uint32_t)w->slot, w->sgen, CGP_TS_RUNNER, 0, me, me, ticket);
}

int runner_twait_take_back(runner_pool *p, uint32_t t)
{
    uint32_t sl, g;
    cgp_tq tq;

    return tq_of(p, &tq) && cgp_tq_accept(&tq, t, CGP_TE_TAKE_BACK, 0, &sl, &g);
}

int runner_twait_children(runner_pool *p)
{
    cgp_tq tq;

    return tq_of(p, &tq) && cgp_tq_oldest(&tq, 0, runner_table_pid()) != 0;
}

int runner_twait_convert(runner_pool *p)
{
    uint64_t w;
    cgp_tq tq;

    if (!tq_of(p, &tq))
        return 0;
    while ((w = cgp_tq_oldest(&tq, 0, runner_table_pid())))
        if (cgp_tq_relay(&tq, w)) {
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2952) "pool #%llu of %s grows: the "
                       "oldest waiting request (httpd child pid %lu) comes through the runner "
                       "for a new worker", (unsigned long long)p->id, p->script,
                       (unsigned long)cgp_twword_pid(w));
            return 1;
        }
    return 0;
}

int runner_twait_flags(runner_pool *p, int grow, int full)
{
    uint32_t f, want = (grow ? CGP_TQ_GROW : 0) | (full ? CGP_TQ_FULL : 0);
    cgp_tq tq;

    if (!tq_of(p, &tq) || ((f = atomic_load(&tq.q->flags)) & (CGP_TQ_GROW | CGP_TQ_FULL)) == want)
        return 0;
    atomic_fetch_or(&tq.q->flags, want);
    atomic_fetch_and(&tq.q->flags, ~((CGP_TQ_GROW | CGP_TQ_FULL) & ~want));
    return grow && !(f & CGP_TQ_GROW);
}

void runner_twait_looked(runner_pool *p)
{
    cgp_tq tq;

    if (tq_of(p, &tq) && (atomic_load(&tq.q->flags) & CGP_TQ_KICKED))
        atomic_fetch_and(&tq.q->flags, ~CGP_TQ_KICKED);
}

unsigned runner_twait_depth(const runner_pool *p, unsigned *max)
{
    cgp_tq tq;

    if (!tq_of(p, &tq)) {
        *max = p->qmax;
        return p->qlen;
    }
    *max = atomic_load(&tq.q->qmax);
    if (*max < p->qmax)
        *max = p->qmax;
    return atomic_load(&tq.q->queued);
}

unsigned long runner_twait_reached(const runner_pool *p)
{
    cgp_tq tq;

    return tq_of(p, &tq) ? atomic_load(&tq.q->reached) : 0;
}

/* An offer pid made and did not finish (slot OFFERED, entry not yet
 * HANDED): finished for a waiter still there, else the worker comes back. */
static void offer_gone(runner_pool *p, const cgp_tq *tq, uint32_t i, uint32_t dead)
{
    cgp_tslot *s = cgp_table_slot(runner_table_base(), i);
    uint64_t sw = atomic_load(&s->word);
    uint32_t t = cgp_tword_pid(sw), me = runner_table_pid();

    for (;;) {
        uint64_t w = atomic_load(&cgp_tq_entry(tq, t)->word);
        int of_t = cgp_twword_ticket(w) == t;
        runner_req *r = cgp_twword_pid(w) == (me & CGP_TW_MASK) ? runner_twait_holder(p, t) : NULL;

        if (of_t && cgp_twword_state(w) == CGP_TW_HANDED && cgp_twword_slot(w) == i)
            return; /* it was finished: its waiter takes it */
        if (!of_t || cgp_twword_state(w) != CGP_TW_WAITING || cgp_twword_pid(w) == dead ||
            (cgp_twword_pid(w) == (me & CGP_TW_MASK) && !r))
            break; /* nobody to finish it for */
        if (!cgp_tq_hand(tq, w, i, me))
            continue; /* it changed meanwhile */
        return; /* its waiter takes it (one of ours: the pool gives it) */
    }
    if (cgp_tslot_step(s, CGP_TS_OFFERED, cgp_tword_gen(sw), t, CGP_TE_TAKE_BACK, 0))
        reclaimed(i, cgp_tword_gen(sw));
}

void runner_twait_child_gone(pid_t pid)
{
    uint32_t dead = (uint32_t)pid & CGP_TW_MASK, sl, g;
    void *base = runner_table_base();
    runner_pool *p;

    if (!base)
        return;
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        cgp_tq tq;

        if (!tq_of(p, &tq))
            continue;
        for (uint32_t i = p->tfirst; i < p->tfirst + p->tslots; i++) {
            cgp_tslot *s = cgp_table_slot(base, i);

            if (cgp_tword_state(atomic_load(&s->word)) == CGP_TS_OFFERED &&
                atomic_load(&s->offer_pid) == (uint32_t)pid)
                offer_gone(p, &tq, i, dead);
        }
        for (uint32_t k = 0; k < tq.size; k++) {
            uint64_t w = atomic_load(&tq.ring[k].word);
            uint32_t t = cgp_twword_ticket(w);

            if (cgp_twword_pid(w) != dead || cgp_twword_state(w) == CGP_TW_FREE)
                continue;
            if (cgp_twword_state(w) == CGP_TW_WAITING && cgp_tq_cancel(&tq, t)) {
                runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2950) "httpd child pid %ld went away "
                           "while its request waited for a worker of %s; it leaves the queue",
                           (long)pid, p->script);
            } else if (cgp_twword_state(w) == CGP_TW_HANDED) {
                runner_worker *ww = runner_table_owner(cgp_twword_slot(w));
                long wpid = ww ? (long)ww->pid : 0;

                /* not taken yet: the worker is clean, and serves the next
                 * waiter (taken: the slot is CHILD(pid), drained above) */
                if (cgp_tq_accept(&tq, t, CGP_TE_TAKE_BACK, 0, &sl, &g)) {
                    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2951) "httpd child pid %ld went "
                               "away while worker pid %ld of %s was handed to its waiting "
                               "request; the worker serves the next one", (long)pid, wpid,
                               p->script);
                    reclaimed(sl, g);
                }
            } else if (cgp_twword_state(w) == CGP_TW_RELAY) {
                cgp_tq_relayed(&tq, t);
            }
        }
    }
}
