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
#define CGP_TABLE_VERSION 1u
#define CGP_TABLE_POOLS   256u
#define CGP_TABLE_SLOTS   4096u

/* Written once by the runner before it seals the memfd. 64 bytes. */
typedef struct cgp_table_hdr {
    uint32_t magic, version;
    uint32_t hdr_size, pool_size, slot_size;
    uint32_t npools, nslots;
    uint32_t runner_pid;
    uint64_t size;            /* bytes of the whole table */
    uint8_t pad[24];
} cgp_table_hdr;

/* One pool. gen 0: free. The runner writes everything but last_used and
 * the counters, which the children bump. 256 bytes. */
#define CGP_TPOOL_OUTCOMES 16u
typedef struct cgp_tpool {
    _Atomic uint32_t gen;        /* bumped whenever the entry changes hands */
    _Atomic uint32_t flags;      /* CGP_TP_* */
    _Atomic uint32_t waiters;    /* requests in the runner's queue */
    _Atomic uint32_t first_slot; /* the pool's block of slots... */
    _Atomic uint32_t nslots;     /* ...max_workers long */
    _Atomic uint32_t max_requests; /* 0: no limit */
    _Atomic uint32_t tmo_output, tmo_noprogress; /* ms, 0: none */
    _Atomic uint64_t last_used;  /* monotonic ms of the last direct request */
    _Atomic uint64_t served;     /* requests answered on the direct path */
    /* The script file the current workers run; a request whose file
     * differs goes through the runner, which rolls the pool over. */
    _Atomic uint64_t ident_dev, ident_ino, ident_size, ident_mtime_us, ident_ctime_us;
    _Atomic uint64_t requests;   /* direct requests that got a worker */
    _Atomic uint64_t outcomes[CGP_TPOOL_OUTCOMES]; /* ...by how they ended (cgp_outcome) */
    uint8_t pad[4 * 8];
} cgp_tpool;

#define CGP_TP_DIRECT  1u /* the pool may be used directly (ident is valid) */

/* One worker slot. 128 bytes, two cache lines: the first is touched by
 * every claim and release, the second only for the status page. */
#define CGP_TSLOT_URI 64u
typedef struct cgp_tslot {
    _Atomic uint64_t word;       /* state << 56 | generation << 32 | holder pid */
    _Atomic uint64_t served;     /* requests this worker finished, both paths */
    _Atomic uint64_t last_ms;    /* monotonic ms it was last released */
    _Atomic int64_t lifetime;    /* LIFETIME callout: 0 the pool's, -1 none, >0 ms */
    _Atomic uint32_t flags;      /* CGP_TS_* */
    _Atomic uint32_t worker_pid;
    _Atomic uint32_t drain_ms;   /* RETURNED with CGP_TS_DRAIN: the bound */
    _Atomic uint32_t exit_status; /* its wait status, stored before the word says DEAD */
    _Atomic uint64_t claimed_ms; /* monotonic ms a child claimed it */
    uint64_t pad1;
    /* The first 64 bytes of the URI a child serves on it, 8 to a word
     * (NUL-padded), for the status page. */
    _Atomic uint64_t uri[CGP_TSLOT_URI / 8];
} cgp_tslot;

/* Slot states (docs/DESIGN.md, "Who owns a worker"). */
enum cgp_tstate {
    CGP_TS_EMPTY = 0,    /* no worker */
    CGP_TS_IDLE = 1,     /* free: the runner or any child may CAS it */
    CGP_TS_CHILD = 2,    /* claimed by the httpd child whose pid is in the word */
    CGP_TS_RUNNER = 3,   /* the runner relays on it, starts or stops it */
    CGP_TS_RETURNED = 4, /* handed back by a child: the runner decides */
    CGP_TS_DEAD = 5      /* the worker is gone */
};

/* Slot flags. */
#define CGP_TS_STRUCT 2u  /* "CGIPLUS: struct": records in struct mode */
#define CGP_TS_RETIRE 4u  /* the runner wants it back after this request */
#define CGP_TS_KILL   8u  /* RETURNED: stop it (timeout, broken) */
#define CGP_TS_DRAIN  16u /* RETURNED: mid-response; drain to its sentinel, reuse */
#define CGP_TS_EOF    32u /* RETURNED: it closed its stdout (it is dying): reap it */
#define CGP_TS_BROKEN 64u /* RETURNED: it broke the protocol (answers unread): stop it */
#define CGP_TS_NOABORT 128u /* with DRAIN: Script-Control no-abort, an orphan as relayed */

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
    CGP_TE_N_
};

/* The slot's state machine, in one place: [state][event] -> new state,
 * 0xff where the event cannot happen. A new worker (EMPTY/DEAD -> RUNNER)
 * and a reaped one (any -> DEAD) are stores by the runner, which alone
 * bumps the generation; every other change is a CAS through this table,
 * so a holder whose generation or pid is stale changes nothing. */
static inline unsigned cgp_tnext(unsigned state, unsigned ev)
{
    static const unsigned char t[6][CGP_TE_N_] = {
        /*             CLAIM_CHILD   CLAIM_RUNNER  RELEASE      HAND_BACK        TAKE_BACK     PUBLISH */
        /* EMPTY */  { 0xff,         0xff,         0xff,        0xff,            0xff,         0xff },
        /* IDLE */   { CGP_TS_CHILD, CGP_TS_RUNNER, 0xff,       0xff,            0xff,         0xff },
        /* CHILD */  { 0xff,         0xff,         CGP_TS_IDLE, CGP_TS_RETURNED, CGP_TS_RUNNER, 0xff },
        /* RUNNER */ { 0xff,         0xff,         0xff,        0xff,            0xff,         CGP_TS_IDLE },
        /* RETURNED */ { 0xff,       0xff,         0xff,        0xff,            CGP_TS_RUNNER, 0xff },
        /* DEAD */   { 0xff,         0xff,         0xff,        0xff,            0xff,         0xff },
    };
    return state < 6 && ev < CGP_TE_N_ ? t[state][ev] : 0xff;
}

/* Applies ev to the slot if it is in state `from` with generation gen and
 * holder pid: 1 if it did (the holder becomes to_pid), 0 if the slot had
 * moved on. */
static inline int cgp_tslot_step(cgp_tslot *s, unsigned from, uint32_t gen, uint32_t pid,
                                 unsigned ev, uint32_t to_pid)
{
    unsigned to = cgp_tnext(from, ev);
    uint64_t expect = cgp_tword(from, gen, pid);

    if (to == 0xff)
        return 0;
    return atomic_compare_exchange_strong(&s->word, &expect, cgp_tword(to, gen, to_pid));
}


/* The layout: header, pools, slots. */
#define CGP_TABLE_POOL_OFF  sizeof(cgp_table_hdr)
#define CGP_TABLE_SLOT_OFF  (CGP_TABLE_POOL_OFF + CGP_TABLE_POOLS * sizeof(cgp_tpool))
#define CGP_TABLE_SIZE      (CGP_TABLE_SLOT_OFF + CGP_TABLE_SLOTS * sizeof(cgp_tslot))

_Static_assert(sizeof(cgp_table_hdr) == 64, "table header is 64 bytes");
_Static_assert(sizeof(cgp_tpool) == 256, "pool entry is 256 bytes");
_Static_assert(sizeof(cgp_tslot) == 128, "slot is 128 bytes");
_Static_assert(offsetof(cgp_tpool, last_used) == 32, "pool entry layout");
_Static_assert(offsetof(cgp_tslot, flags) == 32, "slot layout");

static inline cgp_tpool *cgp_table_pool(void *base, uint32_t i)
{
    return (cgp_tpool *)((char *)base + CGP_TABLE_POOL_OFF) + i;
}
static inline cgp_tslot *cgp_table_slot(void *base, uint32_t i)
{
    return (cgp_tslot *)((char *)base + CGP_TABLE_SLOT_OFF) + i;
}

#endif
