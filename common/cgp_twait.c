/* cgp_twait.c: the table's queue of waiting requests (include/cgp_twait.h;
 * docs/DESIGN.md, "Waiting in the table"). Tickets in a ring per pool, as
 * in Vyukov's bounded queue: an entry carries the ticket it serves, a
 * ticket is taken by the CAS that fills its entry (with the waiter's pid),
 * and the tail only moves past filled entries, or past one still held by a
 * ticket a lap older (that ticket is skipped: nobody ever holds it), so a
 * ticket between head and tail has its entry or none. Everything is
 * seq_cst: a releaser stores IDLE, then looks for waiters; a new waiter is
 * in the ring, then looks for IDLE workers; one of the two sees the other. */
#define _GNU_SOURCE
#include "cgp_twait.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int cgp_tq_get(void *base, uint32_t pidx, cgp_tq *tq)
{
    cgp_tqueue *q;
    uint32_t size, first;

    if (!base || pidx >= CGP_TABLE_POOLS)
        return 0;
    q = cgp_table_queue(base, pidx);
    size = atomic_load(&q->size);
    first = atomic_load(&q->first);
    if (size == 0 || size > CGP_TWAIT_RING_MAX || (size & (size - 1)) ||
        first > CGP_TABLE_WAITS - size)
        return 0;
    tq->base = base;
    tq->q = q;
    tq->ring = cgp_table_wait(base, first);
    tq->size = size;
    return 1;
}

void cgp_tq_reset(cgp_tq *tq, uint32_t depth, uint32_t wait_ms)
{
    for (uint32_t i = 0; i < tq->size; i++) {
        atomic_store(&tq->ring[i].word, cgp_twword(CGP_TW_FREE, i, 0, 0));
        atomic_store(&tq->ring[i].wake, 0);
    }
    atomic_store(&tq->q->head, 0);
    atomic_store(&tq->q->tail, 0);
    atomic_store(&tq->q->queued, 0);
    atomic_store(&tq->q->qmax, 0);
    atomic_store(&tq->q->depth, depth);
    atomic_store(&tq->q->wait_ms, wait_ms);
    atomic_store(&tq->q->flags, 0);
}

static int same_ticket(uint64_t w, uint32_t ticket)
{
    return cgp_twword_ticket(w) == (ticket & CGP_TW_MASK);
}

/* Whether entry word w names a ticket older than t (laps behind it). */
static int older(uint64_t w, uint32_t t)
{
    uint32_t d = (t - cgp_twword_ticket(w)) & CGP_TW_MASK;

    return d != 0 && d < CGP_TW_MASK / 2;
}

/* The ticket an entry serves once ticket is done: one ring later. */
static uint32_t next_ticket(const cgp_tq *tq, uint32_t ticket)
{
    return ticket + tq->size;
}

static void wake(cgp_twait *e)
{
    atomic_fetch_add(&e->wake, 1);
    /* not FUTEX_PRIVATE: the waiter is in another process */
    syscall(SYS_futex, (uint32_t *)&e->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The head's entry if it waits (its word), else 0 when nobody waits;
 * moves the head past tickets that are done. */
static uint64_t tq_head(const cgp_tq *tq)
{
    cgp_tqueue *q = tq->q;

    for (;;) {
        uint32_t h = atomic_load(&q->head);

        if (h == atomic_load(&q->tail))
            return 0;
        uint64_t w = atomic_load(&cgp_tq_entry(tq, h)->word);
        if (same_ticket(w, h) && cgp_twword_state(w) == CGP_TW_WAITING)
            return w;
        atomic_compare_exchange_strong(&q->head, &h, h + 1);
    }
}

int cgp_tq_enqueue(const cgp_tq *tq, uint32_t pid, uint32_t *ticket)
{
    cgp_tqueue *q = tq->q;
    uint32_t n = atomic_fetch_add(&q->queued, 1), m = atomic_load(&q->qmax), skipped = 0;

    if (n >= atomic_load(&q->depth)) {
        atomic_fetch_sub(&q->queued, 1);
        return -1;
    }
    while (n + 1 > m && !atomic_compare_exchange_weak(&q->qmax, &m, n + 1))
        ;
    /* php-fpm's max children reached: once until the queue empties */
    if (n == 0 && (atomic_load(&q->flags) & CGP_TQ_FULL))
        atomic_fetch_add(&q->reached, 1);
    for (;;) {
        uint32_t t = atomic_load(&q->tail);
        cgp_twait *e = cgp_tq_entry(tq, t);
        uint64_t w = atomic_load(&e->word);

        if (same_ticket(w, t)) {
            if (cgp_twword_state(w) == CGP_TW_FREE) {
                if (!cgp_tw_step(e, &w, CGP_TWE_TAKE, t, 0, pid))
                    continue;
                *ticket = t;
                atomic_compare_exchange_strong(&q->tail, &t, t + 1); /* t is reloaded if it fails */
                return 0;
            }
            atomic_compare_exchange_strong(&q->tail, &t, t + 1); /* taken: help it on */
            continue;
        }
        if (atomic_load(&q->tail) != t)
            continue;
        if (!older(w, t)) { /* ticket t was taken and is done already */
            atomic_compare_exchange_strong(&q->tail, &t, t + 1);
            continue;
        }
        if (cgp_twword_state(w) == CGP_TW_FREE) { /* free since a skipped ticket */
            if (cgp_tw_step(e, &w, CGP_TWE_TAKE, t, 0, pid)) {
                *ticket = t;
                atomic_compare_exchange_strong(&q->tail, &t, t + 1);
                return 0;
            }
            continue;
        }
        /* The entry still serves a ticket of a lap ago (its waiter slow to
         * take what it was handed): ticket t is skipped rather than the
         * queue stopped; the entry serves a later lap once it is free. */
        if (++skipped >= tq->size) {
            atomic_fetch_sub(&q->queued, 1);
            return -1;
        }
        atomic_compare_exchange_strong(&q->tail, &t, t + 1);
    }
}

unsigned cgp_tq_look(const cgp_tq *tq, uint32_t ticket, uint32_t *slot, uint32_t *wk)
{
    cgp_twait *e = cgp_tq_entry(tq, ticket);
    uint64_t w;

    *wk = atomic_load(&e->wake);
    w = atomic_load(&e->word);
    if (!same_ticket(w, ticket))
        return CGP_TW_FREE;
    *slot = cgp_twword_slot(w);
    return cgp_twword_state(w);
}

int cgp_tq_cancel(const cgp_tq *tq, uint32_t ticket)
{
    cgp_twait *e = cgp_tq_entry(tq, ticket);
    uint64_t w = atomic_load(&e->word);

    while (same_ticket(w, ticket) && cgp_twword_state(w) == CGP_TW_WAITING)
        if (cgp_tw_step(e, &w, CGP_TWE_CANCEL, next_ticket(tq, ticket), 0, 0)) {
            atomic_fetch_sub(&tq->q->queued, 1);
            tq_head(tq);
            return 1;
        }
    return 0;
}

int cgp_tq_accept(const cgp_tq *tq, uint32_t ticket, unsigned ev, uint32_t to_pid,
                  uint32_t *slot, uint32_t *gen)
{
    cgp_twait *e = cgp_tq_entry(tq, ticket);
    uint64_t w = atomic_load(&e->word), sw;
    uint32_t t = ticket & CGP_TW_MASK;
    int ok = 0;

    if (!same_ticket(w, ticket) || cgp_twword_state(w) != CGP_TW_HANDED)
        return 0;
    *slot = cgp_twword_slot(w);
    if (*slot < CGP_TABLE_SLOTS) {
        cgp_tslot *s = cgp_table_slot(tq->base, *slot);

        sw = atomic_load(&s->word);
        *gen = cgp_tword_gen(sw);
        ok = cgp_tword_state(sw) == CGP_TS_OFFERED && cgp_tword_pid(sw) == t &&
             cgp_tslot_step(s, CGP_TS_OFFERED, *gen, t, ev, to_pid);
    }
    cgp_tw_step(e, &w, CGP_TWE_DONE, next_ticket(tq, ticket), 0, 0);
    return ok;
}

void cgp_tq_relayed(const cgp_tq *tq, uint32_t ticket)
{
    cgp_twait *e = cgp_tq_entry(tq, ticket);
    uint64_t w = atomic_load(&e->word);

    if (same_ticket(w, ticket) && cgp_twword_state(w) == CGP_TW_RELAY)
        cgp_tw_step(e, &w, CGP_TWE_DONE, next_ticket(tq, ticket), 0, 0);
}

int cgp_tq_hand(const cgp_tq *tq, uint64_t w, uint32_t sidx, uint32_t runner_pid)
{
    cgp_twait *e = cgp_tq_entry(tq, cgp_twword_ticket(w));

    if (!cgp_tw_step(e, &w, CGP_TWE_HAND, cgp_twword_ticket(w), sidx, cgp_twword_pid(w)))
        return 0;
    atomic_fetch_sub(&tq->q->queued, 1);
    tq_head(tq);
    if (cgp_twword_pid(w) != (runner_pid & CGP_TW_MASK))
        wake(e);
    return 1;
}

int cgp_tq_pass(const cgp_tq *tq, uint32_t sidx, uint32_t gen, unsigned held,
                uint32_t pid, uint32_t offerer, uint32_t runner_pid, uint32_t *ticket)
{
    cgp_tslot *s = cgp_table_slot(tq->base, sidx);
    int child = held == CGP_TS_CHILD;
    uint32_t holder = child ? pid : 0;

    for (;;) {
        uint64_t w = tq_head(tq);
        uint32_t t;

        if (!w) {
            if (!cgp_tslot_step(s, held, gen, holder, child ? CGP_TE_RELEASE : CGP_TE_PUBLISH, 0))
                return CGP_TQ_LOST;
            if (!tq_head(tq) || !cgp_tslot_step(s, CGP_TS_IDLE, gen, 0, child ? CGP_TE_CLAIM_CHILD
                                                : CGP_TE_CLAIM_RUNNER, holder))
                return CGP_TQ_IDLE;
            continue; /* a waiter came meanwhile, and the worker is ours again */
        }
        t = cgp_twword_ticket(w);
        /* The slot first, naming the ticket: an offer half made is read
         * from the slot alone (its offerer, its ticket). */
        atomic_store(&s->offer_pid, offerer);
        if (!cgp_tslot_step(s, held, gen, holder, CGP_TE_OFFER, t))
            return CGP_TQ_LOST;
        if (cgp_tq_hand(tq, w, sidx, runner_pid)) {
            *ticket = t;
            return cgp_twword_pid(w) == (runner_pid & CGP_TW_MASK) ? CGP_TQ_TO_RUNNER
                                                                   : CGP_TQ_HANDED;
        }
        /* it left meanwhile: the worker comes back, for the next one */
        if (!cgp_tslot_step(s, CGP_TS_OFFERED, gen, t, child ? CGP_TE_ACCEPT : CGP_TE_TAKE_BACK,
                            holder))
            return CGP_TQ_LOST;
    }
}

uint64_t cgp_tq_oldest(const cgp_tq *tq, uint32_t pid, uint32_t not_pid)
{
    uint32_t h = atomic_load(&tq->q->head), t = atomic_load(&tq->q->tail);
    uint32_t span = (t - h) & CGP_TW_MASK, best = span;
    uint64_t found = 0;

    /* The entries from the head's on, each once: within a lap they are the
     * tickets in order (the first found is the oldest); past a lap (skipped
     * tickets) the ticket nearest the head is kept. */
    for (uint32_t k = 0; k < span && k < tq->size; k++) {
        uint64_t w = atomic_load(&cgp_tq_entry(tq, h + k)->word);
        uint32_t wp = cgp_twword_pid(w), d = (cgp_twword_ticket(w) - h) & CGP_TW_MASK;

        if (cgp_twword_state(w) == CGP_TW_WAITING && d < best &&
            (pid ? wp == (pid & CGP_TW_MASK) : wp != (not_pid & CGP_TW_MASK))) {
            found = w;
            best = d;
            if (span <= tq->size)
                break;
        }
    }
    return found;
}

int cgp_tq_relay(const cgp_tq *tq, uint64_t w)
{
    cgp_twait *e = cgp_tq_entry(tq, cgp_twword_ticket(w));

    if (!cgp_tw_step(e, &w, CGP_TWE_RELAY, cgp_twword_ticket(w), 0, cgp_twword_pid(w)))
        return 0;
    atomic_fetch_sub(&tq->q->queued, 1);
    tq_head(tq);
    wake(e);
    return 1;
}

void cgp_tq_sleep(const cgp_tq *tq, uint32_t ticket, uint32_t wk, unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

    syscall(SYS_futex, (uint32_t *)&cgp_tq_entry(tq, ticket)->wake, FUTEX_WAIT, wk, &ts,
            NULL, 0);
}
