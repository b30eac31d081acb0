/* cgiplus_direct.c: the direct path (docs/DESIGN.md, "The direct path").
 * The httpd child claims an idle persistent worker in the runner's shared
 * table (include/cgp_table.h) by CAS, writes the request to the worker's own
 * descriptors, reads its response with the shared scanner and hands the
 * worker back; the runner takes no part unless requests queue. The
 * worker's descriptors come from the runner once per worker (CHANNEL) and
 * are cached per process. */
#include "cgiplus_private.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_hash.h"
#include "apr_portable.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"

#include "cgp_scan.h"
#include "cgp_table.h"

APLOG_USE_MODULE(cgiplus);

#define DIRECT_READ        (64 * 1024)  /* one read of the worker's stdout */
#define DIRECT_TAIL_CAP    (CGP_SCAN_LINE_MAX + 2 * CGP_MARK_LEN + 16)
#define DIRECT_ANSWERS_MAX (64 * 1024)  /* callout answers the script has not taken */
#define DIRECT_LOG_MAX     100          /* LOG callouts logged per request */
#define DIRECT_CHECK_EVERY apr_time_from_msec(200) /* is the runner still there? */
#define DIRECT_POOLS_MAX   4096         /* pool keys cached per process */
#define DIRECT_ERR_LINE    4096         /* a longer stderr line is logged in pieces (as the runner) */

/* One worker's descriptors, cached per process. Owned by dp.chans while
 * current; a request holding it keeps it alive (refs) after it is replaced. */
typedef struct direct_chan {
    uint32_t slot, gen, pid;
    int fd_in, fd_body, fd_out, fd_peer, fd_err;
    char eof[CGP_MARK_LEN + 1], esc[CGP_MARK_LEN + 1], eot[CGP_MARK_LEN + 1];
    int refs;
    int dead;                 /* no longer in dp.chans: closed at the last unref */
} direct_chan;

/* A pool key's entry in the table, as the runner named it (POOL). */
typedef struct direct_poolref {
    uint32_t idx, gen;
} direct_poolref;

/* This httpd child's view of the direct path; set up in child_init, lives
 * until the child exits. mu guards the maps only, never I/O that waits. */
static struct {
    apr_thread_mutex_t *mu;   /* NULL: no direct path in this process */
    apr_pool_t *pool;         /* unmanaged: pool keys */
    uint32_t pid;
    void *base;               /* the current runner's table, NULL: none */
    uint32_t runner_pid;
    cgiplus_conn *anchor;     /* held for the child's life: its close tells the runner */
    apr_time_t next_check;
    int opening;
    uint32_t refused_pid;     /* a runner that has no table for us */
    apr_hash_t *pools;        /* pool key -> direct_poolref */
    unsigned npools;
    direct_chan *chans[CGP_TABLE_SLOTS];
} dp;

/* One request's exchange with its worker. From r->pool; lives for the
 * handler call. The worker is the child's from claim to release. */
typedef struct cgiplus_direct {
    direct_chan *ch;
    cgp_tslot *slot;
    cgp_tpool *tp;
    uint32_t sidx, sgen, pidx, pgen;
    cgp_scan scan;
    unsigned char tail[DIRECT_TAIL_CAP]; /* bytes the scanner holds back */
    apr_size_t tail_len;
    char *in;                 /* CGIPLUSIN bytes not yet written */
    apr_size_t in_off, in_len, in_cap;
    const char *body;
    apr_size_t body_off, body_len;
    apr_uint64_t t_start, t_progress; /* monotonic ms */
    apr_int64_t over_out, over_np;    /* 0 the pool's, -1 none, >0 ms */
    int no_abort;
    int eof;                  /* stdout closed before the sentinel */
    int broken;               /* the worker cannot be reused as it is */
    int released;
    unsigned logs;
    apr_size_t err_len;       /* stderr bytes of an unfinished line in q->errbuf */
    int err_eof;              /* the script closed its stderr */
    int lifetime_set;         /* LIFETIME or X-lifetime: the runner's timer must know */
} cgiplus_direct;

static apr_uint64_t direct_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts); /* the runner's clock; vDSO, no syscall */
    return (apr_uint64_t)ts.tv_sec * 1000u + (apr_uint64_t)ts.tv_nsec / 1000000u;
}

static void chan_close(direct_chan *ch)
{
    close(ch->fd_in);
    close(ch->fd_body);
    close(ch->fd_out);
    close(ch->fd_peer);
    close(ch->fd_err);
    free(ch);
}

/* With dp.mu held. */
static void chan_unref_locked(direct_chan *ch)
{
    if (--ch->refs == 0 && ch->dead)
        chan_close(ch);
}

/* The runner went away (or restarted): its table and every cached channel
 * are dropped. The mapping stays (a request may still read it); the old
 * workers see end of file on CGIPLUSIN once nobody holds it, and exit.
 * With dp.mu held. */
static void direct_drop_locked(void)
{
    unsigned i;

    dp.base = NULL;
    for (i = 0; i < CGP_TABLE_SLOTS; i++) {
        direct_chan *ch = dp.chans[i];

        if (!ch)
            continue;
        dp.chans[i] = NULL;
        ch->dead = 1;
        if (ch->refs == 0)
            chan_close(ch);
    }
    if (dp.anchor)
        cgiplus_conn_close(dp.anchor);
    dp.anchor = NULL;
    apr_hash_clear(dp.pools);
    dp.npools = 0;
}

void cgiplus_direct_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    memset(&dp, 0, sizeof(dp));
    dp.pid = (uint32_t)getpid();
    if ((rv = apr_pool_create_unmanaged_ex(&dp.pool, NULL, NULL)) != APR_SUCCESS ||
        (rv = apr_thread_mutex_create(&dp.mu, APR_THREAD_MUTEX_DEFAULT, pchild)) != APR_SUCCESS) {
        dp.mu = NULL;
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, CGIPLUS_LOGNO(1700)
                     "cannot set up the direct path in this process; its requests "
                     "go through the runner");
        return;
    }
    dp.pools = apr_hash_make(dp.pool);
}

int cgiplus_direct_on(const cgiplus_dir_conf *dc)
{
    return dc->direct != 1; /* on unless CGIplusDirect off */
}

/* Reads one frame whose first byte may carry descriptors (SCM_RIGHTS),
 * within timeout. The descriptors arrive close-on-exec. */
static apr_status_t direct_recv(cgiplus_conn *c, unsigned want, unsigned char *pl,
                                apr_size_t len, int *fds, int maxfds, int *nfds)
{
    unsigned char hb[CGP_HDR_LEN];
    apr_size_t got = 0;
    apr_os_sock_t fd;
    cgp_hdr h;
    int i;

    *nfds = 0;
    if (apr_os_sock_get(&fd, c->sock) != APR_SUCCESS)
        return APR_EGENERAL;
    while (got < CGP_HDR_LEN) {
        union {
            struct cmsghdr c;
            char b[CMSG_SPACE(sizeof(int) * CGP_CHANNEL_FDS)];
        } cm;
        struct iovec iov = { hb + got, CGP_HDR_LEN - got };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
                             .msg_controllen = sizeof(cm.b) };
        struct cmsghdr *cmh;
        ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!cgiplus_conn_readable(c, apr_time_from_sec(5)))
                goto fail_rv_timeup;
            continue;
        }
        if (n <= 0)
            goto fail_eof;
        for (cmh = CMSG_FIRSTHDR(&mh); cmh; cmh = CMSG_NXTHDR(&mh, cmh)) {
            if (cmh->cmsg_level != SOL_SOCKET || cmh->cmsg_type != SCM_RIGHTS)
                continue;
            int k = (int)((cmh->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int *in = (int *)CMSG_DATA(cmh);
            for (i = 0; i < k; i++) {
                if (*nfds < maxfds)
                    fds[(*nfds)++] = in[i];
                else
                    close(in[i]);
            }
        }
        got += (apr_size_t)n;
    }
    if (cgp_hdr_unpack(hb, &h) != CGP_OK || h.type != want || h.len != len ||
        cgiplus_conn_read_exact(c, pl, len) != APR_SUCCESS)
        goto fail_eof;
    return APR_SUCCESS;

fail_rv_timeup:
    for (i = 0; i < *nfds; i++)
        close(fds[i]);
    *nfds = 0;
    return APR_TIMEUP;
fail_eof:
    for (i = 0; i < *nfds; i++)
        close(fds[i]);
    *nfds = 0;
    return APR_EGENERAL;
}

static apr_status_t direct_send(cgiplus_conn *c, unsigned type, const unsigned char *pl,
                                apr_size_t len)
{
    unsigned char hb[CGP_HDR_LEN];
    cgp_hdr h = { 0 };
    struct iovec iov[2];

    h.type = (uint8_t)type;
    h.len = (uint32_t)len;
    cgp_hdr_pack(hb, &h);
    iov[0].iov_base = hb;
    iov[0].iov_len = sizeof(hb);
    iov[1].iov_base = (void *)pl;
    iov[1].iov_len = len;
    return cgiplus_conn_sendv(c, iov, len ? 2 : 1);
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

    apr_thread_mutex_lock(dp.mu);
    if (dp.base || dp.opening) {
        apr_thread_mutex_unlock(dp.mu);
        return;
    }
    dp.opening = 1;
    apr_thread_mutex_unlock(dp.mu);

    if ((rv = cgiplus_conn_acquire(r, 1, &c)) != APR_SUCCESS) {
        c = NULL;
        goto done;
    }
    if (c->runner_pid == dp.refused_pid)
        goto done;
    if ((rv = direct_send(c, CGP_T_DIRECT, NULL, 0)) != APR_SUCCESS ||
        (rv = direct_recv(c, CGP_T_DIRECT_ACK, pl, sizeof(pl), &fd, 1, &nfds)) != APR_SUCCESS ||
        cgp_pair_unpack(pl, sizeof(pl), &pr) != CGP_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, CGIPLUS_LOGNO(1701)
                      "the runner (pid %lu) did not hand out its table; requests go "
                      "through it", (unsigned long)c->runner_pid);
        dp.refused_pid = c->runner_pid;
        goto done;
    }
    if (nfds != 1 || pr.a != CGP_TABLE_SIZE || pr.b != CGP_TABLE_VERSION) {
        dp.refused_pid = c->runner_pid; /* none, or another layout */
        goto done;
    }
    base = mmap(NULL, CGP_TABLE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, errno, r, CGIPLUS_LOGNO(1702)
                      "cannot map the runner's table; requests go through the runner");
        dp.refused_pid = c->runner_pid;
        goto done;
    }
    {
        const cgp_table_hdr *h = base;

        if (h->magic != CGP_TABLE_MAGIC || h->version != CGP_TABLE_VERSION ||
            h->size != CGP_TABLE_SIZE || h->npools != CGP_TABLE_POOLS ||
            h->nslots != CGP_TABLE_SLOTS || h->runner_pid != c->runner_pid) {
            munmap(base, CGP_TABLE_SIZE);
            base = MAP_FAILED;
            dp.refused_pid = c->runner_pid;
            goto done;
        }
    }
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1703)
                  "direct path: got the table of runner pid %lu",
                  (unsigned long)c->runner_pid);

done:
    if (fd >= 0)
        close(fd); /* the mapping keeps it */
    apr_thread_mutex_lock(dp.mu);
    dp.opening = 0;
    if (base != MAP_FAILED) {
        direct_drop_locked(); /* anything of an older runner */
        dp.base = base;
        dp.runner_pid = c->runner_pid;
        dp.anchor = c;
        dp.next_check = apr_time_now() + DIRECT_CHECK_EVERY;
        c = NULL;
    }
    apr_thread_mutex_unlock(dp.mu);
    if (c)
        cgiplus_conn_close(c);
}

/* Every so often: the anchor readable means the runner closed it (it died
 * or restarted); then the table and the channels are of no use. */
static void direct_check(void)
{
    apr_time_t now = apr_time_now();

    if (now < dp.next_check)
        return;
    apr_thread_mutex_lock(dp.mu);
    if (dp.base && now >= dp.next_check) {
        dp.next_check = now + DIRECT_CHECK_EVERY;
        if (cgiplus_conn_readable(dp.anchor, 0))
            direct_drop_locked();
    }
    apr_thread_mutex_unlock(dp.mu);
}

void cgiplus_direct_runner_seen(apr_uint32_t runner_pid)
{
    if (!dp.mu || !dp.base || runner_pid == dp.runner_pid)
        return;
    apr_thread_mutex_lock(dp.mu);
    if (dp.base && runner_pid != dp.runner_pid)
        direct_drop_locked(); /* another runner answers now */
    apr_thread_mutex_unlock(dp.mu);
}

int cgiplus_direct_begin(cgiplus_req *q)
{
    if (!dp.mu)
        return 0;
    direct_check();
    if (!dp.base)
        direct_open(q->r);
    return dp.base != NULL;
}

void cgiplus_direct_learn(cgiplus_req *q, const unsigned char *pl, apr_size_t len)
{
    cgp_pair pr;
    direct_poolref *ref;

    if (!dp.mu || !q->pool_key || cgp_pair_unpack(pl, len, &pr) != CGP_OK ||
        pr.a >= CGP_TABLE_POOLS || !q->conn)
        return;
    apr_thread_mutex_lock(dp.mu);
    if (dp.base && q->conn->runner_pid == dp.runner_pid) {
        ref = apr_hash_get(dp.pools, q->pool_key, (apr_ssize_t)q->pool_key_len);
        if (!ref && dp.npools < DIRECT_POOLS_MAX) {
            ref = apr_palloc(dp.pool, sizeof(*ref));
            apr_hash_set(dp.pools, apr_pmemdup(dp.pool, q->pool_key, q->pool_key_len),
                         (apr_ssize_t)q->pool_key_len, ref);
            dp.npools++;
        }
        if (ref) {
            ref->idx = pr.a;
            ref->gen = pr.b;
        }
    }
    apr_thread_mutex_unlock(dp.mu);
}

/* Tells the runner to look at a pool's slots (a worker came free while
 * requests wait, or one was handed back). Off the common path. */
static void direct_kick(request_rec *r, uint32_t pidx, uint32_t pgen)
{
    unsigned char pl[CGP_PAIR_LEN];
    cgp_pair pr = { pidx, pgen };
    cgiplus_conn *c;

    if (cgiplus_conn_acquire(r, 0, &c) != APR_SUCCESS)
        return;
    cgp_pair_pack(pl, &pr);
    if (c->runner_pid != dp.runner_pid || direct_send(c, CGP_T_KICK, pl, sizeof(pl)) != APR_SUCCESS)
        cgiplus_conn_close(c);
    else
        cgiplus_conn_release(c);
}

/* The descriptors of the worker in slot sidx, generation sgen: cached, or
 * asked of the runner once. NULL if it is gone. */
static direct_chan *direct_chan_get(request_rec *r, uint32_t sidx, uint32_t sgen)
{
    unsigned char pl[CGP_PAIR_LEN], ab[CGP_CHANNEL_LEN];
    int fds[CGP_CHANNEL_FDS], nfds = 0, i;
    cgp_pair pr = { sidx, sgen };
    cgp_channel cc;
    direct_chan *ch;
    cgiplus_conn *c;

    apr_thread_mutex_lock(dp.mu);
    ch = dp.chans[sidx];
    if (ch && ch->gen == sgen) {
        ch->refs++;
        apr_thread_mutex_unlock(dp.mu);
        return ch;
    }
    apr_thread_mutex_unlock(dp.mu);

    if (cgiplus_conn_acquire(r, 0, &c) != APR_SUCCESS)
        return NULL;
    if (c->runner_pid != dp.runner_pid) {
        cgiplus_conn_close(c);
        return NULL;
    }
    cgp_pair_pack(pl, &pr);
    if (direct_send(c, CGP_T_CHANNEL, pl, sizeof(pl)) != APR_SUCCESS ||
        direct_recv(c, CGP_T_CHANNEL_ACK, ab, sizeof(ab), fds, CGP_CHANNEL_FDS, &nfds) != APR_SUCCESS) {
        cgiplus_conn_close(c);
        return NULL;
    }
    cgiplus_conn_release(c);
    if (cgp_channel_unpack(ab, sizeof(ab), &cc) != CGP_OK || cc.slot != sidx ||
        cc.gen != sgen || nfds != CGP_CHANNEL_FDS || !(ch = calloc(1, sizeof(*ch)))) {
        for (i = 0; i < nfds; i++)
            close(fds[i]);
        return NULL;
    }
    ch->slot = sidx;
    ch->gen = sgen;
    ch->pid = cc.pid;
    ch->fd_in = fds[0];
    ch->fd_body = fds[1];
    ch->fd_out = fds[2];
    ch->fd_peer = fds[3];
    ch->fd_err = fds[4];
    memcpy(ch->eof, cc.eof, sizeof(ch->eof));
    memcpy(ch->esc, cc.esc, sizeof(ch->esc));
    memcpy(ch->eot, cc.eot, sizeof(ch->eot));
    ch->refs = 1;
    apr_thread_mutex_lock(dp.mu);
    if (dp.base) {
        direct_chan *old = dp.chans[sidx];

        if (old) { /* that slot's previous worker */
            old->dead = 1;
            if (old->refs == 0)
                chan_close(old);
        }
        dp.chans[sidx] = ch;
    }
    else {
        ch->dead = 1; /* dropped meanwhile: used once */
    }
    apr_thread_mutex_unlock(dp.mu);
    return ch;
}

/* The script file the request names is the one the pool's workers run
 * (else the runner must see the request: it rolls the pool over). */
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
    atomic_store_explicit(&s->claimed_ms, direct_now_ms(), memory_order_relaxed);
}

/* Claims an idle worker of the pool: IDLE -> CHILD(our pid) by CAS. */
static int direct_claim(cgiplus_req *q, const direct_poolref *ref, cgiplus_direct *x)
{
    void *base = dp.base;
    cgp_tpool *tp;
    uint32_t first, n, i;

    if (!base)
        return 0;
    tp = cgp_table_pool(base, ref->idx);
    if (atomic_load(&tp->gen) != ref->gen || !(atomic_load(&tp->flags) & CGP_TP_DIRECT) ||
        atomic_load(&tp->waiters) > 0 || !direct_same_file(q->r, tp))
        return 0; /* FIFO: newcomers queue behind waiting requests */
    first = atomic_load(&tp->first_slot);
    n = atomic_load(&tp->nslots);
    if (first >= CGP_TABLE_SLOTS || n > CGP_TABLE_SLOTS - first)
        return 0;
    for (i = first; i < first + n; i++) {
        cgp_tslot *s = cgp_table_slot(base, i);
        uint64_t w = atomic_load(&s->word);

        if (cgp_tword_state(w) != CGP_TS_IDLE ||
            !cgp_tslot_step(s, CGP_TS_IDLE, cgp_tword_gen(w), 0, CGP_TE_CLAIM_CHILD, dp.pid))
            continue;
        x->slot = s;
        x->tp = tp;
        x->sidx = i;
        x->sgen = cgp_tword_gen(w);
        x->pidx = ref->idx;
        x->pgen = ref->gen;
        direct_note_uri(q->r, s);
        /* The pool may have changed hands between the checks and the CAS. */
        if (atomic_load(&tp->gen) != ref->gen || (atomic_load(&s->flags) & CGP_TS_RETIRE)) {
            cgp_tslot_step(s, CGP_TS_CHILD, x->sgen, dp.pid, CGP_TE_HAND_BACK, 0);
            direct_kick(q->r, x->pidx, x->pgen);
            return 0;
        }
        return 1;
    }
    return 0;
}

/* The worker goes back: IDLE for anyone, or RETURNED with what the runner
 * must do. A waiter in the runner's queue is told about a freed worker. */
static void direct_release(cgiplus_req *q, int client_gone)
{
    cgiplus_direct *x = q->dx;
    cgp_tslot *s = x->slot;
    unsigned target = CGP_TS_IDLE;
    uint32_t add = 0;
    int clean = q->got_end && q->end.outcome == CGP_O_OK && !x->broken &&
                x->in_off == x->in_len;

    if (x->released)
        return;
    x->released = 1;
    if (x->logs > DIRECT_LOG_MAX)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1711)
                      "%s (worker pid %lu) sent %u LOG callouts in one request; the %u "
                      "past the first %d were dropped", q->r->filename,
                      (unsigned long)x->ch->pid, x->logs, x->logs - DIRECT_LOG_MAX,
                      DIRECT_LOG_MAX);
    atomic_fetch_add(&x->tp->requests, 1);
    atomic_fetch_add(&x->tp->outcomes[client_gone && !q->got_end ? CGP_O_ABORTED
                                      : q->got_end && q->end.outcome < CGP_TPOOL_OUTCOMES
                                      ? q->end.outcome : CGP_O_CRASHED], 1);
    if (clean) {
        uint32_t maxr = atomic_load(&x->tp->max_requests);
        uint64_t served;

        if (x->body_len) {
            /* What the script left unread would be the next body. */
            char junk[4096];
            ssize_t n;

            while ((n = recv(x->ch->fd_peer, junk, sizeof(junk), MSG_DONTWAIT)) > 0 ||
                   (n < 0 && errno == EINTR))
                ;
        }
        served = atomic_fetch_add(&s->served, 1) + 1;
        atomic_fetch_add(&x->tp->served, 1);
        atomic_store(&s->last_ms, direct_now_ms());
        atomic_store(&x->tp->last_used, direct_now_ms());
        if ((atomic_load(&s->flags) & CGP_TS_RETIRE) || (maxr && served >= maxr))
            target = CGP_TS_RETURNED;
    }
    else if (!x->eof && !x->broken &&
             (client_gone || !q->got_end || (q->end.outcome == CGP_O_TIMEOUT && x->no_abort))) {
        /* Mid-response: the runner reads it to its sentinel, then reuses it. */
        /* one output timeout more, as an orphan of the relay; 0: httpd's Timeout */
        atomic_store(&s->drain_ms, atomic_load(&x->tp->tmo_output));
        /* no-abort: stopped past the bound as a relayed orphan is (2084) */
        add = CGP_TS_DRAIN | (x->no_abort ? CGP_TS_NOABORT : 0);
        target = CGP_TS_RETURNED;
    }
    else {
        /* gone (its exit tells how), broken, or timed out */
        add = x->eof ? CGP_TS_EOF : x->broken ? CGP_TS_BROKEN : CGP_TS_KILL;
        target = CGP_TS_RETURNED;
    }
    if (add)
        atomic_fetch_or(&s->flags, add);
    if (cgp_tslot_step(s, CGP_TS_CHILD, x->sgen, dp.pid,
                       target == CGP_TS_IDLE ? CGP_TE_RELEASE : CGP_TE_HAND_BACK, 0) &&
        (target == CGP_TS_RETURNED || x->lifetime_set || atomic_load(&x->tp->waiters) > 0))
        direct_kick(q->r, x->pidx, x->pgen);
    apr_thread_mutex_lock(dp.mu);
    chan_unref_locked(x->ch);
    apr_thread_mutex_unlock(dp.mu);
}

void cgiplus_direct_finish(cgiplus_req *q, int client_gone)
{
    if (q->dx)
        direct_release(q, client_gone);
}

/* Record mode: "!", NAME=value lines (CR, LF, NUL as spaces), the exact
 * CONTENT_LENGTH, an empty line. Struct mode: "!!N" and entries. */
static int direct_name_ok(const cgiplus_kv *kv)
{
    apr_size_t i;

    if (kv->nlen == 0 || (kv->nlen == 14 && !memcmp(kv->name, "CONTENT_LENGTH", 14)))
        return 0;
    for (i = 0; i < kv->nlen; i++)
        if (kv->name[i] == '=' || kv->name[i] == '\n' || kv->name[i] == '\r')
            return 0;
    return 1;
}

static apr_status_t direct_record(cgiplus_req *q, int struct_mode, apr_size_t cl)
{
    cgiplus_direct *x = q->dx;
    char clv[48];
    apr_size_t total = 0, off = 0, i, k;
    int cll = apr_snprintf(clv, sizeof(clv), "CONTENT_LENGTH=%" APR_SIZE_T_FMT, cl);
    unsigned char *p;

    for (i = 0; i < (apr_size_t)q->nparams; i++)
        if (direct_name_ok(&q->params[i]))
            total += q->params[i].nlen + q->params[i].vlen + 3;
    total += (apr_size_t)cll + 32;
    x->in_cap = total + 1024;
    x->in = apr_palloc(q->r->pool, x->in_cap);
    p = (unsigned char *)x->in;
    if (!struct_mode) {
        memcpy(p, "!\n", 2);
        off = 2;
        for (i = 0; i < (apr_size_t)q->nparams; i++) {
            const cgiplus_kv *kv = &q->params[i];

            if (!direct_name_ok(kv))
                continue;
            memcpy(p + off, kv->name, kv->nlen);
            off += kv->nlen;
            p[off++] = '=';
            for (k = 0; k < kv->vlen; k++) {
                char c = kv->val[k];
                p[off++] = (unsigned char)(c == '\r' || c == '\n' || c == '\0' ? ' ' : c);
            }
            p[off++] = '\n';
        }
        memcpy(p + off, clv, (apr_size_t)cll);
        off += (apr_size_t)cll;
        memcpy(p + off, "\n\n", 2);
        off += 2;
    }
    else {
        apr_size_t n = 2 + 2 + (apr_size_t)cll, body;
        char *e;
        int hl;

        for (i = 0; i < (apr_size_t)q->nparams; i++)
            if (direct_name_ok(&q->params[i]) &&
                q->params[i].nlen + 1 + q->params[i].vlen <= 0xffff)
                n += 2 + q->params[i].nlen + 1 + q->params[i].vlen;
        hl = apr_snprintf((char *)p, 32, "!!%" APR_SIZE_T_FMT "\n", n);
        off = (apr_size_t)hl;
        body = off;
        e = apr_palloc(q->r->pool, 0x10000);
        for (i = 0; i < (apr_size_t)q->nparams; i++) {
            const cgiplus_kv *kv = &q->params[i];
            apr_size_t o = 0, el = kv->nlen + 1 + kv->vlen;

            if (!direct_name_ok(kv) || el > 0xffff)
                continue;
            memcpy(e, kv->name, kv->nlen);
            e[kv->nlen] = '=';
            for (k = 0; k < kv->vlen; k++)
                e[kv->nlen + 1 + k] = kv->val[k] == '\0' ? ' ' : kv->val[k];
            if (cgp_struct_pack(p + off, x->in_cap - off, &o, e, el) != CGP_OK)
                return APR_EINVAL;
            off += o;
        }
        {
            apr_size_t o = 0;

            if (cgp_struct_pack(p + off, x->in_cap - off, &o, clv, (apr_size_t)cll) != CGP_OK)
                return APR_EINVAL;
            off += o;
            o = 0;
            if (cgp_struct_end(p + off, x->in_cap - off, &o) != CGP_OK)
                return APR_EINVAL;
            off += o;
        }
        if (off - body != n)
            return APR_EINVAL;
    }
    x->in_len = off;
    x->in_off = 0;
    return APR_SUCCESS;
}

static void direct_end(cgiplus_req *q, int outcome);

/* Queues one answer line for CGIPLUSIN. */
static void direct_answer(cgiplus_req *q, const char *text)
{
    cgiplus_direct *x = q->dx;
    apr_size_t n = strlen(text), pend = x->in_len - x->in_off;

    if (pend + n + 1 > DIRECT_ANSWERS_MAX) {
        if (!x->broken)
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1704)
                          "script %s (worker pid %lu) does not read its callout answers "
                          "(%" APR_SIZE_T_FMT " bytes pending); it will be stopped",
                          q->r->filename, (unsigned long)x->ch->pid, pend);
        x->broken = 1;
        if (!q->got_end) { /* its request fails now: 502, the worker is stopped */
            direct_end(q, CGP_O_CRASHED);
            q->end.detail = CGIPLUS_END_BROKEN;
        }
        return;
    }
    if (x->in_off > 0 && x->in_off == x->in_len)
        x->in_off = x->in_len = 0;
    if (x->in_len + n + 1 > x->in_cap) {
        apr_size_t cap = (x->in_len - x->in_off + n + 1) * 2 + 256;
        char *b = apr_palloc(q->r->pool, cap);

        memcpy(b, x->in + x->in_off, x->in_len - x->in_off);
        x->in_len -= x->in_off;
        x->in_off = 0;
        x->in = b;
        x->in_cap = cap;
    }
    memcpy(x->in + x->in_len, text, n);
    x->in[x->in_len + n] = '\n';
    x->in_len += n + 1;
}

/* "minutes" | "none" | "0", with an optional unit (ms, s, m, h), as the
 * runner reads it: -1 none, 0 default, >0 ms, -2 bad. */
static apr_int64_t direct_minutes(const char *p, apr_size_t len)
{
    apr_uint64_t whole = 0, frac = 0, fdiv = 1, unit = 60000;
    apr_size_t i = 0;

    if (len == 4 && !strncasecmp(p, "none", 4))
        return -1;
    if (len == 0 || len > 24)
        return -2;
    while (i < len && p[i] >= '0' && p[i] <= '9')
        whole = whole * 10 + (apr_uint64_t)(p[i++] - '0');
    if (i == 0)
        return -2;
    if (i < len && p[i] == '.') {
        for (i++; i < len && p[i] >= '0' && p[i] <= '9' && fdiv < 1000000; i++) {
            frac = frac * 10 + (apr_uint64_t)(p[i] - '0');
            fdiv *= 10;
        }
    }
    if (i < len) {
        apr_size_t u = len - i;

        if (u == 2 && !strncasecmp(p + i, "ms", 2))
            unit = 1;
        else if (u == 1 && (p[i] == 's' || p[i] == 'S'))
            unit = 1000;
        else if (u == 1 && (p[i] == 'm' || p[i] == 'M'))
            unit = 60000;
        else if (u == 1 && (p[i] == 'h' || p[i] == 'H'))
            unit = 3600000;
        else
            return -2;
    }
    if (whole > 1000000000u)
        return -2;
    return (apr_int64_t)(whole * unit + frac * unit / fdiv);
}

static const char *direct_say_time(cgiplus_req *q, const char *what, apr_int64_t v)
{
    if (v < 0)
        return apr_psprintf(q->r->pool, "200 %s none", what);
    if (v == 0)
        return apr_psprintf(q->r->pool, "200 %s default", what);
    return apr_psprintf(q->r->pool, "200 %s %" APR_INT64_T_FMT " ms", what, v);
}

static void direct_callout(cgiplus_req *q, const unsigned char *line, apr_size_t len,
                           int too_long)
{
    cgiplus_direct *x = q->dx;
    const char *kw, *par, *ans;
    apr_size_t klen, plen;
    cgp_callout c;
    int want;

    cgp_callout_split(line, len, &c);
    want = c.want;
    if (too_long) {
        if (want > 0)
            direct_answer(q, "400 callout line too long");
        return;
    }
    if (want < 0 || len == (apr_size_t)(want == 0))
        return; /* a comment, or a blank line: it asks nothing */
    line = (const unsigned char *)c.kw; /* what follows a '!' */
    len -= want == 0;
    kw = c.kw;
    klen = c.klen;
    par = c.par;
    plen = c.plen;
    if (cgp_callout_is(&c, "NOOP")) {
        ans = "200 NOOP";
    }
    else if (cgp_callout_is(&c, "LOG") || cgp_callout_is(&c, "MAP-PATH")) {
        if (cgp_callout_is(&c, "LOG") && ++x->logs > DIRECT_LOG_MAX)
            ans = "429 LOG dropped (rate limit)"; /* counted once at the end */
        else
            ans = cgiplus_callout_answer(q, apr_pstrmemdup(q->r->pool, (const char *)line, len));
    }
    else if (cgp_callout_is(&c, "LIFETIME") || cgp_callout_is(&c, "TIMEOUT-OUTPUT") ||
             cgp_callout_is(&c, "TIMEOUT-NOPROGRESS")) {
        apr_int64_t v = direct_minutes(par, plen);

        if (v == -2) {
            ans = apr_psprintf(q->r->pool, "400 %.*s wants minutes, 0 or none",
                               (int)(klen > 40 ? 40 : klen), kw);
        }
        else if (cgp_callout_is(&c, "LIFETIME")) {
            atomic_store(&x->slot->lifetime, v);
            x->lifetime_set = 1;
            ans = direct_say_time(q, "lifetime", v);
        }
        else if (cgp_callout_is(&c, "TIMEOUT-OUTPUT")) {
            x->over_out = v;
            ans = direct_say_time(q, "timeout-output", v);
        }
        else {
            x->over_np = v;
            ans = direct_say_time(q, "timeout-noprogress", v);
        }
    }
    else if (cgp_callout_is(&c, "CGIPLUS")) {
        if (plen == 6 && !strncasecmp(par, "struct", 6)) {
            atomic_fetch_or(&x->slot->flags, CGP_TS_STRUCT);
            ans = "200 struct";
        }
        else if (plen == 6 && !strncasecmp(par, "record", 6)) {
            atomic_fetch_and(&x->slot->flags, ~CGP_TS_STRUCT);
            ans = "200 record";
        }
        else {
            ans = "400 CGIPLUS wants struct or record";
        }
    }
    else {
        ans = apr_psprintf(q->r->pool, "400 unknown callout %.*s",
                           (int)(klen > 40 ? 40 : klen), kw);
    }
    if (want > 0)
        direct_answer(q, ans);
}

/* Writes what the worker takes now of CGIPLUSIN and the body. */
static void direct_write(cgiplus_req *q)
{
    cgiplus_direct *x = q->dx;

    while (x->in_off < x->in_len && !x->broken) {
        ssize_t n = write(x->ch->fd_in, x->in + x->in_off, x->in_len - x->in_off);

        if (n > 0) {
            x->in_off += (apr_size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        x->broken = 1; /* it closed CGIPLUSIN: its stdout says the rest */
    }
    while (x->body_off < x->body_len) {
        ssize_t n = send(x->ch->fd_body, x->body + x->body_off, x->body_len - x->body_off,
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n > 0) {
            x->body_off += (apr_size_t)n;
            x->t_progress = direct_now_ms();
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        x->body_off = x->body_len; /* it closed its stdin: the body is dropped */
    }
}

/* The script's stderr while this child holds it: whole lines to the
 * request's virtual host's log, as the relay does; all of it (flush) once
 * the response is over, since what it wrote before its end belongs here. */
static void direct_stderr(cgiplus_req *q, int flush)
{
    cgiplus_direct *x = q->dx;
    ssize_t n;

    if (x->err_eof)
        return;
    if (!q->errbuf)
        q->errbuf = apr_palloc(q->r->pool, CGP_MAX_PAYLOAD + 1);
    for (;;) {
        apr_size_t room = CGP_MAX_PAYLOAD - x->err_len, done = 0;
        char *nl;

        n = read(x->ch->fd_err, q->errbuf + x->err_len, room > 8192 ? 8192 : room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            x->err_len += (apr_size_t)n;
        else if (n == 0)
            x->err_eof = 1;
        /* everything up to the last line end, then over-long pieces */
        for (nl = q->errbuf + x->err_len; nl > q->errbuf && nl[-1] != '\n'; nl--)
            ;
        done = (apr_size_t)(nl - q->errbuf);
        if (!done && x->err_len >= DIRECT_ERR_LINE)
            done = DIRECT_ERR_LINE;
        if (!done && n <= 0 && flush)
            done = x->err_len;
        if (done) {
            char keep[DIRECT_ERR_LINE];
            apr_size_t rest = x->err_len - done;

            if (rest > sizeof(keep))
                rest = sizeof(keep);
            memcpy(keep, q->errbuf + done, rest);
            cgiplus_resp_log_stderr(q, done);
            memcpy(q->errbuf, keep, rest);
            x->err_len = rest;
        }
        if (n <= 0 || !flush)
            return;
    }
}

static void direct_end(cgiplus_req *q, int outcome)
{
    q->got_end = 1;
    direct_stderr(q, 1);
    q->end.outcome = (uint8_t)outcome;
    q->end.pid = q->dx->ch->pid;
    q->end.detail = 0;
    q->end.retry_after = 0;
}

/* The wait status of a worker whose stdout closed: the runner reaps it at
 * once and stores it in the slot; waited for briefly (a crash path only). */
static uint32_t direct_exit_status(cgiplus_direct *x)
{
    int i;

    for (i = 0; i < 20; i++) {
        uint64_t w = atomic_load(&x->slot->word);

        if (cgp_tword_gen(w) != x->sgen)
            break; /* the slot has a new worker already */
        if (cgp_tword_state(w) == CGP_TS_DEAD)
            return atomic_load(&x->slot->exit_status);
        apr_sleep(apr_time_from_msec(5));
    }
    return CGIPLUS_END_CLOSED;
}

/* Reads what stdout has, straight into bucket memory: the response spans
 * go to q->out as buckets over that memory, callouts are answered. */
static apr_status_t direct_read(cgiplus_req *q)
{
    cgiplus_direct *x = q->dx;
    apr_bucket_alloc_t *ba = q->r->connection->bucket_alloc;
    apr_size_t len, pos = 0;
    apr_bucket *heap;
    char *buf;
    ssize_t n;
    int final = 0;

    buf = apr_bucket_alloc(DIRECT_READ + x->tail_len, ba);
    if (!buf)
        return APR_ENOMEM;
    memcpy(buf, x->tail, x->tail_len);
    do
        n = read(x->ch->fd_out, buf + x->tail_len, DIRECT_READ);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        apr_bucket_free(buf);
        return APR_SUCCESS;
    }
    if (n <= 0) {
        n = 0;
        final = 1; /* end of file before the sentinel: a held tail is output */
    }
    len = x->tail_len + (apr_size_t)n;
    x->tail_len = 0;
    heap = apr_bucket_heap_create(buf, len ? len : 1, apr_bucket_free, ba);
    while (pos < len || final) {
        const unsigned char *out = NULL;
        apr_size_t outlen = 0;
        int ev = cgp_scan_step(&x->scan, (unsigned char *)buf, len, &pos, &out, &outlen, final);

        if (ev == CGP_SCAN_MORE)
            break;
        x->t_progress = direct_now_ms();
        if (ev == CGP_SCAN_OUTPUT) {
            apr_bucket *b;

            apr_bucket_copy(heap, &b);
            b->start = (apr_off_t)((const char *)out - buf);
            b->length = outlen;
            APR_BRIGADE_INSERT_TAIL(q->out, b);
            q->out_len += (apr_off_t)outlen;
            q->got_stdout = 1;
        }
        else if (ev == CGP_SCAN_CALLOUT || ev == CGP_SCAN_CALLOUT_LONG) {
            direct_callout(q, out, outlen, ev == CGP_SCAN_CALLOUT_LONG);
            if (q->got_end) { /* it broke the protocol: nothing more is read */
                pos = len;
                break;
            }
        }
        else {
            direct_end(q, CGP_O_OK);
            if (pos < len)
                ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, q->r, CGIPLUS_LOGNO(1705)
                              "worker pid %lu of %s wrote %" APR_SIZE_T_FMT " bytes after "
                              "its sentinel; discarded", (unsigned long)x->ch->pid,
                              q->r->filename, len - pos);
            pos = len;
            break;
        }
    }
    if (!q->got_end && pos < len) {
        if (len - pos > sizeof(x->tail)) {
            x->broken = 1; /* cannot happen: the scanner holds less */
            direct_end(q, CGP_O_CRASHED);
        }
        else {
            memcpy(x->tail, buf + pos, len - pos);
            x->tail_len = len - pos;
        }
    }
    apr_bucket_destroy(heap); /* buf lives on in the output buckets */
    if (final && !q->got_end) {
        x->eof = 1;
        direct_end(q, CGP_O_CRASHED);
        q->end.detail = direct_exit_status(x);
    }
    if (x->in_off < x->in_len)
        direct_write(q); /* answers at once: the script waits for them */
    return APR_SUCCESS;
}

static apr_uint64_t direct_tmo(apr_int64_t over, apr_uint32_t pool)
{
    return over < 0 ? 0 : over > 0 ? (apr_uint64_t)over : pool;
}

/* One round: waits (at most wait; -1: until something happens or a
 * deadline passes) and does what the descriptors allow. A client socket
 * given is watched too (*client_rd). APR_TIMEUP: wait passed, nothing
 * happened. */
static apr_status_t direct_step(cgiplus_req *q, apr_interval_time_t wait, apr_os_sock_t cs,
                                int cs_eof, int *client_rd)
{
    cgiplus_direct *x = q->dx;
    struct pollfd pf[5];
    apr_uint64_t now = direct_now_ms(), dl = 0, t;
    apr_uint64_t out = direct_tmo(x->over_out, atomic_load(&x->tp->tmo_output));
    apr_uint64_t np = direct_tmo(x->over_np, atomic_load(&x->tp->tmo_noprogress));
    apr_int64_t ms;
    int n = 2, i_in = -1, i_body = -1, i_cs = -1, rc;
    int by_deadline = 0;

    if (client_rd)
        *client_rd = 0;
    pf[0].fd = x->ch->fd_out;
    pf[0].events = POLLIN;
    pf[1].fd = x->err_eof ? -1 : x->ch->fd_err;
    pf[1].events = POLLIN;
    if (x->in_off < x->in_len && !x->broken) {
        i_in = n;
        pf[n].fd = x->ch->fd_in;
        pf[n++].events = POLLOUT;
    }
    if (x->body_off < x->body_len) {
        i_body = n;
        pf[n].fd = x->ch->fd_body;
        pf[n++].events = POLLOUT;
    }
    if (cs >= 0) {
        i_cs = n;
        pf[n].fd = cs;
        /* after its end of file only a hang-up or error (always reported) */
        pf[n++].events = cs_eof ? 0 : POLLIN;
    }
    if (out && (!dl || x->t_start + out < dl))
        dl = x->t_start + out;
    if (np && (!dl || x->t_progress + np < dl))
        dl = x->t_progress + np;
    t = (apr_uint64_t)apr_time_as_msec(q->timeout); /* httpd's Timeout, as a relay read */
    ms = wait >= 0 ? apr_time_as_msec(wait) : (apr_int64_t)t;
    if (dl) {
        apr_int64_t left = dl > now ? (apr_int64_t)(dl - now) : 0;

        if (left <= ms) {
            ms = left;
            by_deadline = 1;
        }
    }
    do
        rc = poll(pf, (nfds_t)n, (int)(ms > INT32_MAX ? INT32_MAX : ms));
    while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return APR_FROM_OS_ERROR(errno);
    if (rc == 0) {
        if (wait >= 0 && !by_deadline)
            return APR_TIMEUP;
        now = direct_now_ms();
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1706)
                      "%s (worker pid %lu): %s timeout after %" APR_UINT64_T_FMT " ms; "
                      "answering 504 and %s", q->r->filename, (unsigned long)x->ch->pid,
                      !by_deadline ? "httpd's" : out && now >= x->t_start + out ? "output"
                                                                                : "no-progress",
                      now - x->t_start, x->no_abort ? "letting it finish (no-abort)"
                                                    : "stopping the worker");
        direct_end(q, CGP_O_TIMEOUT);
        return APR_SUCCESS;
    }
    if ((i_in >= 0 && pf[i_in].revents) || (i_body >= 0 && pf[i_body].revents))
        direct_write(q);
    if (i_cs >= 0 && pf[i_cs].revents && client_rd)
        *client_rd = cs_eof ? 2 : 1;
    if (pf[1].revents)
        direct_stderr(q, 0);
    if (pf[0].revents)
        return direct_read(q);
    return APR_SUCCESS;
}

apr_status_t cgiplus_direct_read(cgiplus_req *q)
{
    apr_status_t rv = APR_SUCCESS;
    apr_off_t had = q->out_len;

    /* Until something arrives: output, the end, a failure. */
    while (rv == APR_SUCCESS && !q->got_end && q->out_len == had)
        rv = direct_step(q, -1, -1, 0, NULL);
    return rv;
}

int cgiplus_direct_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    struct pollfd pf;
    int rc;

    if (q->dx->in_off < q->dx->in_len || q->dx->body_off < q->dx->body_len)
        return 1; /* the next step has work to do */
    pf.fd = q->dx->ch->fd_out;
    pf.events = POLLIN;
    do
        rc = poll(&pf, 1, (int)apr_time_as_msec(wait));
    while (rc < 0 && errno == EINTR);
    return rc != 0;
}

/* Script-Control (WASD's directives) from the parsed header. */
void cgiplus_direct_script_control(cgiplus_req *q)
{
    const char *v = apr_table_get(q->r->headers_out, "Script-Control");
    cgiplus_direct *x = q->dx;
    char *copy, *tok, *last;

    if (!v)
        v = apr_table_get(q->r->err_headers_out, "Script-Control");
    if (!v)
        return;
    copy = apr_pstrdup(q->r->pool, v);
    for (tok = apr_strtok(copy, ";,", &last); tok; tok = apr_strtok(NULL, ";,", &last)) {
        char *eq, *val = "";
        apr_int64_t m;

        while (*tok == ' ' || *tok == '\t')
            tok++;
        if ((eq = strchr(tok, '='))) {
            *eq = '\0';
            for (val = eq + 1; *val == ' ' || *val == '\t'; val++)
                ;
        }
        apr_collapse_spaces(tok, tok);
        m = eq ? direct_minutes(val, strcspn(val, " \t")) : -2;
        if (!strcasecmp(tok, "no-abort"))
            x->no_abort = 1;
        else if (!strcasecmp(tok, "X-lifetime") && m != -2) {
            atomic_store(&x->slot->lifetime, m);
            x->lifetime_set = 1;
        }
        else if (!strcasecmp(tok, "X-timeout-output") && m != -2)
            x->over_out = m;
        else if (!strcasecmp(tok, "X-timeout-noprogress") && m != -2)
            x->over_np = m;
    }
}

/* The body, read whole before a worker is taken (cgiplus_body_preread:
 * a slow client never holds one); one not read to its end (over
 * CGIplusBodyBuffer) is streamed by the relay. It stays in q->in for the
 * relay either way. */
static int direct_body(cgiplus_req *q, const char **data, apr_size_t *len)
{
    cgiplus_body_in *in = &q->in;
    char *flat;
    apr_size_t flen;

    if (!in->eos)
        return DECLINED;
    if (in->len || APR_BRIGADE_EMPTY(in->bb)) { /* the flat pre-read buffer */
        *data = in->buf;
        *len = in->len;
        return OK;
    }
    /* CGIplusBodyBuffer 0: one read, as buckets */
    if (apr_brigade_pflatten(in->bb, &flat, &flen, q->r->pool) != APR_SUCCESS)
        return HTTP_INTERNAL_SERVER_ERROR;
    *data = flat;
    *len = flen;
    return OK;
}

int cgiplus_direct_run(cgiplus_req *q)
{
    request_rec *r = q->r;
    direct_poolref ref;
    cgiplus_direct *x;
    const char *body = NULL;
    apr_size_t blen = 0;
    apr_status_t rv;
    int ret;

    if (!dp.mu || !dp.base || !q->pool_key)
        return DECLINED;
    apr_thread_mutex_lock(dp.mu);
    {
        direct_poolref *p = dp.base ? apr_hash_get(dp.pools, q->pool_key,
                                                   (apr_ssize_t)q->pool_key_len) : NULL;
        if (p)
            ref = *p;
        apr_thread_mutex_unlock(dp.mu);
        if (!p)
            return DECLINED; /* the runner names the pool in its answer */
    }
    if ((ret = direct_body(q, &body, &blen)) != OK)
        return ret;
    x = apr_pcalloc(r->pool, sizeof(*x));
    if (!direct_claim(q, &ref, x))
        return DECLINED;
    if (!(x->ch = direct_chan_get(r, x->sidx, x->sgen))) {
        cgp_tslot_step(x->slot, CGP_TS_CHILD, x->sgen, dp.pid, CGP_TE_RELEASE, 0);
        if (atomic_load(&x->tp->waiters) > 0)
            direct_kick(r, x->pidx, x->pgen);
        return DECLINED;
    }
    q->dx = x;
    q->worker_pid = x->ch->pid;
    x->body = body;
    x->body_len = blen;
    x->t_start = x->t_progress = direct_now_ms();
    cgp_scan_init(&x->scan, x->ch->eof, x->ch->esc, x->ch->eot);
    if ((rv = direct_record(q, (atomic_load(&x->slot->flags) & CGP_TS_STRUCT) != 0, blen))
        != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1709)
                      "cannot build the request record for %s", r->filename);
        q->got_end = 0;
        direct_release(q, 0);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    direct_write(q);
    return OK;
}

apr_status_t cgiplus_direct_wait_first(cgiplus_req *q)
{
    apr_socket_t *cs = cgiplus_resp_client_socket(q);
    apr_os_sock_t fd = -1;
    apr_status_t rv = APR_SUCCESS;
    int client_eof = 0;

    if (cs && apr_os_sock_get(&fd, cs) != APR_SUCCESS)
        fd = -1;
    while (rv == APR_SUCCESS && q->out_len == 0 && !q->got_end) {
        int client_rd = 0, st;

        rv = direct_step(q, -1, fd, client_eof, &client_rd);
        if (rv != APR_SUCCESS || !client_rd || q->out_len || q->got_end)
            continue;
        st = client_rd == 2 ? 1 : cgiplus_resp_client_state(cs);
        if (st < 0)
            continue;
        if (st == 0) {
            fd = -1; /* a pipelined request: the client is there */
            continue;
        }
        if (st == 2) {
            /* Half-closed, or closed: only writing can tell (as relayed). */
            client_eof = 1;
            continue;
        }
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1710)
                      "client connection reset before the response of %s began; worker pid %lu "
                      "is drained and kept", q->r->filename, (unsigned long)q->dx->ch->pid);
        q->client_gone = 1;
        q->r->connection->aborted = 1;
        direct_release(q, 1);
        return APR_ECONNABORTED;
    }
    return rv;
}
