/* runner_worker_in.c: what goes into a worker: its request record on
 * CGIPLUSIN (the last byte held until it has read the rest, a new worker's
 * first record held until it has read its sync line), the body on its stdin,
 * callout answers after the record. */
#include "runner_worker.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_record.h"
#include "runner_req.h"
#include "runner_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Bytes the last request left unread on the script's stdin would be read as
 * the next request's body: take them back out of the pipe (our reader is
 * non-blocking: the script's is not). */
void runner_worker_drain_body(runner_worker *w)
{
    unsigned char junk[16384];
    size_t total = 0;
    if (w->body_peer < 0)
        return;
    for (;;) {
        ssize_t n = read(w->body_peer, junk, sizeof(junk));
        if (n > 0) {
            total += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    if (total)
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2018) "worker pid %ld of %s left %zu body "
                   "byte%s unread; discarded", (long)w->pid, w->pool->script, total,
                   CGIPLUS_S(total));
}

/* The write end of a worker's stdin, made once it has read its first
 * request's "!" line (runner_worker_spawn.c: until then the pipe has no
 * writer, and a program that reads its stdin to end of file shows itself).
 * A CGIplus program reads stdin only after its record, so never before. */
static int body_open(runner_worker *w)
{
    if (w->ev_body.fd >= 0)
        return 0;
    w->ev_body.fd = runner_spawn_reopen(w->body_peer, O_WRONLY);
    return w->ev_body.fd < 0 ? -1 : 0;
}

/* CGIPLUSIN is watched while bytes wait for it, and while a record's last
 * byte waits for the worker to have read the rest. */
uint32_t runner_worker_in_mask(const runner_worker *w)
{
    return cgp_buf_used(&w->inq) || (w->rec_held && w->req && w->state == RUNNER_W_BUSY)
           ? EPOLLOUT : 0;
}

void runner_worker_flush_in(runner_worker *w)
{
    if (w->ev_in.fd < 0 || !cgp_buf_used(&w->inq))
        return;
    if (runner_buf_flush(&w->inq, w->ev_in.fd) < 0) {
        if (errno == EPIPE && w->sync_wait) {
            /* Gone before its "!" line was written: a plain CGI program
             * (its stdin ends at once) can run and exit while a loaded
             * runner is still busy starting it. Its request stays unread,
             * so its reaping runs it as plain CGI (2080); one that runs on
             * without CGIPLUSIN is stopped at the next look. */
            w->in_lost = cgp_buf_used(&w->inq);
            cgp_buf_reset(&w->inq);
            runner_ev_close(&w->ev_in);
            return;
        }
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2019) "worker pid %ld of %s does not read "
                   "CGIPLUSIN (%s); stopping it", (long)w->pid, w->pool->script, strerror(errno));
        cgp_buf_reset(&w->inq);
        runner_ev_close(&w->ev_in);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
    }
    runner_ev_watch(&w->ev_in, runner_worker_in_mask(w));
}

void runner_worker_reply(runner_worker *w, const char *line)
{
    if (w->ev_in.fd < 0 || w->flooded)
        return;
    if (cgp_buf_append(&w->inq, line, strlen(line)) < 0 || cgp_buf_append(&w->inq, "\n", 1) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2020) "out of memory answering a callout of "
                   "worker pid %ld; stopping it", (long)w->pid);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    runner_worker_flush_in(w);
    /* What is left past the record is answers it has not read (at least). */
    if (cgp_buf_used(&w->inq) > w->inq_base + RUNNER_ANS_BYTES_MAX)
        runner_worker_flooded(w);
}

void runner_worker_flooded(runner_worker *w)
{
    if (w->flooded)
        return;
    w->flooded = 1;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2082) "worker pid %ld of %s has %u callout "
               "answer%s (%zu byte%s) it does not read; stopping it as broken", (long)w->pid,
               w->pool->script, w->nanswers, CGIPLUS_S(w->nanswers), cgp_buf_used(&w->inq),
               CGIPLUS_S(cgp_buf_used(&w->inq)));
    cgp_buf_free(&w->inq);
    runner_ev_watch(&w->ev_in, 0);
    runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
}

/* Tells the module which process has its request, before any of that
 * request's output: it names the pid in the script's stderr lines. */
static void send_started(runner_worker *w, runner_req *r)
{
    unsigned char pl[CGP_STARTED_LEN];
    cgp_started st = { .pid = (uint32_t)w->pid };
    if (!r->client || cgp_started_pack(pl, &st) != CGP_OK)
        return;
    runner_client_send(r->client, CGP_T_STARTED, 0, r->reqid, pl, sizeof(pl));
}

/* When the runner looks again whether a new worker has read its first
 * "!" line (there is no event for a pipe being read): after 1 ms, later
 * less often for a worker slow to start, at most every 20 ms. */
static uint64_t sync_next(const runner_worker *w)
{
    uint64_t wait = (runner_g.now - w->started) / 8 + 1;
    return runner_g.now + (wait > 20 ? 20 : wait);
}

/* The first request of a new worker: only its sync line ("!", or "!!N" in
 * struct mode) goes on CGIPLUSIN; the variables and the body follow once
 * the worker has read it. Until then the worker cannot know its request,
 * so whatever it writes is start-up output (a banner) and is discarded,
 * never a response. */
static void hold_first_record(runner_worker *w)
{
    runner_buf *q = &w->inq;
    size_t used = cgp_buf_used(q);
    const unsigned char *nl = used ? memchr(q->p + q->off, '\n', used) : NULL;
    if (!nl || q->p[q->off] != '!')
        return; /* no sync line: nothing to hold */
    size_t line = (size_t)(nl - (q->p + q->off)) + 1;
    if (cgp_buf_append(&w->held, q->p + q->off + line, used - line) < 0)
        return; /* out of memory: send it whole, as before */
    q->len = q->off + line;
    w->sync_wait = 1;
    w->dl_sync = sync_next(w);
}

/* Bytes of the first record the worker has not read (-1: unknown). */
int runner_worker_unread_in(const runner_worker *w)
{
    int n = 0;
    if (w->ev_in.fd < 0)
        return w->in_lost ? (int)w->in_lost : -1;
    if (ioctl(w->ev_in.fd, FIONREAD, &n) < 0)
        return -1;
    return n + (int)cgp_buf_used(&w->inq);
}

/* Once the worker has read the "!" line: what it wrote until now is
 * discarded (one warning), the rest of its record and its body go out. */
void runner_worker_sync_check(runner_worker *w)
{
    unsigned char buf[RUNNER_READ_CHUNK];
    ssize_t n;
    if (!w->sync_wait)
        return;
    if (w->in_lost) { /* alive (not reaped yet) with CGIPLUSIN closed */
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2916) "worker pid %ld of %s closed CGIPLUSIN "
                   "before it read its first request, and runs on; stopping it", (long)w->pid,
                   w->pool->script);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    if (runner_worker_unread_in(w) != 0) {
        w->dl_sync = sync_next(w);
        return;
    }
    /* It waits for its variables now: all it wrote so far came before. */
    while (w->ev_out.fd >= 0 && ((n = read(w->ev_out.fd, buf, sizeof(buf))) > 0 ||
                                 (n < 0 && errno == EINTR)))
        if (n > 0)
            w->banner += (size_t)n;
    w->banner += w->olen;
    w->olen = 0;
    w->sync_wait = 0;
    w->dl_sync = 0;
    w->synced = 1;
    w->took = 1;
    if (w->banner)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2079) "%s (worker pid %ld) wrote %zu byte%s "
                   "before reading its first request; discarded (a CGIplus script must not "
                   "print before it reads its request)", w->pool->script, (long)w->pid,
                   w->banner, CGIPLUS_S(w->banner));
    if (body_open(w) < 0 ||
        cgp_buf_append(&w->inq, w->held.p + w->held.off, cgp_buf_used(&w->held)) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2081) "cannot pass the request record to "
                   "worker pid %ld of %s (%s); stopping it", (long)w->pid, w->pool->script,
                   strerror(errno));
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    cgp_buf_free(&w->held);
    runner_worker_flush_in(w);
    runner_worker_feed(w);
    runner_worker_update(w);
}

/* A CGIplus worker's request: its record on CGIPLUSIN, the last byte held
 * (and a new worker's first record but its "!" line), its stdin opened. */
int runner_worker_record(runner_worker *w, runner_req *r)
{
    w->had_output = 0;
    runner_worker_set_ready(w, 0); /* the next ready line is this record's */
    runner_worker_drain_body(w);
    cgp_scan_reset(&w->scan);
    w->olen = 0;
    w->junk = 0;
    size_t before = cgp_buf_used(&w->inq);
    if (runner_record_build(&r->params, r->cl, !(r->nocl && !r->cl_given && r->cl == 0),
                            w->struct_mode || r->struct_rec, &w->inq) < 0) {
        int err = errno;
        w->inq.len = w->inq.off + before; /* never leave half a record */
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2022) "cannot build the request record "
                   "for %s: %s", w->pool->script, strerror(err));
        runner_worker_unassign(w);
        runner_worker_step(w, RUNNER_WE_DONE);
        runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)err);
        return -1;
    }
    /* Its last byte goes once the worker has read the rest and written
     * nothing meanwhile (rec_release); it cannot start before. */
    w->rec_last = w->inq.p[w->inq.len - 1];
    w->inq.len--;
    w->rec_held = 1;
    if (w->served == 0 && before == 0 && !w->synced)
        hold_first_record(w);
    if (!w->sync_wait && body_open(w) < 0) {
        /* nothing of the request reached it: it may run elsewhere */
        int err = errno;
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2650) "cannot open the stdin of worker "
                   "pid %ld of %s (%s); stopping it", (long)w->pid, w->pool->script,
                   strerror(err));
        w->inq.len = w->inq.off + before;
        runner_worker_unassign(w);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)err);
        return -1;
    }
    runner_worker_flush_in(w);
    w->inq_base = cgp_buf_used(&w->inq);
    return 0;
}

void runner_worker_assign(runner_worker *w, runner_req *r)
{
    runner_worker_link(w, r);
    runner_req_step(r, RUNNER_RE_ASSIGN);
    r->t_start = r->t_progress = runner_g.now;
    runner_worker_step(w, RUNNER_WE_ASSIGN);
    w->dl_orphan = w->dl_orphan_max = 0;
    w->body_blocked = 0;
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2021) "request %u (%s) to %s pid %ld",
               r->reqid, r->uri, w->kind->name, (long)w->pid);
    if (w->kind->request && w->kind->request(w, r) < 0)
        return; /* answered, or waiting again */
    /* Its PARAMS are in the environment of a plain CGI run now; a record
     * keeps them until the worker has it whole (rec_release): until then
     * the worker may turn out broken and the request go to another one
     * (runner_worker_junk), or a new worker's first one run again as
     * plain CGI (2080). */
    runner_req_running(r, w->rec_held || w->sync_wait || w->keep_params);
    send_started(w, r);
    w->kind->feed(w);
    runner_worker_update(w);
    runner_worker_rearm(w);
}

void runner_worker_feed(runner_worker *w)
{
    runner_req *r = w->req;
    if (!r || w->ev_body.fd < 0 || w->sync_wait || w->rec_held)
        return;
    uint64_t before = runner_spool_pending(&r->body);
    int rc = runner_spool_flush(&r->body, w->ev_body.fd), err = errno;
    w->body_blocked = rc == 1;
    if (runner_spool_pending(&r->body) < before)
        runner_req_progress(r); /* the script takes its body */
    if (rc < 0 && (r->body.rd_err || (err != EPIPE && err != ECONNRESET))) {
        /* The rest of the body is lost (not read back from the spool, no
         * memory to, or a write that failed). Its stdin must not end (a
         * CGI run's EOF), nor go on past a gap: the script would run on a
         * short body its CONTENT_LENGTH says is longer. It is killed, in
         * the middle of reading it, and the client gets 500. */
        if (r->body.rd_err)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(3670) "cannot read the body of request "
                       "%u (%s) back from the spool for worker pid %ld of %s: %s; answering 500 "
                       "and killing the worker", r->reqid, r->uri, (long)w->pid,
                       w->pool->script, strerror(err = r->body.rd_err));
        else
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2024) "cannot pass the body of request "
                       "%u (%s) to worker pid %ld of %s: %s; answering 500 and killing the "
                       "worker", r->reqid, r->uri, (long)w->pid, w->pool->script, strerror(err));
        runner_spool_discard(&r->body);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        runner_req_end(r, CGP_O_BAD_REQUEST, 0, (uint32_t)w->pid, (uint32_t)err);
        return;
    }
    if (rc < 0) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2023) "worker pid %ld of %s closed its "
                   "stdin; body discarded", (long)w->pid, w->pool->script);
        runner_spool_discard(&r->body);
        if (w->kind->per_request)
            runner_ev_close(&w->ev_body);
    } else if (rc == 0 && w->kind->per_request && r->body_end) {
        runner_ev_close(&w->ev_body); /* plain CGI: the body ends with EOF */
    }
    runner_ev_watch(&w->ev_body, w->body_blocked ? EPOLLOUT : 0);
    if (r->client)
        runner_client_update(r->client); /* less pending body: reading may resume */
}

/* The record's last byte, once the worker has read the rest (CGIPLUSIN is
 * empty: its one page is writable) and its stdout is still empty: seen in
 * that order, nothing found there later was written before it read its
 * record. Then its body follows. */
static void rec_release(runner_worker *w)
{
    if (!w->rec_held || !w->req || w->state != RUNNER_W_BUSY || w->sync_wait ||
        cgp_buf_used(&w->inq) || runner_worker_unread_in(w) != 0)
        return;
    atomic_thread_fence(memory_order_seq_cst); /* the look at stdout comes after */
    if (runner_worker_ready(w, NULL, 0, "before it had read its request") == CGP_READY_JUNK)
        return;
    w->rec_held = 0;
    if (cgp_buf_append(&w->inq, &w->rec_last, 1) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2150) "out of memory passing the request "
                   "record to worker pid %ld of %s; stopping it", (long)w->pid, w->pool->script);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    runner_req_running(w->req, 0); /* the record is the worker's now */
    runner_worker_flush_in(w);
    runner_worker_feed(w);
}

void runner_worker_on_in(runner_ev *ev, uint32_t events)
{
    runner_worker *w = ev->obj;
    runner_worker_flush_in(w);
    if (w->sync_wait)
        runner_worker_sync_check(w); /* it read the "!" line (CGIPLUSIN is empty again) */
    rec_release(w);
    runner_worker_update(w);
}

void runner_worker_on_body(runner_ev *ev, uint32_t events)
{
    runner_worker_feed(ev->obj);
    runner_worker_update(ev->obj);
}
