/* runner_pool.c: pools keyed by (script, mode, settings): which worker takes
 * a request, the bounded FIFO queue, the gates on starting a worker (pool
 * maximum, global cap, spawn rate, crash-loop backoff), warm idle workers,
 * rolling over when the script file changes, retiring unused pools. */
#include "runner_pool.h"
#include "runner_ctx.h"
#include "runner_gate.h"
#include "runner_loop.h"
#include "runner_watch.h"
#include "runner_client.h"
#include "runner_log.h"
#include "runner_req.h"
#include "runner_table.h"
#include "runner_worker.h"
#include "runner_twait.h"
#include "runner_domain.h"
#include "cgp_twait.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Why a new worker cannot start now. */
enum gate { GATE_OK, GATE_FULL, GATE_BACKOFF, GATE_SLOT, GATE_RATE };

const char *runner_mode_name(runner_mode m)
{
    return cgp_mode_names[m].name;
}

#define SET(p, i) ((p)->set.v[CGP_S_##i])

static const runner_wowner pool_owner; /* what its workers tell a pool: below */

/* So that a loop turn costs the same with 1 pool or 3,000: the pools'
 * timers in a heap (a turn visits the due ones only), the pools in a hash
 * by (mode, script, site), the retired ones (which pools_gc looks at) in
 * a list of their own. */
static runner_heap pool_heap;
static runner_htab pool_tab;
static TAILQ_HEAD(, runner_pool) retired_pools = TAILQ_HEAD_INITIALIZER(retired_pools);

#define POOL_OF(member, ptr) \
    ((runner_pool *)(void *)((char *)(ptr) - offsetof(runner_pool, member)))

/* Never fails: each pool reserved its room in the heap. */
static void set_deadline(runner_pool *p, uint64_t dl)
{
    p->deadline = dl;
    (void)runner_heap_set(&pool_heap, &p->tn, dl);
}

static void pass_paid(runner_pool *p)
{
    if (!p->pass_owed)
        return;
    p->pass_owed = 0;
    TAILQ_REMOVE(&runner_g.owed, p, olink);
}

static void set_retired(runner_pool *p, int retired)
{
    if (p->retired == retired)
        return;
    p->retired = retired;
    if (retired)
        TAILQ_INSERT_TAIL(&retired_pools, p, rlink);
    else
        TAILQ_REMOVE(&retired_pools, p, rlink);
}

/* The hash of a pool's key: the site's presence too (a pool without one
 * takes every site's requests). */
static uint32_t key_hash(runner_mode mode, const char *script, const char *site, size_t sitelen)
{
    uint32_t h = runner_hash_bytes(RUNNER_HASH_INIT, &mode, sizeof(mode));
    h = runner_hash_bytes(h, script, strlen(script) + 1);
    h = runner_hash_bytes(h, site ? "s" : "n", 1);
    return site ? runner_hash_bytes(h, site, sitelen) : h;
}

static uint32_t pool_hash(const runner_pool *p)
{
    return key_hash(p->mode, p->script, p->site, p->site ? strlen(p->site) : 0);
}

static void pool_retire(runner_pool *p, const char *why)
{
    runner_worker *w, *wn;
    if (p->retired)
        return;
    set_retired(p, 1);
    runner_table_pool_sync(p); /* children send its requests to the runner again */
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2064) "pool #%llu of %s retired (%s): idle "
               "workers stop, busy ones after their request", (unsigned long long)p->id,
               p->script, why);
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, plink);
        runner_worker_stop(w, RUNNER_END_RETIRED, 0);
    }
}

/* An engine's pools are per site: one site's pool never supersedes
 * another's (every PHP site of a host is the same php-cgi, same user). */
static int siblings(const runner_pool *a, const runner_pool *b)
{
    return a != b && a->mode == b->mode && strcmp(a->script, b->script) == 0 &&
           a->set.v[CGP_S_USER] == b->set.v[CGP_S_USER] && !a->site == !b->site &&
           (!a->site || strcmp(a->site, b->site) == 0);
}

/* The pools that a newer configuration supersedes (runner_stamp.h). */
static int pool_sibling(const void *pool, runner_stamp_sib *sib)
{
    /* siblings have the same (mode, script, site): the same hash */
    const runner_pool *p = pool;
    runner_hlink *e = sib->it ? runner_htab_next(&((runner_pool *)sib->it)->hl)
                              : runner_htab_first(&pool_tab, p->hl.hash);
    runner_pool *q = NULL;

    for (; e; e = runner_htab_next(e))
        if (siblings(pool, q = POOL_OF(hl, e)))
            break;
    if (!e)
        q = NULL;
    return runner_stamp_found(sib, q, q ? &q->use : NULL, q && q->retired);
}

static void pool_staled(void *q)
{
    runner_pool_rearm(q);
}

static runner_pool *stamp_pool(runner_pool *p, uint32_t httpd_gen)
{
    runner_stamp_use(&p->use, httpd_gen, p, pool_sibling, pool_staled);
    return p;
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

int runner_pool_key_resolve(const char *script, size_t slen, runner_mode mode,
                            const runner_set_over *begin, runner_pool_key *id, int *err)
{
    int aside;

    if (slen >= sizeof(id->path)) {
        *err = ENAMETOOLONG;
        return -1;
    }
    memcpy(id->path, script, slen);
    id->path[slen] = '\0';
    if ((aside = runner_set_resolve(&runner_g, id->path, mode, begin, &id->set)) < 0)
        *err = errno;
    return aside;
}

int runner_pool_names(const char *path, char **script, char **dir)
{
    char *slash;

    *script = strdup(path);
    *dir = strdup(path);
    if (!*script || !*dir) {
        free(*script);
        free(*dir);
        *script = *dir = NULL;
        return -1;
    }
    slash = strrchr(*dir, '/');
    slash[slash == *dir ? 1 : 0] = '\0'; /* script is absolute: a '/' exists */
    return 0;
}

/* 1 if a request of site (sitelen bytes, NULL: none) may go to p. */
static int same_site(const runner_pool *p, const char *site, size_t sitelen)
{
    if (!p->site)
        return 1;
    return site && strlen(p->site) == sitelen && !memcmp(p->site, site, sitelen);
}

/* The first pool made (the lowest id, as the list's order) of those under
 * hash that take a request for (mode, path, settings, site); better if
 * it is older. */
static runner_pool *find_in(uint32_t hash, runner_mode mode, const runner_pool_key *id,
                            const char *site, size_t sitelen, runner_pool *better)
{
    for (runner_hlink *e = runner_htab_first(&pool_tab, hash); e; e = runner_htab_next(e)) {
        runner_pool *p = POOL_OF(hl, e);
        if (better && better->id < p->id)
            break; /* a bucket keeps the order pools were made */
        if (p->mode == mode && strcmp(p->script, id->path) == 0 &&
            runner_set_equal(&p->set, &id->set) && same_site(p, site, sitelen))
            return p;
    }
    return better;
}

runner_pool *runner_pool_get(const char *script, size_t slen, runner_mode mode,
                             const runner_set_over *begin, const char *site, size_t sitelen,
                             uint32_t httpd_gen, int *err)
{
    runner_pool_key id;
    runner_pool *p;
    int aside = runner_pool_key_resolve(script, slen, mode, begin, &id, err);

    if (aside < 0)
        return NULL;
    /* A pool of this site, or one for any site (a [pool] section's): as a
     * walk of the list in order would, the one made first. */
    p = site ? find_in(key_hash(mode, id.path, site, sitelen), mode, &id, site, sitelen, NULL)
             : NULL;
    p = find_in(key_hash(mode, id.path, NULL, 0), mode, &id, site, sitelen, p);
    if (p) {
        runner_set_free(&id.set);
        if (p->retired) {
            set_retired(p, 0); /* in use again */
            runner_table_pool_sync(p);
        }
        note_aside(p, aside);
        return stamp_pool(p, httpd_gen);
    }

    if (!(p = calloc(1, sizeof(*p))) || runner_pool_names(id.path, &p->script, &p->dir) < 0 ||
        (site && !(p->site = strndup(site, sitelen))) ||
        runner_heap_reserve(&pool_heap, pool_tab.n + 1) < 0) {
        if (p) {
            free(p->script);
            free(p->dir);
        }
        free(p);
        runner_set_free(&id.set);
        *err = ENOMEM;
        return NULL;
    }
    p->mode = mode;
    if (runner_htab_add(&pool_tab, &p->hl, pool_hash(p)) < 0) {
        free(p->script);
        free(p->dir);
        free(p->site);
        free(p);
        runner_set_free(&id.set);
        *err = ENOMEM;
        return NULL;
    }
    p->set = id.set;
    p->owner = &pool_owner;
    p->id = ++runner_g.next_pool_id;
    p->created = p->use.last_used = runner_g.now;
    TAILQ_INIT(&p->workers);
    TAILQ_INIT(&p->queue);
    TAILQ_INSERT_TAIL(&runner_g.pools, p, link);
    runner_table_pool_add(p);
    runner_pool_rearm(p); /* its GROW flag before a child learns the pool (POOL) */
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2006) "new pool #%llu for %s (%s, max_workers "
               "%llu, min_idle %llu, queue %llu)", (unsigned long long)p->id, p->script,
               runner_mode_name(mode), (unsigned long long)SET(p, MAX_WORKERS),
               (unsigned long long)SET(p, MIN_IDLE), (unsigned long long)SET(p, QUEUE_DEPTH));
    note_aside(p, aside);
    return stamp_pool(p, httpd_gen);
}

/* The kind of worker p's requests meet. */
static const runner_wkind *pool_kind(const runner_pool *p)
{
    if (p->mode == RUNNER_MODE_CGI || p->as_cgi)
        return &runner_kind_cgi;
    return p->mode == RUNNER_MODE_FASTCGI ? &runner_kind_fcgi : &runner_kind_cgiplus;
}

/* 1 if r's worker may go to its httpd child (GRANT) rather than be
 * relayed: only a child whose anchor is open (if it dies holding the
 * worker, the anchor's close gives the worker back), and only once the
 * module has sent all of the request (after GRANT it no longer reads this
 * connection for it, nor writes to it). */
static int grantable(const runner_req *r)
{
    const runner_client *c = r->client;

    return r->grant && c && !runner_req_ended(r) && runner_client_anchored(c->pid) &&
           (r->body_end || (r->have_cl && r->cl == 0));
}

/* w's slot is CHILD(r's httpd child) now: GRANT sent, r freed. */
static void granted(runner_worker *w, runner_req *r)
{
    runner_client *c = r->client;
    unsigned char pl[CGP_GRANT_LEN];
    cgp_grant g;

    g.slot = (uint32_t)w->slot;
    g.sgen = w->sgen;
    runner_table_pool_ref(w->pool, &g.pidx, &g.pgen);
    (void)cgp_grant_pack(pl, &g); /* cannot fail: the runner's own slot and pool */
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2507) "request %u (%s) waited %llu ms; worker "
               "pid %ld goes to httpd child pid %ld", r->reqid, r->uri,
               (unsigned long long)(runner_g.now - r->t_arrive), (long)w->pid, (long)c->pid);
    w->pool->requests--; /* counted once, by the child's release, as a direct request */
    runner_client_send(c, CGP_T_GRANT, CGP_F_END, r->reqid, pl, sizeof(pl));
    runner_req_granted(r);
}

/* A queued request's published idle worker goes to its httpd child:
 * IDLE -> CHILD(pid) by CAS, GRANT sent, the request freed. 0: the CAS
 * lost, or r cannot take it. */
static int grant(runner_worker *w, runner_req *r)
{
    if (!runner_worker_published(w) || !grantable(r) ||
        !runner_table_slot_grant(w, r->client->pid))
        return 0;
    granted(w, r);
    return 1;
}

/* The worker handed to r's ticket becomes r's: granted to its httpd child
 * (its bytes never pass here), else relayed on. 1 if r got it. */
static int give(runner_req *r)
{
    int to_child = grantable(r);
    runner_worker *w = runner_twait_accept(r, to_child ? (uint32_t)r->client->pid : 0);

    if (!w)
        return 0;
    if (to_child) {
        granted(w, r);
        return 1;
    }
    runner_worker_sync(w);
    runner_req_dequeue(r);
    runner_worker_assign(w, r);
    return 1;
}

/* Tickets of ours that a child handed a worker (KICK, a dead child's
 * offer finished). */
static void give_handed(runner_pool *p)
{
    runner_req *r, *rn;

    for (r = TAILQ_FIRST(&p->queue); r; r = rn) {
        rn = TAILQ_NEXT(r, qlink);
        if (runner_twait_handed(r))
            give(r);
    }
}

/* w, idle and clean, its slot the runner's: to the oldest waiting request
 * (a child's, or one of ours, given here), else free for anyone. */
static void worker_pass(runner_worker *w)
{
    uint32_t t;

    while (runner_twait_offer(w, &t) == CGP_TQ_TO_RUNNER) {
        runner_req *r = runner_twait_holder(w->pool, t);
        if (r && give(r))
            return;
        /* no request of ours has that ticket any more: back, and on */
        if (!runner_twait_take_back(w->pool, t))
            return;
    }
}

/* After the runner took a ticket: idle workers free in the table are
 * claimed and passed, so none is idle while a ticket waits. */
static void pass_idle(runner_pool *p)
{
    runner_worker *w;

    TAILQ_FOREACH(w, &p->workers, plink)
        if (runner_worker_published(w) && w->state == RUNNER_W_IDLE &&
            !runner_worker_held(w) && runner_worker_claim(w)) {
            runner_worker_publish(w);
            if (!runner_worker_published(w))
                runner_worker_update(w); /* ours again (retiring, say): its stdout is watched */
        }
}

/* pass_idle after r took its ticket: 1 if r still waits in the queue. A
 * worker granted to r's child has freed r, so r is found by its client
 * and id among the live entries, never read itself. */
static int pass_idle_for(runner_pool *p, runner_req *r)
{
    const runner_client *c = r->client;
    uint32_t id = r->reqid;
    const runner_req *q;

    pass_idle(p);
    TAILQ_FOREACH(q, &p->queue, qlink)
        if (q->client == c && q->reqid == id)
            return 1;
    return 0;
}

/* Gives r an idle worker: first one the runner holds (the one used most
 * recently: the others may reach their idle timeout, so a quiet pool
 * shrinks), relayed; else, with table (nobody waits), one free in the
 * table, where the CAS decides between us and the children: granted to
 * r's httpd child if r allows it (the bytes then never pass here), else
 * claimed back and relayed. 0: no idle worker, r is untouched. */
static int serve_idle(runner_pool *p, runner_req *r, int table)
{
    runner_worker *w, *best = NULL;
    if (pool_kind(p)->per_request)
        return 0;
    TAILQ_FOREACH(w, &p->workers, plink)
        if (w->state == RUNNER_W_IDLE && runner_worker_usable(p, w) &&
            !runner_worker_published(w) && (!best || w->t_idle >= best->t_idle))
            best = w;
    if (!best && table)
        TAILQ_FOREACH(w, &p->workers, plink) {
            if (w->state != RUNNER_W_IDLE || !runner_worker_usable(p, w))
                continue;
            if (grant(w, r))
                return 1;
            if (runner_worker_claim(w)) {
                best = w;
                break;
            }
        }
    if (!best)
        return 0;
    if (r->state == RUNNER_R_QUEUED)
        runner_req_dequeue(r);
    if (!best->served && p->converting)
        p->converting--; /* a waiter asked to relay came for it (or another request) */
    runner_worker_assign(best, r);
    return 1;
}

/* CGIplusSpawnRate limits a pool's growth; a worker that replaces one
 * recycling ended keeps the pool's size, and is not held back (at
 * CGIplusMaxRequests 100, a hello ended 8 workers in a few ms: their
 * replacements came one every 50 ms, the pool at 5 % of its rate). */
static uint64_t rate_next_ms(const runner_pool *p)
{
    return p->renew ? 0 : runner_rate_next_ms(SET(p, SPAWN_RATE), p->tokens_at);
}

static void rate_take(runner_pool *p)
{
    if (p->renew)
        p->renew--;
    else
        runner_rate_take(SET(p, SPAWN_RATE), &p->tokens_at);
}

static enum gate spawn_gate(const runner_pool *p)
{
    if (p->nworkers >= SET(p, MAX_WORKERS))
        return GATE_FULL;
    if (runner_g.now < p->backoff_until)
        return GATE_BACKOFF;
    if (runner_g.nworkers >= runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL])
        return GATE_SLOT;
    if (!pool_kind(p)->per_request && rate_next_ms(p))
        return GATE_RATE;
    return GATE_OK;
}

static unsigned retry_after(const runner_pool *p)
{
    uint64_t left = p->backoff_until > runner_g.now ? p->backoff_until - runner_g.now : 0;
    left = (left + 999) / 1000;
    return left < 1 ? 1 : left > 3600 ? 3600 : (unsigned)left;
}

/* Ends r whose process could not start (err: the errno): refused by
 * suEXEC's checks (500, as mod_cgi answers suexec's refusal), else
 * spawn-failed. */
static void start_failed(runner_pool *p, runner_req *r, int err)
{
    if (p->refused)
        runner_req_end(r, CGP_O_REFUSED, 0, 0, p->refused);
    else
        runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)err);
}

/* Starts a process of kind for r, or ends r (start_failed). */
static void spawn_for(runner_pool *p, const runner_wkind *kind, runner_req *r)
{
    runner_worker *w;
    if (kind->spawn(p, r, &w) < 0) {
        start_failed(p, r, errno);
        return;
    }
    runner_worker_assign(w, r);
}

/* Starts a new process for r, or ends r (start_failed). */
static void start_new(runner_pool *p, runner_req *r)
{
    rate_take(p);
    spawn_for(p, pool_kind(p), r);
}

/* Keeps min_idle idle workers of the current generation. */
static void maintain(runner_pool *p)
{
    runner_worker *w;
    if (pool_kind(p)->per_request || p->retired || runner_g.stop != RUNNER_RUN)
        return;
    while (runner_worker_count_usable(p, 1) < SET(p, MIN_IDLE) && spawn_gate(p) == GATE_OK) {
        rate_take(p);
        if (pool_kind(p)->spawn(p, NULL, &w) < 0)
            break;
        runner_worker_publish(w);
    }
}

static const runner_slot_peer *peer; /* WebSocket pools: runner_pool_slot_peer */

void runner_pool_slot_peer(const runner_slot_peer *p)
{
    peer = p;
}

/* Makes room at the global cap for script's pool (own: a request pool,
 * whose workers are not stopped for it; NULL: a WebSocket pool): the
 * longest-idle worker goes, a request worker or a WebSocket worker without
 * connections (the peer's), unless enough workers are on their way out
 * already for the pools waiting (request and WebSocket pools). A busy
 * worker never goes, nor a WebSocket worker holding a connection. 1 if
 * room comes (a worker stopped now, or enough are stopping), else 0. */
static int make_room(const runner_pool *own, const char *script)
{
    runner_worker *w, *victim = NULL;
    unsigned stopping = peer ? peer->stopping() : 0, waiters = peer ? peer->waiters(NULL) : 0;
    runner_slot_idle ws;
    int ws_idle;
    runner_pool *q;
    TAILQ_FOREACH(q, &runner_g.slot_waiters, slink)
        waiters++;
    TAILQ_FOREACH(w, &runner_g.workers, glink) {
        if (w->state == RUNNER_W_STOPPING)
            stopping++;
        else if (w->state == RUNNER_W_IDLE && w->pool != own &&
                 (!victim || w->t_idle < victim->t_idle))
            victim = w;
    }
    if (stopping >= waiters)
        return 1;
    ws_idle = peer && peer->idlest(&ws) && (!victim || ws.since < victim->t_idle);
    if (!victim && !ws_idle)
        return 0;
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2067) "all %llu worker%s of the runner %s "
               "taken; stopping idle worker pid %ld of %s for %s",
               (unsigned long long)runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL],
               CGIPLUS_S(runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL]),
               runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL] == 1 ? "is" : "are",
               ws_idle ? ws.pid : (long)victim->pid, ws_idle ? ws.script : victim->pool->script,
               script);
    if (ws_idle)
        peer->evict(ws.worker);
    else
        runner_worker_stop(victim, RUNNER_END_EVICTED, 1);
    return 1;
}

int runner_pool_make_room(const char *script)
{
    return make_room(NULL, script);
}

/* Frees a slot for a pool blocked by the global cap. */
static void want_slot(runner_pool *p)
{
    if (!p->waits_slot) {
        p->waits_slot = 1;
        TAILQ_INSERT_TAIL(&runner_g.slot_waiters, p, slink);
    }
    (void)make_room(p, p->script);
}

/* An idle worker (of own, a request pool, or a WebSocket one: NULL) may
 * go for the oldest pool waiting at the global cap: a request pool other
 * than own, else a WebSocket pool. */
static void room_for_waiters(const runner_pool *own)
{
    const char *ws = NULL;
    if (!TAILQ_EMPTY(&runner_g.slot_waiters) && (!own || !own->waits_slot))
        want_slot(TAILQ_FIRST(&runner_g.slot_waiters));
    else if (peer && peer->waiters(&ws))
        (void)make_room(NULL, ws);
}

void runner_pool_peer_idle(void)
{
    if (runner_g.stop == RUNNER_RUN)
        room_for_waiters(NULL);
}

static void slot_done(runner_pool *p)
{
    if (p->waits_slot) {
        TAILQ_REMOVE(&runner_g.slot_waiters, p, slink);
        p->waits_slot = 0;
    }
}

/* A request the crash-loop backoff turns away: 503 with Retry-After (no
 * process tried: detail 0), or, if the starts failed for good (a missing
 * interpreter), that failure again: 500, no Retry-After. */
static void end_backoff(runner_pool *p, runner_req *r)
{
    if (p->exec_err)
        runner_req_end(r, CGP_O_SPAWN_FAILED, 0, 0, (uint32_t)p->exec_err);
    else
        runner_req_end(r, CGP_O_SPAWN_FAILED, retry_after(p), 0, 0);
}

static void fail_queue(runner_pool *p, int outcome, unsigned retry)
{
    while (!TAILQ_EMPTY(&p->queue)) {
        runner_req *r = TAILQ_FIRST(&p->queue);
        runner_req_dequeue(r);
        if (outcome == CGP_O_SPAWN_FAILED)
            end_backoff(p, r);
        else /* the runner stops */
            runner_req_end(r, outcome, retry, 0, ESHUTDOWN);
    }
}

/* The status page's busy count and its peak (php-fpm's max active
 * processes): a pool in the direct path's table counts there, where the
 * children's requests add theirs. */
static void worker_busy(runner_worker *w, int delta)
{
    runner_pool *p = w->pool;
    /* an engine's request counts for its script once it has a worker, as
     * a child counts its own (a request granted to a child is the child's) */
    if (delta > 0 && w->req && !w->req->script_counted) {
        w->req->script_counted = 1;
        runner_table_script_add(p, &w->req->params);
    }
    p->busy += (unsigned)delta;
    if (!runner_table_busy(p, delta) && p->busy > p->max_active)
        p->max_active = p->busy;
}

void runner_pool_recount(uint64_t pool_id, unsigned was, unsigned cause)
{
    runner_pool *p;
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (p->id == pool_id) {
            /* one request, one count: as the direct path counts it */
            if (was <= CGP_C_MAX_ && p->outcomes[was]) {
                p->outcomes[was]--;
                if (was == CGP_O_OK && p->served)
                    p->served--;
            }
            p->outcomes[cause]++;
            return;
        }
}

/* KICK: a child released a worker while requests waited, or handed one
 * back. */
void runner_pool_kick(runner_pool *p)
{
    runner_worker *w, *wn;

    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, plink);
        if (!runner_worker_published(w))
            continue;
        if (runner_table_slot_returned(w)) {
            runner_worker_returned(w);
        } else {
            runner_worker_sync(w); /* a LIFETIME it set: its timer */
            runner_worker_rearm(w);
        }
    }
    give_handed(p);
    runner_pool_dispatch(p);
}

void runner_pool_child_gone(pid_t pid)
{
    runner_pool *p;

    runner_worker_child_gone(pid);
    runner_twait_child_gone(pid); /* workers that come back: pass_owed */
    TAILQ_FOREACH(p, &runner_g.pools, link)
        give_handed(p);
}

/* In crash-loop backoff with no worker that could serve: a request is
 * answered 503 at once. */
static int crash_looping(const runner_pool *p)
{
    return spawn_gate(p) == GATE_BACKOFF && runner_worker_count_usable(p, 0) == 0;
}

/* 1 if the runner holds an idle worker that has answered no request: only
 * a request through the runner may have it (it is not published yet). */
static int holds_unserved(runner_pool *p)
{
    const runner_worker *w;

    TAILQ_FOREACH(w, &p->workers, plink)
        if (w->state == RUNNER_W_IDLE && runner_worker_usable(p, w) &&
            !runner_worker_published(w) && !w->served)
            return 1;
    return 0;
}

/* Children's requests wait in the table while the pool may grow: each new
 * worker's first request is the oldest of them, asked to come through the
 * runner (RELAY). Requests the runner holds come first. */
static void grow(runner_pool *p)
{
    const runner_worker *w;
    unsigned spare = 0;

    runner_twait_looked(p); /* their KICK is seen */
    if (p->converting && runner_g.now - p->converting_at > RUNNER_CONVERT_MS)
        p->converting = 0; /* they never came (gone meanwhile, or taken by others) */
    if (!TAILQ_EMPTY(&p->queue) || pool_kind(p)->per_request || p->retired ||
        runner_g.stop != RUNNER_RUN)
        return;
    if (crash_looping(p)) {
        /* crash-loop backoff and no worker: they get 503 at once, from us */
        while (runner_twait_convert(p))
            ;
        return;
    }
    TAILQ_FOREACH(w, &p->workers, plink)
        spare += w->state == RUNNER_W_IDLE && runner_worker_usable(p, w) &&
                 !runner_worker_published(w) && !w->served;
    while (runner_twait_children(p)) {
        if (spare <= p->converting) {
            runner_worker *nw;
            enum gate g = spawn_gate(p);
            if (g == GATE_SLOT)
                want_slot(p); /* as for a request of ours: an idle worker of another pool goes */
            if (g != GATE_OK)
                break;
            rate_take(p);
            if (pool_kind(p)->spawn(p, NULL, &nw) < 0)
                break;
            spare++;
        }
        if (!runner_twait_convert(p))
            break;
        p->converting++;
        p->converting_at = runner_g.now;
    }
}

void runner_pool_dispatch(runner_pool *p)
{
    runner_worker *w;

    pass_paid(p);
    /* Workers the runner holds idle (freed here, or taken back from a
     * ticket that left) go to the oldest waiting request first. */
    if (p->tidx >= 0)
        TAILQ_FOREACH(w, &p->workers, plink) {
            if (w->state != RUNNER_W_IDLE || runner_worker_published(w))
                continue;
            runner_worker_sync(w); /* what children did with it */
            if (w->served && runner_worker_usable(p, w))
                runner_worker_publish(w);
            if (!runner_worker_published(w))
                runner_worker_update(w); /* ours (one of our requests has it, or it
                                          * retires): its stdout is watched */
        }
    while (!TAILQ_EMPTY(&p->queue) && runner_g.stop == RUNNER_RUN) {
        runner_req *r = TAILQ_FIRST(&p->queue);
        if (serve_idle(p, r, 0))
            continue;
        enum gate g = spawn_gate(p);
        if (g == GATE_OK) {
            runner_req_dequeue(r);
            start_new(p, r);
            continue;
        }
        if (g == GATE_FULL && !p->at_max && p->tidx < 0) { /* else counted in the table */
            p->at_max = 1;
            p->max_reached++;
        }
        if (crash_looping(p))
            fail_queue(p, CGP_O_SPAWN_FAILED, retry_after(p));
        else if (g == GATE_SLOT)
            want_slot(p);
        break;
    }
    if (TAILQ_EMPTY(&p->queue)) {
        slot_done(p);
        p->at_max = 0; /* the next saturation counts again */
    }
    if (p->tidx >= 0)
        grow(p);
    maintain(p);
    runner_pool_rearm(p);
}

/* Workers of an older generation finish what they do and go (why: the
 * script file changed, or a reload); new requests meet new workers, which
 * read the script and what it loads again. Counts them in idle and busy. */
static void roll_gen(runner_pool *p, runner_wend why, unsigned *idle, unsigned *busy)
{
    runner_worker *w, *wn;
    p->gen++;
    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, plink);
        if (w->gen == p->gen || w->state == RUNNER_W_STOPPING || w->state == RUNNER_W_DEAD)
            continue;
        if (w->state == RUNNER_W_IDLE)
            (*idle)++;
        else
            (*busy)++;
        runner_worker_stop(w, why, 0);
    }
}

static void roll_workers(runner_pool *p, runner_wend why, unsigned *idle, unsigned *busy)
{
    p->fail_streak = 0;
    p->backoff_until = 0;
    p->exec_err = 0;
    p->as_cgi = 0; /* a new script file may speak CGIplus */
    roll_gen(p, why, idle, busy);
}

static void roll_over(runner_pool *p, const struct stat *st)
{
    unsigned idle = 0, busy = 0;
    roll_workers(p, RUNNER_END_DEPLOY, &idle, &busy);
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2065) "%s changed (inode %llu, %lld byte%s): pool "
               "#%llu rolls over to generation %u; %u idle worker%s %s, %u busy %s after "
               "%s request", p->script, (unsigned long long)st->st_ino, (long long)st->st_size,
               CGIPLUS_S(st->st_size), (unsigned long long)p->id, p->gen, idle, CGIPLUS_S(idle),
               idle == 1 ? "stops" : "stop", busy, busy == 1 ? "one" : "ones",
               busy == 1 ? "its" : "their");
}

/* The script must exist and be executable (else 404/403, even while its
 * workers still run). A changed file (another inode, size, mtime or ctime)
 * rolls the pool over. One stat, made when an event names the script, or
 * per request for a pool that could not be watched. */
static int check_script(void *pool)
{
    runner_pool *p = pool;
    struct stat st;
    int err;
    p->relook_at = 0;
    if ((err = runner_ident_stat(p->script, &st)))
        return err;
    if (runner_ident_changed(&p->ident, &st)) {
        /* A file copied over in place may be half written: the old
         * workers serve until it has been still for RUNNER_SETTLE_MS. */
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        int64_t still_ms = ((int64_t)rt.tv_sec - st.st_ctim.tv_sec) * 1000 +
                           (rt.tv_nsec - st.st_ctim.tv_nsec) / 1000000;
        if (st.st_ino == p->ident.ino && still_ms < (int64_t)RUNNER_SETTLE_MS &&
            runner_worker_count_usable(p, 0)) {
            p->relook_at = runner_g.now + (uint64_t)((int64_t)RUNNER_SETTLE_MS - still_ms) + 1;
            return 0;
        }
        roll_over(p, &st);
    }
    runner_ident_note(&p->ident, &st);
    runner_table_pool_sync(p);
    return 0;
}

static int look(runner_pool *p)
{
    return runner_watch_look(&p->watch, p->script, check_script, p);
}

void runner_pool_watched(int all)
{
    runner_pool *p;
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (runner_watch_stale(&p->watch, all)) {
            look(p);
            runner_pool_dispatch(p); /* old idle workers went: min_idle, the queue */
        }
}

void runner_pool_submit(runner_req *r)
{
    runner_pool *p = r->pool;
    int err = runner_watch_state(&p->watch, p->script, check_script, p);

    runner_req_step(r, RUNNER_RE_SUBMIT);
    p->requests++;
    r->counted = 1;
    p->use.last_used = runner_g.now;
    r->t_arrive = runner_g.now;
    if (err) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2007) "%s: %s (request %s)", p->script,
                   strerror(err), r->uri);
        runner_req_end(r, CGP_O_NOT_FOUND, 0, 0, (uint32_t)err);
        return;
    }
    if (runner_g.stop != RUNNER_RUN) {
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, ESHUTDOWN);
        return;
    }
    if (p->retired) { /* retired since its BEGIN: the children may use it again */
        set_retired(p, 0);
        runner_table_pool_sync(p);
    }
    unsigned qmax;
    if (TAILQ_EMPTY(&p->queue) && runner_twait_depth(p, &qmax) == 0) {
        /* serve_idle may have freed r (granted) */
        int served = serve_idle(p, r, 1);
        if (served || spawn_gate(p) == GATE_OK) {
            if (!served)
                start_new(p, r);
            maintain(p); /* one idle fewer: keep min_idle warm */
            runner_pool_rearm(p);
            return;
        }
        enum gate g = spawn_gate(p);
        if (g == GATE_BACKOFF && runner_worker_count_usable(p, 0) == 0) {
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2068) "%s: in crash-loop backoff for "
                       "%llu ms more; request %s answered spawn-failed", p->script,
                       (unsigned long long)(p->backoff_until - runner_g.now), r->uri);
            end_backoff(p, r);
            return;
        }
    }
    if (runner_req_enqueue(r, 0) < 0) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2008) "%s: queue full (%u waiting, %u worker%s "
                   "of %llu); answering overloaded at once", p->script,
                   runner_twait_depth(p, &qmax), p->nworkers, CGIPLUS_S(p->nworkers),
                   (unsigned long long)SET(p, MAX_WORKERS));
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        return;
    }
    /* The ticket first, then a look at the idle workers: a child that
     * frees one sets it IDLE, then looks for tickets; one of us sees the
     * other. */
    if (pass_idle_for(p, r))
        runner_pool_dispatch(p);
}

static void requeue(runner_req *r)
{
    runner_pool *p = r->pool;

    runner_req_waiting(r);
    /* First for a new or the runner's idle worker; for one a child frees,
     * a ticket after those already waiting (full: not even that). */
    runner_req_enqueue(r, 1);
    if (pass_idle_for(p, r))
        runner_pool_dispatch(p);
}

static void worker_idle(runner_worker *w)
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
    else
        room_for_waiters(p);
    if (w->state == RUNNER_W_IDLE)
        runner_worker_publish(w);
}

static void worker_served(runner_worker *w)
{
    runner_pool *p = w->pool;
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

/* Pools blocked by the global cap get the freed slot, oldest first;
 * WebSocket pools after request pools. The pool whose worker ended comes
 * after them (worker_reaped, runner_ws_pool_reaped). */
void runner_pool_slots_freed(void)
{
    unsigned n = 0;
    runner_pool *q;
    TAILQ_FOREACH(q, &runner_g.slot_waiters, slink)
        n++;
    while (n-- && runner_g.nworkers < runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL] &&
           (q = TAILQ_FIRST(&runner_g.slot_waiters))) {
        slot_done(q);
        runner_pool_dispatch(q);
    }
    if (peer)
        peer->freed();
}

/* Ended by recycling, the pool's (max_requests, max_age) or its own: a
 * clean exit after serving (a script that ends itself after N requests,
 * php-cgi at PHP_FCGI_MAX_REQUESTS). At most one such end a request
 * served: no fork storm to hold back. */
static int recycled(const runner_worker *w)
{
    return w->why == RUNNER_END_MAX_REQUESTS || w->why == RUNNER_END_LIFETIME ||
           (w->why == RUNNER_END_EXITED && !w->kind->per_request && !w->not_cgiplus &&
            w->served > 0 && WIFEXITED(w->status) && WEXITSTATUS(w->status) == 0);
}

static void worker_reaped(runner_worker *w, runner_req *rerun)
{
    runner_pool *p = w->pool;
    if (rerun) {
        if (!p->as_cgi)
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2080) "%s does not speak CGIplus: its "
                       "worker (pid %ld) exited without reading its request; running it as "
                       "plain CGI from now on (set CGIplusMode cgi for it)", p->script,
                       (long)w->pid);
        p->as_cgi = 1;
        runner_table_pool_sync(p); /* the children's requests come to us: waiters leave */
        spawn_for(p, &runner_kind_cgi, rerun);
    }
    p->deaths[w->why]++;
    if (recycled(w) && w->gen == p->gen && p->renew < SET(p, MAX_WORKERS))
        p->renew++;
    ended_note(p, w);
    /* Died by itself before it took a request (at start-up): a crash loop
     * if it repeats with no request served in between. The first gets a
     * second chance at once; then the delay doubles. One that died in a
     * request it took fails that request only: else one client asking a
     * URL that crashes its script would have every other request answered
     * 503 (mod_fcgid only slows its spawns). */
    if (!w->kind->per_request && !w->not_cgiplus && w->served == 0 && !w->took &&
        w->gen == p->gen &&
        (w->why == RUNNER_END_EXITED || w->why == RUNNER_END_CRASHED ||
         w->why == RUNNER_END_EXEC_FAILED || w->why == RUNNER_END_BROKEN)) {
        /* served by a child since the last such death: the streak is over
         * (the relay's own successes end it at once, runner_pool_request_ok) */
        unsigned long served = p->served + runner_table_pool_served(p);
        if (served != p->fail_served)
            p->fail_streak = 0;
        p->fail_served = served;
        p->fail_streak++;
        if (p->fail_streak >= 2) {
            uint64_t delay = runner_backoff_ms(p->fail_streak);
            p->backoff_until = runner_g.now + delay;
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2066) "%s: %u worker%s in a row ended "
                       "before serving a request, at start-up (last: %s); no new worker for %llu "
                       "ms, requests that find none meanwhile get 503", p->script,
                       p->fail_streak, CGIPLUS_S(p->fail_streak), runner_wend_name(w->why),
                       (unsigned long long)delay);
        }
    }
    /* The pools already waiting for a slot get this one first; ours, its
     * queue not empty, then waits behind them (want_slot). */
    runner_pool_slots_freed();
    runner_pool_dispatch(p);
}

static const runner_wowner pool_owner = {
    .idle = worker_idle, .served = worker_served, .requeue = requeue, .reaped = worker_reaped,
    .busy = worker_busy, .pass = worker_pass,
};

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
        runner_req_dequeue(r);
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, ETIMEDOUT);
        n++;
    }
    if (n)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2063) "%s: %u request%s waited %llu ms for a "
                   "worker; answered overloaded", p->script, n, CGIPLUS_S(n),
                   (unsigned long long)wait);
}

void runner_pool_rearm(runner_pool *p)
{
    uint64_t dl = 0, t;
#define MIN_DL(x) do { t = (x); if (t && (!dl || t < dl)) dl = t; } while (0)
    if (!TAILQ_EMPTY(&p->queue)) {
        if (SET(p, QUEUE_WAIT))
            MIN_DL(TAILQ_FIRST(&p->queue)->t_arrive + SET(p, QUEUE_WAIT));
    }
    int children = 0;
    if (p->tidx >= 0) {
        enum gate g = spawn_gate(p);
        /* A request that finds no idle worker comes to us while we may
         * start one (or answer it 503: backoff), or stop another pool's
         * idle worker to start one (the runner's cap: want_slot), or while
         * we hold an idle worker no child may take (one that has answered
         * no request yet: a FastCGI worker that said OVERLOADED); else it
         * waits in the table. */
        int grows = runner_twait_flags(p, !pool_kind(p)->per_request && !p->retired &&
                                          runner_g.stop == RUNNER_RUN &&
                                          (g == GATE_OK || g == GATE_RATE || g == GATE_SLOT ||
                                           crash_looping(p) || holds_unserved(p)),
                                       g == GATE_FULL);
        /* Read after the flag is set: a child that queued before it saw no
         * GROW and sent no KICK, so we look at its request now. */
        children = runner_twait_children(p);
        if (grows && children)
            MIN_DL(runner_g.now);
    }
    if (!TAILQ_EMPTY(&p->queue) || children ||
        (!pool_kind(p)->per_request && !p->retired &&
         runner_worker_count_usable(p, 1) < SET(p, MIN_IDLE))) {
        enum gate g = spawn_gate(p);
        if (g == GATE_BACKOFF)
            MIN_DL(p->backoff_until);
        else if (g == GATE_RATE)
            MIN_DL(rate_next_ms(p));
    }
    if (!p->retired)
        MIN_DL(p->use.last_used + runner_g.conf.v[CGP_S_POOL_IDLE]);
    if (!p->retired && p->use.stale_since)
        MIN_DL(runner_stamp_due(&p->use));
    MIN_DL(p->relook_at);
#undef MIN_DL
    set_deadline(p, dl);
}

static void pool_timer(runner_pool *p)
{
    set_deadline(p, 0);
    runner_table_pool_used(p);
    if (p->relook_at && runner_g.now >= p->relook_at)
        look(p);
    expire_queue(p);
    if (!p->retired && runner_g.now >= p->use.last_used + runner_g.conf.v[CGP_S_POOL_IDLE] &&
        TAILQ_EMPTY(&p->queue))
        pool_retire(p, "no request for a while");
    if (!p->retired && p->use.stale_since && runner_g.now >= runner_stamp_due(&p->use) && TAILQ_EMPTY(&p->queue))
        pool_retire(p, "superseded by a newer configuration");
    runner_pool_dispatch(p);
}

/* Stop: queued requests are answered at once, idle workers are told to go,
 * busy ones go after their request. */
static void pools_stop(void)
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
        runner_pool *p = runner_pool_get(cp->script, strlen(cp->script), cp->mode, NULL, NULL, 0,
                                         0, &err);
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
    unsigned pools = 0, idle = 0, busy = 0;
    /* As mod_fcgid and mod_wsgi restart their processes with httpd: every
     * pool rolls over, so php.ini, modules and files a worker read at start
     * are read again (the runner, its queues and its connections stay). */
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (!p->retired && p->nworkers) {
            roll_workers(p, RUNNER_END_RELOAD, &idle, &busy);
            pools++;
        }
    if (pools)
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2060) "reload: %u pool%s roll%s over to new "
                   "workers; %u idle worker%s %s, %u busy %s after %s request", pools,
                   CGIPLUS_S(pools), pools == 1 ? "s" : "", idle, CGIPLUS_S(idle),
                   idle == 1 ? "stops" : "stop", busy, busy == 1 ? "one" : "ones",
                   busy == 1 ? "its" : "their");
    runner_pool_declared();
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        runner_table_pool_sync(p); /* slow_request may have changed */
        runner_pool_dispatch(p);
    }
}

static void pool_free(runner_pool *p)
{
    slot_done(p);
    runner_table_pool_del(p);
    runner_watch_drop(&p->watch);
    set_retired(p, 0);
    pass_paid(p);
    set_deadline(p, 0);
    runner_htab_del(&pool_tab, &p->hl);
    TAILQ_REMOVE(&runner_g.pools, p, link);
    runner_set_free(&p->set);
    runner_domain_free(&p->domain);
    free(p->script);
    free(p->dir);
    free(p->site);
    free(p);
}

/* Pools the full table turned away (2501) take the room freed pools
 * left, or they would be relayed for as long as they are used (after a
 * graceful restart that changed settings, every new pool while the old
 * ones still held the table). Their workers, which have no slot, roll over
 * to ones that have; a pool with requests queued (they hold no ticket of
 * the table's queue) is tried again a second later. */
static int adopt_pending;
static uint64_t adopt_next;

static void adopt_entries(void)
{
    runner_pool *p;
    if (runner_g.now < adopt_next)
        return;
    adopt_pending = 0;
    adopt_next = runner_g.now + 1000;
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        unsigned idle = 0, busy = 0;
        if (p->tidx >= 0 || p->retired || p->use.stale_since || p->as_cgi ||
            pool_kind(p)->per_request)
            continue; /* a superseded pool is about to retire */
        if (!TAILQ_EMPTY(&p->queue)) {
            adopt_pending = 1;
            continue;
        }
        if (!runner_table_pool_attach(p))
            continue;
        roll_gen(p, RUNNER_END_RETIRED, &idle, &busy);
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2508) "pool #%llu of %s: room in the direct "
                   "path's table now; %u idle worker%s %s, %u busy %s after %s request, for "
                   "new ones on the direct path", (unsigned long long)p->id, p->script, idle,
                   CGIPLUS_S(idle), idle == 1 ? "stops" : "stop", busy, busy == 1 ? "one" : "ones",
                   busy == 1 ? "its" : "their");
        runner_pool_dispatch(p);
    }
}

/* Frees retired pools nobody uses any more: no worker, no request. */
static void pools_gc(void)
{
    runner_pool *p, *pn;
    runner_client *c;
    for (p = TAILQ_FIRST(&retired_pools); p; p = pn) {
        pn = TAILQ_NEXT(p, rlink);
        unsigned qmax;
        if (!p->retired || p->nworkers || p->qlen || runner_twait_depth(p, &qmax))
            continue;
        int held = 0; /* a request between BEGIN and submit points at it */
        TAILQ_FOREACH(c, &runner_g.clients, link)
            held |= c->req && c->req->pool == p;
        if (held)
            continue;
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2070) "pool #%llu of %s freed",
                   (unsigned long long)p->id, p->script);
        if (p->tidx >= 0) { /* its entry is free now: at once */
            adopt_pending = 1;
            adopt_next = 0;
        }
        pool_free(p);
    }
    if (adopt_pending && runner_g.stop == RUNNER_RUN)
        adopt_entries();
}

static void pools_free_all(void)
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
            runner_req_dequeue(r);
            if (r->client)
                r->client->req = NULL;
            runner_req_free(r);
        }
        pool_free(p);
    }
    runner_heap_free(&pool_heap);
    runner_htab_free(&pool_tab);
}

static uint64_t pools_deadline(void)
{
    const runner_hnode *e = runner_heap_min(&pool_heap);
    if (!TAILQ_EMPTY(&runner_g.owed))
        return runner_g.now; /* a worker came back */
    return e ? e->at : 0;
}

/* Each pool whose worker came back or whose deadline is due, once a pass,
 * as a walk of them all did. Pools are only freed by pools_gc, never in a
 * timer: those taken due stay valid through the pass. */
static void pools_timers(void)
{
    static unsigned long pass;
    runner_hnode *e, *next;
    runner_pool *p;

    pass++;
    e = runner_heap_take_due(&pool_heap, runner_g.now);
    /* pool_timer's dispatch takes p out of the list; one owed again meanwhile
     * is behind the others and waits for the next turn */
    while ((p = TAILQ_FIRST(&runner_g.owed)) && p->timer_pass != pass) {
        p->timer_pass = pass;
        pool_timer(p);
    }
    for (; e; e = next) {
        p = POOL_OF(tn, e);
        next = e->due_next;
        if (p->timer_pass != pass && p->deadline && runner_g.now >= p->deadline) {
            p->timer_pass = pass;
            pool_timer(p);
        } else {
            set_deadline(p, p->deadline); /* not due (any more): back in the heap */
        }
    }
}

const runner_room runner_pool_room = {
    .name = "pools", .deadline = pools_deadline, .timers = pools_timers, .stop = pools_stop,
    .turn_end = pools_gc, .fini = pools_free_all,
};
