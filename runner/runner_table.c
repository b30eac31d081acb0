/* runner_table.c: the runner's side of the direct path's shared table
 * (include/cgp_table.h): one sealed memfd, pool entries and worker slots.
 * What is read and written there, and every move of a slot (through
 * cgp_tslot_step, as the children move it); no decision: what a move
 * means for a worker is runner_worker.c's, for a pool runner_pool.c's. */
#include "runner_table.h"
#include "runner_ctx.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_worker.h"
#include "cgp_table.h"
#include "cgp_twait.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The table of this runner process; lives until it exits. fd -1: none
 * (memfd refused, say): every request is relayed. */
static struct {
    int fd;
    void *base;
    runner_pool *pools[CGP_TABLE_POOLS];
    runner_worker *owner[CGP_TABLE_SLOTS];
    uint32_t pool_gen[CGP_TABLE_POOLS];
    uint64_t next_look;       /* runner_table_look_at */
} tb = { .fd = -1 };

int runner_table_init(void)
{
    size_t size = CGP_TABLE_SIZE;
    void *base = MAP_FAILED;
    int fd = memfd_create("cgiplus-table", MFD_CLOEXEC | MFD_ALLOW_SEALING);

    if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
        (base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2500) "cannot make the direct path's "
                   "table (%s); every request goes through the runner", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    cgp_table_hdr *h = base;
    h->magic = CGP_TABLE_MAGIC;
    h->version = CGP_TABLE_VERSION;
    h->hdr_size = sizeof(cgp_table_hdr);
    h->pool_size = sizeof(cgp_tpool);
    h->slot_size = sizeof(cgp_tslot);
    h->npools = CGP_TABLE_POOLS;
    h->nslots = CGP_TABLE_SLOTS;
    h->runner_pid = (uint32_t)getpid();
    h->size = size;
    h->queue_size = sizeof(cgp_tqueue);
    h->wait_size = sizeof(cgp_twait);
    h->nwaits = CGP_TABLE_WAITS;
    tb.fd = fd;
    tb.base = base;
    return 0;
}

static cgp_tpool *tpool(const runner_pool *p)
{
    return p->tidx >= 0 ? cgp_table_pool(tb.base, (uint32_t)p->tidx) : NULL;
}

static cgp_tslot *tslot(const runner_worker *w)
{
    return w->slot >= 0 ? cgp_table_slot(tb.base, (uint32_t)w->slot) : NULL;
}

/* The runner's own move of slot s (FILL, REAP, CLEAR), from whatever
 * state it is in: retried until the CAS takes, since a holder may move it
 * meanwhile (only the runner changes the generation). 0: the table has no
 * such move from its state. */
static int slot_force(cgp_tslot *s, unsigned ev)
{
    uint64_t word = atomic_load(&s->word);
    while (cgp_tnext(cgp_tword_state(word), ev) != 0xff) {
        if (cgp_tslot_step(s, cgp_tword_state(word), cgp_tword_gen(word), cgp_tword_pid(word),
                           ev, 0))
            return 1;
        word = atomic_load(&s->word);
    }
    return 0;
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* First fit of n units in a region of cap, where each pool with an entry
 * holds [at(pool), at(pool) + len(pool)): the start, or -1. */
static long first_fit(uint32_t n, uint32_t cap, int rings)
{
    static unsigned char used[CGP_TABLE_WAITS];
    uint32_t i, first = 0, run = 0;

    memset(used, 0, cap);
    for (i = 0; i < CGP_TABLE_POOLS; i++)
        if (tb.pools[i])
            memset(used + (rings ? tb.pools[i]->wfirst : tb.pools[i]->tfirst), 1,
                   rings ? tb.pools[i]->wsize : tb.pools[i]->tslots);
    for (i = 0; i < cap && run < n; i++) {
        if (used[i]) {
            run = 0;
            continue;
        }
        if (run++ == 0)
            first = i;
    }
    return run < n ? -1 : (long)first;
}

/* The ring for a queue depth: twice as long (an entry handed over is
 * free again only once its waiter woke), a power of two, 16 to 4096. */
static uint32_t ring_size(uint64_t depth)
{
    uint32_t n = 16;

    while (n < CGP_TWAIT_RING_MAX && n < 2 * depth)
        n <<= 1;
    return n;
}

/* A free entry, a block of max_workers slots and a ring of waiter
 * entries for p: 1, or 0 if the table has no room (or p may not have
 * one), and p stays relayed only. */
int runner_table_pool_attach(runner_pool *p)
{
    uint64_t n = p->set.v[CGP_S_MAX_WORKERS];
    uint32_t wn = ring_size(p->set.v[CGP_S_QUEUE_DEPTH]), i;
    long first, wfirst;
    int idx = -1;

    if (tb.fd < 0 || p->tidx >= 0 || p->mode == RUNNER_MODE_CGI || n == 0 ||
        n > CGP_TABLE_SLOTS)
        return 0;
    for (i = 0; i < CGP_TABLE_POOLS && idx < 0; i++)
        if (!tb.pools[i])
            idx = (int)i;
    if (idx < 0 || (first = first_fit((uint32_t)n, CGP_TABLE_SLOTS, 0)) < 0 ||
        (wfirst = first_fit(wn, CGP_TABLE_WAITS, 1)) < 0)
        return 0;
    p->tidx = idx;
    p->tfirst = (uint32_t)first;
    p->tslots = (uint32_t)n;
    p->wfirst = (uint32_t)wfirst;
    p->wsize = wn;
    tb.pools[idx] = p;
    cgp_tpool *t = tpool(p);
    atomic_store(&t->flags, 0);
    atomic_store(&t->first_slot, (uint32_t)first);
    atomic_store(&t->nslots, (uint32_t)n);
    atomic_store(&t->last_used, 0);
    atomic_store(&t->served, 0);
    atomic_store(&t->requests, 0);
    for (i = 0; i < CGP_TPOOL_OUTCOMES; i++)
        atomic_store(&t->outcomes[i], 0);
    atomic_store(&t->active, 0);
    atomic_store(&t->max_active, 0);
    atomic_store(&t->slow, 0);
    atomic_store(&t->scripts_other, 0);
    cgp_tscript *sc = cgp_table_scripts(tb.base, (uint32_t)idx);
    for (i = 0; i < CGP_TSCRIPTS; i++) {
        atomic_store(&sc[i].key, 0);
        atomic_store(&sc[i].requests, 0);
        atomic_store(&sc[i].named, 0);
    }
    for (i = (uint32_t)first; i < (uint32_t)first + n; i++)
        slot_force(cgp_table_slot(tb.base, i), CGP_TE_CLEAR);
    cgp_tqueue *q = cgp_table_queue(tb.base, (uint32_t)idx);
    atomic_store(&q->first, p->wfirst);
    atomic_store(&q->size, wn);
    cgp_tq tq;
    cgp_tq_get(tb.base, (uint32_t)idx, &tq);
    cgp_tq_reset(&tq, clamp32(p->set.v[CGP_S_QUEUE_DEPTH]),
                 clamp32(p->set.v[CGP_S_QUEUE_WAIT]));
    if (++tb.pool_gen[idx] == 0)
        tb.pool_gen[idx] = 1;
    atomic_store(&t->gen, tb.pool_gen[idx]);
    runner_table_pool_sync(p);
    return 1;
}

void runner_table_pool_add(runner_pool *p)
{
    uint64_t n = p->set.v[CGP_S_MAX_WORKERS];

    p->tidx = -1;
    if (runner_table_pool_attach(p) || tb.fd < 0 || p->mode == RUNNER_MODE_CGI || n == 0 ||
        n > CGP_TABLE_SLOTS)
        return;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2501) "pool #%llu of %s: the direct path's "
               "table is full (%u pools, %u workers, %u waiting requests); its requests go "
               "through the runner", (unsigned long long)p->id, p->script, CGP_TABLE_POOLS,
               CGP_TABLE_SLOTS, CGP_TABLE_WAITS);
}

void runner_table_pool_del(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return;
    atomic_store(&t->flags, 0);
    atomic_store(&t->gen, 0); /* children's cached (index, gen) no longer match */
    atomic_store(&cgp_table_queue(tb.base, (uint32_t)p->tidx)->size, 0);
    tb.pools[p->tidx] = NULL;
    p->tidx = -1;
}

/* What the children need to serve the pool's requests alone. */
void runner_table_pool_sync(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return;
    atomic_store(&t->max_requests, clamp32(p->set.v[CGP_S_MAX_REQUESTS]));
    atomic_store(&t->tmo_output, clamp32(p->set.v[CGP_S_TIMEOUT_OUTPUT]));
    atomic_store(&t->tmo_noprogress, clamp32(p->set.v[CGP_S_TIMEOUT_NOPROGRESS]));
    atomic_store(&t->slow_ms, clamp32(runner_g.conf.v[CGP_S_SLOW_REQUEST]));
    if (p->ident.have) {
        atomic_store(&t->ident_dev, (uint64_t)p->ident.dev);
        atomic_store(&t->ident_ino, (uint64_t)p->ident.ino);
        atomic_store(&t->ident_size, (uint64_t)p->ident.size);
        atomic_store(&t->ident_mtime_us, (uint64_t)(p->ident.mtime_ns / 1000));
        atomic_store(&t->ident_ctime_us, (uint64_t)(p->ident.ctime_ns / 1000));
    }
    /* A pool that runs its script as plain CGI (2080) has no worker a child
     * could take, nor wait for: its requests go to the runner. */
    atomic_store(&t->flags, p->ident.have && !p->retired && !p->as_cgi &&
                            runner_g.stop == RUNNER_RUN ? CGP_TP_DIRECT : 0);
}

/* Direct requests count as use: a pool busy only with them is not idle. */
void runner_table_pool_used(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (t) {
        uint64_t u = atomic_load(&t->last_used);
        if (u > p->use.last_used)
            p->use.last_used = u;
    }
}

unsigned long runner_table_pool_served(const runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    return t ? (unsigned long)atomic_load(&t->served) : 0;
}

/* The direct path's counters, added to the runner's own for the status page. */
void runner_table_pool_counts(const runner_pool *p, unsigned long *requests,
                              unsigned long *outcomes, unsigned nout)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return;
    *requests += (unsigned long)atomic_load(&t->requests);
    for (unsigned i = 0; i < nout && i < CGP_TPOOL_OUTCOMES; i++)
        outcomes[i] += (unsigned long)atomic_load(&t->outcomes[i]);
}

void runner_table_script_add(runner_pool *p, const runner_buf *params)
{
    const char *n, *v;
    size_t nl, vl, off = 0;

    if (p->tidx < 0)
        return;
    while (cgp_kv_next(params->p, params->len, &off, &n, &nl, &v, &vl) == 1)
        if (nl == 15 && !memcmp(n, "SCRIPT_FILENAME", 15)) {
            /* an engine's request names another file than the pool's program */
            if (strlen(p->script) != vl || memcmp(p->script, v, vl))
                cgp_tscript_add(tb.base, (uint32_t)p->tidx, v, vl, 1);
            return;
        }
}

unsigned runner_table_pool_scripts(const runner_pool *p, runner_st_script *out, unsigned max,
                                   unsigned long *other)
{
    unsigned n = 0;

    if (p->tidx < 0)
        return 0;
    cgp_tscript *e = cgp_table_scripts(tb.base, (uint32_t)p->tidx);
    for (unsigned i = 0; i < CGP_TSCRIPTS && n < max; i++, e++) {
        uint32_t named = atomic_load(&e->named);
        uint64_t req = atomic_load(&e->requests);
        char *d = out[n].name;

        if (!named || !req)
            continue;
        if (named == 2) {
            memcpy(d, "...", 3);
            d += 3;
        }
        for (unsigned j = 0; j < CGP_TSCRIPT_NAME / 8; j++) {
            uint64_t w = atomic_load_explicit(&e->name[j], memory_order_relaxed);
            for (unsigned b = 0; b < 8; b++)
                *d++ = (char)(w >> (8 * b));
        }
        *d = '\0';
        out[n++].requests = req;
    }
    *other = (unsigned long)atomic_load(&tpool(p)->scripts_other);
    return n;
}

void runner_table_pool_status(const runner_pool *p, unsigned long *max_active,
                              unsigned long *slow, uint64_t *last_used)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return;
    *max_active = (unsigned long)atomic_load(&t->max_active);
    *slow += (unsigned long)atomic_load(&t->slow);
    uint64_t u = atomic_load(&t->last_used);
    if (u > *last_used)
        *last_used = u;
}

int runner_table_busy(runner_pool *p, int delta)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return 0;
    cgp_tpool_busy(t, delta);
    return 1;
}

uint64_t runner_worker_idle_since(const runner_worker *w)
{
    cgp_tslot *s = tslot(w);
    uint64_t last = s ? atomic_load(&s->last_ms) : 0;

    return last > w->t_idle ? last : w->t_idle;
}

runner_pool *runner_table_pool_at(uint32_t idx, uint32_t gen)
{
    if (tb.fd < 0 || idx >= CGP_TABLE_POOLS || !tb.pools[idx] || tb.pool_gen[idx] != gen)
        return NULL;
    return tb.pools[idx];
}

void runner_table_pool_ref(const runner_pool *p, uint32_t *idx, uint32_t *gen)
{
    *idx = (uint32_t)p->tidx;
    *gen = p->tidx >= 0 ? tb.pool_gen[p->tidx] : 0;
}

/* A new worker takes a free slot of its pool's block, held by the runner. */
void runner_table_slot_take(runner_worker *w)
{
    runner_pool *p = w->pool;

    w->slot = -1;
    if (p->tidx < 0 || w->kind->per_request)
        return;
    for (uint32_t i = p->tfirst; i < p->tfirst + p->tslots; i++) {
        if (tb.owner[i])
            continue;
        cgp_tslot *s = cgp_table_slot(tb.base, i);
        /* A child's request its worker died with unaccepted: the child
         * reads that in the flags (runner_fcgi.c, fcgi_unaccepted), and
         * clears it, before the slot serves another worker (1 s at most:
         * it reads at once, unless it died). */
        if ((atomic_load(&s->flags) & CGP_TS_FCGI_UNTAKEN) &&
            runner_g.now < atomic_load(&s->last_ms) + 1000)
            continue;
        atomic_store(&s->served, 0);
        atomic_store(&s->last_ms, runner_g.now);
        atomic_store(&s->lifetime, 0);
        atomic_store(&s->flags, 0);
        atomic_store(&s->worker_pid, (uint32_t)w->pid);
        atomic_store(&s->drain_ms, 0);
        if (!slot_force(s, CGP_TE_FILL)) /* never: a slot nobody owns is empty or dead */
            continue;
        tb.owner[i] = w;
        w->slot = (int)i;
        w->sgen = cgp_tword_gen(atomic_load(&s->word));
        return;
    }
}

void runner_table_slot_renew(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!s || !cgp_tslot_step(s, CGP_TS_RUNNER, w->sgen, 0, CGP_TE_REAP, 0) ||
        !slot_force(s, CGP_TE_FILL))
        return;
    w->sgen = cgp_tword_gen(atomic_load(&s->word));
}

/* Reaped: whoever held the slot finds its generation gone. */
int runner_table_slot_dead(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!s)
        return 0;
    runner_worker_sync(w);
    /* Held by a child, or handed back as closed: it died in a direct
     * request (its child's hand-back, if any, finds the slot dead). */
    uint64_t word = atomic_load(&s->word);
    int in_request = cgp_tword_state(word) == CGP_TS_CHILD ||
                     (cgp_tword_state(word) == CGP_TS_RETURNED &&
                      (atomic_load(&s->flags) & CGP_TS_EOF));
    atomic_store(&s->exit_status, (uint32_t)w->status); /* a holder's 502 names it */
    slot_force(s, CGP_TE_REAP);
    tb.owner[w->slot] = NULL;
    w->slot = -1;
    return in_request;
}

/* The slot's view of what children did with the worker. */
void runner_worker_sync(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!s)
        return;
    w->served = (unsigned long)atomic_load(&s->served);
    w->lifetime = atomic_load(&s->lifetime);
    w->struct_mode = (atomic_load(&s->flags) & CGP_TS_STRUCT) != 0;
    uint64_t last = atomic_load(&s->last_ms);
    if (last > w->t_idle)
        w->t_idle = last;
}

unsigned long runner_worker_served(const runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    return s ? (unsigned long)atomic_load(&s->served) : w->served;
}

void runner_worker_count(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (s)
        w->served = (unsigned long)(atomic_fetch_add(&s->served, 1) + 1);
    else
        w->served++;
}

void runner_worker_set_struct(runner_worker *w, int on)
{
    cgp_tslot *s = tslot(w);

    w->struct_mode = on;
    if (s) {
        if (on)
            atomic_fetch_or(&s->flags, CGP_TS_STRUCT);
        else
            atomic_fetch_and(&s->flags, ~CGP_TS_STRUCT);
    }
}

void runner_worker_set_ready(runner_worker *w, int on)
{
    cgp_tslot *s = tslot(w);

    if (s && on)
        atomic_fetch_or(&s->flags, CGP_TS_READY);
    else if (s)
        atomic_fetch_and(&s->flags, ~CGP_TS_READY);
}

void runner_worker_set_oneshot(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (s)
        atomic_fetch_or(&s->flags, CGP_TS_ONESHOT);
}

int runner_worker_oneshot(const runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    return s && (atomic_load(&s->flags) & CGP_TS_ONESHOT);
}

uint32_t runner_worker_slot_flags(const runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    return s ? atomic_load(&s->flags) : 0;
}

void runner_worker_slot_mark_untaken(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!s)
        return;
    atomic_store(&s->last_ms, runner_g.now); /* (runner_table_slot_take's bound) */
    atomic_fetch_or(&s->flags, CGP_TS_FCGI_UNTAKEN);
}

void runner_worker_slot_flags_set(runner_worker *w, uint32_t set, uint32_t clear)
{
    cgp_tslot *s = tslot(w);

    if (s && clear)
        atomic_fetch_and(&s->flags, ~clear);
    if (s && set)
        atomic_fetch_or(&s->flags, set);
}

void runner_worker_set_lifetime(runner_worker *w, int64_t v)
{
    cgp_tslot *s = tslot(w);

    w->lifetime = v;
    if (s)
        atomic_store(&s->lifetime, v);
}

/* The state of w's slot, 0xff: none. */
static unsigned slot_state(const runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    return s ? cgp_tword_state(atomic_load(&s->word)) : 0xff;
}

int runner_worker_published(const runner_worker *w)
{
    unsigned st = slot_state(w);

    return st != 0xff && st != CGP_TS_RUNNER && st != CGP_TS_DEAD && st != CGP_TS_EMPTY;
}

/* 1 if the runner holds the worker now (it was never published, or it was
 * idle and the CAS took it), 0 if a child has it. */
int runner_worker_claim(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!runner_worker_published(w))
        return 1;
    if (!cgp_tslot_step(s, CGP_TS_IDLE, w->sgen, 0, CGP_TE_CLAIM_RUNNER, 0))
        return 0;
    runner_worker_sync(w);
    return 1;
}

/* The pool's busy count follows the slot: whoever moves it to CHILD adds
 * one, whoever moves it out takes it away (the child's release, or the
 * runner taking back a dead child's). */
int runner_table_slot_grant(runner_worker *w, pid_t pid)
{
    if (!runner_worker_published(w) ||
        !cgp_tslot_step(tslot(w), CGP_TS_IDLE, w->sgen, 0, CGP_TE_CLAIM_CHILD, (uint32_t)pid))
        return 0;
    runner_table_busy(w->pool, 1);
    return 1;
}

void runner_table_slot_stamp(runner_worker *w, uint64_t last_ms)
{
    cgp_tslot *s = tslot(w);

    if (s)
        atomic_store(&s->last_ms, last_ms);
}

int runner_table_slot_publish(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    return s && cgp_tslot_step(s, CGP_TS_RUNNER, w->sgen, 0, CGP_TE_PUBLISH, 0);
}

int runner_table_slot_idle(const runner_worker *w)
{
    return slot_state(w) == CGP_TS_IDLE;
}

int runner_table_slot_returned(const runner_worker *w)
{
    return slot_state(w) == CGP_TS_RETURNED;
}

int runner_table_slot_take_back(runner_worker *w, pid_t holder)
{
    if (!cgp_tslot_step(tslot(w), holder ? CGP_TS_CHILD : CGP_TS_RETURNED, w->sgen,
                        (uint32_t)holder, CGP_TE_TAKE_BACK, 0))
        return 0;
    if (holder)
        runner_table_busy(w->pool, -1); /* the release the child never made */
    runner_worker_sync(w);
    return 1;
}

uint32_t runner_table_slot_flags_take(runner_worker *w, uint32_t mask, uint32_t *drain_ms)
{
    cgp_tslot *s = tslot(w);

    *drain_ms = atomic_load(&s->drain_ms);
    return atomic_fetch_and(&s->flags, ~mask);
}

runner_worker *runner_table_slot_owner(uint32_t slot, uint32_t sgen)
{
    runner_worker *w = tb.fd >= 0 && slot < CGP_TABLE_SLOTS ? tb.owner[slot] : NULL;

    return w && w->sgen == sgen ? w : NULL;
}

/* The table's descriptor (DIRECT's answer), -1: none. */
void *runner_table_base(void)
{
    return tb.fd >= 0 ? tb.base : NULL;
}

uint32_t runner_table_pid(void)
{
    return tb.fd >= 0 ? ((cgp_table_hdr *)tb.base)->runner_pid : 0;
}

runner_worker *runner_table_owner(uint32_t slot)
{
    return tb.fd >= 0 && slot < CGP_TABLE_SLOTS ? tb.owner[slot] : NULL;
}

int runner_table_fd(void)
{
    return tb.fd;
}

/* What a child serves on it: the URI's first bytes; returns ms since. */
uint64_t runner_worker_direct_uri(const runner_worker *w, char *buf, size_t cap)
{
    cgp_tslot *s = tslot(w);
    size_t i, n = 0;

    buf[0] = '\0';
    if (!s || cap < CGP_TSLOT_URI + 1)
        return 0;
    for (i = 0; i < CGP_TSLOT_URI / 8; i++) {
        uint64_t v = atomic_load(&s->uri[i]);
        for (int k = 0; k < 8; k++)
            buf[n++] = (char)(v >> (8 * k));
    }
    buf[n] = '\0';
    uint64_t at = atomic_load(&s->claimed_ms);
    return at && runner_g.now > at ? runner_g.now - at : 0;
}

/* 1 if a child holds the worker at this moment. */
int runner_worker_held(const runner_worker *w)
{
    return runner_worker_published(w) && slot_state(w) != CGP_TS_IDLE;
}

/* Asks whoever holds the worker to hand it back after its request. */
void runner_worker_want_back(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (s)
        atomic_fetch_or(&s->flags, CGP_TS_RETIRE);
}

uint64_t runner_table_look_at(void)
{
    if (tb.next_look <= runner_g.now)
        tb.next_look = runner_g.now + RUNNER_LOOK_MS;
    return tb.next_look;
}

uint16_t runner_worker_fcgi_reqid(runner_worker *w, uint16_t cur, int next)
{
    cgp_tslot *s = tslot(w);

    if (s && next)
        return cgp_tslot_fcgi_next(s);
    if (s)
        cur = (uint16_t)atomic_load(&s->fcgi_reqid);
    else if (next)
        cur = cgp_fcgi_reqid_next(cur);
    return cur ? cur : 2;
}
