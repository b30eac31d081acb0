/* cgp_twait.h: the table's queue of waiting requests (docs/DESIGN.md,
 * "Waiting in the table"), one algorithm for the module and the runner
 * (common/cgp_twait.c). A request that finds no idle worker takes a
 * ticket; whoever frees a clean worker offers it to the oldest ticket
 * (slot -> OFFERED(ticket)), marks that entry HANDED with the slot and
 * wakes its waiter (a futex on the shared mapping), which takes the slot
 * (OFFERED -> CHILD). Every step is one CAS on one word, so a party with a
 * stale view changes nothing, and what a dead party leaves half done is
 * read from the table alone (the runner finishes it, runner_twait.c). */
#ifndef CGP_TWAIT_H
#define CGP_TWAIT_H

#include "cgp_table.h"

/* What happens to a waiter entry (enum cgp_twstate in cgp_table.h). */
enum cgp_twevent {
    CGP_TWE_TAKE,   /* a request takes the ticket of a FREE entry: WAITING */
    CGP_TWE_CANCEL, /* it leaves: FREE, for the ticket one ring later */
    CGP_TWE_HAND,   /* a worker is OFFERED to it: HANDED, with the slot */
    CGP_TWE_RELAY,  /* the runner asks it to come through the runner */
    CGP_TWE_DONE,   /* the handed worker taken (or not), the relay begun: FREE */
    CGP_TWE_N_
};

/* The entry's state machine: [state][event] -> new state, 0xff where the
 * event cannot happen. Every change is a CAS through cgp_tw_step(), so a
 * party whose view of the entry is stale changes nothing. */
static inline unsigned cgp_twnext(unsigned state, unsigned ev)
{
    enum { F = CGP_TW_FREE, W = CGP_TW_WAITING, H = CGP_TW_HANDED, R = CGP_TW_RELAY, X = 0xff };
    static const unsigned char t[4][CGP_TWE_N_] = {
        /*            TAKE CANCEL HAND RELAY DONE */
        /* FREE */    { W,   X,     X,   X,    X },
        /* WAITING */ { X,   F,     H,   R,    X },
        /* HANDED */  { X,   X,     X,   X,    F },
        /* RELAY */   { X,   X,     X,   X,    F },
    };
    return state < 4 && ev < CGP_TWE_N_ ? t[state][ev] : 0xff;
}

/* Applies ev to entry e if its word is still *seen: 1 if it did, the new
 * word carrying ticket, slot and pid (a FREE one: the ticket it serves
 * next); 0 with *seen reloaded if the word had changed, or if the table
 * refuses ev. The only writer of an entry's word, but cgp_tq_reset's
 * fresh ring. */
static inline int cgp_tw_step(cgp_twait *e, uint64_t *seen, unsigned ev, uint32_t ticket,
                              uint32_t slot, uint32_t pid)
{
    unsigned to = cgp_twnext(cgp_twword_state(*seen), ev);

    if (to == 0xff)
        return 0;
    return atomic_compare_exchange_strong(&e->word, seen, cgp_twword(to, ticket, slot, pid));
}

/* One pool's queue: its header and its ring, in a mapped table. Filled by
 * cgp_tq_get; a view, owned by nobody. */
typedef struct cgp_tq {
    void *base;               /* the table */
    cgp_tqueue *q;
    cgp_twait *ring;
    uint32_t size;            /* a power of two */
} cgp_tq;

/* What cgp_tq_pass did with the worker. */
enum cgp_tq_passed {
    CGP_TQ_IDLE,      /* nobody waits: it is IDLE, for anyone */
    CGP_TQ_HANDED,    /* a child's waiter has it (OFFERED to its ticket) and is woken */
    CGP_TQ_TO_RUNNER, /* a ticket of the runner has it: the runner must be told (KICK) */
    CGP_TQ_LOST       /* the slot was not the caller's (its holder changed): nothing done */
};

/* The queue of pool entry pidx: 1, or 0 if the pool has no ring (or the
 * ring the table names lies outside it). */
int cgp_tq_get(void *base, uint32_t pidx, cgp_tq *tq);

/* The runner sets a ring up: every entry free for its first ticket. */
void cgp_tq_reset(cgp_tq *tq, uint32_t depth, uint32_t wait_ms);

/* pid takes a ticket: 0 and *ticket, or -1 if CGIplusQueueDepth requests
 * wait already or every entry of the ring is still held. */
int cgp_tq_enqueue(const cgp_tq *tq, uint32_t pid, uint32_t *ticket);

/* The state of ticket's entry (enum cgp_twstate; FREE if it is no longer
 * the ticket's), the slot it was handed, and the futex value to wait on
 * (read before the state: a change after it wakes the waiter). */
unsigned cgp_tq_look(const cgp_tq *tq, uint32_t ticket, uint32_t *slot, uint32_t *wake);

/* Leaves the queue: 1 if it did, 0 if the entry had changed (a worker was
 * handed to it, or the runner asks it to relay): the caller looks again. */
int cgp_tq_cancel(const cgp_tq *tq, uint32_t ticket);

/* Takes the worker handed to ticket (event ev: CGP_TE_ACCEPT to to_pid,
 * or the runner's CGP_TE_TAKE_BACK) and frees the entry: 1 with *slot and
 * *gen, 0 if the slot is not offered to it any more. */
int cgp_tq_accept(const cgp_tq *tq, uint32_t ticket, unsigned ev, uint32_t to_pid,
                  uint32_t *slot, uint32_t *gen);

/* Frees an entry the runner set RELAY (the waiter relays its request). */
void cgp_tq_relayed(const cgp_tq *tq, uint32_t ticket);

/* The clean worker in slot sidx (generation gen), which the caller holds
 * (state held: CHILD with holder pid, or RUNNER), goes to the oldest
 * ticket, or IDLE if none waits. offerer: the caller's pid (the runner
 * finishes an offer whose maker died); runner_pid: the table's runner,
 * whose tickets are not woken by futex. *ticket: the ticket served. */
int cgp_tq_pass(const cgp_tq *tq, uint32_t sidx, uint32_t gen, unsigned held,
                uint32_t pid, uint32_t offerer, uint32_t runner_pid, uint32_t *ticket);

/* Marks ticket's entry (WAITING, as seen in w) HANDED with sidx and
 * wakes its waiter unless it is the runner: 1 if it did. The slot must be
 * OFFERED to the ticket already. */
int cgp_tq_hand(const cgp_tq *tq, uint64_t w, uint32_t sidx, uint32_t runner_pid);

/* The oldest entry WAITING for pid (any pid but not_pid if pid is 0),
 * from the head: its word, or 0 if none. */
uint64_t cgp_tq_oldest(const cgp_tq *tq, uint32_t pid, uint32_t not_pid);

/* Sets a WAITING entry (as seen in w) RELAY and wakes it: 1 if it did. */
int cgp_tq_relay(const cgp_tq *tq, uint64_t w);

/* Sleeps on the entry's futex while it still reads wake, at most ms. */
void cgp_tq_sleep(const cgp_tq *tq, uint32_t ticket, uint32_t wake, unsigned ms);

/* The entry of ticket. */
static inline cgp_twait *cgp_tq_entry(const cgp_tq *tq, uint32_t ticket)
{
    return &tq->ring[ticket & (tq->size - 1)];
}

#endif
