/* runner_ws_pool.c: WebSocket pools: one per (script, settings), which
 * worker takes an upgrade (the one with the fewest connections; a new one
 * starts while every worker has some, up to max_workers; at the global cap
 * another pool's idle worker goes for the first), the opens waiting for a
 * worker that said HELLO, the limits checked before a worker sees an
 * open, deploys (old workers keep their connections and drain), idle
 * workers and retired pools. */
#include "runner_ws.h"
#include "runner_end.h"
#include "runner_gate.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_loop.h"
#include "runner_pool.h"
#include "runner_domain.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>

#define SET(p, i) ((p)->set.v[CGP_S_##i])

runner_ws_ctx runner_ws_g;
static const runner_slot_peer slot_peer; /* the global cap, shared with request pools: below */

void runner_ws_init(void)
{
    TAILQ_INIT(&runner_ws_g.pools);
    TAILQ_INIT(&runner_ws_g.slot_waiters);
    TAILQ_INIT(&runner_ws_g.dead_conns);
    TAILQ_INIT(&runner_ws_g.dead_workers);
    runner_ws_g.next_id = 1;
    runner_pool_slot_peer(&slot_peer);
}

/* A script's older WebSocket pools go stale after a reload that changed
 * its settings, and retire once unused (no upgrade, no connection)
 * instead of keeping idle workers until pool_idle (runner_stamp.h). */
static int ws_sibling(const void *pool, runner_stamp_sib *sib)
{
    const runner_ws_pool *p = pool;
    runner_ws_pool *q = sib->it ? TAILQ_NEXT((runner_ws_pool *)sib->it, link)
                                : TAILQ_FIRST(&runner_ws_g.pools);

    while (q && (q == p || strcmp(q->script, p->script)))
        q = TAILQ_NEXT(q, link);
    return runner_stamp_found(sib, q, q ? &q->use : NULL, q && q->retired);
}

runner_ws_pool *runner_ws_pool_get(const char *script, size_t slen, const runner_set_over *over,
                                   uint32_t httpd_gen, int *err)
{
    runner_pool_key id;
    runner_ws_pool *p;

    /* a [pool] section of the script (mode cgiplus) holds here too */
    if (runner_pool_key_resolve(script, slen, RUNNER_MODE_CGIPLUS, over, &id, err) < 0)
        return NULL;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        if (!strcmp(p->script, id.path) && runner_set_equal(&p->set, &id.set)) {
            runner_set_free(&id.set);
            p->retired = 0;
            runner_stamp_use(&p->use, httpd_gen, p, ws_sibling, NULL);
            return p;
        }
    if (!(p = calloc(1, sizeof(*p))) || runner_pool_names(id.path, &p->script, &p->dir) < 0) {
        free(p);
        runner_set_free(&id.set);
        *err = ENOMEM;
        return NULL;
    }
    p->set = id.set;
    p->id = ++runner_g.next_pool_id;
    p->created = p->use.last_used = runner_g.now;
    TAILQ_INIT(&p->workers);
    TAILQ_INIT(&p->queue);
    TAILQ_INSERT_TAIL(&runner_ws_g.pools, p, link);
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2800) "new WebSocket pool #%llu for %s "
               "(max_workers %llu, max connections %llu, max message %llu bytes)",
               (unsigned long long)p->id, p->script, (unsigned long long)SET(p, MAX_WORKERS),
               (unsigned long long)SET(p, WS_MAX_CONNS),
               (unsigned long long)SET(p, WS_MAX_MESSAGE));
    runner_stamp_use(&p->use, httpd_gen, p, ws_sibling, NULL);
    return p;
}

/* ------------------------------------------------------------ the script file */

/* Old workers keep their connections and take no new ones; new opens meet
 * new workers. */
static void roll_over(runner_ws_pool *p, const struct stat *st)
{
    runner_ws_worker *w, *wn;
    unsigned n = 0;
    p->gen++;
    p->fail_streak = 0;
    p->backoff_until = 0;
    p->exec_err = 0;
    p->not_ws = 0; /* a new file may speak WebSocket */
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, link);
        if (w->gen != p->gen && w->state <= RUNNER_WS_W_READY) {
            runner_ws_worker_drain(w);
            n++;
        }
    }
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2801) "%s changed (inode %llu): WebSocket pool "
               "#%llu rolls over to generation %u; %u old workers keep their connections "
               "(drain %llu ms), new connections go to new workers", p->script,
               (unsigned long long)st->st_ino, (unsigned long long)p->id, p->gen, n,
               (unsigned long long)SET(p, WS_DRAIN));
}

/* As runner_pool.c's: the script must be an executable file; another
 * identity rolls the pool over (a file changed in place counts once it is
 * still: the watch looks again). */
static int check_script(void *pool)
{
    runner_ws_pool *p = pool;
    struct stat st;
    int err = runner_ident_stat(p->script, &st);
    if (err)
        return err;
    if (runner_ident_changed(&p->ident, &st))
        roll_over(p, &st);
    runner_ident_note(&p->ident, &st);
    return 0;
}

void runner_ws_watched(int all)
{
    runner_ws_pool *p;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        if (runner_watch_stale(&p->watch, all)) {
            runner_watch_look(&p->watch, p->script, check_script, p);
            runner_ws_pool_dispatch(p);
        }
}

/* ------------------------------------------------------------ starting workers */

/* Workers that count toward max_workers: a draining one keeps its
 * connections for ws_drain (10 minutes) and takes no new one; counted, it
 * would keep a deploy's new workers out (max_workers_total still counts it). */
unsigned runner_ws_pool_counted(const runner_ws_pool *p)
{
    const runner_ws_worker *w;
    unsigned n = 0;
    TAILQ_FOREACH(w, &p->workers, link)
        n += w->state != RUNNER_WS_W_DRAINING;
    return n;
}

/* 0 if a worker may start now, else when it may (or 1: not by time). */
static uint64_t spawn_gate(const runner_ws_pool *p)
{
    if (runner_ws_pool_counted(p) >= SET(p, MAX_WORKERS) ||
        runner_g.nworkers >= runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL] ||
        runner_g.stop != RUNNER_RUN || p->retired)
        return 1;
    if (runner_g.now < p->backoff_until)
        return p->backoff_until;
    return runner_rate_next_ms(SET(p, SPAWN_RATE), p->tokens_at);
}

static void fail_queue(runner_ws_pool *p, int outcome, unsigned retry, uint32_t detail);

static int usable(const runner_ws_pool *p, const runner_ws_worker *w)
{
    return w->gen == p->gen && (w->state == RUNNER_WS_W_STARTING || w->state == RUNNER_WS_W_READY);
}

static void start_one(runner_ws_pool *p)
{
    runner_ws_worker *w;
    runner_rate_take(SET(p, SPAWN_RATE), &p->tokens_at);
    if (runner_ws_worker_spawn(p, &w) < 0) {
        int err = errno;
        p->fail_streak++;
        p->backoff_until = runner_g.now + runner_g.conf.v[CGP_S_BACKOFF_BASE];
        if (p->sx_refused) { /* 500, as mod_cgi answers suexec's refusal (logged: 2700) */
            fail_queue(p, CGP_O_REFUSED, 0, p->sx_refused);
            return;
        }
        /* No worker to wait for: spawn-failed with its errno at once, as a
         * request pool answers a start that failed (2806, 2808 said why). */
        TAILQ_FOREACH(w, &p->workers, link)
            if (usable(p, w))
                return;
        fail_queue(p, CGP_O_SPAWN_FAILED, 1, (uint32_t)err);
    }
}

/* ------------------------------------------------------------ opens */

static void fail_queue(runner_ws_pool *p, int outcome, unsigned retry, uint32_t detail)
{
    runner_ws_open *o;
    while ((o = TAILQ_FIRST(&p->queue)))
        runner_ws_open_fail(o, outcome, retry, 0, detail);
}

/* The queue of a pool without a worker where none may start. */
static void no_worker(runner_ws_pool *p)
{
    runner_ws_open *o;
    if (runner_g.stop != RUNNER_RUN) {
        fail_queue(p, CGP_O_OVERLOADED, 1, ESHUTDOWN);
        return;
    }
    while ((o = TAILQ_FIRST(&p->queue)))
        runner_ws_open_limit(o, RUNNER_WS_L_NO_WORKER, p->retired
                             ? "no worker (the pool is retiring; none may start)"
                             : "max_workers_total (no worker, and none may start)");
}

/* Only the global cap keeps a worker from starting. */
static int capped(const runner_ws_pool *p)
{
    return runner_ws_pool_counted(p) < SET(p, MAX_WORKERS) &&
           runner_g.nworkers >= runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL] &&
           runner_g.stop == RUNNER_RUN && !p->retired && runner_g.now >= p->backoff_until;
}

static void set_waits(runner_ws_pool *p, int on)
{
    if (p->waits_slot == on)
        return;
    p->waits_slot = on;
    if (on)
        TAILQ_INSERT_TAIL(&runner_ws_g.slot_waiters, p, slink);
    else
        TAILQ_REMOVE(&runner_ws_g.slot_waiters, p, slink);
}

/* Upgrades no worker may take, at the global cap: as a request pool, the
 * pool stops another pool's longest-idle worker (2067: a request worker or
 * a WebSocket worker without connections) and waits for its slot
 * (slots_freed). 0 if none may go. A worker holding connections never goes. */
static int wait_slot(runner_ws_pool *p)
{
    set_waits(p, 1); /* counted among the waiters */
    if (runner_pool_make_room(p->script))
        return 1;
    set_waits(p, 0);
    return 0;
}

/* The pools waiting for a slot, and the oldest one's script (first, if
 * not NULL; untouched if none). Those whose upgrades have gone meanwhile
 * (clients gone) wait no more. */
static unsigned slot_waiters(const char **first)
{
    const runner_ws_pool *p;
    unsigned n = 0;
    TAILQ_FOREACH(p, &runner_ws_g.slot_waiters, slink)
        if (!TAILQ_EMPTY(&p->queue)) {
            if (!n && first)
                *first = p->script;
            n++;
        }
    return n;
}

static unsigned stopping_workers(void)
{
    const runner_ws_pool *p;
    const runner_ws_worker *w;
    unsigned n = 0;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        TAILQ_FOREACH(w, &p->workers, link)
            n += w->state == RUNNER_WS_W_STOPPING;
    return n;
}

/* The oldest first; one that waits again goes to the tail. */
static void slots_freed(void)
{
    runner_ws_pool *p;
    unsigned n = 0;
    TAILQ_FOREACH(p, &runner_ws_g.slot_waiters, slink)
        n++;
    while (n-- && runner_g.nworkers < runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL] &&
           (p = TAILQ_FIRST(&runner_ws_g.slot_waiters))) {
        set_waits(p, 0);
        runner_ws_pool_dispatch(p);
    }
}

/* A worker that may go for another pool's room: ready, of its pool's
 * generation, no connection and no upgrade sent to it; none of a pool
 * with upgrades waiting. Holding a connection, it never goes. */
static int idlest(runner_slot_idle *out)
{
    const runner_ws_pool *p;
    runner_ws_worker *w, *best = NULL;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link) {
        if (p->retired || !TAILQ_EMPTY(&p->queue))
            continue;
        TAILQ_FOREACH(w, &p->workers, link)
            if (usable(p, w) && w->state == RUNNER_WS_W_READY && !w->nconns && !w->nsent &&
                (!best || w->t_idle < best->t_idle))
                best = w;
    }
    if (!best)
        return 0;
    out->worker = best;
    out->pid = (long)best->pid;
    out->script = best->pool->script;
    out->since = best->t_idle;
    return 1;
}

static void evict(void *worker)
{
    runner_ws_worker_stop(worker, RUNNER_END_EVICTED);
}

static const runner_slot_peer slot_peer = {
    .waiters = slot_waiters, .stopping = stopping_workers, .freed = slots_freed,
    .idlest = idlest, .evict = evict,
};

void runner_ws_pool_worker_idle(runner_ws_worker *w)
{
    if (w->state == RUNNER_WS_W_READY && usable(w->pool, w))
        runner_pool_peer_idle();
}

void runner_ws_pool_dispatch(runner_ws_pool *p)
{
    runner_ws_worker *best;
    unsigned starting;
    for (;;) {
        runner_ws_worker *w;
        unsigned empty = 0;
        best = NULL;
        starting = 0;
        if (p->not_ws) {
            fail_queue(p, -1, 0, 0); /* answered 501 (runner_ws_open_fail) */
            return;
        }
        TAILQ_FOREACH(w, &p->workers, link) {
            if (!usable(p, w))
                continue;
            if (w->state == RUNNER_WS_W_STARTING) {
                starting++;
                continue;
            }
            empty += w->nconns + w->nsent == 0;
            if (!best || w->nconns + w->nsent < best->nconns + best->nsent)
                best = w;
        }
        /* Spread: while every worker has connections another one starts,
         * one at a time, up to max_workers; min_idle keep none. */
        int queued = !TAILQ_EMPTY(&p->queue);
        if (!starting && spawn_gate(p) == 0 &&
            ((queued && (!best || best->nconns + best->nsent > 0)) || empty < SET(p, MIN_IDLE))) {
            start_one(p);
            continue;
        }
        if (!best || !queued)
            break;
        runner_ws_open *o = TAILQ_FIRST(&p->queue);
        TAILQ_REMOVE(&p->queue, o, link);
        p->qlen--;
        runner_ws_open_send(o, best);
    }
    if (!TAILQ_EMPTY(&p->queue) && !best && !starting && capped(p) && wait_slot(p))
        return;
    set_waits(p, 0);
    /* No worker, and none may start: nobody would take them. Overloaded,
     * not spawn-failed with 0 (the module would log a crash loop, 1069). */
    if (!TAILQ_EMPTY(&p->queue) && !p->nworkers && spawn_gate(p) == 1) {
        no_worker(p);
    } else if (!TAILQ_EMPTY(&p->queue) && p->fail_streak >= 2 && runner_g.now < p->backoff_until) {
        /* The crash-loop backoff (2803) and no worker that may take them:
         * 503 with the time left at once, as a request pool answers in
         * its backoff (1069), not after queue_wait as if it were full. */
        runner_ws_worker *w;
        TAILQ_FOREACH(w, &p->workers, link)
            if (usable(p, w))
                return;
        uint64_t left = (p->backoff_until - runner_g.now + 999) / 1000;
        fail_queue(p, CGP_O_SPAWN_FAILED, left < 1 ? 1 : left > 3600 ? 3600 : (unsigned)left, 0);
    }
}

/* Per-address counts: entries of (pool, address), a short list per bucket. */
static unsigned addr_bucket(const runner_ws_pool *p, const char *a)
{
    uint32_t h = 2166136261u ^ (uint32_t)p->id;
    for (; *a; a++)
        h = (h ^ (unsigned char)*a) * 16777619u;
    return h % RUNNER_WS_HASH;
}

static runner_ws_addr **addr_tab(void)
{
    static runner_ws_addr *tab[RUNNER_WS_HASH];
    return tab;
}

runner_ws_addr *runner_ws_addr_get(runner_ws_pool *p, const char *a, int create)
{
    runner_ws_addr **t = addr_tab(), *e;
    unsigned b = addr_bucket(p, a);
    for (e = t[b]; e; e = e->next)
        if (e->pool == p && !strcmp(e->addr, a))
            return e;
    if (!create || !(e = calloc(1, sizeof(*e))))
        return NULL;
    e->pool = p;
    snprintf(e->addr, sizeof(e->addr), "%s", a);
    e->next = t[b];
    t[b] = e;
    return e;
}

void runner_ws_addr_put(runner_ws_addr *e)
{
    runner_ws_addr **t = addr_tab(), **pp;
    if (!e || (e->n && --e->n))
        return;
    for (pp = &t[addr_bucket(e->pool, e->addr)]; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    free(e);
}

void runner_ws_pool_submit(runner_ws_open *o)
{
    runner_ws_pool *p = o->pool;
    int err = runner_watch_state(&p->watch, p->script, check_script, p);

    p->opens++;
    p->use.last_used = runner_g.now;
    o->t_arrive = runner_g.now;
    if (err) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2802) "%s: %s (WebSocket upgrade %s)",
                   p->script, strerror(err), o->uri);
        runner_ws_open_fail(o, CGP_O_NOT_FOUND, 0, 0, (uint32_t)err);
        return;
    }
    if (runner_g.stop != RUNNER_RUN) {
        runner_ws_open_fail(o, CGP_O_OVERLOADED, 1, 0, ESHUTDOWN);
        return;
    }
    if (p->not_ws) {
        runner_ws_open_fail(o, -1, 0, 0, 0);
        return;
    }
    /* While the backoff lasts after a start that failed for good, the
     * same answer at once (500), as its request pools give it. */
    if (runner_g.now < p->backoff_until && (p->sx_refused || p->exec_err)) {
        runner_ws_open_fail(o, p->sx_refused ? CGP_O_REFUSED : CGP_O_SPAWN_FAILED, 0, 0,
                            p->sx_refused ? p->sx_refused : (uint32_t)p->exec_err);
        return;
    }
    /* The limits, before any worker sees it. Pending opens count. */
    if (SET(p, WS_MAX_CONNS) && p->nconns + p->qlen + 1 > SET(p, WS_MAX_CONNS)) {
        runner_ws_open_limit(o, RUNNER_WS_L_POOL, "the pool's connection limit");
        return;
    }
    runner_ws_addr *a = o->addr[0] ? runner_ws_addr_get(p, o->addr, 0) : NULL;
    if (SET(p, WS_PER_ADDR) && a && a->n + 1 > SET(p, WS_PER_ADDR)) {
        runner_ws_open_limit(o, RUNNER_WS_L_ADDR, "the limit of connections per client address");
        return;
    }
    if (runner_ws_g.mem >= RUNNER_WS_MEMORY) {
        runner_ws_open_limit(o, RUNNER_WS_L_MEMORY, "ws_memory (the runner's WebSocket buffers)");
        return;
    }
    if (p->qlen >= SET(p, QUEUE_DEPTH)) {
        runner_ws_open_limit(o, RUNNER_WS_L_QUEUE, "queue_depth (upgrades waiting for a worker)");
        return;
    }
    /* Counted from here: the open gives it back, or the connection it becomes. */
    if (o->addr[0] && (o->a = runner_ws_addr_get(p, o->addr, 1)))
        o->a->n++;
    runner_ws_open_step(o, RUNNER_WS_OE_QUEUE);
    TAILQ_INSERT_TAIL(&p->queue, o, link);
    p->qlen++;
    runner_ws_pool_dispatch(p);
}

/* ------------------------------------------------------------ workers' ends */

void runner_ws_pool_reaped(runner_ws_worker *w)
{
    runner_ws_pool *p = w->pool;
    /* Died by itself before its HELLO, or could not run: a crash loop if
     * it repeats. */
    if (!w->said_hello && w->gen == p->gen && !p->not_ws &&
        (w->why == RUNNER_END_EXITED || w->why == RUNNER_END_CRASHED ||
         w->why == RUNNER_END_EXEC_FAILED)) {
        p->fail_streak++;
        if (p->fail_streak >= 2) {
            uint64_t delay = runner_backoff_ms(p->fail_streak);
            p->backoff_until = runner_g.now + delay;
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2803) "%s: %u WebSocket workers in a row "
                       "ended before saying HELLO; no new worker for %llu ms", p->script,
                       p->fail_streak, (unsigned long long)delay);
        }
    } else if (w->said_hello) {
        p->fail_streak = 0;
    }
    /* The opens waiting for it would wait for the next one in vain. */
    if (p->exec_err && w->gen == p->gen)
        fail_queue(p, CGP_O_SPAWN_FAILED, 0, (uint32_t)p->exec_err);
    /* Its slot is for the pools waiting for one (an evicted worker's, for
     * the pool it went for), not for this pool's opens or min_idle: they
     * wait behind them (wait_slot). */
    runner_pool_slots_freed();
    runner_ws_pool_dispatch(p);
}

/* ------------------------------------------------------------ timers */

/* A worker of this generation still within its HELLO time: the queue
 * waits for its outcome, so an upgrade to a script that is no WebSocket
 * script is answered 501 (2815), not 503 by queue_wait (both 10 s). */
static int starting(const runner_ws_pool *p)
{
    const runner_ws_worker *w;
    TAILQ_FOREACH(w, &p->workers, link)
        if (w->gen == p->gen && w->state == RUNNER_WS_W_STARTING && w->deadline > runner_g.now)
            return 1;
    return 0;
}

uint64_t runner_ws_pool_deadline(runner_ws_pool *p)
{
    uint64_t dl = 0, t;
    runner_ws_worker *w;
#define MIN_DL(x) do { t = (x); if (t && (!dl || t < dl)) dl = t; } while (0)
    if (!TAILQ_EMPTY(&p->queue)) {
        if (SET(p, QUEUE_WAIT) && !starting(p))
            MIN_DL(TAILQ_FIRST(&p->queue)->t_arrive + SET(p, QUEUE_WAIT));
        t = spawn_gate(p);
        if (t > 1)
            MIN_DL(t);
    }
    TAILQ_FOREACH(w, &p->workers, link) {
        if (w->deadline)
            MIN_DL(w->deadline);
        if (!TAILQ_EMPTY(&w->sent)) /* sent in order: the first is due first */
            MIN_DL(TAILQ_FIRST(&w->sent)->deadline);
        if (w->state == RUNNER_WS_W_READY && !w->nconns && !w->nsent && SET(p, IDLE_TIMEOUT))
            MIN_DL(w->t_idle + SET(p, IDLE_TIMEOUT));
        if (w->state == RUNNER_WS_W_READY && SET(p, MAX_AGE))
            MIN_DL(w->started + SET(p, MAX_AGE));
    }
    /* A pool with a connection or a queue cannot retire: its idle time,
     * once past, must not wake the loop at every turn (a spin). The last
     * connection's end sets last_used, and the deadline comes again. */
    if (!p->retired && !p->nconns && TAILQ_EMPTY(&p->queue)) {
        MIN_DL(p->use.last_used + runner_g.conf.v[CGP_S_POOL_IDLE]);
        if (p->use.stale_since)
            MIN_DL(runner_stamp_due(&p->use));
    }
#undef MIN_DL
    return dl;
}

static void expire_queue(runner_ws_pool *p)
{
    uint64_t wait = SET(p, QUEUE_WAIT);
    runner_ws_open *o;
    if (starting(p))
        return;
    while (wait && (o = TAILQ_FIRST(&p->queue)) && runner_g.now >= o->t_arrive + wait)
        runner_ws_open_limit(o, RUNNER_WS_L_WAIT, "queue_wait (no worker took it in time)");
}

/* Idle workers (no connection) above min_idle stop after idle_timeout; a
 * worker past max_age drains as after a deploy. */
static void trim(runner_ws_pool *p)
{
    runner_ws_worker *w, *wn;
    unsigned empty = 0;
    TAILQ_FOREACH(w, &p->workers, link)
        empty += usable(p, w) && w->state == RUNNER_WS_W_READY && !w->nconns && !w->nsent;
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, link);
        if (w->state != RUNNER_WS_W_READY)
            continue;
        if (SET(p, MAX_AGE) && runner_g.now >= w->started + SET(p, MAX_AGE)) {
            runner_ws_worker_drain(w);
            continue;
        }
        if (!w->nconns && !w->nsent && SET(p, IDLE_TIMEOUT) && empty > SET(p, MIN_IDLE) &&
            runner_g.now >= w->t_idle + SET(p, IDLE_TIMEOUT)) {
            runner_ws_worker_stop(w, RUNNER_END_IDLE);
            empty--;
        }
    }
}

static void retire(runner_ws_pool *p, const char *why)
{
    runner_ws_worker *w, *wn;
    p->retired = 1;
    p->use.stale_since = 0;
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2804) "WebSocket pool #%llu of %s retired: %s; "
               "its workers drain", (unsigned long long)p->id, p->script, why);
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, link);
        if (w->state <= RUNNER_WS_W_READY)
            runner_ws_worker_drain(w);
    }
}

void runner_ws_pool_timer(runner_ws_pool *p)
{
    runner_ws_worker *w, *wn;
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        runner_ws_open *o;
        wn = TAILQ_NEXT(w, link);
        while ((o = TAILQ_FIRST(&w->sent)) && runner_g.now >= o->deadline) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2827) "WebSocket worker pid %ld of %s "
                       "did not answer upgrade %s in time; answering it 504", (long)w->pid,
                       p->script, o->uri);
            runner_ws_open_fail(o, CGP_O_TIMEOUT, 0, (uint32_t)w->pid, 0);
        }
        if (w->deadline && runner_g.now >= w->deadline)
            runner_ws_worker_timer(w);
    }
    expire_queue(p); /* after a HELLO time's end has answered the queue (starting) */
    trim(p);
    if (!p->retired && !p->nconns && TAILQ_EMPTY(&p->queue) &&
        runner_g.now >= p->use.last_used + runner_g.conf.v[CGP_S_POOL_IDLE])
        retire(p, "no upgrade for a while");
    if (!p->retired && p->use.stale_since && !p->nconns && TAILQ_EMPTY(&p->queue) &&
        runner_g.now >= runner_stamp_due(&p->use))
        retire(p, "superseded by a newer configuration");
    runner_ws_pool_dispatch(p);
}

static uint64_t ws_deadline(void)
{
    uint64_t dl = 0, t;
    runner_ws_pool *p;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        if ((p->due = t = runner_ws_pool_deadline(p)) && (!dl || t < dl))
            dl = t;
    return dl;
}

/* The deadline the loop waited for, not one computed again: a gate that
 * has opened by now (the backoff's end, the spawn rate's next token) is in
 * no new deadline, and its queue would wait for queue_wait instead. */
static void ws_timers(void)
{
    runner_ws_pool *p;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link) {
        uint64_t dl = runner_ws_pool_deadline(p);
        if ((dl && runner_g.now >= dl) || (p->due && runner_g.now >= p->due)) {
            p->due = 0;
            runner_ws_pool_timer(p);
        }
    }
}

/* ------------------------------------------------------------ stop, free */

static void ws_stop(void)
{
    runner_ws_pool *p;
    runner_ws_worker *w, *wn;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link) {
        fail_queue(p, CGP_O_OVERLOADED, 1, ESHUTDOWN);
        set_waits(p, 0);
        for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
            wn = TAILQ_NEXT(w, link);
            runner_ws_worker_stop(w, RUNNER_END_SHUTDOWN);
        }
    }
}

static unsigned ws_live(void)
{
    unsigned n = 0;
    runner_ws_pool *p;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        n += p->nworkers;
    return n;
}

static void ws_signal(int sig)
{
    runner_ws_pool *p;
    runner_ws_worker *w;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        TAILQ_FOREACH(w, &p->workers, link)
            if (w->state != RUNNER_WS_W_DEAD && w->pid > 0)
                kill(-w->pid, sig);
}

void runner_ws_pool_gc(void)
{
    runner_ws_pool *p, *pn;
    runner_client *c;
    for (p = TAILQ_FIRST(&runner_ws_g.pools); p; p = pn) {
        pn = TAILQ_NEXT(p, link);
        if (!p->retired || p->nworkers || p->qlen || p->nconns || !TAILQ_EMPTY(&p->workers))
            continue;
        int held = 0; /* an open between BEGIN and submit points at it */
        TAILQ_FOREACH(c, &runner_g.clients, link)
            held |= c->ws && ((runner_ws_open *)c->ws)->pool == p;
        if (held)
            continue;
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2805) "WebSocket pool #%llu of %s freed",
                   (unsigned long long)p->id, p->script);
        runner_watch_drop(&p->watch);
        set_waits(p, 0);
        TAILQ_REMOVE(&runner_ws_g.pools, p, link);
        runner_set_free(&p->set);
        runner_domain_free(&p->domain);
        free(p->script);
        free(p->dir);
        free(p);
    }
}

/* The WebSocket pools' room (the loop's hooks): their timers, their
 * workers' reaping, the stop, the signals, the frees at a turn's end. */
const runner_room runner_ws_room = {
    .name = "websocket", .deadline = ws_deadline, .timers = ws_timers,
    .reaped = runner_ws_reaped, .stop = ws_stop, .live = ws_live, .signal = ws_signal,
    .turn_end = runner_ws_bury,
};
