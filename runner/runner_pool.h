/* runner_pool.h: pools, one per (script, mode, settings) (runner_pool.c). */
#ifndef RUNNER_POOL_H
#define RUNNER_POOL_H

#include "runner_types.h"
#include "runner_conf.h"
#include "runner_end.h"
#include "runner_watch.h"
#include "cgp_proto.h"

#define RUNNER_SETTLE_MS        200u    /* a script changed in place must be still this long */
#define RUNNER_STALE_MS         3000u   /* a superseded pool retires after this long unused */

/* One (script, mode, settings) pool. Owned by runner_g.pools; freed when it
 * is empty and retired or unused for pool_idle. */
struct runner_pool {
    char *script;             /* absolute path */
    char *dir;                /* its directory: the workers' cwd */
    runner_mode mode;
    runner_pool_set set;
    uint64_t id;              /* numbered in creation order */
    struct runner_worker_list workers;
    unsigned nworkers;        /* live processes, dying ones included */
    struct runner_req_list queue; /* FIFO of requests waiting for a worker */
    unsigned qlen, qmax;
    int retired;              /* superseded or unused: drains, keeps nobody warm */
    int as_cgi;               /* its script does not speak CGIplus: plain CGI runs */
    int begin_noted;          /* logged that its [pool] section sets requests' settings aside */
    int waits_slot;           /* in runner_g.slot_waiters */
    unsigned gen;             /* script generation: bumped when the file changes */
    uint64_t stamp;           /* newest (httpd generation, reload) that used it */
    uint64_t stale_since;     /* a sibling of a newer configuration appeared, 0: no */
    runner_pwatch watch;      /* inotify on the names leading to script (deploy detection) */
    int looked;               /* script was stat'ed: script_err and ident say what it is */
    int script_err;           /* 0, ENOENT or EACCES, as of the last look */
    uint64_t relook_at;       /* a file changed in place: look again then, 0: no */
    int have_ident;
    dev_t ident_dev;
    ino_t ident_ino;
    int64_t ident_mtime_ns, ident_ctime_ns, ident_size;
    unsigned fail_streak;     /* workers in a row that died before serving */
    uint64_t backoff_until;   /* no start before this (monotonic ms) */
    uint64_t tokens_at;       /* spawn-rate bucket: full at this time */
    uint64_t last_used, created;
    uint64_t deadline;        /* nearest pool timer, 0: none */
    unsigned long spawned, served, requests;
    unsigned long slow;       /* requests longer than slow_request on their worker */
    unsigned long max_active; /* the most workers busy at once */
    unsigned long max_reached;/* times every worker was busy at max_workers */
    int at_max;               /* requests wait at max_workers (counted once until the queue empties) */
    unsigned long outcomes[CGP_O_MAX_ + 1];
    unsigned long deaths[RUNNER_END_N_];
    runner_ended ended[RUNNER_ENDS_KEPT];
    unsigned nended;
    int tidx;                 /* its entry in the direct path's table, -1: none */
    uint32_t tfirst, tslots;  /* its block of slots there */
    TAILQ_ENTRY(runner_pool) link, slink;
};

runner_pool *runner_pool_get(const char *script, size_t slen, runner_mode mode,
                             const runner_set_over *begin, uint32_t httpd_gen, int *err);
void runner_pool_submit(runner_req *r);
void runner_pool_dequeue(runner_req *r);
void runner_pool_worker_idle(runner_worker *w);
void runner_pool_dispatch(runner_pool *p);
void runner_pool_reaped(runner_worker *w);
void runner_pool_request_ok(runner_pool *p);
unsigned runner_pool_idle_count(const runner_pool *p);
void runner_pool_timer(runner_pool *p);
void runner_pool_rearm(runner_pool *p);
void runner_pool_stop(void);
void runner_pool_reload(void);
void runner_pool_declared(void);
void runner_pool_free_all(void);
void runner_pool_gc(void);
/* The deploy watcher's descriptor is readable: pools it names look at their script. */
void runner_pool_watch_event(void);
const char *runner_mode_name(runner_mode m);

#endif
