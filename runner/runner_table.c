/* runner_table.c: the runner's side of the direct path's shared table
 * (include/cgp_table.h): one sealed memfd, pool entries and worker slots,
 * the claim and publish of a worker against the httpd children, what a
 * child hands back (KICK) and what a dead child leaves behind. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* The table of this runner process; lives until it exits. fd -1: none
 * (memfd refused, say): every request is relayed. */
static struct {
    int fd;
    void *base;
    runner_pool *pools[CGP_TABLE_POOLS];
    runner_worker *owner[CGP_TABLE_SLOTS];
    uint32_t pool_gen[CGP_TABLE_POOLS];
    uint32_t slot_gen[CGP_TABLE_SLOTS];
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

/* A free entry and a block of max_workers slots; without them the pool is
 * relayed only. */
void runner_table_pool_add(runner_pool *p)
{
    uint64_t n = p->set.v[RUNNER_S_MAX_WORKERS];
    uint32_t i, first = 0, run = 0;
    int idx = -1;

    p->tidx = -1;
    if (tb.fd < 0 || p->mode != RUNNER_MODE_CGIPLUS || n == 0 || n > CGP_TABLE_SLOTS)
        return;
    for (i = 0; i < CGP_TABLE_POOLS && idx < 0; i++)
        if (!tb.pools[i])
            idx = (int)i;
    if (idx < 0)
        goto full;
    /* first fit: a slot is free when no pool's block holds it */
    static unsigned char used[CGP_TABLE_SLOTS];
    memset(used, 0, sizeof(used));
    for (i = 0; i < CGP_TABLE_POOLS; i++)
        if (tb.pools[i])
            memset(used + tb.pools[i]->tfirst, 1, tb.pools[i]->tslots);
    for (i = 0; i < CGP_TABLE_SLOTS && run < n; i++) {
        if (used[i]) {
            run = 0;
            continue;
        }
        if (run++ == 0)
            first = i;
    }
    if (run < n)
        goto full;
    p->tidx = idx;
    p->tfirst = first;
    p->tslots = (uint32_t)n;
    tb.pools[idx] = p;
    cgp_tpool *t = tpool(p);
    atomic_store(&t->flags, 0);
    atomic_store(&t->waiters, 0);
    atomic_store(&t->first_slot, first);
    atomic_store(&t->nslots, (uint32_t)n);
    atomic_store(&t->last_used, 0);
    atomic_store(&t->served, 0);
    atomic_store(&t->requests, 0);
    for (i = 0; i < CGP_TPOOL_OUTCOMES; i++)
        atomic_store(&t->outcomes[i], 0);
    for (i = first; i < first + n; i++)
        atomic_store(&cgp_table_slot(tb.base, i)->word,
                     cgp_tword(CGP_TS_EMPTY, tb.slot_gen[i], 0));
    if (++tb.pool_gen[idx] == 0)
        tb.pool_gen[idx] = 1;
    atomic_store(&t->gen, tb.pool_gen[idx]);
    runner_table_pool_sync(p);
    return;
full:
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2501) "pool #%llu of %s: the direct path's "
               "table is full (%u pools, %u workers); its requests go through the runner",
               (unsigned long long)p->id, p->script, CGP_TABLE_POOLS, CGP_TABLE_SLOTS);
}

void runner_table_pool_del(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return;
    atomic_store(&t->flags, 0);
    atomic_store(&t->gen, 0); /* children's cached (index, gen) no longer match */
    tb.pools[p->tidx] = NULL;
    p->tidx = -1;
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* What the children need to serve the pool's requests alone. */
void runner_table_pool_sync(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (!t)
        return;
    atomic_store(&t->max_requests, clamp32(p->set.v[RUNNER_S_MAX_REQUESTS]));
    atomic_store(&t->tmo_output, clamp32(p->set.v[RUNNER_S_TIMEOUT_OUTPUT]));
    atomic_store(&t->tmo_noprogress, clamp32(p->set.v[RUNNER_S_TIMEOUT_NOPROGRESS]));
    atomic_store(&t->waiters, p->qlen);
    if (p->have_ident) {
        atomic_store(&t->ident_dev, (uint64_t)p->ident_dev);
        atomic_store(&t->ident_ino, (uint64_t)p->ident_ino);
        atomic_store(&t->ident_size, (uint64_t)p->ident_size);
        atomic_store(&t->ident_mtime_us, (uint64_t)(p->ident_mtime_ns / 1000));
        atomic_store(&t->ident_ctime_us, (uint64_t)(p->ident_ctime_ns / 1000));
    }
    atomic_store(&t->flags, p->have_ident && !p->retired && runner_g.stop == RUNNER_RUN
                            ? CGP_TP_DIRECT : 0);
}

void runner_table_waiters(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (t)
        atomic_store(&t->waiters, p->qlen);
}

/* Direct requests count as use: a pool busy only with them is not idle. */
void runner_table_pool_used(runner_pool *p)
{
    cgp_tpool *t = tpool(p);

    if (t) {
        uint64_t u = atomic_load(&t->last_used);
        if (u > p->last_used)
            p->last_used = u;
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
    w->published = 0;
    if (p->tidx < 0 || w->is_cgi)
        return;
    for (uint32_t i = p->tfirst; i < p->tfirst + p->tslots; i++) {
        if (tb.owner[i])
            continue;
        cgp_tslot *s = cgp_table_slot(tb.base, i);
        if (++tb.slot_gen[i] > CGP_TGEN_MASK)
            tb.slot_gen[i] = 1;
        tb.owner[i] = w;
        w->slot = (int)i;
        w->sgen = tb.slot_gen[i];
        atomic_store(&s->served, 0);
        atomic_store(&s->last_ms, runner_g.now);
        atomic_store(&s->lifetime, 0);
        atomic_store(&s->flags, 0);
        atomic_store(&s->worker_pid, (uint32_t)w->pid);
        atomic_store(&s->drain_ms, 0);
        atomic_store(&s->word, cgp_tword(CGP_TS_RUNNER, w->sgen, 0));
        return;
    }
}

/* Reaped: whoever held the slot finds its generation gone. */
void runner_table_slot_dead(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!s)
        return;
    runner_worker_sync(w);
    atomic_store(&s->exit_status, (uint32_t)w->status); /* a holder's 502 names it */
    atomic_store(&s->word, cgp_tword(CGP_TS_DEAD, w->sgen, 0));
    tb.owner[w->slot] = NULL;
    w->slot = -1;
    w->published = 0;
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

void runner_worker_set_lifetime(runner_worker *w, int64_t v)
{
    cgp_tslot *s = tslot(w);

    w->lifetime = v;
    if (s)
        atomic_store(&s->lifetime, v);
}

/* 1 if the runner holds the worker now (it was never published, or it was
 * idle and the CAS took it), 0 if a child has it. */
int runner_worker_claim(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (!s || !w->published)
        return 1;
    if (!cgp_tslot_step(s, CGP_TS_IDLE, w->sgen, 0, CGP_TE_CLAIM_RUNNER, 0))
        return 0;
    w->published = 0;
    runner_worker_sync(w);
    return 1;
}

int runner_worker_grant(runner_worker *w, runner_req *r)
{
    cgp_tslot *s = tslot(w);
    runner_client *c = r->client;
    unsigned char pl[CGP_GRANT_LEN];
    cgp_grant g;

    /* Only a child whose anchor is open: if it dies holding the worker,
     * the anchor's close gives the worker back (runner_table_child_gone). */
    if (!s || !w->published || !r->grant || !c || r->ended || !runner_client_anchored(c->pid))
        return 0;
    /* Only once the module has sent all of the request: after GRANT it no
     * longer reads this connection for it, nor writes to it. */
    if (!r->body_end && !(r->have_cl && r->cl == 0))
        return 0;
    g.slot = (uint32_t)w->slot;
    g.sgen = w->sgen;
    runner_table_pool_ref(w->pool, &g.pidx, &g.pgen);
    if (cgp_grant_pack(pl, &g) != CGP_OK ||
        !cgp_tslot_step(s, CGP_TS_IDLE, w->sgen, 0, CGP_TE_CLAIM_CHILD, (uint32_t)c->pid))
        return 0;
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2507) "request %u (%s) waited %llu ms; worker "
               "pid %ld goes to httpd child pid %ld", r->reqid, r->uri,
               (unsigned long long)(runner_g.now - r->t_arrive), (long)w->pid, (long)c->pid);
    if (r->state == RUNNER_R_QUEUED)
        runner_pool_dequeue(r);
    w->pool->requests--; /* counted once, by the child's release, as a direct request */
    runner_client_send(c, CGP_T_GRANT, CGP_F_END, r->reqid, pl, sizeof(pl));
    /* Over on this side: no END follows, and the module's frames of this
     * request still on the way (its body) are dropped as answered ones. */
    r->ended = 1;
    r->client = NULL;
    c->req = NULL;
    runner_loop_kick(c);
    runner_req_free(r);
    return 1;
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
    cgp_tslot *s = tslot(w);

    return s && w->published && cgp_tword_state(atomic_load(&s->word)) != CGP_TS_IDLE;
}

/* An idle worker the runner holds becomes free for the children. Its
 * stdout and stderr are no longer watched: a child may be reading them
 * from now on (stderr then goes to the request's virtual host's log). */
void runner_worker_publish(runner_worker *w)
{
    cgp_tslot *s = tslot(w);
    runner_pool *p = w->pool;

    /* A worker's first request goes through the runner, which tells a
     * start-up banner and a program that does not speak CGIplus from a
     * response; only a worker that has answered one is published. */
    if (!s || w->published || w->state != RUNNER_W_IDLE || w->req || w->retire || !w->served ||
        w->exited || w->gen != p->gen || p->retired || runner_g.stop != RUNNER_RUN)
        return;
    atomic_store(&s->last_ms, w->t_idle);
    runner_worker_take_stderr(w);
    runner_ev_watch(&w->ev_out, 0);
    runner_ev_watch(&w->ev_err, 0);
    w->published = cgp_tslot_step(s, CGP_TS_RUNNER, w->sgen, 0, CGP_TE_PUBLISH, 0);
}

/* Asks whoever holds the worker to hand it back after its request. */
void runner_worker_want_back(runner_worker *w)
{
    cgp_tslot *s = tslot(w);

    if (s)
        atomic_fetch_or(&s->flags, CGP_TS_RETIRE);
}

/* A RETURNED slot: the child is done with it; the runner decides. */
static void take_returned(runner_worker *w)
{
    cgp_tslot *s = tslot(w);
    if (!cgp_tslot_step(s, CGP_TS_RETURNED, w->sgen, 0, CGP_TE_TAKE_BACK, 0))
        return;
    w->published = 0;
    runner_worker_sync(w);
    uint32_t fl = atomic_fetch_and(&s->flags, ~(CGP_TS_KILL | CGP_TS_DRAIN | CGP_TS_RETIRE |
                                                CGP_TS_EOF | CGP_TS_BROKEN | CGP_TS_NOABORT));
    if (fl & CGP_TS_EOF) {
        runner_worker_gone(w); /* it dies by itself; its exit says how */
    } else if (fl & CGP_TS_BROKEN) {
        runner_worker_stop(w, RUNNER_END_BROKEN, 1);
    } else if (fl & CGP_TS_KILL) {
        runner_worker_stop(w, RUNNER_END_TIMEOUT, 1);
    } else if (fl & CGP_TS_DRAIN) {
        runner_worker_adopt(w, atomic_load(&s->drain_ms), (fl & CGP_TS_NOABORT) != 0);
    } else {
        uint64_t maxr = w->pool->set.v[RUNNER_S_MAX_REQUESTS];
        runner_wend why = w->retire ? w->retire
                          : maxr && w->served >= maxr ? RUNNER_END_MAX_REQUESTS
                          : RUNNER_END_RETIRED;
        runner_worker_stop(w, why, 1);
    }
}

/* KICK: a child released a worker while requests waited, or handed one
 * back. */
void runner_table_kick(runner_pool *p)
{
    runner_worker *w, *wn;

    for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
        wn = TAILQ_NEXT(w, plink);
        cgp_tslot *s = tslot(w);
        if (!s || !w->published)
            continue;
        if (cgp_tword_state(atomic_load(&s->word)) == CGP_TS_RETURNED) {
            take_returned(w);
        } else {
            runner_worker_sync(w); /* a LIFETIME it set: its timer */
            runner_worker_rearm(w);
        }
    }
    runner_pool_dispatch(p);
}

/* A child's anchor connection closed: the child is gone, and with it
 * whatever it was doing on the workers it held. Each is drained to its
 * sentinel (or killed past the bound), never reused dirty. */
void runner_table_child_gone(pid_t pid)
{
    runner_worker *w, *wn;

    if (tb.fd < 0)
        return;
    for (w = TAILQ_FIRST(&runner_g.workers); w; w = wn) {
        wn = TAILQ_NEXT(w, glink);
        cgp_tslot *s = tslot(w);
        if (!s || !w->published)
            continue;
        if (cgp_tslot_step(s, CGP_TS_CHILD, w->sgen, (uint32_t)pid, CGP_TE_TAKE_BACK, 0)) {
            w->published = 0;
            runner_worker_sync(w);
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2502) "httpd child pid %ld went away "
                       "holding worker pid %ld of %s; draining it", (long)pid, (long)w->pid,
                       w->pool->script);
            runner_worker_adopt(w, w->pool->set.v[RUNNER_S_TIMEOUT_OUTPUT], 0);
        } else if (cgp_tword_state(atomic_load(&s->word)) == CGP_TS_RETURNED) {
            take_returned(w);
        }
    }
}

/* Sends frame type with payload pl and fds attached: one sendmsg, before
 * anything else queued on the connection (there is nothing between
 * requests). -1 if it cannot go whole now. */
int runner_table_send_fds(runner_client *c, unsigned type, uint32_t reqid, const void *pl,
                          size_t len, const int *fds, int nfds)
{
    unsigned char hb[CGP_HDR_LEN];
    cgp_hdr h = { .type = (uint8_t)type, .reqid = reqid, .len = (uint32_t)len };
    union {
        struct cmsghdr c;
        char b[CMSG_SPACE(sizeof(int) * CGP_CHANNEL_FDS)];
    } cm;
    struct iovec iov[2] = { { hb, sizeof(hb) }, { (void *)pl, len } };
    struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

    if (c->closed || c->broken || runner_buf_used(&c->out) || nfds > CGP_CHANNEL_FDS ||
        cgp_hdr_pack(hb, &h) != CGP_OK)
        return -1;
    memset(&cm, 0, sizeof(cm));
    if (nfds > 0) {
        mh.msg_control = cm.b;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        cm.c.cmsg_level = SOL_SOCKET;
        cm.c.cmsg_type = SCM_RIGHTS;
        cm.c.cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(&cm.c), fds, sizeof(int) * (size_t)nfds);
    }
    ssize_t n;
    do
        n = sendmsg(c->ev.fd, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    /* The descriptors went with the first byte; the rest is queued. */
    size_t done = (size_t)n;
    if (done < sizeof(hb) && runner_buf_append(&c->out, hb + done, sizeof(hb) - done) < 0)
        return -1;
    if (done < sizeof(hb) + len) {
        size_t from = done > sizeof(hb) ? done - sizeof(hb) : 0;
        if (runner_buf_append(&c->out, (const unsigned char *)pl + from, len - from) < 0)
            return -1;
        runner_client_update(c);
    }
    return 0;
}

/* DIRECT: the table, and this connection becomes the child's anchor. */
void runner_table_on_direct(runner_client *c, uint32_t reqid)
{
    unsigned char pl[CGP_PAIR_LEN];
    cgp_pair pr = { tb.fd >= 0 ? (uint32_t)CGP_TABLE_SIZE : 0, CGP_TABLE_VERSION };
    int fd = tb.fd;

    cgp_pair_pack(pl, &pr);
    if (runner_table_send_fds(c, CGP_T_DIRECT_ACK, reqid, pl, sizeof(pl), &fd,
                              tb.fd >= 0 ? 1 : 0) < 0) {
        c->broken = 1;
        return;
    }
    c->anchor = tb.fd >= 0;
}

/* CHANNEL: a worker's descriptors for the child that will talk to it. */
void runner_table_on_channel(runner_client *c, uint32_t reqid, const unsigned char *pl,
                             size_t len)
{
    unsigned char out[CGP_CHANNEL_LEN];
    cgp_channel ch;
    cgp_pair pr;
    runner_worker *w = NULL;
    int fds[CGP_CHANNEL_FDS], n = 0;

    memset(&ch, 0, sizeof(ch));
    if (cgp_pair_unpack(pl, len, &pr) != CGP_OK) {
        c->broken = 1;
        return;
    }
    ch.slot = pr.a;
    if (pr.a < CGP_TABLE_SLOTS && (w = tb.owner[pr.a]) && w->sgen == pr.b &&
        !w->exited && w->ev_in.fd >= 0 && w->ev_body.fd >= 0 && w->ev_out.fd >= 0 &&
        w->body_peer >= 0 && w->ev_err.fd >= 0) {
        ch.gen = w->sgen;
        ch.pid = (uint32_t)w->pid;
        memcpy(ch.eof, w->eof, CGP_MARK_LEN + 1);
        memcpy(ch.esc, w->esc, CGP_MARK_LEN + 1);
        memcpy(ch.eot, w->eot, CGP_MARK_LEN + 1);
        fds[0] = w->ev_in.fd;
        fds[1] = w->ev_body.fd;
        fds[2] = w->ev_out.fd;
        fds[3] = w->body_peer;
        fds[4] = w->ev_err.fd;
        n = CGP_CHANNEL_FDS;
    }
    if (cgp_channel_pack(out, &ch) != CGP_OK)
        n = 0, ch.gen = 0, cgp_channel_pack(out, &ch);
    if (runner_table_send_fds(c, CGP_T_CHANNEL_ACK, reqid, out, sizeof(out), fds, n) < 0)
        c->broken = 1;
}
