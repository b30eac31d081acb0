/* test_twait.c: the table's queue (common/cgp_twait.c) under contention:
 * processes of threads share a table as httpd's children do; each request
 * claims an idle worker or waits with a ticket (futex), holds the worker a
 * moment, and passes it on; some waiters give up (a timeout, a client that
 * leaves). Checked: no ticket is given twice, no worker is ever held
 * twice, every waiter is served or leaves, and nothing is left in the
 * ring at the end. Then, on one thread: a ticket handed a worker and slow
 * to take it, or one waiting, while the tail laps the ring, neither stops
 * the queue nor loses its place; a ring whose every entry is held refuses. */
#define _GNU_SOURCE
#include "tap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgp_twait.h"

#define NPROC   4
#define NTHREAD 12
#define NREQ    1000
#define NSLOTS  2

static void *base;
static _Atomic uint32_t *holders;  /* per slot: how many hold it now (shared) */
static _Atomic uint32_t *bad;      /* violations, then the count of waits (shared) */
static _Atomic uint8_t *taken;     /* per ticket: taken once (shared) */
#define MAXT (NPROC * NTHREAD * NREQ)
static uint32_t me;

static void hold(uint32_t sidx)
{
    if (atomic_fetch_add(&holders[sidx], 1) != 0)
        atomic_fetch_add(bad, 1);
    for (volatile int i = 0; i < 200; i++)
        ;
    /* every request takes a while (20 us, more with the timer's slack): the
     * others queue behind it however few of our threads the machine runs */
    struct timespec ts = { 0, 20000 };
    nanosleep(&ts, NULL);
    atomic_fetch_sub(&holders[sidx], 1);
}

static void pass(const cgp_tq *tq, uint32_t sidx, uint32_t gen)
{
    uint32_t t;
    if (cgp_tq_pass(tq, sidx, gen, CGP_TS_CHILD, me, me, 1, &t) == CGP_TQ_LOST)
        atomic_fetch_add(bad, 1);
}

static int claim(uint32_t *sidx, uint32_t *gen)
{
    for (uint32_t i = 0; i < NSLOTS; i++) {
        cgp_tslot *s = cgp_table_slot(base, i);
        uint64_t w = atomic_load(&s->word);
        if (cgp_tword_state(w) == CGP_TS_IDLE &&
            cgp_tslot_step(s, CGP_TS_IDLE, cgp_tword_gen(w), 0, CGP_TE_CLAIM_CHILD, me)) {
            *sidx = i;
            *gen = cgp_tword_gen(w);
            return 1;
        }
    }
    return 0;
}

static void *client(void *arg)
{
    cgp_tq tq;
    unsigned seed = (unsigned)(uintptr_t)arg;

    cgp_tq_get(base, 0, &tq);
    for (int n = 0; n < NREQ; n++) {
        uint32_t sidx, gen, ticket, slot, wk;
        int giveup = rand_r(&seed) % 50 == 0;

        if (atomic_load(&tq.q->queued) == 0 && claim(&sidx, &gen)) {
            hold(sidx);
            pass(&tq, sidx, gen);
            continue;
        }
        if (cgp_tq_enqueue(&tq, me, &ticket) < 0)
            continue; /* full: a 503 */
        atomic_fetch_add(&bad[1], 1);
        if (ticket >= 2 * MAXT || atomic_fetch_add(&taken[ticket], 1) != 0)
            atomic_fetch_add(bad, 1); /* a ticket given twice */
        for (uint32_t i = 0; i < NSLOTS; i++) { /* freed before we queued */
            if (claim(&sidx, &gen))
                pass(&tq, sidx, gen);
        }
        for (;;) {
            unsigned st = cgp_tq_look(&tq, ticket, &slot, &wk);
            if (st == CGP_TW_HANDED) {
                if (!cgp_tq_accept(&tq, ticket, CGP_TE_ACCEPT, me, &sidx, &gen)) {
                    atomic_fetch_add(bad, 1);
                    break;
                }
                hold(sidx);
                pass(&tq, sidx, gen);
                break;
            }
            if (st != CGP_TW_WAITING) {
                atomic_fetch_add(bad, 1);
                break;
            }
            if (giveup && cgp_tq_cancel(&tq, ticket))
                break;
            cgp_tq_sleep(&tq, ticket, wk, giveup ? 1 : 100);
        }
    }
    return NULL;
}

/* Tickets of other requests that come and leave while the tail goes
 * round the ring n times: each is taken (none refused). */
static int churn(const cgp_tq *tq, uint32_t n)
{
    int refused = 0;

    for (uint32_t i = 0; i < n * tq->size; i++) {
        uint32_t t;
        if (cgp_tq_enqueue(tq, 7, &t) < 0)
            refused++;
        else if (!cgp_tq_cancel(tq, t))
            refused += 1000;
    }
    return refused;
}

/* A late taker and a long waiter, while the tail laps the ring (the 503
 * with nobody waiting of docs/RELIABILITY.md). */
static void lapped(cgp_tq *tq)
{
    uint32_t a, b, t, sidx, gen, slot, wk;
    cgp_tslot *s0 = cgp_table_slot(base, 0);

    me = 5;
    cgp_tq_reset(tq, 8, 0);
    atomic_store(&s0->word, cgp_tword(CGP_TS_CHILD, 3, me));
    ok(cgp_tq_enqueue(tq, 6, &a) == 0, "ticket a");
    ok(cgp_tq_pass(tq, 0, 3, CGP_TS_CHILD, me, me, 1, &t) == CGP_TQ_HANDED && t == a,
       "a worker is handed to ticket a");
    is_int(churn(tq, 3), 0, "a handed ticket not yet taken: three laps of the tail, none refused");
    ok(cgp_tq_accept(tq, a, CGP_TE_ACCEPT, 6, &sidx, &gen) && sidx == 0 && gen == 3,
       "ticket a takes its worker after the laps");
    ok(cgp_tq_enqueue(tq, 6, &b) == 0, "ticket b waits");
    is_int(churn(tq, 3), 0, "a waiting ticket: three laps, none refused");
    ok(cgp_tq_oldest(tq, 0, 1) == atomic_load(&cgp_tq_entry(tq, b)->word) &&
       cgp_tq_look(tq, b, &slot, &wk) == CGP_TW_WAITING, "b is still the oldest waiter");
    ok(cgp_tq_enqueue(tq, 8, &t) == 0 && t != b, "a newcomer queues behind b");
    ok(cgp_tq_pass(tq, 0, 3, CGP_TS_CHILD, 6, 6, 1, &a) == CGP_TQ_HANDED && a == b,
       "the next worker freed goes to b, not the newcomer");
    ok(cgp_tq_cancel(tq, t) && cgp_tq_accept(tq, b, CGP_TE_ACCEPT, 6, &sidx, &gen),
       "the newcomer leaves, b takes its worker");
    is_int(churn(tq, 2), 0, "two more laps over entries freed for skipped tickets");
    int left = 0;
    for (uint32_t i = 0; i < tq->size; i++)
        left += cgp_twword_state(atomic_load(&tq->ring[i].word)) != CGP_TW_FREE;
    ok(left == 0 && atomic_load(&tq->q->queued) == 0, "the ring is empty again");
}

/* Every entry of the ring held by a ticket handed a worker not yet taken:
 * the next request is refused (a 503), counting itself out again; once
 * they take their workers the queue serves again. */
static void ring_held(cgp_tq *tq)
{
    uint32_t t[CGP_TWAIT_RING_MAX], got, sidx, gen;
    int handed = 0, taken = 0;

    cgp_tq_reset(tq, 8, 0);
    for (uint32_t i = 0; i < tq->size; i++) {
        cgp_tslot *s = cgp_table_slot(base, 10 + i);

        atomic_store(&s->word, cgp_tword(CGP_TS_CHILD, 1, 5));
        handed += cgp_tq_enqueue(tq, 6, &t[i]) == 0 &&
                  cgp_tq_pass(tq, 10 + i, 1, CGP_TS_CHILD, 5, 5, 1, &got) == CGP_TQ_HANDED &&
                  got == t[i];
    }
    is_int(handed, (int)tq->size, "every ring entry handed a worker, none taken yet");
    ok(cgp_tq_enqueue(tq, 7, &got) < 0 && atomic_load(&tq->q->queued) == 0,
       "the next request is refused, and counts itself out");
    for (uint32_t i = 0; i < tq->size; i++)
        taken += cgp_tq_accept(tq, t[i], CGP_TE_ACCEPT, 6, &sidx, &gen) && sidx == 10 + i;
    is_int(taken, (int)tq->size, "each takes its worker");
    ok(cgp_tq_enqueue(tq, 7, &got) == 0 && cgp_tq_cancel(tq, got), "then a request queues again");
}

int main(void)
{
    size_t shared = 4096 + 2 * MAXT; /* tickets: some may be skipped */
    cgp_tq tq;

    base = mmap(NULL, CGP_TABLE_SIZE + shared, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return 2;
    holders = (void *)((char *)base + CGP_TABLE_SIZE);
    bad = holders + NSLOTS;
    taken = (void *)(bad + 2);
    cgp_tqueue *q = cgp_table_queue(base, 0);
    atomic_store(&q->first, 0);
    atomic_store(&q->size, 64);
    ok(cgp_tq_get(base, 0, &tq), "the pool has a ring");
    cgp_tq_reset(&tq, 40, 0);
    for (uint32_t i = 0; i < NSLOTS; i++)
        atomic_store(&cgp_table_slot(base, i)->word, cgp_tword(CGP_TS_IDLE, 1, 0));

    pid_t kids[NPROC];
    for (int p = 0; p < NPROC; p++) {
        if ((kids[p] = fork()) == 0) {
            pthread_t th[NTHREAD];
            me = (uint32_t)getpid();
            srand(me);
            for (int i = 0; i < NTHREAD; i++)
                pthread_create(&th[i], NULL, client, (void *)(uintptr_t)(me * 100 + i));
            for (int i = 0; i < NTHREAD; i++)
                pthread_join(th[i], NULL);
            _exit(0);
        }
    }
    int clean = 1;
    for (int p = 0; p < NPROC; p++) {
        int st;
        waitpid(kids[p], &st, 0);
        clean &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    ok(clean, "every process finished");
    ok(atomic_load(&bad[1]) > NPROC * NTHREAD * NREQ / 4, "requests waited with tickets (%u)",
       (unsigned)atomic_load(&bad[1]));
    is_int(atomic_load(bad), 0, "no ticket given twice, no worker held twice, none lost");
    is_int(atomic_load(&q->queued), 0, "nobody waits at the end");
    int left = 0;
    for (uint32_t i = 0; i < tq.size; i++)
        left += cgp_twword_state(atomic_load(&tq.ring[i].word)) != CGP_TW_FREE;
    is_int(left, 0, "every ring entry is free");
    int idle = 0;
    for (uint32_t i = 0; i < NSLOTS; i++)
        idle += cgp_tword_state(atomic_load(&cgp_table_slot(base, i)->word)) == CGP_TS_IDLE;
    is_int(idle, NSLOTS, "every worker is idle");
    lapped(&tq);
    ring_held(&tq);
    return tap_done();
}
