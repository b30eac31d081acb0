/* cgiplus_direct_table.c: the direct path's view of the runner's shared
 * table (include/cgp_table.h; docs/DESIGN.md, "The direct path"): the
 * mapping and its anchor, the pool keys the runner named, and claiming and
 * releasing a worker's slot through cgp_tslot_step. */
#include "cgiplus_direct_private.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "http_log.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

#define DIRECT_CHECK_EVERY apr_time_from_msec(200) /* is the runner still there? */
#define DIRECT_POOLS_MAX   4096         /* pool keys cached per process */

/* The runner went away (or restarted): its table and every cached channel
 * are dropped. The mapping stays (a request may still read it); the old
 * workers see end of file on CGIPLUSIN once nobody holds it, and exit.
 * With cgiplus_dp.mu held. */
static void direct_drop_locked(void)
{
    unsigned i;

    cgiplus_dp.base = NULL;
    for (i = 0; i < CGP_TABLE_SLOTS; i++) {
        direct_chan *ch = cgiplus_dp.chans[i];

        if (!ch)
            continue;
        cgiplus_dp.chans[i] = NULL;
        ch->dead = 1;
        if (ch->refs == 0)
            cgiplus_direct_chan_close(ch);
    }
    if (cgiplus_dp.anchor)
        cgiplus_conn_close(cgiplus_dp.anchor);
    cgiplus_dp.anchor = NULL;
    apr_hash_clear(cgiplus_dp.pools);
    cgiplus_dp.npools = 0;
}

void cgiplus_direct_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    memset(&cgiplus_dp, 0, sizeof(cgiplus_dp));
    cgiplus_dp.pid = (uint32_t)getpid();
    if ((rv = apr_pool_create_unmanaged_ex(&cgiplus_dp.pool, NULL, NULL)) != APR_SUCCESS ||
        (rv = apr_thread_mutex_create(&cgiplus_dp.mu, APR_THREAD_MUTEX_DEFAULT, pchild))
            != APR_SUCCESS) {
        cgiplus_dp.mu = NULL;
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, CGIPLUS_LOGNO(1700)
                     "cannot set up the direct path in this process; its requests "
                     "go through the runner");
        return;
    }
    cgiplus_dp.pools = apr_hash_make(cgiplus_dp.pool);
}

int cgiplus_direct_on(const cgiplus_dir_conf *dc)
{
    return cgiplus_conf_geti(dc, CGP_S_DIRECT) != 0;
}

/* Asks the runner for its table on a connection of its own, which then
 * stays open for this child's life (the anchor). */
static void direct_open(request_rec *r)
{
    unsigned char pl[CGP_PAIR_LEN];
    cgiplus_conn *c = NULL;
    cgp_pair pr;
    void *base = MAP_FAILED;
    int fd = -1, nfds = 0;
    apr_status_t rv;

    apr_thread_mutex_lock(cgiplus_dp.mu);
    if (cgiplus_dp.base || cgiplus_dp.opening) {
        apr_thread_mutex_unlock(cgiplus_dp.mu);
        return;
    }
    cgiplus_dp.opening = 1;
    apr_thread_mutex_unlock(cgiplus_dp.mu);

    if ((rv = cgiplus_conn_acquire(r, 1, &c)) != APR_SUCCESS) {
        c = NULL;
        goto done;
    }
    if (c->runner_pid == cgiplus_dp.refused_pid)
        goto done;
    if ((rv = cgiplus_direct_send(c, CGP_T_DIRECT, NULL, 0)) != APR_SUCCESS ||
        (rv = cgiplus_direct_recv(c, CGP_T_DIRECT_ACK, pl, sizeof(pl), &fd, 1, &nfds))
            != APR_SUCCESS ||
        cgp_pair_unpack(pl, sizeof(pl), &pr) != CGP_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1701)
                      "the runner (pid %lu) did not hand out its table; requests go "
                      "through it", (unsigned long)c->runner_pid);
        cgiplus_dp.refused_pid = c->runner_pid;
        goto done;
    }
    if (nfds != 1 || pr.a != CGP_TABLE_SIZE || pr.b != CGP_TABLE_VERSION) {
        cgiplus_dp.refused_pid = c->runner_pid; /* none, or another layout */
        goto done;
    }
    base = mmap(NULL, CGP_TABLE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, errno, r, CGIPLUS_LOGNO(1702)
                      "cannot map the runner's table; requests go through the runner");
        cgiplus_dp.refused_pid = c->runner_pid;
        goto done;
    }
    {
        const cgp_table_hdr *h = base;

        if (h->magic != CGP_TABLE_MAGIC || h->version != CGP_TABLE_VERSION ||
            h->size != CGP_TABLE_SIZE || h->npools != CGP_TABLE_POOLS ||
            h->nslots != CGP_TABLE_SLOTS || h->runner_pid != c->runner_pid) {
            munmap(base, CGP_TABLE_SIZE);
            base = MAP_FAILED;
            cgiplus_dp.refused_pid = c->runner_pid;
            goto done;
        }
    }
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1703)
                  "direct path: got the table of runner pid %lu",
                  (unsigned long)c->runner_pid);

done:
    if (fd >= 0)
        close(fd); /* the mapping keeps it */
    apr_thread_mutex_lock(cgiplus_dp.mu);
    cgiplus_dp.opening = 0;
    if (base != MAP_FAILED) {
        direct_drop_locked(); /* anything of an older runner */
        cgiplus_dp.base = base;
        cgiplus_dp.runner_pid = c->runner_pid;
        cgiplus_dp.anchor = c;
        cgiplus_dp.next_check = apr_time_now() + DIRECT_CHECK_EVERY;
        c = NULL;
    }
    apr_thread_mutex_unlock(cgiplus_dp.mu);
    if (c)
        cgiplus_conn_close(c);
}

/* Every so often: the anchor readable means the runner closed it (it died
 * or restarted); then the table and the channels are of no use. */
void cgiplus_direct_check(void)
{
    apr_time_t now = apr_time_now();

    if (now < cgiplus_dp.next_check)
        return;
    apr_thread_mutex_lock(cgiplus_dp.mu);
    if (cgiplus_dp.base && now >= cgiplus_dp.next_check) {
        cgiplus_dp.next_check = now + DIRECT_CHECK_EVERY;
        if (cgiplus_conn_readable(cgiplus_dp.anchor, 0))
            direct_drop_locked();
    }
    apr_thread_mutex_unlock(cgiplus_dp.mu);
}

/* A connection to the runner said another pid than the table's: another
 * runner answers now. */
static void direct_runner_seen(void)
{
    apr_uint32_t runner_pid = cgiplus_conn_last_runner();

    if (!cgiplus_dp.base || !runner_pid || runner_pid == cgiplus_dp.runner_pid)
        return;
    apr_thread_mutex_lock(cgiplus_dp.mu);
    if (cgiplus_dp.base && runner_pid != cgiplus_dp.runner_pid)
        direct_drop_locked();
    apr_thread_mutex_unlock(cgiplus_dp.mu);
}

int cgiplus_direct_begin(cgiplus_req *q)
{
    if (!cgiplus_dp.mu)
        return 0;
    direct_runner_seen();
    cgiplus_direct_check();
    if (!cgiplus_dp.base)
        direct_open(q->r);
    return cgiplus_dp.base != NULL;
}

void cgiplus_direct_learn(cgiplus_req *q, const cgp_pair *pool, apr_uint32_t runner_pid)
{
    cgp_pair pr = *pool;
    direct_poolref *ref;

    if (!cgiplus_dp.mu || !q->pool_key || pr.a >= CGP_TABLE_POOLS)
        return;
    apr_thread_mutex_lock(cgiplus_dp.mu);
    if (cgiplus_dp.base && runner_pid == cgiplus_dp.runner_pid) {
        ref = apr_hash_get(cgiplus_dp.pools, q->pool_key, (apr_ssize_t)q->pool_key_len);
        if (!ref && cgiplus_dp.npools < DIRECT_POOLS_MAX) {
            ref = apr_palloc(cgiplus_dp.pool, sizeof(*ref));
            apr_hash_set(cgiplus_dp.pools,
                         apr_pmemdup(cgiplus_dp.pool, q->pool_key, q->pool_key_len),
                         (apr_ssize_t)q->pool_key_len, ref);
            cgiplus_dp.npools++;
        }
        if (ref) {
            ref->idx = pr.a;
            ref->gen = pr.b;
        }
    }
    apr_thread_mutex_unlock(cgiplus_dp.mu);
}

/* Tells the runner to look at a pool (a worker handed back, or to one of
 * its tickets; waiters while it may start workers). Off the common path. */
void cgiplus_direct_kick(request_rec *r, uint32_t pidx, uint32_t pgen)
{
    unsigned char pl[CGP_PAIR_LEN];
    cgp_pair pr = { pidx, pgen };
    cgiplus_conn *c;

    if (cgiplus_conn_acquire(r, 0, &c) != APR_SUCCESS)
        return;
    cgp_pair_pack(pl, &pr);
    if (c->runner_pid != cgiplus_dp.runner_pid ||
        cgiplus_direct_send(c, CGP_T_KICK, pl, sizeof(pl)) != APR_SUCCESS)
        cgiplus_conn_close(c);
    else
        cgiplus_conn_release(c);
}

int cgiplus_direct_pool_ref(cgiplus_req *q, direct_poolref *ref)
{
    direct_poolref *p;

    if (!cgiplus_dp.mu || !cgiplus_dp.base || !q->pool_key)
        return 0;
    apr_thread_mutex_lock(cgiplus_dp.mu);
    p = cgiplus_dp.base ? apr_hash_get(cgiplus_dp.pools, q->pool_key,
                                       (apr_ssize_t)q->pool_key_len) : NULL;
    if (p)
        *ref = *p;
    apr_thread_mutex_unlock(cgiplus_dp.mu);
    return p != NULL;
}

/* The script file the request names is the one the pool's workers run
 * (else the runner must see the request: it rolls the pool over). An
 * engine pool's program is not the request's file: the runner's watch
 * sees the engine change, and the engine each script. */
static int direct_same_file(const request_rec *r, cgp_tpool *tp)
{
    const apr_finfo_t *f = &r->finfo;

    if ((f->valid & (APR_FINFO_INODE | APR_FINFO_DEV | APR_FINFO_MTIME | APR_FINFO_CTIME |
                     APR_FINFO_SIZE)) != (APR_FINFO_INODE | APR_FINFO_DEV | APR_FINFO_MTIME |
                                          APR_FINFO_CTIME | APR_FINFO_SIZE))
        return 0;
    return atomic_load(&tp->ident_ino) == (uint64_t)f->inode &&
           atomic_load(&tp->ident_dev) == (uint64_t)f->device &&
           atomic_load(&tp->ident_size) == (uint64_t)f->size &&
           atomic_load(&tp->ident_mtime_us) == (uint64_t)f->mtime &&
           atomic_load(&tp->ident_ctime_us) == (uint64_t)f->ctime;
}

/* For the status page: what this worker serves, since when. */
static void direct_note_uri(request_rec *r, cgp_tslot *s)
{
    const char *u = r->unparsed_uri ? r->unparsed_uri : r->uri;
    apr_size_t n = u ? strlen(u) : 0, i;

    for (i = 0; i < CGP_TSLOT_URI / 8; i++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++) {
            apr_size_t at = i * 8 + (apr_size_t)k;
            if (at < n)
                v |= (uint64_t)(unsigned char)u[at] << (8 * k);
        }
        atomic_store_explicit(&s->uri[i], v, memory_order_relaxed);
    }
    atomic_store_explicit(&s->claimed_ms, cgiplus_direct_now_ms(), memory_order_relaxed);
}

int cgiplus_direct_hold(cgiplus_req *q, const direct_poolref *ref, uint32_t sidx,
                        uint32_t sgen, cgiplus_direct *x)
{
    void *base = cgiplus_dp.base;
    cgp_tslot *s = cgp_table_slot(base, sidx);
    cgp_tpool *tp = cgp_table_pool(base, ref->idx);

    x->slot = s;
    x->tp = tp;
    x->sidx = sidx;
    x->sgen = sgen;
    x->pidx = ref->idx;
    x->pgen = ref->gen;
    direct_note_uri(q->r, s);
    /* The pool may have changed hands meanwhile, or the runner wants it back. */
    if (atomic_load(&tp->gen) != ref->gen || (atomic_load(&s->flags) & CGP_TS_RETIRE)) {
        cgp_tslot_step(s, CGP_TS_CHILD, sgen, cgiplus_dp.pid, CGP_TE_HAND_BACK, 0);
        cgiplus_direct_kick(q->r, x->pidx, x->pgen);
        return 0;
    }
    cgp_tpool_busy(tp, 1); /* the status page's max active */
    return 1;
}

int cgiplus_direct_claim(cgiplus_req *q, const direct_poolref *ref, cgiplus_direct *x)
{
    void *base = cgiplus_dp.base;
    cgp_tpool *tp;
    cgp_tq tq;
    uint32_t first, n, i;

    if (!base)
        return -1;
    tp = cgp_table_pool(base, ref->idx);
    if (atomic_load(&tp->gen) != ref->gen || !(atomic_load(&tp->flags) & CGP_TP_DIRECT) ||
        (!q->engine && !direct_same_file(q->r, tp)))
        return -1;
    /* FIFO: newcomers queue behind waiting requests */
    if (cgp_tq_get(base, ref->idx, &tq) && atomic_load(&tq.q->queued) > 0)
        return 0;
    first = atomic_load(&tp->first_slot);
    n = atomic_load(&tp->nslots);
    if (first >= CGP_TABLE_SLOTS || n > CGP_TABLE_SLOTS - first)
        return -1;
    for (i = first; i < first + n; i++) {
        cgp_tslot *s = cgp_table_slot(base, i);
        uint64_t w = atomic_load(&s->word);

        if (cgp_tword_state(w) != CGP_TS_IDLE ||
            !cgp_tslot_step(s, CGP_TS_IDLE, cgp_tword_gen(w), 0, CGP_TE_CLAIM_CHILD,
                            cgiplus_dp.pid))
            continue;
        return cgiplus_direct_hold(q, ref, i, cgp_tword_gen(w), x) ? 1 : -1;
    }
    return 0;
}

int cgiplus_direct_granted_slot(request_rec *r, const cgp_grant *g, cgiplus_direct *x)
{
    void *base = cgiplus_dp.base;
    cgp_tslot *s;
    uint64_t w;

    if (!base)
        return 0;
    s = cgp_table_slot(base, g->slot);
    w = atomic_load(&s->word);
    if (cgp_tword_state(w) != CGP_TS_CHILD || cgp_tword_gen(w) != g->sgen ||
        cgp_tword_pid(w) != cgiplus_dp.pid)
        return 0; /* not ours (a table we no longer have): nothing to give back */
    x->slot = s;
    x->tp = cgp_table_pool(base, g->pidx);
    x->sidx = g->slot;
    x->sgen = g->sgen;
    x->pidx = g->pidx;
    x->pgen = g->pgen;
    direct_note_uri(r, s); /* the runner counted it busy (GRANT) */
    return 1;
}

int cgiplus_direct_count(cgiplus_req *q, unsigned cause)
{
    void *base = cgiplus_dp.base;
    direct_poolref ref;
    cgp_tpool *tp;

    if (!base || cause >= CGP_TPOOL_OUTCOMES || !cgiplus_direct_pool_ref(q, &ref))
        return 0;
    tp = cgp_table_pool(base, ref.idx);
    if (atomic_load(&tp->gen) != ref.gen)
        return 0;
    atomic_fetch_add(&tp->requests, 1);
    atomic_fetch_add(&tp->outcomes[cause], 1);
    return 1;
}

void cgiplus_direct_script_count(cgiplus_req *q, cgiplus_direct *x, int delta)
{
    if (q->engine && cgiplus_dp.base && atomic_load(&x->tp->gen) == x->pgen)
        cgp_tscript_add(cgiplus_dp.base, x->pidx, q->r->filename, strlen(q->r->filename),
                        delta);
}

int cgiplus_direct_pass(request_rec *r, cgiplus_direct *x)
{
    void *base = cgiplus_dp.base;
    uint32_t ticket;
    cgp_tq tq;
    int rc;

    if (!base || x->slot != cgp_table_slot(base, x->sidx) ||
        atomic_load(&x->tp->gen) != x->pgen || !cgp_tq_get(base, x->pidx, &tq))
        /* not the current table's pool: nobody of it can wait */
        return cgp_tslot_step(x->slot, CGP_TS_CHILD, x->sgen, cgiplus_dp.pid,
                              CGP_TE_RELEASE, 0);
    rc = cgp_tq_pass(&tq, x->sidx, x->sgen, CGP_TS_CHILD, cgiplus_dp.pid,
                     cgiplus_dp.pid, cgiplus_dp.runner_pid, &ticket);
    if (rc == CGP_TQ_TO_RUNNER) /* a request the runner holds: it must know */
        cgiplus_direct_kick(r, x->pidx, x->pgen);
    return rc != CGP_TQ_LOST;
}

void cgiplus_direct_unclaim(request_rec *r, cgiplus_direct *x)
{
    cgp_tpool_busy(x->tp, -1);
    cgiplus_direct_pass(r, x);
}

void cgiplus_direct_hand_back(cgiplus_req *q, uint32_t flag)
{
    cgiplus_direct *x = direct_x(q);

    if (x->released)
        return;
    x->released = 1;
    /* Not a request of this worker: it leaves the busy count, and the
     * request is counted where it runs next (cgiplus_direct_started counted it). */
    atomic_fetch_sub(&x->tp->requests, 1);
    cgiplus_direct_script_count(q, x, -1);
    cgp_tpool_busy(x->tp, -1);
    atomic_fetch_or(&x->slot->flags, flag);
    if (cgp_tslot_step(x->slot, CGP_TS_CHILD, x->sgen, cgiplus_dp.pid, CGP_TE_HAND_BACK, 0))
        cgiplus_direct_kick(q->r, x->pidx, x->pgen);
    cgiplus_direct_chan_unref(x->ch);
}

/* The worker goes back: to the oldest waiting request, IDLE for anyone,
 * or RETURNED with what the runner must do. */
void cgiplus_direct_release(cgiplus_req *q, int client_gone)
{
    cgiplus_direct *x = direct_x(q);
    cgp_tslot *s = x->slot;
    unsigned target = CGP_TS_IDLE;
    uint32_t add = 0;
    int clean = q->ended && q->end.outcome == CGP_O_OK && !x->broken &&
                x->in_off == x->in_len;
    uint64_t now = cgiplus_direct_now_ms();
    uint32_t slow = atomic_load(&x->tp->slow_ms);
    unsigned cause, as;

    if (x->released)
        return;
    x->released = 1;
    cgp_tpool_busy(x->tp, -1);
    if (x->logs > DIRECT_LOG_MAX)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1711)
                      "%s (worker pid %lu) sent %u LOG and WATCH callouts in one request; the %u "
                      "past the first %d were dropped", q->r->filename,
                      (unsigned long)x->ch->pid, x->logs, x->logs - DIRECT_LOG_MAX,
                      DIRECT_LOG_MAX);
    /* what the client got, counted once: the module's cause if it failed
     * the request, else its end (ok: served) */
    cause = cgiplus_req_report(q);
    as = cause ? cause
         : client_gone && !q->ended ? CGP_O_ABORTED
         : q->ended && q->end.outcome < CGP_TPOOL_OUTCOMES ? q->end.outcome : CGP_O_CRASHED;
    atomic_fetch_add(&x->tp->outcomes[as], 1);
    if (as == CGP_O_OK)
        atomic_fetch_add(&x->tp->served, 1);
    if (slow && now - x->t_start > slow)
        atomic_fetch_add(&x->tp->slow, 1); /* as the runner's slow_request */
    if (clean) {
        uint32_t maxr = atomic_load(&x->tp->max_requests);
        uint64_t served;

        if (x->body_len && x->ch->fd_peer >= 0) {
            /* What the script left unread would be the next body (the
             * runner's reader of the pipe: non-blocking, unlike the script's).
             * A FastCGI worker has no such pipe: its body went on its socket. */
            char junk[4096];
            ssize_t n;

            while ((n = read(x->ch->fd_peer, junk, sizeof(junk))) > 0 ||
                   (n < 0 && errno == EINTR))
                ;
        }
        served = atomic_fetch_add(&s->served, 1) + 1; /* the worker's, for CGIplusMaxRequests */
        atomic_store(&s->last_ms, now);
        atomic_store(&x->tp->last_used, now);
        if ((atomic_load(&s->flags) & CGP_TS_RETIRE) || (maxr && served >= maxr))
            target = CGP_TS_RETURNED;
        if (x->eof) { /* a FastCGI application closed its connection after it */
            add = CGP_TS_EOF;
            target = CGP_TS_RETURNED;
        }
    }
    else if (!x->eof && !x->broken && !x->held &&
             (client_gone || !q->ended || (q->end.outcome == CGP_O_TIMEOUT && x->no_abort))) {
        /* Mid-response: the runner reads it to its sentinel, then reuses it. */
        /* one output timeout more, as an orphan of the relay; 0: httpd's
         * Timeout. A FastCGI script whose client left: what is left of its
         * request's bound (its writes fail, and it may run on by design). */
        apr_uint64_t left = x->orphan_runs && !x->no_abort ? cgiplus_direct_left_ms(q)
                                                           : atomic_load(&x->tp->tmo_output);

        atomic_store(&s->drain_ms, left > UINT32_MAX ? UINT32_MAX : (uint32_t)left);
        /* no-abort: stopped past the bound as a relayed orphan is (2084) */
        add = CGP_TS_DRAIN | (x->no_abort ? CGP_TS_NOABORT : 0);
        target = CGP_TS_RETURNED;
    }
    else {
        /* gone (its exit tells how), broken, timed out, or it has half a
         * record (the next one would not parse) */
        add = x->eof ? CGP_TS_EOF : x->broken ? CGP_TS_BROKEN : CGP_TS_KILL;
        target = CGP_TS_RETURNED;
    }
    if (target == CGP_TS_IDLE && x->ready)
        add |= CGP_TS_READY; /* its next record may go whole */
    if (add)
        atomic_fetch_or(&s->flags, add);
    if (target == CGP_TS_IDLE) {
        /* to the oldest waiting request, or free for anyone */
        if (cgiplus_direct_pass(q->r, x) && x->lifetime_set)
            cgiplus_direct_kick(q->r, x->pidx, x->pgen); /* its timer */
    }
    else if (cgp_tslot_step(s, CGP_TS_CHILD, x->sgen, cgiplus_dp.pid, CGP_TE_HAND_BACK, 0)) {
        cgiplus_direct_kick(q->r, x->pidx, x->pgen);
    }
    cgiplus_direct_chan_unref(x->ch);
}
