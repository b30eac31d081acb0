/* cgp_table.h: the direct path's shared table (docs/PROTOCOL.md, part 1,
 * "The direct path"). The runner makes it (one sealed memfd, never named)
 * and hands it to each httpd child; both map it shared. It is memory of one
 * machine, not a byte stream: native byte order, fixed offsets (checked
 * below), every field that changes a C11 atomic; the state word, flags and
 * counters are accessed seq_cst, the status page's URI relaxed. */
#ifndef CGP_TABLE_H
#define CGP_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define CGP_TABLE_MAGIC   0x43475054u /* "CGPT" */
#define CGP_TABLE_VERSION 4u
#define CGP_TABLE_POOLS   256u
#define CGP_TABLE_SLOTS   16384u /* 64 a pool, the largest default CGIplusMaxWorkers */
#define CGP_TABLE_WAITS   131072u /* waiter entries, cut into one ring per pool */
#define CGP_TWAIT_RING_MAX 4096u /* the largest ring: at most this many wait in the table */

/* Written once by the runner before it seals the memfd. 64 bytes. */
typedef struct cgp_table_hdr {
    uint32_t magic, version;
    uint32_t hdr_size, pool_size, slot_size;
    uint32_t npools, nslots;
    uint32_t runner_pid;
    uint64_t size;            /* bytes of the whole table */
    uint32_t queue_size, wait_size, nwaits;
    uint8_t pad[12];
} cgp_table_hdr;

/* One pool. gen 0: free. The runner writes everything but last_used and
 * the counters, which the children bump. 256 bytes. */
#define CGP_TPOOL_OUTCOMES 16u
typedef struct cgp_tpool {
    _Atomic uint32_t gen;        /* bumped whenever the entry changes hands */
    _Atomic uint32_t flags;      /* CGP_TP_* */
    uint32_t pad0;
    _Atomic uint32_t first_slot; /* the pool's block of slots... */
    _Atomic uint32_t nslots;     /* ...max_workers long */
    _Atomic uint32_t max_requests; /* 0: no limit */
    _Atomic uint32_t tmo_output, tmo_noprogress; /* ms, 0: none */
    _Atomic uint64_t last_used;  /* monotonic ms of the last direct request */
    _Atomic uint64_t served;     /* requests answered well on the direct path (no error cause) */
    /* The script file the current workers run; a request whose file
     * differs goes through the runner, which rolls the pool over. */
    _Atomic uint64_t ident_dev, ident_ino, ident_size, ident_mtime_us, ident_ctime_us;
    _Atomic uint64_t requests;   /* direct requests that got a worker */
    _Atomic uint64_t outcomes[CGP_TPOOL_OUTCOMES]; /* ...by how they ended (cgp_cause) */
    /* Workers busy with a request now, on either path: whoever moves a slot
     * to CHILD adds one (a child's claim or accepted offer, the runner's
     * GRANT), whoever moves
     * it out of CHILD takes it away; the runner adds its relayed ones. */
    _Atomic int32_t active;
    _Atomic uint32_t max_active; /* the most at once (php-fpm's max active processes) */
    _Atomic uint32_t slow_ms;    /* the runner's slow_request, 0: none */
    uint32_t pad32;
    _Atomic uint64_t slow;       /* direct requests longer than slow_ms on their worker */
    _Atomic uint64_t scripts_other; /* an engine's requests past its CGP_TSCRIPTS scripts */
} cgp_tpool;

#define CGP_TP_DIRECT  1u /* the pool may be used directly (ident is valid) */

/* One worker slot. 128 bytes, two cache lines: the first is touched by
 * every claim and release, the second only for the status page. */
#define CGP_TSLOT_URI 64u
typedef struct cgp_tslot {
    _Atomic uint64_t word;       /* state << 56 | generation << 32 | holder pid */
    _Atomic uint64_t served;     /* requests this worker finished while wanted, both paths */
    _Atomic uint64_t last_ms;    /* monotonic ms it was last released */
    _Atomic int64_t lifetime;    /* LIFETIME callout: 0 the pool's, -1 none, >0 ms */
    _Atomic uint32_t flags;      /* CGP_TS_* */
    _Atomic uint32_t worker_pid;
    _Atomic uint32_t drain_ms;   /* RETURNED with CGP_TS_DRAIN: the bound */
    _Atomic uint32_t exit_status; /* its wait status, stored before the word says DEAD */
    _Atomic uint64_t claimed_ms; /* monotonic ms a child claimed it */
    _Atomic uint32_t offer_pid;  /* OFFERED: the process that offered it (its holder before) */
    _Atomic uint32_t fcgi_reqid; /* FastCGI: the id of the request last written to it */
    /* The first 64 bytes of the URI a child serves on it, 8 to a word
     * (NUL-padded), for the status page. */
    _Atomic uint64_t uri[CGP_TSLOT_URI / 8];
} cgp_tslot;

/* The FastCGI request id after cur: one more, 2..65535. Never 1, which
 * nginx and mod_fcgid always ask, so an application that answers 1
 * whatever it is asked is still understood (CGP_TS_FCGI_ONE). */
static inline uint16_t cgp_fcgi_reqid_next(uint32_t cur)
{
    return (uint16_t)(cur >= 2u && cur < 65535u ? cur + 1u : 2u);
}

/* The FastCGI request id of the next request on s (its holder's),
 * stored before BEGIN_REQUEST goes out. Records a worker (a forked child,
 * a thread) writes late for an earlier request then carry another id than
 * the one in flight: a protocol error, never the answer of the request
 * they land in. */
static inline uint16_t cgp_tslot_fcgi_next(cgp_tslot *s)
{
    uint16_t id = cgp_fcgi_reqid_next(atomic_load(&s->fcgi_reqid));

    atomic_store(&s->fcgi_reqid, id);
    return id;
}

/* Slot states (docs/DESIGN.md, "Who owns a worker"). */
enum cgp_tstate {
    CGP_TS_EMPTY = 0,    /* no worker */
    CGP_TS_IDLE = 1,     /* free: the runner or any child may CAS it */
    CGP_TS_CHILD = 2,    /* claimed by the httpd child whose pid is in the word */
    CGP_TS_RUNNER = 3,   /* the runner relays on it, starts or stops it */
    CGP_TS_RETURNED = 4, /* handed back by a child: the runner decides */
    CGP_TS_DEAD = 5,     /* the worker is gone */
    CGP_TS_OFFERED = 6   /* clean, offered to the waiter whose ticket is in the word */
};

/* Slot flags. */
#define CGP_TS_STRUCT 2u  /* "CGIPLUS: struct": records in struct mode */
#define CGP_TS_RETIRE 4u  /* the runner wants it back after this request */
#define CGP_TS_KILL   8u  /* RETURNED: stop it (timeout, broken) */
#define CGP_TS_DRAIN  16u /* RETURNED: mid-response; drain to its sentinel, reuse */
#define CGP_TS_EOF    32u /* RETURNED: it closed its stdout (it is dying): reap it */
#define CGP_TS_BROKEN 64u /* RETURNED: it broke the protocol (answers unread): stop it */
#define CGP_TS_NOABORT 128u /* with DRAIN: Script-Control no-abort, an orphan as relayed */
#define CGP_TS_READY  256u /* its ready line was taken since its last record: the next
                            * goes out whole (cgp_ready.h); set by the holder, cleared
                            * by whoever sends the next record */
#define CGP_TS_ONESHOT 512u /* a FastCGI application that closes its connection after each
                            * request (learnt): whoever ends one hands the worker back
                            * (RETURNED + EOF) for a new connection */
#define CGP_TS_FCGI_USED 1024u /* FastCGI: a request was written on its current connection
                            * (set by the writer; cleared by the runner with a new one) */
#define CGP_TS_FCGI_KEPT 2048u /* FastCGI: it took a request's BEGIN_REQUEST on a connection
                            * that had carried one already: it keeps its connections, and a
                            * request on a used one goes out whole (docs/PROTOCOL.md) */
#define CGP_TS_FCGI_ONE 4096u /* FastCGI: it ended its first request with id 1 though asked
                            * another (learnt by the runner, which relays every first
                            * request): its records of id 1 pass for the request in flight.
                            * Without it they break the protocol, so that a process a script
                            * left holding the kept connection cannot answer another
                            * client's request as "1" (t/59_php_leftover_inject.t) */
#define CGP_TS_FCGI_UNTAKEN 8192u /* FastCGI per request: it exited with the holder's
                            * connection unaccepted (set by the runner at its reap, before
                            * that connection is closed): the holder's request never
                            * reached it and goes to the runner */

#define CGP_TGEN_MASK 0xffffffu

static inline uint64_t cgp_tword(unsigned state, uint32_t gen, uint32_t pid)
{
    return (uint64_t)state << 56 | (uint64_t)(gen & CGP_TGEN_MASK) << 32 | pid;
}
static inline unsigned cgp_tword_state(uint64_t w) { return (unsigned)(w >> 56); }
static inline uint32_t cgp_tword_gen(uint64_t w) { return (uint32_t)(w >> 32) & CGP_TGEN_MASK; }
static inline uint32_t cgp_tword_pid(uint64_t w) { return (uint32_t)w; }

/* What happens to a slot, and who may do it. */
enum cgp_tevent {
    CGP_TE_CLAIM_CHILD,  /* child: takes a free worker */
    CGP_TE_CLAIM_RUNNER, /* runner: takes a free worker (to relay, stop, drain) */
    CGP_TE_RELEASE,      /* child: done, the worker is clean */
    CGP_TE_HAND_BACK,    /* child: done, the runner must decide (flags say what) */
    CGP_TE_TAKE_BACK,    /* runner: takes a handed-back worker, or a dead child's */
    CGP_TE_PUBLISH,      /* runner: an idle worker it holds becomes free */
    CGP_TE_FILL,         /* runner: a new worker in a free slot, with a new generation */
    CGP_TE_REAP,         /* runner: the worker is gone, whoever held it */
    CGP_TE_CLEAR,        /* runner: the slot starts a new pool's block, empty */
    CGP_TE_OFFER,        /* its holder: a clean worker, to the oldest waiter (the ticket) */
    CGP_TE_ACCEPT,       /* the waiter (or the offerer, taking it back): OFFERED -> CHILD */
    CGP_TE_N_
};

/* The slot's state machine, in one place: [state][event] -> new state,
 * 0xff where the event cannot happen. Every change, the runner's own
 * included, is a CAS through cgp_tslot_step(), so a holder whose
 * generation or pid is stale changes nothing; only FILL bumps the
 * generation, and only the runner fills, reaps or clears. */
static inline unsigned cgp_tnext(unsigned state, unsigned ev)
{
    enum { E = CGP_TS_EMPTY, I = CGP_TS_IDLE, C = CGP_TS_CHILD, R = CGP_TS_RUNNER,
           B = CGP_TS_RETURNED, D = CGP_TS_DEAD, O = CGP_TS_OFFERED, X = 0xff };
    static const unsigned char t[7][CGP_TE_N_] = {
        /* CC CLAIM_CHILD, CR CLAIM_RUNNER, RL RELEASE, HB HAND_BACK, TB TAKE_BACK,
         * PB PUBLISH, FL FILL, RP REAP, CL CLEAR, OF OFFER, AC ACCEPT */
        /*               CC CR RL HB TB PB FL RP CL OF AC */
        /* EMPTY */    { X, X, X, X, X, X, R, X, E, X, X },
        /* IDLE */     { C, R, X, X, X, X, X, D, X, X, X },
        /* CHILD */    { X, X, I, B, R, X, X, D, X, O, X },
        /* RUNNER */   { X, X, X, X, X, I, X, D, X, O, X },
        /* RETURNED */ { X, X, X, X, R, X, X, D, X, X, X },
        /* DEAD */     { X, X, X, X, X, X, R, X, E, X, X },
        /* OFFERED */  { X, X, X, X, R, X, X, D, X, X, C },
    };
    return state < 7 && ev < CGP_TE_N_ ? t[state][ev] : 0xff;
}

/* Applies ev to the slot if it is in state `from` with generation gen and
 * holder pid: 1 if it did (the holder becomes to_pid), 0 if the slot had
 * moved on. The only writer of a slot's word, in the runner and in the
 * children. */
static inline int cgp_tslot_step(cgp_tslot *s, unsigned from, uint32_t gen, uint32_t pid,
                                 unsigned ev, uint32_t to_pid)
{
    unsigned to = cgp_tnext(from, ev);
    uint64_t expect = cgp_tword(from, gen, pid);
    uint32_t to_gen = ev == CGP_TE_FILL ? gen % CGP_TGEN_MASK + 1 : gen; /* 1.. the mask */

    if (to == 0xff)
        return 0;
    return atomic_compare_exchange_strong(&s->word, &expect, cgp_tword(to, to_gen, to_pid));
}

/* Adds delta to the pool's busy count, and raises its peak: +1 by whoever
 * moves a slot to CHILD or relays on a worker, -1 when that ends. */
static inline void cgp_tpool_busy(cgp_tpool *t, int32_t delta)
{
    int32_t v = atomic_fetch_add(&t->active, delta) + delta;
    uint32_t peak = atomic_load(&t->max_active);

    while (delta > 0 && v > 0 && (uint32_t)v > peak &&
           !atomic_compare_exchange_weak(&t->max_active, &peak, (uint32_t)v))
        ;
}


/* A pool's queue of waiting requests (docs/DESIGN.md, "Waiting in the
 * table"): tickets taken at the tail, served from the head, each ticket an
 * entry of the pool's ring. The runner sets the ring up with the pool and
 * writes depth, wait_ms and flags; the tickets are everyone's. 64 bytes. */
typedef struct cgp_tqueue {
    _Atomic uint32_t head;    /* the oldest ticket that may still wait */
    _Atomic uint32_t tail;    /* the next ticket */
    _Atomic uint32_t queued;  /* tickets waiting now (children's and the runner's) */
    _Atomic uint32_t qmax;    /* the most that waited at once */
    _Atomic uint32_t first;   /* the ring: waiter entries [first, first + size) */
    _Atomic uint32_t size;    /* a power of two; 0: no ring */
    _Atomic uint32_t depth;   /* CGIplusQueueDepth */
    _Atomic uint32_t wait_ms; /* CGIplusQueueWait, 0: no limit */
    _Atomic uint32_t flags;   /* CGP_TQ_* */
    _Atomic uint32_t reached; /* times a first waiter found the pool at max_workers */
    uint8_t pad[24];
} cgp_tqueue;

#define CGP_TQ_GROW   1u /* the runner may start workers: a new waiter tells it (KICK) */
#define CGP_TQ_KICKED 2u /* a waiter told it; cleared when the runner has looked */
#define CGP_TQ_FULL   4u /* the pool has all the workers it may: waiting counts max reached */

/* One ticket's entry. word: state (4 bits) | slot (16) | ticket (22) | pid
 * (22) of the process that waits, all changed by one CAS. wake is the
 * futex its waiter sleeps on, bumped whenever the word changes for it.
 * 16 bytes. */
typedef struct cgp_twait {
    _Atomic uint64_t word;
    _Atomic uint32_t wake;
    uint32_t pad;
} cgp_twait;

/* Waiter entry states. FREE carries the ticket it will take next. */
enum cgp_twstate {
    CGP_TW_FREE = 0,
    CGP_TW_WAITING = 1, /* the pid waits for a worker */
    CGP_TW_HANDED = 2,  /* the slot in the word is OFFERED to it: it takes it */
    CGP_TW_RELAY = 3    /* the runner asks it to send its request through the runner */
};

#define CGP_TW_MASK 0x3fffffu /* tickets and pids: 22 bits (Linux's PID_MAX_LIMIT) */

static inline uint64_t cgp_twword(unsigned st, uint32_t ticket, uint32_t slot, uint32_t pid)
{
    return (uint64_t)(st & 0xf) | (uint64_t)(slot & 0xffff) << 4 |
           (uint64_t)(ticket & CGP_TW_MASK) << 20 | (uint64_t)(pid & CGP_TW_MASK) << 42;
}
static inline unsigned cgp_twword_state(uint64_t w) { return (unsigned)(w & 0xf); }
static inline uint32_t cgp_twword_slot(uint64_t w) { return (uint32_t)(w >> 4) & 0xffff; }
static inline uint32_t cgp_twword_ticket(uint64_t w) { return (uint32_t)(w >> 20) & CGP_TW_MASK; }
static inline uint32_t cgp_twword_pid(uint64_t w) { return (uint32_t)(w >> 42) & CGP_TW_MASK; }

/* One script an engine pool ran (its requests that got a worker, both
 * paths): made by whoever counts its first request, CGP_TSCRIPTS a pool,
 * cleared with the pool's entry. key 0: free. 128 bytes. */
#define CGP_TSCRIPTS 16u
#define CGP_TSCRIPT_NAME 104u
typedef struct cgp_tscript {
    _Atomic uint64_t key;        /* FNV-1a of the path, never 0 */
    _Atomic uint64_t requests;
    _Atomic uint32_t named;      /* 0: name not yet written, 1: whole, 2: its tail */
    uint32_t pad;
    /* the path (its last 103 bytes if longer), NUL-padded, 8 to a word */
    _Atomic uint64_t name[CGP_TSCRIPT_NAME / 8];
} cgp_tscript;

/* The layout: header, pools, slots, queues, waiter entries, scripts. */
#define CGP_TABLE_POOL_OFF  sizeof(cgp_table_hdr)
#define CGP_TABLE_SLOT_OFF  (CGP_TABLE_POOL_OFF + CGP_TABLE_POOLS * sizeof(cgp_tpool))
#define CGP_TABLE_QUEUE_OFF (CGP_TABLE_SLOT_OFF + CGP_TABLE_SLOTS * sizeof(cgp_tslot))
#define CGP_TABLE_WAIT_OFF  (CGP_TABLE_QUEUE_OFF + CGP_TABLE_POOLS * sizeof(cgp_tqueue))
#define CGP_TABLE_SCRIPT_OFF (CGP_TABLE_WAIT_OFF + CGP_TABLE_WAITS * sizeof(cgp_twait))
#define CGP_TABLE_SIZE      (CGP_TABLE_SCRIPT_OFF + \
                             CGP_TABLE_POOLS * CGP_TSCRIPTS * sizeof(cgp_tscript))

_Static_assert(sizeof(cgp_table_hdr) == 64, "table header is 64 bytes");
_Static_assert(sizeof(cgp_tpool) == 256, "pool entry is 256 bytes");
_Static_assert(sizeof(cgp_tslot) == 128, "slot is 128 bytes");
_Static_assert(offsetof(cgp_tpool, last_used) == 32, "pool entry layout");
_Static_assert(offsetof(cgp_tslot, flags) == 32, "slot layout");
_Static_assert(sizeof(cgp_tqueue) == 64, "queue is 64 bytes");
_Static_assert(sizeof(cgp_twait) == 16, "waiter entry is 16 bytes");
_Static_assert(sizeof(cgp_tscript) == 128, "script entry is 128 bytes");
_Static_assert(CGP_TABLE_SLOTS <= 0x10000, "a slot index fits a waiter entry");

static inline cgp_tpool *cgp_table_pool(void *base, uint32_t i)
{
    return (cgp_tpool *)((char *)base + CGP_TABLE_POOL_OFF) + i;
}
static inline cgp_tslot *cgp_table_slot(void *base, uint32_t i)
{
    return (cgp_tslot *)((char *)base + CGP_TABLE_SLOT_OFF) + i;
}
static inline cgp_tqueue *cgp_table_queue(void *base, uint32_t i)
{
    return (cgp_tqueue *)((char *)base + CGP_TABLE_QUEUE_OFF) + i;
}
static inline cgp_twait *cgp_table_wait(void *base, uint32_t i)
{
    return (cgp_twait *)((char *)base + CGP_TABLE_WAIT_OFF) + i;
}
/* Pool i's CGP_TSCRIPTS script entries. */
static inline cgp_tscript *cgp_table_scripts(void *base, uint32_t i)
{
    return (cgp_tscript *)((char *)base + CGP_TABLE_SCRIPT_OFF) + (size_t)i * CGP_TSCRIPTS;
}

static inline uint64_t cgp_tscript_key(const char *path, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)path[i]) * UINT64_C(1099511628211);
    return h ? h : 1;
}

/* Adds delta to the requests of script path[0..n) in pool i's entries
 * (an engine's: the request's SCRIPT_FILENAME): its entry, made and named
 * at its first request; past CGP_TSCRIPTS scripts, the pool's
 * scripts_other. */
static inline void cgp_tscript_add(void *base, uint32_t i, const char *path, size_t n,
                                   int64_t delta)
{
    cgp_tscript *e = cgp_table_scripts(base, i);
    uint64_t key = cgp_tscript_key(path, n);

    for (unsigned k = 0; k < CGP_TSCRIPTS; k++, e++) {
        uint64_t cur = atomic_load(&e->key);

        if (cur == 0 && atomic_compare_exchange_strong(&e->key, &cur, key)) {
            char name[CGP_TSCRIPT_NAME] = { 0 };
            size_t keep = n < CGP_TSCRIPT_NAME - 1 ? n : CGP_TSCRIPT_NAME - 1;
            uint64_t w;

            for (size_t b = 0; b < keep; b++)
                name[b] = path[n - keep + b];
            for (unsigned j = 0; j < CGP_TSCRIPT_NAME / 8; j++) {
                w = 0;
                for (unsigned b = 0; b < 8; b++)
                    w |= (uint64_t)(unsigned char)name[j * 8 + b] << (8 * b);
                atomic_store_explicit(&e->name[j], w, memory_order_relaxed);
            }
            atomic_store(&e->named, keep < n ? 2u : 1u);
            cur = key;
        }
        if (cur == key) {
            atomic_fetch_add(&e->requests, (uint64_t)delta);
            return;
        }
    }
    atomic_fetch_add(&cgp_table_pool(base, i)->scripts_other, (uint64_t)delta);
}

#endif
