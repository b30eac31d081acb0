/* runner_pool.h: pools, one per (script, mode, settings) (runner_pool.c). */
#ifndef RUNNER_POOL_H
#define RUNNER_POOL_H

#include "runner_types.h"
#include "runner_conf.h"
#include "runner_end.h"
#include "runner_loop.h"
#include "runner_watch.h"
#include "runner_stamp.h"
#include "runner_heap.h"
#include "runner_htab.h"
#include "cgp_proto.h"

#define RUNNER_SETTLE_MS        200u    /* a script changed in place must be still this long */
#define RUNNER_CONVERT_MS       1000u   /* a waiter asked to relay is counted on this long */

/* One (script, mode, settings) pool. Owned by runner_g.pools; freed when it
 * is empty and retired or unused for pool_idle. */
struct runner_pool {
    char *script;             /* absolute path */
    char *dir;                /* its directory: the workers' cwd */
    char *site;               /* BEGIN's site (an engine's virtual host); NULL: any */
    struct runner_domain *domain; /* its processes' Landlock domain (runner_domain.c) */
    runner_mode mode;
    runner_pool_set set;
    const runner_wowner *owner; /* what its workers tell it (runner_pool.c) */
    uint64_t id;              /* numbered in creation order */
    struct runner_worker_list workers;
    unsigned nworkers;        /* live processes, dying ones included */
    struct runner_req_list queue; /* FIFO of requests waiting for a worker */
    unsigned qlen, qmax;
    uint64_t held;            /* PARAMS bytes of its requests not on a worker */
    int retired;              /* superseded or unused: drains, keeps nobody warm */
    int as_cgi;               /* its script does not speak CGIplus: plain CGI runs */
    int begin_noted;          /* logged that its [pool] section sets requests' settings aside */
    int waits_slot;           /* in runner_g.slot_waiters */
    unsigned gen;             /* script generation: bumped when the file changes */
    runner_stamp use;         /* which configuration used it last, and when */
    runner_pwatch watch;      /* inotify on the names leading to script, and the last look */
    uint64_t relook_at;       /* a file changed in place: look again then, 0: no */
    runner_ident ident;
    unsigned fail_streak;     /* workers in a row that died at start-up (before taking a request) */
    unsigned long fail_served;/* requests served (both paths) at the last such death */
    int exec_err;             /* the last start failed for good (cgp_exec_err_permanent): its
                               * errno, what the backoff answers (500); 0: none */
    uint64_t backoff_until;   /* no start before this (monotonic ms) */
    uint64_t tokens_at;       /* spawn-rate bucket: full at this time */
    unsigned renew;           /* workers recycling ended (recycled()): their
                               * replacements take no spawn-rate token */
    uint64_t created;
    uint64_t deadline;        /* nearest pool timer, 0: none */
    unsigned long spawned, served, requests;
    unsigned long slow;       /* requests longer than slow_request on their worker */
    unsigned busy;            /* workers busy with a relayed request */
    unsigned long max_active; /* the most workers busy at once (a pool in the table keeps it there) */
    unsigned long max_reached;/* times every worker was busy at max_workers */
    int at_max;               /* requests wait at max_workers (counted once until the queue empties) */
    unsigned long outcomes[CGP_C_MAX_ + 1]; /* requests by how they ended (cgp_cause) */
    unsigned long deaths[RUNNER_END_N_];
    runner_ended ended[RUNNER_ENDS_KEPT];
    unsigned nended;
    unsigned refused;         /* suEXEC refused its last start: the cgp_suexec_why, 0: no */
    int tidx;                 /* its entry in the direct path's table, -1: none */
    uint32_t tfirst, tslots;  /* its block of slots there */
    uint32_t wfirst, wsize;   /* its ring of waiter entries there */
    unsigned converting;      /* waiters asked to relay (RELAY) for new workers, not yet here */
    uint64_t converting_at;
    int pass_owed;            /* an idle worker came back to the runner: dispatch soon;
                               * in runner_g.owed while set */
    unsigned long timer_pass; /* the last pools_timers pass that ran its timer */
    runner_hnode tn;          /* in the pools' timer heap, at deadline */
    runner_hlink hl;          /* in the pools' hash, by (mode, script, site) */
    TAILQ_ENTRY(runner_pool) link, slink, olink;
    TAILQ_ENTRY(runner_pool) rlink; /* among the retired pools (pools_gc), while retired */
};

/* What tells one pool from another: BEGIN's script as a C string and its
 * resolved settings. On the caller's stack; set is the caller's to free. */
typedef struct runner_pool_key {
    char path[4096];
    runner_pool_set set;
} runner_pool_key;

/* BEGIN's script and settings resolved into *id: as runner_set_resolve
 * (1: a section set begin aside), or -1 with *err. */
int runner_pool_key_resolve(const char *script, size_t slen, runner_mode mode,
                            const runner_set_over *begin, runner_pool_key *id, int *err);
/* A new pool's script and directory, strdup'd from path (absolute); -1:
 * out of memory. */
int runner_pool_names(const char *path, char **script, char **dir);
/* site (NULL: none) keeps an engine's pool to one virtual host; a pool
 * made without one (a [pool] section's) takes every site's requests. */
runner_pool *runner_pool_get(const char *script, size_t slen, runner_mode mode,
                             const runner_set_over *begin, const char *site, size_t sitelen,
                             uint32_t httpd_gen, int *err);
void runner_pool_submit(runner_req *r);
void runner_pool_dispatch(runner_pool *p);
/* KICK: a child released a worker while requests waited, or handed one back. */
void runner_pool_kick(runner_pool *p);
/* httpd child pid is gone (its anchor closed): the workers it held come
 * back, its waiting requests leave the table's queue. */
void runner_pool_child_gone(pid_t pid);
/* ABORT with a cause for the request that ended last on a connection:
 * for the pool of that id, if it still exists, the request counted under
 * was (its END's outcome; ok: served) is counted under cause instead. */
void runner_pool_recount(uint64_t pool_id, unsigned was, unsigned cause);
void runner_pool_rearm(runner_pool *p);
/* The global cap (max_workers_total) for a WebSocket pool of script with
 * upgrades and no worker: as for a request pool, the longest-idle worker
 * goes (2067). 1 if room comes, 0 if no worker may go. */
int runner_pool_make_room(const char *script);
/* A WebSocket worker lost its last connection: a pool waiting for a slot
 * may have it stopped (as a request worker that went idle). */
void runner_pool_peer_idle(void);
/* A worker's end freed a slot: the pools waiting for one (request pools,
 * then the peer's) start theirs. */
void runner_pool_slots_freed(void);
/* A worker of the peer that may be stopped for room. */
typedef struct runner_slot_idle {
    void *worker;
    long pid;
    const char *script;
    uint64_t since;           /* idle since (runner_g.now's clock) */
} runner_slot_idle;
/* The other kind of pool sharing max_workers_total (WebSocket pools,
 * registered by runner_ws_init; the pools here call it, not its files):
 * how many of its pools wait for a slot (and the oldest one's script in
 * *first, if first is not NULL and one waits), its workers on their way
 * out, a freed slot handed on, its longest-idle worker without
 * connections (0: none) and that one stopped (evicted). */
typedef struct runner_slot_peer {
    unsigned (*waiters)(const char **first);
    unsigned (*stopping)(void);
    void (*freed)(void);
    int (*idlest)(runner_slot_idle *out);
    void (*evict)(void *worker);
} runner_slot_peer;
void runner_pool_slot_peer(const runner_slot_peer *peer);
void runner_pool_reload(void);
void runner_pool_declared(void);
/* The pools' room (the loop's hooks): their timers, the stop (queues
 * answered, workers told to go), the frees. */
extern const runner_room runner_pool_room;
/* The deploy watch's listener: pools whose names changed look at their
 * script (all: every pool). */
void runner_pool_watched(int all);
const char *runner_mode_name(runner_mode m);

#endif
