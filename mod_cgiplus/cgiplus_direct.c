/* cgiplus_direct.c: the direct path (docs/DESIGN.md, "The direct path").
 * The httpd child claims an idle persistent worker in the runner's shared
 * table (include/cgp_table.h) by CAS, writes the request to the worker's own
 * descriptors, reads its response with the shared scanner and hands the
 * worker back; the runner takes no part unless requests queue. The
 * worker's descriptors come from the runner once per worker (CHANNEL) and
 * are cached per process. */
#include "cgiplus_direct_private.h"
#include "cgiplus_scriptlog.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "http_log.h"
#include "http_protocol.h"
#include "apr_portable.h"

APLOG_USE_MODULE(cgiplus);

static apr_status_t direct_step(cgiplus_req *q, apr_interval_time_t wait, apr_os_sock_t cs,
                                int cs_eof, int *client_rd);
static int direct_start(cgiplus_req *q, cgiplus_direct *x, const char *body, apr_size_t blen);

/* A CGIplus worker: its descriptors, its record on CGIPLUSIN. */
static const direct_proto direct_cgiplus = {
    .xp = &cgiplus_direct_xport,
    .xsize = sizeof(cgiplus_direct),
    .chan_get = cgiplus_direct_chan_get,
    .start = direct_start,
    .step = direct_step,
};

#define DIRECT_READ        (64 * 1024)  /* one read of the worker's stdout */
#define DIRECT_H2_LOOK     apr_time_from_msec(200) /* h2: how often a reset stream is looked for */
#define DIRECT_ERR_LINE    4096         /* a longer stderr line is logged in pieces (as the runner) */

/* Writes what the worker takes now of CGIPLUSIN and the body; while the
 * record's last byte is held, neither it nor the body. */
static void direct_write(cgiplus_req *q)
{
    cgiplus_direct *x = direct_x(q);
    apr_size_t end = x->in_len - (x->held ? 1 : 0);

    while (x->in_off < end && !x->broken) {
        ssize_t n = write(x->ch->fd_in, x->in + x->in_off, end - x->in_off);

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
    while (x->body_off < x->body_len && !x->held) {
        /* a pipe whose write end the runner made non-blocking (httpd
         * ignores SIGPIPE; the runner holds a reader anyway) */
        ssize_t n = write(x->ch->fd_body, x->body + x->body_off, x->body_len - x->body_off);

        if (n > 0) {
            x->body_off += (apr_size_t)n;
            x->t_progress = cgiplus_direct_now_ms();
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        x->body_off = x->body_len; /* it closed its stdin: the body is dropped */
    }
}

/* What the worker wrote with no request: its ready line alone (taken),
 * nothing, or output that is no response (counted in x->junk). */
static int direct_look(cgiplus_req *q, const unsigned char *have, apr_size_t n)
{
    cgiplus_direct *x = direct_x(q);
    size_t seen = 0;
    int rc = cgp_ready_take(x->ch->fd_out, have, n, x->ch->ready, x->ch->ready_len, &seen);

    if (rc == CGP_READY_JUNK)
        x->junk += seen;
    return rc;
}

/* The script's stderr while this child holds it: whole lines to the
 * request's virtual host's log, as the relay does; all of it (flush) once
 * the response is over, since what it wrote before its end belongs here. */
static void direct_stderr(cgiplus_req *q, int flush)
{
    cgiplus_direct *x = direct_x(q);
    ssize_t n;

    if (x->err_eof)
        return;
    if (!x->errbuf)
        x->errbuf = apr_palloc(q->r->pool, CGP_MAX_PAYLOAD + 1);
    for (;;) {
        apr_size_t room = CGP_MAX_PAYLOAD - x->err_len, done = 0;
        char *nl;

        n = read(x->ch->fd_err, x->errbuf + x->err_len, room > 8192 ? 8192 : room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            x->err_len += (apr_size_t)n;
        else if (n == 0)
            x->err_eof = 1;
        /* everything up to the last line end, then over-long pieces */
        for (nl = x->errbuf + x->err_len; nl > x->errbuf && nl[-1] != '\n'; nl--)
            ;
        done = (apr_size_t)(nl - x->errbuf);
        if (!done && x->err_len >= DIRECT_ERR_LINE)
            done = DIRECT_ERR_LINE;
        if (!done && n <= 0 && flush)
            done = x->err_len;
        if (done) {
            char keep[DIRECT_ERR_LINE];
            apr_size_t rest = x->err_len - done;

            if (rest > sizeof(keep))
                rest = sizeof(keep);
            memcpy(keep, x->errbuf + done, rest);
            cgiplus_script_stderr(q, x->errbuf, done);
            memcpy(x->errbuf, keep, rest);
            x->err_len = rest;
        }
        if (n <= 0 || !flush)
            return;
    }
}

void cgiplus_direct_end(cgiplus_req *q, int outcome, apr_uint32_t detail)
{
    cgp_end e = { 0 };

    direct_stderr(q, 1);
    e.outcome = (uint8_t)outcome;
    e.pid = direct_x(q)->ch->pid;
    e.detail = detail;
    cgiplus_req_end(q, &e);
}

uint32_t cgiplus_direct_exit_status(cgiplus_direct *x)
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
    cgiplus_direct *x = direct_x(q);
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
        x->out_ready = 0;
        apr_bucket_free(buf);
        return APR_SUCCESS;
    }
    if (n <= 0) {
        n = 0;
        final = 1; /* end of file before the sentinel: a held tail is output */
    }
    x->out_ready = n == DIRECT_READ; /* a full read: more is likely there */
    len = x->tail_len + (apr_size_t)n;
    x->tail_len = 0;
    heap = apr_bucket_heap_create(buf, len ? len : 1, apr_bucket_free, ba);
    while (pos < len || final) {
        const unsigned char *out = NULL;
        apr_size_t outlen = 0;
        int ev = cgp_scan_step(&x->scan, (unsigned char *)buf, len, &pos, &out, &outlen, final);

        if (ev == CGP_SCAN_MORE)
            break;
        x->t_progress = cgiplus_direct_now_ms();
        if (ev == CGP_SCAN_OUTPUT) {
            apr_bucket *b;

            apr_bucket_copy(heap, &b);
            b->start = (apr_off_t)((const char *)out - buf);
            b->length = outlen;
            cgiplus_req_out(q, b);
        }
        else if (ev == CGP_SCAN_CALLOUT || ev == CGP_SCAN_CALLOUT_LONG) {
            if (cgiplus_direct_callout(q, out, outlen, ev == CGP_SCAN_CALLOUT_LONG) &&
                !q->ended)
                cgiplus_direct_end(q, CGP_O_CRASHED, CGIPLUS_END_BROKEN);
            if (q->ended) { /* it broke the protocol: nothing more is read */
                pos = len;
                break;
            }
        }
        else {
            cgiplus_direct_end(q, CGP_O_OK, 0);
            /* nothing but its ready line may follow: the rest would be the
             * next response */
            if (pos < len && ((n < DIRECT_READ && cgp_ready_is((unsigned char *)buf + pos, len - pos,
                                                             x->ch->ready, x->ch->ready_len)) ||
                              direct_look(q, (unsigned char *)buf + pos, len - pos) ==
                              CGP_READY_SEEN))
                x->ready = 1;
            else if (pos < len) {
                ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1705)
                              "worker pid %lu of %s wrote %" APR_SIZE_T_FMT " byte%s after "
                              "its sentinel; discarded, and the worker is stopped as broken",
                              (unsigned long)x->ch->pid, q->r->filename, x->junk,
                              CGIPLUS_S(x->junk));
                x->broken = 1;
            }
            pos = len;
            break;
        }
    }
    if (!q->ended && pos < len) {
        if (len - pos > sizeof(x->tail)) {
            x->broken = 1; /* cannot happen: the scanner holds less */
            cgiplus_direct_end(q, CGP_O_CRASHED, 0);
        }
        else {
            memcpy(x->tail, buf + pos, len - pos);
            x->tail_len = len - pos;
        }
    }
    apr_bucket_destroy(heap); /* buf lives on in the output buckets */
    if (final && !q->ended) {
        x->eof = 1;
        cgiplus_direct_end(q, CGP_O_CRASHED, cgiplus_direct_exit_status(x));
    }
    if (x->in_off < x->in_len)
        direct_write(q); /* answers at once: the script waits for them */
    return APR_SUCCESS;
}

static apr_uint64_t direct_tmo(apr_int64_t over, apr_uint32_t pool)
{
    return over < 0 ? 0 : over > 0 ? (apr_uint64_t)over : pool;
}

apr_int64_t cgiplus_direct_wait_ms(cgiplus_req *q, apr_interval_time_t wait, int *by_deadline)
{
    cgiplus_direct *x = direct_x(q);
    apr_uint64_t now = cgiplus_direct_now_ms(), dl = 0;
    apr_uint64_t out = direct_tmo(x->over_out, atomic_load(&x->tp->tmo_output));
    apr_uint64_t np = direct_tmo(x->over_np, atomic_load(&x->tp->tmo_noprogress));
    /* httpd's Timeout, as a relay read */
    apr_int64_t ms = wait >= 0 ? apr_time_as_msec(wait) : apr_time_as_msec(q->timeout);

    *by_deadline = 0;
    if (out)
        dl = x->t_start + out;
    if (np && (!dl || x->t_progress + np < dl))
        dl = x->t_progress + np;
    if (dl) {
        apr_int64_t left = dl > now ? (apr_int64_t)(dl - now) : 0;

        if (left <= ms) {
            ms = left;
            *by_deadline = 1;
        }
    }
    return ms > INT32_MAX ? INT32_MAX : ms;
}

apr_uint64_t cgiplus_direct_left_ms(cgiplus_req *q)
{
    cgiplus_direct *x = direct_x(q);
    apr_uint64_t now = cgiplus_direct_now_ms(), dl = 0;
    apr_uint64_t out = direct_tmo(x->over_out, atomic_load(&x->tp->tmo_output));
    apr_uint64_t np = direct_tmo(x->over_np, atomic_load(&x->tp->tmo_noprogress));

    if (out)
        dl = x->t_start + out;
    if (np && (!dl || x->t_progress + np < dl))
        dl = x->t_progress + np;
    if (!dl)
        return 0;
    return dl > now ? dl - now : 1;
}

void cgiplus_direct_timeout(cgiplus_req *q, int by_deadline)
{
    cgiplus_direct *x = direct_x(q);
    apr_uint64_t now = cgiplus_direct_now_ms();
    apr_uint64_t out = direct_tmo(x->over_out, atomic_load(&x->tp->tmo_output));

    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1706)
                  "%s (worker pid %lu): %s timeout after %" APR_UINT64_T_FMT " ms; "
                  "answering 504 and %s", q->r->filename, (unsigned long)x->ch->pid,
                  !by_deadline ? "httpd's" : out && now >= x->t_start + out ? "output"
                                                                            : "no-progress",
                  now - x->t_start, x->no_abort ? "letting it finish (no-abort)"
                                                : "stopping the worker");
    cgiplus_direct_end(q, CGP_O_TIMEOUT, 0);
}

/* While the record's last byte is held: CGIPLUSIN reported empty (all
 * the worker was given is read) and nothing was written meanwhile but its
 * ready line, so the byte goes; anything else on stdout (or its close)
 * first, and the worker is unfit: what it wrote is no response to a
 * request it does not have. In that order: stdout is looked at after
 * CGIPLUSIN was seen empty (a fence between the two system calls), so
 * output written before the worker read its record is found. */
static void direct_held(cgiplus_req *q, int in_empty, int out_ready)
{
    cgiplus_direct *x = direct_x(q);
    int rc;

    if (x->broken || (out_ready && (rc = direct_look(q, NULL, 0)) != CGP_READY_NONE &&
                      rc != CGP_READY_SEEN)) {
        x->unfit = 1;
        return;
    }
    if (!in_empty || x->in_off + 1 != x->in_len)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    if ((rc = direct_look(q, NULL, 0)) != CGP_READY_NONE && rc != CGP_READY_SEEN) {
        x->unfit = 1;
        return;
    }
    x->held = 0;
    direct_write(q);
}

/* One round: waits (at most wait; -1: until something happens or a
 * deadline passes) and does what the descriptors allow. A client socket
 * given is watched too (*client_rd). APR_TIMEUP: wait passed, nothing
 * happened. */
static apr_status_t direct_step(cgiplus_req *q, apr_interval_time_t wait, apr_os_sock_t cs,
                                int cs_eof, int *client_rd)
{
    cgiplus_direct *x = direct_x(q);
    struct pollfd pf[5];
    apr_size_t in_before = x->in_off;
    int n = 0, i_out, i_err, i_in = -1, i_body = -1, i_cs = -1, rc, by_deadline;
    apr_int64_t ms = cgiplus_direct_wait_ms(q, wait, &by_deadline);

    if (client_rd)
        *client_rd = 0;
    if (x->in_off < x->in_len && !x->broken) {
        i_in = n;
        pf[n].fd = x->ch->fd_in;
        pf[n++].events = POLLOUT;
    }
    i_out = n;
    pf[n].fd = x->ch->fd_out;
    pf[n++].events = POLLIN;
    i_err = n;
    pf[n].fd = x->err_eof ? -1 : x->ch->fd_err;
    pf[n++].events = POLLIN;
    if (x->body_off < x->body_len && !x->held) {
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
    do
        rc = poll(pf, (nfds_t)n, (int)ms);
    while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return APR_FROM_OS_ERROR(errno);
    if (rc == 0) {
        if (wait >= 0 && !by_deadline)
            return APR_TIMEUP;
        cgiplus_direct_timeout(q, by_deadline);
        return APR_SUCCESS;
    }
    if ((i_in >= 0 && pf[i_in].revents) || (i_body >= 0 && pf[i_body].revents))
        direct_write(q);
    if (i_cs >= 0 && pf[i_cs].revents && client_rd)
        *client_rd = cs_eof ? 2 : 1;
    if (pf[i_err].revents)
        direct_stderr(q, 0);
    if (x->held) {
        direct_held(q, i_in >= 0 && (pf[i_in].revents & POLLOUT) && x->in_off == in_before,
                    pf[i_out].revents != 0);
        return APR_SUCCESS;
    }
    if (pf[i_out].revents)
        return direct_read(q);
    return APR_SUCCESS;
}

/* Reads until something arrives: output, the end, a failure. */
static apr_status_t direct_read_op(cgiplus_req *q)
{
    apr_status_t rv = APR_SUCCESS;
    apr_off_t had = q->out_len;

    while (rv == APR_SUCCESS && !q->ended && q->out_len == had) {
        cgiplus_direct *x = direct_x(q);

        if (x->out_ready && x->in_off == x->in_len && x->body_off == x->body_len)
            rv = direct_read(q); /* readable already: a poll would only say so again */
        else
            rv = direct_step(q, -1, -1, 0, NULL);
    }
    return rv;
}

static int direct_out_fd(cgiplus_req *q)
{
    return direct_x(q)->ch->fd_out;
}

static int direct_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    cgiplus_direct *x = direct_x(q);
    struct pollfd pf;
    int rc;

    if (x->in_off < x->in_len || x->body_off < x->body_len || x->out_ready)
        return 1; /* the next step has work to do */
    pf.fd = x->ch->fd_out;
    pf.events = POLLIN;
    do
        rc = poll(&pf, 1, (int)apr_time_as_msec(wait));
    while (rc < 0 && errno == EINTR);
    x->out_ready = rc > 0;
    return rc != 0;
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

void cgiplus_direct_started(cgiplus_req *q, const direct_proto *p, cgiplus_direct *x,
                            const char *body, apr_size_t blen)
{
    cgiplus_req_attach(q, p->xp, x);
    q->worker_pid = x->ch->pid;
    x->body = body;
    x->body_len = blen;
    x->t_start = x->t_progress = cgiplus_direct_now_ms();
    atomic_fetch_add(&x->tp->requests, 1);
    atomic_store(&x->tp->last_used, x->t_start); /* the pool is in use: not "unused" */
    cgiplus_direct_script_count(q, x, 1);
}

/* The claimed (or granted) worker x takes q: its record and body go out.
 * OK, or 500 (logged; the worker went back). */
static int direct_start(cgiplus_req *q, cgiplus_direct *x, const char *body, apr_size_t blen)
{
    request_rec *r = q->r;
    apr_status_t rv;
    /* the record sent from here on is not the one its ready line was for */
    uint32_t fl = atomic_fetch_and(&x->slot->flags, ~CGP_TS_READY);
    int rc;

    cgiplus_direct_started(q, &direct_cgiplus, x, body, blen);
    cgp_scan_init(&x->scan, x->ch->eof, x->ch->esc, x->ch->eot);
    rv = cgiplus_direct_record(q, (fl & CGP_TS_STRUCT) != 0 || q->struct_rec, blen);
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1709)
                      "cannot build the request record for %s", r->filename);
        cgiplus_direct_release(q, 0);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* Back in its read with nothing else written (its ready line, taken
     * now or by its last holder): the record goes whole. Otherwise its last
     * byte waits until stdout is found empty once it has read the rest. */
    rc = direct_look(q, NULL, 0);
    x->held = rc != CGP_READY_SEEN && !(rc == CGP_READY_NONE && (fl & CGP_TS_READY));
    if (rc == CGP_READY_JUNK || rc == CGP_READY_EOF)
        x->unfit = 1; /* nothing written: it goes back (direct_unfit) */
    else
        direct_write(q);
    return OK;
}

/* A request's exchange, zeroed but for the scanner's tail buffer (4 KiB,
 * read only up to tail_len): clearing it cost as much as building the
 * record. */
static cgiplus_direct *direct_x_new(apr_pool_t *pool, apr_size_t xsize)
{
    cgiplus_direct *x = apr_palloc(pool, xsize);
    apr_size_t t0 = offsetof(cgiplus_direct, tail), t1 = t0 + sizeof(x->tail);

    memset(x, 0, t0);
    memset((char *)x + t1, 0, xsize - t1);
    return x;
}

unsigned cgiplus_direct_take(cgiplus_req *q, const direct_proto *p)
{
    request_rec *r = q->r;
    direct_poolref ref;
    cgiplus_direct *x;
    const char *body = NULL;
    apr_size_t blen = 0;
    int ret;

    if (!cgiplus_direct_pool_ref(q, &ref))
        return CGIPLUS_RE_NO_IDLE; /* the runner names the pool in its answer */
    if ((ret = direct_body(q, &body, &blen)) == DECLINED)
        return CGIPLUS_RE_NO_IDLE;
    if (ret != OK) {
        q->status = ret;
        return CGIPLUS_RE_ERROR;
    }
    x = direct_x_new(r->pool, p->xsize);
    if ((ret = cgiplus_direct_claim(q, &ref, x)) < 0)
        return CGIPLUS_RE_NO_IDLE;
    if (ret == 0 && (ret = cgiplus_direct_wait(q, &ref, x)) != OK) {
        /* none idle: it waited in the table's queue, and */
        if (ret == DECLINED)
            return CGIPLUS_RE_NO_IDLE; /* the runner must see it */
        if (ret == DONE)
            return cgiplus_req_client_left(q); /* it left the queue (logged) */
        q->status = ret; /* 503: the queue is full or it waited out (logged) */
        return CGIPLUS_RE_ERROR;
    }
    if (!(x->ch = p->chan_get(r, x->sidx, x->sgen))) {
        cgiplus_direct_unclaim(r, x);
        return CGIPLUS_RE_NO_IDLE;
    }
    if ((ret = p->start(q, x, body, blen)) == DECLINED)
        return CGIPLUS_RE_NO_IDLE; /* it never reached the worker */
    if (ret != OK) {
        q->status = ret;
        return CGIPLUS_RE_ERROR;
    }
    return CGIPLUS_RE_CLAIMED;
}

/* The worker granted for q was gone before a byte of q reached it (how
 * says so): q goes to the runner again (DECLINED), else 503. Such a worker
 * was last some other request's, which it served: past the bound of
 * workers unfit for one request, q goes on while its Timeout lasts (each
 * time it waits in the runner's queue, which answers 503 itself if no
 * worker comes). A pool whose workers each end after their request (a
 * script's exit after its finish) passes the bound in a burst. */
static int direct_granted_gone(cgiplus_req *q, const cgp_grant *g, const char *how)
{
    request_rec *r = q->r;

    if (q->redos + 1 <= DIRECT_REDO_MAX || apr_time_now() - r->request_time < q->timeout) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1715)
                      "the worker granted for %s (slot %lu) %s before it took the request; "
                      "the request goes to the runner again", r->filename,
                      (unsigned long)g->slot, how);
        return DECLINED;
    }
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1714)
                  "%u workers granted for %s in a row were gone before they took it (the "
                  "last %s); answering 503", q->redos + 1, r->filename, how);
    return HTTP_SERVICE_UNAVAILABLE;
}

int cgiplus_direct_take_granted(cgiplus_req *q, const cgp_grant *g, int take,
                                const direct_proto *p)
{
    request_rec *r = q->r;
    cgiplus_direct *x = direct_x_new(r->pool, p->xsize);
    const char *body = NULL;
    apr_size_t blen = 0;
    int ret;

    /* Not held: the runner took the slot back (its worker ended). The
     * request goes to the runner again with its whole body, which went
     * to it once (a request is granted with it). */
    if (!cgiplus_direct_granted_slot(r, g, x)) {
        if (take && direct_body(q, &body, &blen) == OK)
            cgiplus_body_reset(&q->in, body, blen, r->connection->bucket_alloc);
        return take ? direct_granted_gone(q, g, "ended") : OK;
    }
    if (!take || direct_body(q, &body, &blen) != OK) {
        /* never written to: it goes back as it came */
        cgiplus_direct_unclaim(r, x);
        if (!take)
            return OK;
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1713)
                      "the body of the request granted a worker for %s is not whole; "
                      "answering 503", r->filename);
        return HTTP_SERVICE_UNAVAILABLE;
    }
    /* No channel: the runner refused it (the worker ended meanwhile). */
    if (!(x->ch = p->chan_get(r, x->sidx, x->sgen))) {
        cgiplus_direct_unclaim(r, x);
        cgiplus_body_reset(&q->in, body, blen, r->connection->bucket_alloc);
        return direct_granted_gone(q, g, "could not be reached");
    }
    /* DECLINED: it had closed its connection (a FastCGI application that
     * recycled itself); p->start handed it back. */
    ret = p->start(q, x, body, blen);
    return ret == DECLINED ? direct_granted_gone(q, g, "had closed its connection") : ret;
}

/* The worker was unfit before its record was whole: it wrote output with
 * no request (it would pass for this one's response), or it ended. It goes
 * back to be stopped, and the request, which never reached it, to the
 * runner (RETRY) with its body as it was; past DIRECT_REDO_MAX unfit
 * workers it fails (LOST, 502). */
static unsigned direct_unfit(cgiplus_req *q)
{
    cgiplus_direct *x = direct_x(q);
    int n = 0;

    if (ioctl(x->ch->fd_out, FIONREAD, &n) < 0)
        n = 0;
    n += (int)x->junk; /* what was read of it already */
    if (n > 0)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1130)
                      "%s (worker pid %lu) wrote %d bytes while it had no request; the "
                      "worker is stopped as broken and the request goes to another one",
                      q->r->filename, (unsigned long)x->ch->pid, n);
    else
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1131)
                      "%s (worker pid %lu) ended, or closed its FastCGI connection, before "
                      "it read its request; the request goes through the runner (a FastCGI "
                      "worker still listening gets a new connection)", q->r->filename,
                      (unsigned long)x->ch->pid);
    cgiplus_direct_hand_back(q, n > 0 ? CGP_TS_BROKEN : CGP_TS_EOF);
    cgiplus_body_reset(&q->in, x->body, x->body_len, q->r->connection->bucket_alloc);
    cgiplus_req_detach(q);
    q->worker_pid = 0;
    if (q->redos + 1 > DIRECT_REDO_MAX) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1132)
                      "%u workers of %s in a row were unfit for the request (output with "
                      "no request, or ended); answering 502", q->redos + 1, q->r->filename);
        cgiplus_direct_count(q, CGP_O_CRASHED); /* the status page's count of that 502 */
        q->status = HTTP_BAD_GATEWAY;
        return CGIPLUS_RE_LOST;
    }
    return CGIPLUS_RE_RETRY;
}

/* Waits for the script's next output (the first, or more once the
 * response runs) while watching the client: a client that resets before
 * the response began, or a stream (server-sent events) reset between two
 * writes, would else be seen only at the script's next write, and hold
 * its worker till then (t/53_sse_reset.t). *gone: the client left.
 * first: before the first output, where a worker found unfit (it never
 * had the request) ends the wait too. */
static apr_status_t direct_watch(cgiplus_req *q, const direct_proto *p, cgiplus_client_watch *w,
                                 int *gone, int first)
{
    apr_status_t rv = APR_SUCCESS;
    apr_off_t had = q->out_len;
    conn_rec *c = q->r->connection;
    /* HTTP/2: no socket, but mod_http2 marks the stream's connection
     * aborted when the client resets it; looked at between short waits,
     * which add up to httpd's Timeout as one wait would */
    int h2 = c->master != NULL;
    apr_time_t quiet = apr_time_now();
    apr_os_sock_t fd = -1;

    *gone = 0;
    if (w->cs && apr_os_sock_get(&fd, w->cs) != APR_SUCCESS)
        fd = -1;
    while (rv == APR_SUCCESS && q->out_len == had && !q->ended && !(first && direct_x(q)->unfit)) {
        int client_rd = 0;

        if (h2) {
            apr_interval_time_t left = quiet + q->timeout - apr_time_now();

            if (c->aborted) {
                *gone = 1;
                break;
            }
            if (left <= 0) {
                cgiplus_direct_timeout(q, 0); /* httpd's, as step(-1) would */
                continue;
            }
            rv = p->step(q, left < DIRECT_H2_LOOK ? left : DIRECT_H2_LOOK, -1, 0, NULL);
            if (rv == APR_TIMEUP)
                rv = APR_SUCCESS;
            else
                quiet = apr_time_now();
            continue;
        }
        rv = p->step(q, -1, fd, w->eof, &client_rd);
        if (rv != APR_SUCCESS || !client_rd || q->out_len != had || q->ended)
            continue;
        if (cgiplus_req_client_seen(w, client_rd) == CGIPLUS_CLIENT_GONE) {
            *gone = 1;
            break;
        }
        if (!w->cs)
            fd = -1; /* it sent more: no longer watched */
    }
    return rv;
}

unsigned cgiplus_direct_wait_first(cgiplus_req *q, const direct_proto *p)
{
    cgiplus_client_watch w;
    apr_status_t rv;
    int gone;

    cgiplus_req_watch_init(q, &w);
    rv = direct_watch(q, p, &w, &gone, 1);
    if (rv != APR_SUCCESS) {
        q->status = HTTP_BAD_GATEWAY;
        return CGIPLUS_RE_LOST;
    }
    if (gone) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1710)
                      "client connection reset before the response of %s began; worker pid %lu "
                      "is drained and kept", q->r->filename, (unsigned long)direct_x(q)->ch->pid);
        return cgiplus_req_client_left(q);
    }
    if (!q->out_len && !q->ended && direct_x(q)->unfit)
        return direct_unfit(q);
    return cgiplus_req_first_event(q);
}

apr_status_t cgiplus_direct_read_watch(cgiplus_req *q, const direct_proto *p,
                                       cgiplus_client_watch *w, int *gone)
{
    return direct_watch(q, p, w, gone, 0);
}

static apr_status_t direct_read_watch(cgiplus_req *q, cgiplus_client_watch *w, int *gone)
{
    return cgiplus_direct_read_watch(q, &direct_cgiplus, w, gone);
}

/* The worker goes back: idle, or to the runner to drain or stop. */
static void direct_finish(cgiplus_req *q)
{
    cgiplus_direct_release(q, 0);
}

/* The client left: the runner drains the worker; this thread is free at once. */
static void direct_abort(cgiplus_req *q)
{
    cgiplus_direct_release(q, 1);
}

int cgiplus_direct_report(cgiplus_req *q)
{
    if (!q->fail_cause || q->fail_reported || !cgiplus_direct_count(q, q->fail_cause))
        return 0;
    cgiplus_req_report(q); /* told */
    return 1;
}

static unsigned direct_run(cgiplus_req *q)
{
    return cgiplus_direct_take(q, &direct_cgiplus);
}

static int direct_grant(cgiplus_req *q, const cgp_grant *g, int take)
{
    return cgiplus_direct_take_granted(q, g, take, &direct_cgiplus);
}

static unsigned direct_wait_first(cgiplus_req *q)
{
    return cgiplus_direct_wait_first(q, &direct_cgiplus);
}

const cgiplus_xport cgiplus_direct_xport = {
    .name = "direct",
    .start = direct_run,
    .report = cgiplus_direct_report,
    .grant = direct_grant,
    .learn = cgiplus_direct_learn,
    .wait_first = direct_wait_first,
    .read = direct_read_op,
    .read_watch = direct_read_watch,
    .readable = direct_readable,
    .out_fd = direct_out_fd,
    .header = cgiplus_direct_script_control,
    .finish = direct_finish,
    .abort = direct_abort,
    .abandon = direct_finish,
};
