/* cgiplus_direct.c: the direct path (docs/DESIGN.md, "The direct path").
 * The httpd child claims an idle persistent worker in the runner's shared
 * table (include/cgp_table.h) by CAS, writes the request to the worker's own
 * descriptors, reads its response with the shared scanner and hands the
 * worker back; the runner takes no part unless requests queue. The
 * worker's descriptors come from the runner once per worker (CHANNEL) and
 * are cached per process. */
#include "cgiplus_direct_private.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_log.h"
#include "http_protocol.h"
#include "apr_portable.h"

APLOG_USE_MODULE(cgiplus);

#define DIRECT_READ        (64 * 1024)  /* one read of the worker's stdout */
#define DIRECT_ERR_LINE    4096         /* a longer stderr line is logged in pieces (as the runner) */

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

void cgiplus_direct_end(cgiplus_req *q, int outcome)
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
            APR_BRIGADE_INSERT_TAIL(q->out, b);
            q->out_len += (apr_off_t)outlen;
            q->got_stdout = 1;
        }
        else if (ev == CGP_SCAN_CALLOUT || ev == CGP_SCAN_CALLOUT_LONG) {
            cgiplus_direct_callout(q, out, outlen, ev == CGP_SCAN_CALLOUT_LONG);
            if (q->got_end) { /* it broke the protocol: nothing more is read */
                pos = len;
                break;
            }
        }
        else {
            cgiplus_direct_end(q, CGP_O_OK);
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
            cgiplus_direct_end(q, CGP_O_CRASHED);
        }
        else {
            memcpy(x->tail, buf + pos, len - pos);
            x->tail_len = len - pos;
        }
    }
    apr_bucket_destroy(heap); /* buf lives on in the output buckets */
    if (final && !q->got_end) {
        x->eof = 1;
        cgiplus_direct_end(q, CGP_O_CRASHED);
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
    apr_uint64_t now = cgiplus_direct_now_ms(), dl = 0, t;
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
        now = cgiplus_direct_now_ms();
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1706)
                      "%s (worker pid %lu): %s timeout after %" APR_UINT64_T_FMT " ms; "
                      "answering 504 and %s", q->r->filename, (unsigned long)x->ch->pid,
                      !by_deadline ? "httpd's" : out && now >= x->t_start + out ? "output"
                                                                                : "no-progress",
                      now - x->t_start, x->no_abort ? "letting it finish (no-abort)"
                                                    : "stopping the worker");
        cgiplus_direct_end(q, CGP_O_TIMEOUT);
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
    while (rv == APR_SUCCESS && !q->got_end && q->out_len == had) {
        cgiplus_direct *x = q->dx;

        if (x->out_ready && x->in_off == x->in_len && x->body_off == x->body_len)
            rv = direct_read(q); /* readable already: a poll would only say so again */
        else
            rv = direct_step(q, -1, -1, 0, NULL);
    }
    return rv;
}

int cgiplus_direct_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    struct pollfd pf;
    int rc;

    if (q->dx->in_off < q->dx->in_len || q->dx->body_off < q->dx->body_len || q->dx->out_ready)
        return 1; /* the next step has work to do */
    pf.fd = q->dx->ch->fd_out;
    pf.events = POLLIN;
    do
        rc = poll(&pf, 1, (int)apr_time_as_msec(wait));
    while (rc < 0 && errno == EINTR);
    q->dx->out_ready = rc > 0;
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

/* The claimed (or granted) worker x takes q: its record and body go out. */
static int direct_start(cgiplus_req *q, cgiplus_direct *x, const char *body, apr_size_t blen)
{
    request_rec *r = q->r;
    apr_status_t rv;

    q->dx = x;
    q->worker_pid = x->ch->pid;
    x->body = body;
    x->body_len = blen;
    x->t_start = x->t_progress = cgiplus_direct_now_ms();
    cgp_scan_init(&x->scan, x->ch->eof, x->ch->esc, x->ch->eot);
    if ((rv = cgiplus_direct_record(q, (atomic_load(&x->slot->flags) & CGP_TS_STRUCT) != 0, blen))
        != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1709)
                      "cannot build the request record for %s", r->filename);
        q->got_end = 0;
        cgiplus_direct_release(q, 0);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    direct_write(q);
    return OK;
}

int cgiplus_direct_run(cgiplus_req *q)
{
    request_rec *r = q->r;
    direct_poolref ref;
    cgiplus_direct *x;
    const char *body = NULL;
    apr_size_t blen = 0;
    int ret;

    if (!cgiplus_direct_pool_ref(q, &ref))
        return DECLINED; /* the runner names the pool in its answer */
    if ((ret = direct_body(q, &body, &blen)) != OK)
        return ret;
    x = apr_pcalloc(r->pool, sizeof(*x));
    if (!cgiplus_direct_claim(q, &ref, x))
        return DECLINED;
    if (!(x->ch = cgiplus_direct_chan_get(r, x->sidx, x->sgen))) {
        cgiplus_direct_unclaim(r, x);
        return DECLINED;
    }
    return direct_start(q, x, body, blen);
}

int cgiplus_direct_grant(cgiplus_req *q, const cgp_grant *g)
{
    request_rec *r = q->r;
    cgiplus_direct *x = apr_pcalloc(r->pool, sizeof(*x));
    const char *body = NULL;
    apr_size_t blen = 0;

    if (!cgiplus_direct_granted_slot(r, g, x)) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1712)
                      "the runner granted slot %lu (generation %lu) for %s, which this "
                      "process does not hold; answering 503", (unsigned long)g->slot,
                      (unsigned long)g->sgen, r->filename);
        return HTTP_SERVICE_UNAVAILABLE;
    }
    if (q->aborting || direct_body(q, &body, &blen) != OK ||
        !(x->ch = cgiplus_direct_chan_get(r, x->sidx, x->sgen))) {
        /* never written to: it goes back as it came */
        cgiplus_direct_unclaim(r, x);
        if (q->aborting)
            return OK;
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1713)
                      "cannot reach the worker granted for %s (slot %lu); answering 503",
                      r->filename, (unsigned long)g->slot);
        return HTTP_SERVICE_UNAVAILABLE;
    }
    return direct_start(q, x, body, blen);
}

apr_status_t cgiplus_direct_wait_first(cgiplus_req *q)
{
    cgiplus_client_watch w;
    apr_os_sock_t fd = -1;
    apr_status_t rv = APR_SUCCESS;

    cgiplus_resp_watch_init(q, &w);
    if (w.cs && apr_os_sock_get(&fd, w.cs) != APR_SUCCESS)
        fd = -1;
    while (rv == APR_SUCCESS && q->out_len == 0 && !q->got_end) {
        int client_rd = 0;

        rv = direct_step(q, -1, fd, w.eof, &client_rd);
        if (rv != APR_SUCCESS || !client_rd || q->out_len || q->got_end)
            continue;
        if (cgiplus_resp_client_seen(&w, client_rd) != CGIPLUS_CLIENT_GONE) {
            if (!w.cs)
                fd = -1; /* it sent more: no longer watched */
            continue;
        }
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, q->r, CGIPLUS_LOGNO(1710)
                      "client connection reset before the response of %s began; worker pid %lu "
                      "is drained and kept", q->r->filename, (unsigned long)q->dx->ch->pid);
        if (cgiplus_resp_client_left(q))
            cgiplus_direct_release(q, 1);
        return APR_ECONNABORTED;
    }
    return rv;
}
