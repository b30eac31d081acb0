/* runner_pool.c: pools keyed by (script, mode, settings): which worker takes
 * a request, the bounded FIFO queue, the gates on starting a worker (pool
 * maximum, global cap, spawn rate, crash-loop backoff), warm idle workers,
 * rolling over when the script file changes, retiring unused pools. */
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Why a new worker cannot start now. */
enum gate { GATE_OK, GATE_FULL, GATE_BACKOFF, GATE_SLOT, GATE_RATE };

const char *runner_mode_name(runner_mode m)
{
    return m == RUNNER_MODE_CGI ? "cgi" : "cgiplus";
}

#define SET(p, i) ((p)->set.v[RUNNER_S_##i])

static void pool_retire(runner_pool *p, const char *why)
{
    runner_worker *w, *wn;
    if (p->retired)
        return;
    p->retired = 1;
    runner_table_pool_sync(p); /* children send its requests to the runner again */
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2064) "pool #%llu of %s retired (%s): idle "
               "workers stop, busy ones after their request", (unsigned long long)p->id,
               p->script, why);
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, plink);
        runner_worker_stop(w, RUNNER_END_RETIRED, 0);
    }
}

static int siblings(const runner_pool *a, const runner_pool *b)
{
    return a != b && a->mode == b->mode && strcmp(a->script, b->script) == 0 &&
           a->set.v[RUNNER_S_USER] == b->set.v[RUNNER_S_USER];
}

/* A reload (httpd's, or our SIGHUP) that changes a script's settings makes
 * a new pool; the pools of the same script that only older configurations
 * used become stale and retire once unused for RUNNER_STALE_MS (a pool the
 * new configuration still has is used again before that, and stays). Pools
 * of one configuration never retire each other: one script may run with
 * several settings. */
static runner_pool *stamp_pool(runner_pool *p, uint64_t stamp)
{
    runner_pool *q;
    int newest = 1;
    if (stamp > p->stamp)
        p->stamp = stamp;
    TAILQ_FOREACH(q, &runner_g.pools, link) {
        if (!siblings(p, q))
            continue;
        if (q->stamp > p->stamp)
            newest = 0;
        else if (q->stamp < p->stamp && !q->retired && !q->stale_since) {
            q->stale_since = runner_g.now;
            runner_pool_rearm(q);
        }
    }
    if (newest)
        p->stale_since = 0;
    return p;
}

static uint64_t stale_due(const runner_pool *p)
{
    uint64_t from = p->last_used > p->stale_since ? p->last_used : p->stale_since;
    return from + RUNNER_STALE_MS;
}

/* Once per pool: httpd's settings for a script the file declares are not
 * used, so an administrator who set both learns which one holds. */
static void note_aside(runner_pool *p, int aside)
{
    if (!aside || p->begin_noted)
        return;
    p->begin_noted = 1;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2450) "pool #%llu of %s: the runner's [pool] "
               "section decides its settings; those httpd sends with its requests are not used",
               (unsigned long long)p->id, p->script);
}

runner_pool *runner_pool_get(const char *script, size_t slen, runner_mode mode,
                             const runner_set_over *begin, uint32_t httpd_gen, int *err)
{
    uint64_t stamp = (uint64_t)httpd_gen << 32 | (runner_g.reloads & 0xffffffffu);
    char path[4096];
    runner_pool_set set;
    runner_pool *p;

    if (slen >= sizeof(path)) {
        *err = ENAMETOOLONG;
        return NULL;
    }
    memcpy(path, script, slen);
    path[slen] = '\0';
    int aside = runner_set_resolve(path, mode, begin, &set);
    if (aside < 0) {
        *err = errno;
        return NULL;
    }
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (p->mode == mode && strcmp(p->script, path) == 0 && runner_set_equal(&p->set, &set)) {
            runner_set_free(&set);
            if (p->retired) {
                p->retired = 0; /* in use again */
                runner_table_pool_sync(p);
            }
            p->last_used = runner_g.now;
            note_aside(p, aside);
            return stamp_pool(p, stamp);
        }

    if (!(p = calloc(1, sizeof(*p))) || !(p->script = strdup(path)) ||
        !(p->dir = strdup(path))) {
        if (p)
            free(p->script);
        free(p);
        runner_set_free(&set);
        *err = ENOMEM;
        return NULL;
    }
    char *slash = strrchr(p->dir, '/');
    slash[slash == p->dir ? 1 : 0] = '\0'; /* script is absolute: a '/' exists */
    p->mode = mode;
    p->set = set;
    p->id = ++runner_g.next_pool_id;
    p->created = p->last_used = runner_g.now;
    TAILQ_INIT(&p->workers);
    TAILQ_INIT(&p->queue);
    TAILQ_INSERT_TAIL(&runner_g.pools, p, link);
    runner_table_pool_add(p);
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2006) "new pool #%llu for %s (%s, max_workers "
               "%llu, min_idle %llu, queue %llu)", (unsigned long long)p->id, p->script,
               runner_mode_name(mode), (unsigned long long)SET(p, MAX_WORKERS),
               (unsigned long long)SET(p, MIN_IDLE), (unsigned long long)SET(p, QUEUE_DEPTH));
    note_aside(p, aside);
    return stamp_pool(p, stamp);
}

static int usable(const runner_pool *p, const runner_worker *w)
{
    return (w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY) && w->gen == p->gen &&
           !w->retire && !w->exec_failed;
}

static unsigned count_usable(const runner_pool *p, int idle_only)
{
    unsigned n = 0;
    const runner_worker *w;
    TAILQ_FOREACH(w, &p->workers, plink)
        n += usable(p, w) &&
             (!idle_only || (w->state == RUNNER_W_IDLE && !runner_worker_held(w)));
    return n;
}

unsigned runner_pool_idle_count(const runner_pool *p)
{
    return count_usable(p, 1);
}

/* Gives r an idle worker: first one the runner holds (the one used most
 * recently: the others may reach their idle timeout, so a quiet pool
 * shrinks), relayed; else one free in the table, where the CAS decides
 * between us and the children: granted to r's httpd child if r allows it
 * (the bytes then never pass here), else claimed back and relayed.
 * 0: no idle worker, r is untouched. */
static int serve_idle(runner_pool *p, runner_req *r)
{
    runner_worker *w, *best = NULL;
    if (p->mode != RUNNER_MODE_CGIPLUS || p->as_cgi)
        return 0;
    TAILQ_FOREACH(w, &p->workers, plink)
        if (w->state == RUNNER_W_IDLE && usable(p, w) && !w->published &&
            (!best || w->t_idle >= best->t_idle))
            best = w;
    if (!best)
        TAILQ_FOREACH(w, &p->workers, plink) {
            if (w->state != RUNNER_W_IDLE || !usable(p, w))
                continue;
            if (runner_worker_grant(w, r))
                return 1;
            if (runner_worker_claim(w)) {
                best = w;
                break;
            }
        }
    if (!best)
        return 0;
    if (r->state == RUNNER_R_QUEUED)
        runner_pool_dequeue(r);
    runner_worker_assign(best, r);
    return 1;
}

/* Spawn rate as GCRA: tokens_at is the theoretical arrival time in us; a
 * burst of one second's worth is allowed. */
static uint64_t rate_interval_us(const runner_pool *p)
{
    return SET(p, SPAWN_RATE) ? 1000000u / SET(p, SPAWN_RATE) : 0;
}

static uint64_t rate_next_ms(const runner_pool *p)
{
    uint64_t iv = rate_interval_us(p), now_us = runner_g.now * 1000u;
    uint64_t burst = (SET(p, SPAWN_RATE) - 1) * iv;
    if (!iv || p->tokens_at <= now_us + burst)
        return 0;
    return (p->tokens_at - burst + 999u) / 1000u;
}

static void rate_take(runner_pool *p)
{
    uint64_t iv = rate_interval_us(p), now_us = runner_g.now * 1000u;
    if (iv)
        p->tokens_at = (p->tokens_at > now_us ? p->tokens_at : now_us) + iv;
}

static enum gate spawn_gate(const runner_pool *p)
{
    if (p->nworkers >= SET(p, MAX_WORKERS))
        return GATE_FULL;
    if (runner_g.now < p->backoff_until)
        return GATE_BACKOFF;
    if (runner_g.nworkers >= runner_g.conf.max_workers_total)
        return GATE_SLOT;
    if (p->mode == RUNNER_MODE_CGIPLUS && !p->as_cgi && rate_next_ms(p))
        return GATE_RATE;
    return GATE_OK;
}

static unsigned retry_after(const runner_pool *p)
{
    uint64_t left = p->backoff_until > runner_g.now ? p->backoff_until - runner_g.now : 0;
    left = (left + 999) / 1000;
    return left < 1 ? 1 : left > 3600 ? 3600 : (unsigned)left;
}

/* Starts a new process for r, or ends r with spawn-failed. */
static void start_new(runner_pool *p, runner_req *r)
{
    runner_worker *w;
    rate_take(p);
    if (p->mode == RUNNER_MODE_CGI || p->as_cgi) {
        if (runner_worker_spawn_cgi(p, r) < 0)
            runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)errno);
        return;
    }
    if (runner_worker_spawn(p, &w) < 0) {
        runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)errno);
        return;
    }
    runner_worker_assign(w, r);
}

/* Keeps min_idle idle workers of the current generation. */
static void maintain(runner_pool *p)
{
    runner_worker *w;
    if (p->mode != RUNNER_MODE_CGIPLUS || p->as_cgi || p->retired || runner_g.stop != RUNNER_RUN)
        return;
    while (count_usable(p, 1) < SET(p, MIN_IDLE) && spawn_gate(p) == GATE_OK) {
        rate_take(p);
        if (runner_worker_spawn(p, &w) < 0)
            break;
        runner_worker_publish(w);
    }
}

/* Frees a slot for a pool blocked by the global cap: an idle worker of
 * another pool goes, unless enough are on their way out already. */
static void want_slot(runner_pool *p)
{
    runner_worker *w, *victim = NULL;
    unsigned stopping = 0, waiters = 0;
    runner_pool *q;
    if (!p->waits_slot) {
        p->waits_slot = 1;
        TAILQ_INSERT_TAIL(&runner_g.slot_waiters, p, slink);
    }
    TAILQ_FOREACH(q, &runner_g.slot_waiters, slink)
        waiters++;
    TAILQ_FOREACH(w, &runner_g.workers, glink) {
        if (w->state == RUNNER_W_STOPPING)
            stopping++;
        else if (w->state == RUNNER_W_IDLE && w->pool != p &&
                 (!victim || w->t_idle < victim->t_idle))
            victim = w;
    }
    if (victim && stopping < waiters) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2067) "all %llu workers of the runner are "
                   "taken; stopping idle worker pid %ld of %s for %s",
                   (unsigned long long)runner_g.conf.max_workers_total, (long)victim->pid,
                   victim->pool->script, p->script);
        runner_worker_stop(victim, RUNNER_END_EVICTED, 1);
    }
}

static void slot_done(runner_pool *p)
{
    if (p->waits_slot) {
        TAILQ_REMOVE(&runner_g.slot_waiters, p, slink);
        p->waits_slot = 0;
    }
}

static void fail_queue(runner_pool *p, int outcome, unsigned retry)
{
    while (!TAILQ_EMPTY(&p->queue)) {
        runner_req *r = TAILQ_FIRST(&p->queue);
        runner_pool_dequeue(r);
        runner_req_end(r, outcome, retry, 0, 0);
    }
}

/* The status page's peaks (php-fpm's max active processes and max
 * children reached). */
static void note_busy(runner_pool *p)
{
    const runner_worker *w;
    unsigned long busy = 0;
    TAILQ_FOREACH(w, &p->workers, plink)
        busy += w->state == RUNNER_W_BUSY;
    if (busy > p->max_active)
        p->max_active = busy;
}

void runner_pool_dispatch(runner_pool *p)
{
    while (!TAILQ_EMPTY(&p->queue) && runner_g.stop == RUNNER_RUN) {
        runner_req *r = TAILQ_FIRST(&p->queue);
        if (serve_idle(p, r)) {
            note_busy(p);
            continue;
        }
        enum gate g = spawn_gate(p);
        if (g == GATE_OK) {
            runner_pool_dequeue(r);
            start_new(p, r);
            note_busy(p);
            continue;
        }
        if (g == GATE_FULL && !p->at_max) {
            p->at_max = 1;
            p->max_reached++;
        }
        if (g == GATE_BACKOFF && count_usable(p, 0) == 0)
            fail_queue(p, CGP_O_SPAWN_FAILED, retry_after(p));
        else if (g == GATE_SLOT)
            want_slot(p);
        break;
    }
    if (TAILQ_EMPTY(&p->queue)) {
        slot_done(p);
        p->at_max = 0; /* the next saturation counts again */
    }
    maintain(p);
    runner_pool_rearm(p);
}

/* Workers of an older generation (the script file changed) finish what
 * they do and go; new requests meet new workers. */
static void roll_over(runner_pool *p, const struct stat *st)
{
    runner_worker *w, *wn;
    unsigned idle = 0, busy = 0;
    p->gen++;
    p->fail_streak = 0;
    p->backoff_until = 0;
    p->as_cgi = 0; /* a new script file may speak CGIplus */
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, plink);
        if (w->gen == p->gen || w->state == RUNNER_W_STOPPING || w->state == RUNNER_W_DEAD)
            continue;
        if (w->state == RUNNER_W_IDLE)
            idle++;
        else
            busy++;
        runner_worker_stop(w, RUNNER_END_DEPLOY, 0);
    }
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2065) "%s changed (inode %llu, %lld bytes): pool "
               "#%llu rolls over to generation %u; %u idle workers stop, %u busy ones after "
               "their request", p->script, (unsigned long long)st->st_ino, (long long)st->st_size,
               (unsigned long long)p->id, p->gen, idle, busy);
}

/* The script must exist and be executable (else 404/403, even while its
 * workers still run). A changed file (another inode, size, mtime or ctime)
 * rolls the pool over. One stat, made when an event names the script, or
 * per request for a pool that could not be watched. */
static int check_script(runner_pool *p)
{
    struct stat st;
    p->relook_at = 0;
    if (stat(p->script, &st) < 0)
        return errno == EACCES ? EACCES : ENOENT;
    if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
        return EACCES;
    int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    int64_t ct = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
    if (p->have_ident && (p->ident_dev != st.st_dev || p->ident_ino != st.st_ino ||
                          p->ident_size != (int64_t)st.st_size || p->ident_mtime_ns != mt ||
                          p->ident_ctime_ns != ct)) {
        /* A file copied over in place may be half written: the old
         * workers serve until it has been still for RUNNER_SETTLE_MS. */
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        int64_t now_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
        int64_t still_ms = (now_ns - ct) / 1000000;
        if (st.st_ino == p->ident_ino && still_ms < (int64_t)RUNNER_SETTLE_MS &&
            count_usable(p, 0)) {
            p->relook_at = runner_g.now + (uint64_t)((int64_t)RUNNER_SETTLE_MS - still_ms) + 1;
            return 0;
        }
        roll_over(p, &st);
    }
    p->have_ident = 1;
    p->ident_dev = st.st_dev;
    p->ident_ino = st.st_ino;
    p->ident_size = (int64_t)st.st_size;
    p->ident_mtime_ns = mt;
    p->ident_ctime_ns = ct;
    runner_table_pool_sync(p);
    return 0;
}

/* Watches the way to the script again (what an event named may have
 * moved), then stats it once. */
static int look(runner_pool *p)
{
    if (!p->watch.failed)
        runner_watch_set(&p->watch, p->script);
    p->script_err = check_script(p);
    p->looked = 1;
    return p->script_err;
}

/* What a request finds: the last look while the watch holds, else a stat. */
static int script_state(runner_pool *p)
{
    if (p->looked && p->watch.ok && !p->watch.dirty)
        return p->script_err;
    return look(p);
}

void runner_pool_watch_event(void)
{
    int all = runner_watch_read();
    runner_pool *p;
    if (all < 0)
        return;
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (p->looked && (all || p->watch.dirty)) {
            look(p);
            runner_pool_dispatch(p); /* old idle workers went: min_idle, the queue */
        }
}

void runner_pool_submit(runner_req *r)
{
    runner_pool *p = r->pool;
    int err = script_state(p);

    p->requests++;
    p->last_used = runner_g.now;
    r->t_arrive = runner_g.now;
    if (err) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2007) "%s: %s (request %s)", p->script,
                   strerror(err), r->uri);
        runner_req_end(r, CGP_O_NOT_FOUND, 0, 0, (uint32_t)err);
        return;
    }
    if (runner_g.stop != RUNNER_RUN) {
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        return;
    }
    if (p->retired) { /* retired since its BEGIN: the children may use it again */
        p->retired = 0;
        runner_table_pool_sync(p);
    }
    if (TAILQ_EMPTY(&p->queue)) {
        /* serve_idle may have freed r (granted) */
        int served = serve_idle(p, r);
        if (served || spawn_gate(p) == GATE_OK) {
            if (!served)
                start_new(p, r);
            maintain(p); /* one idle fewer: keep min_idle warm */
            runner_pool_rearm(p);
            return;
        }
        enum gate g = spawn_gate(p);
        if (g == GATE_BACKOFF && count_usable(p, 0) == 0) {
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2068) "%s: in crash-loop backoff for "
                       "%llu ms more; request %s answered spawn-failed", p->script,
                       (unsigned long long)(p->backoff_until - runner_g.now), r->uri);
            runner_req_end(r, CGP_O_SPAWN_FAILED, retry_after(p), 0, 0);
            return;
        }
    }
    if (p->qlen >= SET(p, QUEUE_DEPTH)) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2008) "%s: queue full (%u waiting, %u workers "
                   "of %llu); answering overloaded at once", p->script, p->qlen, p->nworkers,
                   (unsigned long long)SET(p, MAX_WORKERS));
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        return;
    }
    r->state = RUNNER_R_QUEUED;
    TAILQ_INSERT_TAIL(&p->queue, r, qlink);
    if (++p->qlen > p->qmax)
        p->qmax = p->qlen;
    /* Waiters first, then the claim (in dispatch): a child that frees a
     * worker stores IDLE, then reads waiters; one of us sees the other. */
    runner_table_waiters(p);
    runner_pool_dispatch(p);
}

void runner_pool_dequeue(runner_req *r)
{
    TAILQ_REMOVE(&r->pool->queue, r, qlink);
    r->pool->qlen--;
    runner_table_waiters(r->pool);
    r->state = RUNNER_R_PARAMS; /* no longer queued; the caller decides what next */
}

void runner_pool_worker_idle(runner_worker *w)
{
    runner_pool *p = w->pool;
    if (w->state != RUNNER_W_IDLE)
        return;
    if (runner_g.stop != RUNNER_RUN) {
        runner_worker_stop(w, RUNNER_END_SHUTDOWN, 1);
        return;
    }
    runner_pool_dispatch(p);
    if (w->state != RUNNER_W_IDLE)
        return;
    if (p->retired)
        runner_worker_stop(w, RUNNER_END_RETIRED, 1);
    else if (!TAILQ_EMPTY(&runner_g.slot_waiters) && !p->waits_slot)
        want_slot(TAILQ_FIRST(&runner_g.slot_waiters)); /* another pool waits for a slot */
    if (w->state == RUNNER_W_IDLE)
        runner_worker_publish(w);
}

void runner_pool_request_ok(runner_pool *p)
{
    p->fail_streak = 0;
    p->backoff_until = 0;
}

static void ended_note(runner_pool *p, const runner_worker *w)
{
    runner_ended *e = &p->ended[p->nended++ % RUNNER_ENDS_KEPT];
    e->pid = (long)w->pid;
    e->why = w->why;
    e->status = w->status;
    e->served = w->served;
    e->at = runner_g.now;
}

/* Other pools blocked by the global cap get the freed slot, oldest first. */
static void slots_freed(void)
{
    unsigned n = 0;
    runner_pool *q;
    TAILQ_FOREACH(q, &runner_g.slot_waiters, slink)
        n++;
    while (n-- && runner_g.nworkers < runner_g.conf.max_workers_total &&
           (q = TAILQ_FIRST(&runner_g.slot_waiters))) {
        slot_done(q);
        runner_pool_dispatch(q);
    }
}

void runner_pool_reaped(runner_worker *w)
{
    runner_pool *p = w->pool;
    p->deaths[w->why]++;
    ended_note(p, w);
    /* Died before serving anything, by itself: a crash loop if it repeats.
     * The first gets a second chance at once; then the delay doubles. */
    if (!w->is_cgi && !w->not_cgiplus && w->served == 0 && w->gen == p->gen &&
        (w->why == RUNNER_END_EXITED || w->why == RUNNER_END_CRASHED ||
         w->why == RUNNER_END_EXEC_FAILED || w->why == RUNNER_END_BROKEN)) {
        p->fail_streak++;
        if (p->fail_streak >= 2) {
            const runner_conf *c = &runner_g.conf;
            unsigned sh = p->fail_streak - 2 > 30 ? 30 : p->fail_streak - 2;
            uint64_t delay = c->backoff_base << sh;
            if (delay > c->backoff_max || delay < c->backoff_base)
                delay = c->backoff_max;
            p->backoff_until = runner_g.now + delay;
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2066) "%s: %u workers in a row ended "
                       "before serving a request (last: %s); no new worker for %llu ms, "
                       "requests meanwhile get 503", p->script, p->fail_streak,
                       runner_wend_name(w->why), (unsigned long long)delay);
        }
    }
    runner_pool_dispatch(p);
    slots_freed();
}

static void expire_queue(runner_pool *p)
{
    uint64_t wait = SET(p, QUEUE_WAIT);
    unsigned n = 0;
    if (!wait)
        return;
    while (!TAILQ_EMPTY(&p->queue)) {
        runner_req *r = TAILQ_FIRST(&p->queue);
        if (runner_g.now < r->t_arrive + wait)
            break;
        runner_pool_dequeue(r);
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        n++;
    }
    if (n)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2063) "%s: %u requests waited %llu ms for a "
                   "worker; answered overloaded", p->script, n, (unsigned long long)wait);
}

void runner_pool_rearm(runner_pool *p)
{
    uint64_t dl = 0, t;
#define MIN_DL(x) do { t = (x); if (t && (!dl || t < dl)) dl = t; } while (0)
    if (!TAILQ_EMPTY(&p->queue)) {
        if (SET(p, QUEUE_WAIT))
            MIN_DL(TAILQ_FIRST(&p->queue)->t_arrive + SET(p, QUEUE_WAIT));
    }
    if (!TAILQ_EMPTY(&p->queue) || (p->mode == RUNNER_MODE_CGIPLUS && !p->retired &&
                                    count_usable(p, 1) < SET(p, MIN_IDLE))) {
        enum gate g = spawn_gate(p);
        if (g == GATE_BACKOFF)
            MIN_DL(p->backoff_until);
        else if (g == GATE_RATE)
            MIN_DL(rate_next_ms(p));
    }
    if (!p->retired)
        MIN_DL(p->last_used + runner_g.conf.pool_idle);
    if (!p->retired && p->stale_since)
        MIN_DL(stale_due(p));
    MIN_DL(p->relook_at);
#undef MIN_DL
    p->deadline = dl;
}

void runner_pool_timer(runner_pool *p)
{
    p->deadline = 0;
    runner_table_pool_used(p);
    if (p->relook_at && runner_g.now >= p->relook_at)
        look(p);
    expire_queue(p);
    if (!p->retired && runner_g.now >= p->last_used + runner_g.conf.pool_idle &&
        TAILQ_EMPTY(&p->queue))
        pool_retire(p, "no request for a while");
    if (!p->retired && p->stale_since && runner_g.now >= stale_due(p) && TAILQ_EMPTY(&p->queue))
        pool_retire(p, "superseded by a newer configuration");
    runner_pool_dispatch(p);
}

/* Stop: queued requests are answered at once, idle workers are told to go,
 * busy ones go after their request. */
void runner_pool_stop(void)
{
    runner_pool *p;
    runner_worker *w, *wn;
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        fail_queue(p, CGP_O_OVERLOADED, 1);
        slot_done(p);
        runner_table_pool_sync(p); /* new requests to the runner, which refuses them */
        for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
            wn = TAILQ_NEXT(w, plink);
            runner_worker_stop(w, RUNNER_END_SHUTDOWN, 0);
        }
    }
}

/* Pools named in the configuration file exist from the start, warm. */
void runner_pool_declared(void)
{
    for (unsigned i = 0; i < runner_g.conf.npools; i++) {
        const runner_conf_pool *cp = &runner_g.conf.pools[i];
        int err = 0;
        runner_pool *p = runner_pool_get(cp->script, strlen(cp->script), cp->mode, NULL, 0, &err);
        if (!p) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2069) "cannot set up the pool of %s: %s",
                       cp->script, strerror(err));
            continue;
        }
        look(p);
        runner_pool_dispatch(p);
    }
}

/* After SIGHUP: settings may have changed; requests will find (or create)
 * pools under the new keys. Pools of sections read again are set up now. */
void runner_pool_reload(void)
{
    runner_pool *p;
    runner_pool_declared();
    TAILQ_FOREACH(p, &runner_g.pools, link)
        runner_pool_dispatch(p);
}

static void pool_free(runner_pool *p)
{
    slot_done(p);
    runner_table_pool_del(p);
    runner_watch_drop(&p->watch);
    TAILQ_REMOVE(&runner_g.pools, p, link);
    runner_set_free(&p->set);
    free(p->script);
    free(p->dir);
    free(p);
}

/* Frees retired pools nobody uses any more: no worker, no request. */
void runner_pool_gc(void)
{
    runner_pool *p, *pn;
    runner_client *c;
    for (p = TAILQ_FIRST(&runner_g.pools); p; p = pn) {
        pn = TAILQ_NEXT(p, link);
        if (!p->retired || p->nworkers || p->qlen)
            continue;
        int held = 0; /* a request between BEGIN and submit points at it */
        TAILQ_FOREACH(c, &runner_g.clients, link)
            held |= c->req && c->req->pool == p;
        if (held)
            continue;
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2070) "pool #%llu of %s freed",
                   (unsigned long long)p->id, p->script);
        pool_free(p);
    }
}

void runner_pool_free_all(void)
{
    runner_pool *p;
    while ((p = TAILQ_FIRST(&runner_g.pools))) {
        runner_worker *w;
        while ((w = TAILQ_FIRST(&p->workers))) {
            TAILQ_REMOVE(&p->workers, w, plink);
            TAILQ_REMOVE(&runner_g.workers, w, glink);
            runner_worker_free(w);
        }
        while (!TAILQ_EMPTY(&p->queue)) {
            runner_req *r = TAILQ_FIRST(&p->queue);
            runner_pool_dequeue(r);
            if (r->client)
                r->client->req = NULL;
            runner_req_free(r);
        }
        pool_free(p);
    }
}
