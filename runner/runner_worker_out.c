/* runner_worker_out.c: what comes out of a worker: stdout through the
 * sentinel scanner (the response, through the header scanner, to the
 * request's client; callout lines; the sentinel that ends the request),
 * stderr as lines for the request's log, output nobody asked for. */
#include "runner_worker.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_hdr.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_req.h"
#include "cgp_stderr.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int runner_worker_out_paused(const runner_worker *w)
{
    const runner_req *r = w->req;
    return r && r->client && runner_client_backlog(r->client) > RUNNER_OUT_HIGH;
}

void runner_worker_junk(runner_worker *w, size_t n, const char *when)
{
    runner_req *r = w->req;
    int live = w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY;

    w->olen = 0;
    /* Its output goes nowhere, and it never gets another request: what it
     * writes next could pass for that request's response (issue 20). One
     * already on its way out is not worth a line. */
    if (!w->junk && live)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2025) "worker pid %ld of %s wrote %zu byte%s "
                   "%s; discarded, and the worker is stopped as broken%s", (long)w->pid,
                   w->pool->script, n, CGIPLUS_S(n), when, r ? " (its request goes to another worker)" : "");
    w->junk += n;
    if (live)
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
    if (!r)
        return;
    /* Only its record's last byte was missing: it never had the request,
     * which may run elsewhere (its body was not sent). */
    w->rec_held = 0;
    cgp_buf_reset(&w->inq);
    runner_worker_send_elsewhere(w);
}

int runner_worker_ready(runner_worker *w, const unsigned char *have, size_t n, const char *when)
{
    size_t seen = 0;
    int rc = w->ev_out.fd < 0 ? CGP_READY_NONE
             : cgp_ready_take(w->ev_out.fd, have, n, w->ready, w->ready_len, &seen);

    /* Its next record may go whole; one taken while a record is out was
     * written before it read that record, and says nothing of the next. */
    if (rc == CGP_READY_SEEN && !w->req)
        runner_worker_set_ready(w, 1);
    else if (rc == CGP_READY_JUNK)
        runner_worker_junk(w, seen, when);
    return rc;
}

void runner_worker_send(runner_worker *w, const unsigned char *d, size_t len)
{
    runner_req *r = w->req;
    if (!r || !r->client) /* orphan: the output goes nowhere */
        return;
    r->out_bytes += len;
    while (len) {
        size_t k = len > CGP_MAX_PAYLOAD ? CGP_MAX_PAYLOAD : len;
        runner_client_send(r->client, CGP_T_STDOUT, 0, r->reqid, d, k);
        d += k;
        len -= k;
    }
}

static void emit_errline(runner_worker *w)
{
    runner_req *r = w->req;
    size_t len = w->errlen;
    w->errlen = 0;
    if (len && w->errline[len - 1] == '\r')
        len--;
    if (!len)
        return;
    if (r && r->client)
        runner_client_send(r->client, CGP_T_STDERR, 0, r->reqid, w->errline, len);
    else
        runner_log(cgp_stderr_level(w->errline, len) == CGP_STDERR_INFO ? RUNNER_LOG_INFO
                                                                        : RUNNER_LOG_WARN,
                   CGIPLUS_LOGNO(2011) "%s (pid %ld): %.*s", w->pool->script,
                   (long)w->pid, (int)len, w->errline);
}

static void split_err(runner_worker *w, const char *p, size_t n)
{
    while (n) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;
        size_t room = RUNNER_LINE_MAX - w->errlen;
        if (take > room)
            take = room;
        memcpy(w->errline + w->errlen, p, take);
        w->errlen += take;
        p += take;
        n -= take;
        if (nl && p == nl) {
            p++;
            n--;
            emit_errline(w);
        } else if (w->errlen == RUNNER_LINE_MAX) {
            emit_errline(w); /* over-long line: pass it on in pieces */
        }
    }
}

static void read_err(runner_worker *w, int drain)
{
    char buf[8192];
    for (int i = 0; drain || i < 4; i++) {
        /* Published (perhaps by the read before): a child may hold it and
         * read its stderr now; only a dead worker's rest is taken. */
        if (w->ev_err.fd < 0 || (runner_worker_published(w) && !drain))
            return;
        if (!drain && runner_worker_out_paused(w))
            return;
        ssize_t n = read(w->ev_err.fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            if (w->errlen)
                emit_errline(w);
            runner_ev_close(&w->ev_err);
            return;
        }
        split_err(w, buf, (size_t)n);
    }
}

/* Stderr written before the response ended belongs to the request. */
static void take_stderr(runner_worker *w)
{
    read_err(w, 1);
    if (w->errlen)
        emit_errline(w);
}

void runner_worker_take_stderr(runner_worker *w)
{
    take_stderr(w); /* before a child reads it: nothing of ours is left half */
}

static void hdr_send(void *arg, const unsigned char *d, size_t len)
{
    runner_worker_send(arg, d, len);
}

/* The header block of w's request ended: what its Script-Control asked. */
static void hdr_apply(runner_worker *w, runner_req *r)
{
    const runner_ctl *c = &r->hdr.ctl;
    if (c->no_abort)
        r->no_abort = 1;
    if (c->have_lifetime)
        runner_worker_set_lifetime(w, c->lifetime);
    if (c->have_tmo_output)
        r->tmo_output = c->tmo_output;
    if (c->have_tmo_noprogress)
        r->tmo_noprogress = c->tmo_noprogress;
    runner_worker_rearm(w);
}

/* Output of w's request through its header scanner (flush: no more comes). */
static void hdr_feed(runner_worker *w, const unsigned char *d, size_t len, int flush)
{
    runner_req *r = w->req;
    if (!r)
        return;
    runner_hdr_sink s = { hdr_send, w, (long)w->pid, w->pool->script };
    if (flush ? runner_hdr_flush(&r->hdr, &s) : runner_hdr_output(&r->hdr, &s, d, len))
        hdr_apply(w, r);
}

static void request_done(runner_worker *w, int outcome, unsigned retry, uint32_t detail)
{
    runner_req *r = w->req;
    runner_pool *p = w->pool;
    hdr_feed(w, NULL, 0, 1);
    take_stderr(w);
    runner_callout_log_summary(w, 1);
    runner_callout_expire(w, 2); /* unanswered and no longer awaited */
    /* Not one that ended before its worker did (its client left, or a
     * drain): counted then, under its cause, as on the direct path. The
     * pool's served is counted with its END (runner_req.c). */
    if (outcome == CGP_O_OK && !runner_req_ended(r))
        runner_worker_count(w);
    w->dl_drain = 0;
    w->body_blocked = 0;
    w->dl_orphan = w->dl_orphan_max = 0;
    runner_ev_watch(&w->ev_body, 0);
    if (runner_worker_unassign(w)) {
        if (outcome == CGP_O_OK)
            p->owner->served(w);
        runner_req_end(r, outcome, retry, (uint32_t)w->pid, detail);
    }
    runner_worker_drain_body(w);
    if (runner_worker_step(w, RUNNER_WE_DONE)) {
        uint64_t maxr = p->set.v[CGP_S_MAX_REQUESTS], age = p->set.v[CGP_S_MAX_AGE];
        w->t_idle = runner_g.now;
        if (w->exited)
            runner_worker_step(w, RUNNER_WE_BREAK);
        else if (w->retire)
            runner_worker_stop(w, w->retire, 1);
        else if (maxr && w->served >= maxr)
            runner_worker_stop(w, RUNNER_END_MAX_REQUESTS, 1);
        else if (age && runner_g.now - w->started >= age)
            runner_worker_stop(w, RUNNER_END_LIFETIME, 1);
    }
    runner_worker_rearm(w);
}

/* Response bytes of the current request: progress, then on their way. */
static void output(runner_worker *w, const unsigned char *d, size_t len)
{
    runner_req *r = w->req;
    if (!r) /* a plain CGI run past its request's end */
        return;
    if (len) {
        w->had_output = 1;
        runner_req_progress(r);
    }
    hdr_feed(w, d, len, 0);
}

void runner_worker_output(runner_worker *w, const unsigned char *d, size_t len)
{
    output(w, d, len);
}

void runner_worker_stderr(runner_worker *w, const char *p, size_t n)
{
    split_err(w, p, n);
}

void runner_worker_request_done(runner_worker *w, int outcome, unsigned retry, uint32_t detail)
{
    request_done(w, outcome, retry, detail);
    w->pool->owner->idle(w);
}

static void process_out(runner_worker *w, size_t n, int final)
{
    size_t len = w->olen + n, pos = 0, outlen = 0;
    const unsigned char *out = NULL;
    int went_idle = 0;

    if (w->kind->per_request) {
        output(w, w->obuf, len);
        w->olen = 0;
        return;
    }
    if (!w->req) {
        w->olen = 0;
        runner_worker_ready(w, w->obuf, len, "after its sentinel, with no request");
        return;
    }
    if (w->sync_wait) { /* before it read its request: start-up output */
        w->banner += len;
        w->olen = 0;
        return;
    }
    if (w->rec_held) { /* its record is not whole: this is not its response */
        w->olen = 0;
        runner_worker_ready(w, w->obuf, len, "before it had read its request");
        return;
    }
    while (pos < len) {
        int ev = cgp_scan_step(&w->scan, w->obuf, len, &pos, &out, &outlen, final);
        if (ev == CGP_SCAN_MORE)
            break;
        if (ev == CGP_SCAN_OUTPUT) {
            output(w, out, outlen);
        } else if (ev == CGP_SCAN_CALLOUT || ev == CGP_SCAN_CALLOUT_LONG) {
            if (w->req)
                runner_req_progress(w->req);
            runner_callout_line(w, out, outlen, ev == CGP_SCAN_CALLOUT_LONG);
        } else {
            request_done(w, CGP_O_OK, 0, 0);
            went_idle = 1;
            if (pos < len) /* its ready line may follow, nothing else */
                runner_worker_ready(w, w->obuf + pos, len - pos, "after its sentinel");
            pos = len;
        }
        if (!w->req && !went_idle) /* the request ended meanwhile (callout failure) */
            break;
    }
    if (pos < len && w->req)
        memmove(w->obuf, w->obuf + pos, len - pos);
    w->olen = w->req ? len - pos : 0;
    runner_worker_rearm(w);
    if (went_idle)
        w->pool->owner->idle(w);
}

static void out_eof(runner_worker *w)
{
    if (!w->kind->per_request && w->olen && w->req)
        process_out(w, 0, 1); /* a held tail was output after all */
    w->olen = 0;
    runner_ev_close(&w->ev_out);
    if (w->kind->per_request) {
        /* Plain CGI: the response ends at EOF; no output at all is a crash,
         * decided when the exit status is known. */
        runner_req *r = w->req;
        if (r && w->had_output) {
            hdr_feed(w, NULL, 0, 1);
            take_stderr(w);
            if (!runner_req_ended(r)) /* (counted when it ended: aborted) */
                w->served++;
            if (runner_worker_unassign(w))
                runner_req_end(r, CGP_O_OK, 0, (uint32_t)w->pid, 0);
        }
        return;
    }
    /* A worker without stdout cannot serve: it should be exiting. */
    runner_worker_step(w, RUNNER_WE_BREAK);
    if (!w->exited && !w->dl_reap) {
        w->dl_reap = runner_g.now + RUNNER_EOF_REAP_MS;
        runner_worker_rearm(w);
    }
}

static void read_out_all(runner_worker *w, int drain)
{
    for (int i = 0; drain || i < 4; i++) {
        /* The read before may have ended its request and published it (or
         * an event was already pending): a child may have claimed it since,
         * and what it writes now is that child's response. */
        if (w->ev_out.fd < 0 || runner_worker_published(w))
            return;
        if (!drain && runner_worker_out_paused(w))
            return;
        size_t room = RUNNER_OBUF_CAP - w->olen;
        if (room > RUNNER_READ_CHUNK)
            room = RUNNER_READ_CHUNK;
        ssize_t n = read(w->ev_out.fd, w->obuf + w->olen, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (drain) /* dead, but a child of it holds the pipe: stop here */
                out_eof(w);
            return;
        }
        if (n <= 0) {
            out_eof(w);
            return;
        }
        w->had_output = 1;
        process_out(w, (size_t)n, 0);
    }
}

void runner_worker_read_stdout(runner_worker *w, int drain)
{
    read_out_all(w, drain);
    if (w->sync_wait && !drain)
        runner_worker_sync_check(w);
}

void runner_worker_read(runner_worker *w, int drain)
{
    runner_client *c = w->req ? w->req->client : NULL; /* freed only after the loop turn */
    if (c)
        c->corked = 1;
    w->kind->read(w, drain);
    if (c)
        runner_client_uncork(c);
}

void runner_worker_out_reset(runner_worker *w)
{
    w->had_output = 0;
    w->olen = 0;
    cgp_scan_reset(&w->scan);
}

void runner_worker_on_out(runner_ev *ev, uint32_t events)
{
    runner_worker_read(ev->obj, 0);
    runner_worker_update(ev->obj);
}

void runner_worker_on_err(runner_ev *ev, uint32_t events)
{
    read_err(ev->obj, 0);
    runner_worker_update(ev->obj);
}
