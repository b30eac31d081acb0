/* runner_worker.c: a worker's life: the outcome of its exec, stopping
 * (SIGTERM, SIGKILL after kill_grace), its timers (request timeouts,
 * idle timeout, max age, orphans and drains), its death; and the workers'
 * room, which the loop runs. What differs between kinds goes through
 * w->kind, what the pool must hear through w->pool->owner. */
#include "runner_worker.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_req.h"
#include "runner_spawn.h"
#include "runner_table.h"
#include "cgp_shebang.h"
#include "cgp_table.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void look(void);

void runner_worker_link(runner_worker *w, runner_req *r)
{
    w->req = r;
    r->worker = w;
    w->pool->owner->busy(w, 1);
}

int runner_worker_unassign(runner_worker *w)
{
    runner_req *r = w->req;
    w->req = NULL;
    r->worker = NULL;
    w->pool->owner->busy(w, -1);
    return runner_req_detach(r);
}

void runner_worker_send_elsewhere(runner_worker *w)
{
    runner_req *r = w->req;

    if (!runner_worker_unassign(w))
        return; /* answered already: freed */
    if (r->client)
        w->pool->owner->requeue(r);
    else
        runner_req_client_gone(r);
}

int runner_worker_step(runner_worker *w, runner_wevent ev)
{
    unsigned to = runner_wnext(w->state, ev);
    if (to == 0xff)
        return 0;
    w->state = (runner_wstate)to;
    return 1;
}

static void worker_close_fds(runner_worker *w)
{
    if (w->kind->close)
        w->kind->close(w);
    runner_ev_close(&w->ev_in);
    runner_ev_close(&w->ev_body);
    runner_ev_close(&w->ev_out);
    runner_ev_close(&w->ev_err);
    runner_ev_close(&w->ev_exec);
    if (w->body_peer >= 0)
        close(w->body_peer);
    w->body_peer = -1;
}

/* The workers' timers, nearest first: a loop turn visits the due ones
 * only, not every worker. */
static runner_heap worker_heap;

int runner_worker_heap_reserve(void)
{
    return runner_heap_reserve(&worker_heap, runner_g.nworkers + 1);
}

/* Never fails: the heap holds live workers only, and each reserved its
 * room (runner_worker_heap_reserve). */
static void set_deadline(runner_worker *w, uint64_t dl)
{
    w->deadline = dl;
    (void)runner_heap_set(&worker_heap, &w->tn, dl);
}

void runner_worker_free(runner_worker *w)
{
    set_deadline(w, 0);
    worker_close_fds(w);
    if (w->req) {
        if (w->req->client)
            w->req->client->req = NULL;
        runner_req_free(w->req);
    }
    runner_callout_free(w);
    cgp_buf_free(&w->inq);
    cgp_buf_free(&w->held);
    free(w->kdata);
    free(w->obuf);
    free(w);
}

/* The worker is no use any more: never assign it again, make it go. */
void runner_worker_break(runner_worker *w, runner_wend why, int sig)
{
    if (w->why == RUNNER_END_NONE)
        w->why = why;
    runner_worker_step(w, RUNNER_WE_BREAK);
    if (sig == SIGKILL) {
        w->killed = 1;
        w->dl_sigterm = 0;
        runner_worker_kill(w, sig);
    } else if (!w->t_term) {
        /* A FastCGI library that keeps the connection reads it between
         * requests; a signal there can be lost: Perl's FCGI takes the
         * EINTR for the connection's end, closes it and blocks in
         * accept() with the handler (a Perl sub, run later) never run,
         * so an application's $SIG{TERM} cleanup was skipped and it was
         * killed after kill_grace. Under mod_fcgid it is in accept(),
         * where the signal ends the wait: so here, the connection ended,
         * the signal follows once it is back there. */
        if (w->kind->term && w->kind->term(w))
            w->dl_sigterm = runner_g.now + RUNNER_TERM_AFTER_CLOSE_MS;
        w->t_term = w->dl_sigterm ? w->dl_sigterm : runner_g.now;
        if (!w->dl_sigterm)
            runner_worker_kill(w, sig);
    } else if (!w->dl_sigterm) {
        runner_worker_kill(w, sig);
    }
    runner_worker_rearm(w);
}

void runner_worker_stop(runner_worker *w, runner_wend why, int now)
{
    if (w->state == RUNNER_W_DEAD || w->exited)
        return;
    if (!runner_worker_claim(w)) {
        /* A child has it: it hands it back after its request (and the
         * flag is looked at again when the deadline comes). */
        if (!w->retire)
            w->retire = why;
        runner_worker_want_back(w);
        if (!runner_worker_claim(w)) {
            runner_worker_rearm(w);
            return;
        }
    }
    if (w->state == RUNNER_W_BUSY && !now) {
        if (!w->retire)
            w->retire = why;
        return;
    }
    if (w->t_term || w->killed)
        return;
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2030) "stopping worker pid %ld of %s (%s)",
               (long)w->pid, w->pool->script, runner_wend_name(why));
    runner_worker_break(w, why, SIGTERM);
}

void runner_worker_update(runner_worker *w)
{
    if (w->state == RUNNER_W_DEAD)
        return;
    int paused = runner_worker_out_paused(w);
    w->kind->watch(w, paused);
    if (paused != w->out_paused) {
        w->out_paused = paused;
        if (w->req && w->req->client)
            runner_client_update(w->req->client);
    }
}

/* A child saw its stdout close mid-request: it should be exiting. */
void runner_worker_gone(runner_worker *w)
{
    runner_worker_step(w, RUNNER_WE_BREAK);
    if (!w->exited && !w->dl_reap) {
        w->dl_reap = runner_g.now + RUNNER_EOF_REAP_MS;
        runner_worker_rearm(w);
    }
}

static void read_exec(runner_worker *w)
{
    unsigned char b[8 + CGP_SHEBANG_MAX];
    runner_pool *p = w->pool;
    struct stat st;
    char why[512];
    ssize_t n;
    do
        n = read(w->ev_exec.fd, b, sizeof(b));
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    runner_ev_close(&w->ev_exec);
    if (n < 8) { /* EOF: the exec succeeded */
        if (w->gen == p->gen)
            p->exec_err = 0;
        return;
    }
    unsigned stage = cgp_get32(b);
    int err = (int)cgp_get32(b + 4);
    w->exec_failed = 1;
    if (w->why == RUNNER_END_NONE)
        w->why = RUNNER_END_EXEC_FAILED;
    runner_worker_step(w, RUNNER_WE_BREAK);
    /* Not executable for the user: 403; gone since it was looked at: 404.
     * A missing or refused interpreter (ENOENT from exec of an existing
     * script, EACCES of an executable one), a file the system cannot run:
     * a mistake that stays, 500 as mod_cgi answers it (the module reads
     * detail), also while the backoff lasts. Anything else (fork, memory,
     * limits) may pass: 503. */
    int interp = stage == RUNNER_STAGE_INTERP;
    int nf = (err == EACCES && !interp) || (stage == RUNNER_STAGE_CHDIR && err == ENOENT) ||
             (stage == RUNNER_STAGE_EXEC && err == ENOENT && stat(p->script, &st) < 0);
    int permanent = !nf && (interp || (stage == RUNNER_STAGE_EXEC && cgp_exec_err_permanent(err)));
    if (w->gen == p->gen)
        p->exec_err = permanent ? err : 0;
    if (stage == RUNNER_STAGE_EXEC || interp)
        cgp_shebang_explain((const char *)b + 8, (size_t)n - 8, err, strerror(err), why,
                            sizeof(why));
    else
        snprintf(why, sizeof(why), "%s", strerror(err));
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2012) "cannot start %s: %s: %s", p->script,
               runner_spawn_stage(stage), why);
    runner_req *r = w->req;
    if (!r || !runner_worker_unassign(w))
        return;
    runner_req_end(r, nf ? CGP_O_NOT_FOUND : CGP_O_SPAWN_FAILED, nf || permanent ? 0 : 1, 0,
                   (uint32_t)err);
}

void runner_worker_on_exec(runner_ev *ev, uint32_t events)
{
    read_exec(ev->obj);
    runner_worker_update(ev->obj);
}

const char *runner_wend_name(runner_wend e)
{
    static const char *const names[RUNNER_END_N_] = {
        "none", "idle", "lifetime", "max_requests", "timeout", "aborted", "deploy", "reload",
        "retired", "evicted", "shutdown", "broken", "exec_failed", "exited", "crashed"
    };
    return (unsigned)e < RUNNER_END_N_ ? names[e] : "?";
}

static void describe_status(char *how, size_t len, int st)
{
    if (WIFEXITED(st))
        snprintf(how, len, "exited with code %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(how, len, "killed by signal %d%s", WTERMSIG(st),
                 WCOREDUMP(st) ? " (core dumped)" : "");
    else
        snprintf(how, len, "ended (status 0x%x)", (unsigned)st);
}

/* in_child: it died in an httpd child's request (the direct path), which
 * the module logs (1064, 1072) as it logs a relayed one's. */
static void log_exit(runner_worker *w, const runner_req *r, int crashed, int in_child)
{
    char how[64];
    describe_status(how, sizeof(how), w->status);
    if (w->exec_failed) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2026) "%s pid %ld %s after a failed exec",
                   w->kind->name, (long)w->pid, how);
        return;
    }
    if (crashed)
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2027) "%s pid %ld of %s %s during request %u "
                   "(%s) before ending its response", w->kind->name,
                   (long)w->pid, w->pool->script, how, r->reqid, r->uri);
    if (w->kind->per_request) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2029) "cgi pid %ld of %s %s", (long)w->pid,
                   w->pool->script, how);
        return;
    }
    /* A crash during a request is logged by the module in the request's
     * virtual host (one record); the runner's own lines are debug then. A
     * worker that exits by itself with a failure code is a warning even
     * after requests: a script that dies in its request loop after ending a
     * request empty (the module's 1060) is told how only here. */
    int bad = w->why == RUNNER_END_CRASHED || w->why == RUNNER_END_BROKEN ||
              (w->why == RUNNER_END_EXITED && !w->not_cgiplus &&
               (w->served == 0 || !WIFEXITED(w->status) || WEXITSTATUS(w->status) != 0));
    runner_log(crashed || in_child ? RUNNER_LOG_DEBUG : bad ? RUNNER_LOG_WARN : RUNNER_LOG_INFO,
               CGIPLUS_LOGNO(2028) "worker pid %ld of "
               "%s ended: %s (%s) after %lu request%s in %llu.%01llu s", (long)w->pid,
               w->pool->script, runner_wend_name(w->why), how, w->served, CGIPLUS_S(w->served),
               (unsigned long long)((runner_g.now - w->started) / 1000),
               (unsigned long long)((runner_g.now - w->started) % 1000 / 100));
}

/* "#!/usr/bin/env python3" and a CR: the exec works, env does not find
 * "python3\r" and exits 127 before any output. As a missing interpreter
 * it stays until someone fixes the file: the runner reads its first line
 * (only then), says so (2651) and answers 500 as for a failed exec, also
 * while the backoff lasts. */
static int cr_exit(runner_worker *w)
{
    runner_pool *p = w->pool;
    char head[CGP_SHEBANG_MAX], why[512];
    cgp_shebang sb;
    ssize_t n = 0;

    if (!WIFEXITED(w->status) || WEXITSTATUS(w->status) != 127 || w->had_output ||
        w->banner || w->exec_failed || (!w->kind->per_request && w->synced))
        return 0;
    int fd = open(p->script, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, head, sizeof(head));
        close(fd);
    }
    cgp_shebang_parse(head, n > 0 ? (size_t)n : 0, &sb);
    if (!sb.cr)
        return 0;
    if (w->gen == p->gen)
        p->exec_err = ENOENT;
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2651) "%s (pid %ld) exited with status 127 "
               "before any output: %s", p->script, (long)w->pid,
               cgp_shebang_explain(head, (size_t)n, ENOENT, strerror(ENOENT), why, sizeof(why)));
    return 1;
}

void runner_worker_reaped(runner_worker *w, int status)
{
    runner_pool *p = w->pool;
    w->exited = 1;
    w->status = status;
    if (w->ev_exec.fd >= 0)
        read_exec(w);
    if (!runner_worker_published(w)) /* else a child may be reading it */
        runner_worker_read(w, 1); /* what it wrote before dying, a sentinel perhaps */
    runner_worker_take_stderr(w);
    runner_callout_log_summary(w, 1);
    /* Its request never reached it (its connection waited unaccepted):
     * asked while the slot is there, for a child's. */
    int again = w->kind->unaccepted && w->kind->unaccepted(w) && w->req &&
                !runner_req_ended(w->req);
    int in_child = runner_table_slot_dead(w); /* in a child's request */
    if (w->why == RUNNER_END_NONE)
        w->why = w->exec_failed ? RUNNER_END_EXEC_FAILED
                 : WIFSIGNALED(status) ? RUNNER_END_CRASHED : RUNNER_END_EXITED;

    runner_req *r = w->req;
    if (again) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(3602) "%s pid %ld of %s exited with request "
                   "%u (%s) unaccepted; it goes to another worker", w->kind->name, (long)w->pid,
                   p->script, r->reqid, r->uri);
        runner_worker_send_elsewhere(w);
        r = NULL;
    }
    /* It wrote output and exited with its first request unread: not a
     * CGIplus program (a plain CGI one, most likely). The request never
     * reached it: it runs as plain CGI, and so does the pool from now on.
     * One that dies without output is a crash (502, the backoff). */
    runner_req *rerun = r && !runner_req_ended(r) && r->client && w->sync_wait && w->banner &&
                        WIFEXITED(status) && runner_worker_unread_in(w) == 2 ? r : NULL;
    if (rerun) {
        runner_worker_unassign(w); /* it waits for a CGI run (READY) */
        r = NULL;
        w->not_cgiplus = 1;
    }
    int cr = !rerun && cr_exit(w);
    if (w->sync_wait && !rerun && runner_worker_unread_in(w) == 0)
        w->took = 1; /* it read its "!" line before it died */
    if (w->kind->took && (r || in_child) && w->kind->took(w))
        w->took = 1;
    if (r) {
        int ok = w->kind->per_request && w->had_output;
        log_exit(w, r, !ok && !runner_req_ended(r) && !cr, in_child);
        /* The request was handed to this process: its death is this
         * request's failure (502), even a fresh worker's (which counts
         * toward the crash-loop backoff if it never took it: the pool's
         * reaped).
         * 503 is only for requests that got no worker at all; a missing
         * interpreter behind a CR is a failed exec's 500. */
        if (runner_worker_unassign(w))
            runner_req_end(r, cr ? CGP_O_SPAWN_FAILED : ok ? CGP_O_OK : CGP_O_CRASHED, 0,
                           cr ? 0 : (uint32_t)w->pid,
                           cr ? ENOENT : ok ? 0 : (uint32_t)status);
    } else {
        log_exit(w, NULL, 0, in_child);
    }
    runner_worker_step(w, RUNNER_WE_REAP);
    set_deadline(w, 0);
    worker_close_fds(w);
    TAILQ_REMOVE(&p->workers, w, plink);
    p->nworkers--;
    runner_g.nworkers--;
    TAILQ_REMOVE(&runner_g.workers, w, glink);
    TAILQ_INSERT_TAIL(&runner_g.dead_workers, w, glink);
    p->owner->reaped(w, rerun); /* counters; waiting requests get a new worker */
}

static uint64_t req_tmo(int64_t over, uint64_t pool)
{
    return over < 0 ? 0 : over > 0 ? (uint64_t)over : pool;
}

static uint64_t idle_tmo(const runner_worker *w)
{
    return req_tmo(w->lifetime, w->pool->set.v[CGP_S_IDLE_TIMEOUT]);
}

void runner_worker_rearm(runner_worker *w)
{
    const runner_pool_set *s = &w->pool->set;
    const runner_req *r = w->req;
    uint64_t dl = 0, t;
#define MIN_DL(x) do { t = (x); if (t && (!dl || t < dl)) dl = t; } while (0)
    if (w->state == RUNNER_W_DEAD || w->exited) {
        set_deadline(w, 0);
        return;
    }
    if (w->t_term && !w->killed)
        MIN_DL(w->t_term + runner_g.conf.v[CGP_S_KILL_GRACE]);
    MIN_DL(w->dl_orphan);
    MIN_DL(w->dl_orphan_max);
    MIN_DL(w->dl_reap);
    MIN_DL(w->dl_drain);
    MIN_DL(w->dl_kind);
    MIN_DL(w->dl_sigterm);
    if (runner_worker_published(w) && w->retire)
        MIN_DL(runner_g.now + 1000u); /* a child holds it: ask again */
    if (runner_worker_published(w))
        MIN_DL(runner_table_look_at());
    if (w->sync_wait)
        MIN_DL(w->dl_sync);
    if (r && r->client && !runner_req_ended(r) && w->state == RUNNER_W_BUSY) {
        uint64_t out = req_tmo(r->tmo_output, s->v[CGP_S_TIMEOUT_OUTPUT]);
        uint64_t np = req_tmo(r->tmo_noprogress, s->v[CGP_S_TIMEOUT_NOPROGRESS]);
        if (out)
            MIN_DL(r->t_start + out);
        if (np)
            MIN_DL(r->t_progress + np);
    }
    if (!TAILQ_EMPTY(&w->answers)) {
        const runner_ans *a;
        TAILQ_FOREACH(a, &w->answers, link)
            if (!a->ready)
                MIN_DL(a->due);
    }
    if (w->state == RUNNER_W_IDLE) {
        uint64_t idle = idle_tmo(w);
        if (idle)
            MIN_DL(w->t_idle + idle);
        if (s->v[CGP_S_MAX_AGE])
            MIN_DL(w->started + s->v[CGP_S_MAX_AGE]);
    }
#undef MIN_DL
    set_deadline(w, dl);
}

/* A request over its time: 504 (or a cut response) for the client, and the
 * worker stopped, unless the script said no-abort: then it runs on, its
 * output discarded, and is used again. */
static void req_timeout(runner_worker *w, const char *which, uint64_t ms)
{
    runner_req *r = w->req;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2062) "request %u (%s) on worker pid %ld of %s: "
               "%s timeout after %llu ms%s; answering 504 and %s", r->reqid, r->uri,
               (long)w->pid, w->pool->script, which, (unsigned long long)ms,
               r->out_bytes ? " (response started: the connection is cut)" : "",
               r->no_abort ? "letting the worker finish (no-abort)" : "stopping the worker");
    if (!r->no_abort && w->kind->abort)
        w->kind->abort(w); /* before its SIGTERM (runner_req_end's would come after) */
    if (!r->no_abort)
        runner_worker_stop(w, RUNNER_END_TIMEOUT, 1);
    runner_req_end(r, CGP_O_TIMEOUT, 0, (uint32_t)w->pid, 0);
}

void runner_worker_deadline(runner_worker *w)
{
    uint64_t now = runner_g.now;
    const runner_pool_set *s = &w->pool->set;
    set_deadline(w, 0);
    if (w->exited || w->state == RUNNER_W_DEAD)
        return;
    if (w->dl_sigterm && now >= w->dl_sigterm) {
        if (!w->t_term_due)
            w->t_term_due = now;
        if (w->kind->term_ready && !w->kind->term_ready(w) &&
            now < w->t_term_due + RUNNER_TERM_WAIT_MAX_MS) {
            /* not back in accept() yet (a loaded machine): the kill grace
             * counts from the signal */
            w->dl_sigterm = w->t_term = now + RUNNER_TERM_LOOK_MS;
        } else {
            w->dl_sigterm = 0;
            w->t_term = now;
            runner_worker_kill(w, SIGTERM);
        }
    }
    if (w->t_term && !w->killed && now >= w->t_term + runner_g.conf.v[CGP_S_KILL_GRACE]) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2071) "worker pid %ld of %s did not exit %llu "
                   "ms after SIGTERM; killing it", (long)w->pid, w->pool->script,
                   (unsigned long long)runner_g.conf.v[CGP_S_KILL_GRACE]);
        runner_worker_break(w, w->why, SIGKILL);
        return;
    }
    if (w->sync_wait && now >= w->dl_sync)
        runner_worker_sync_check(w);
    if (w->dl_kind && now >= w->dl_kind) {
        w->dl_kind = 0;
        if (w->kind->timer)
            w->kind->timer(w);
        if (w->exited || w->state == RUNNER_W_DEAD)
            return;
    }
    if (runner_worker_published(w))
        look(); /* every published worker's stdout, when due */
    if (w->dl_orphan && now >= w->dl_orphan) {
        w->dl_orphan = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2014) "worker pid %ld of %s still waits for a "
                   "request body that will not come; killing it", (long)w->pid, w->pool->script);
        runner_worker_break(w, RUNNER_END_ABORTED, SIGKILL);
        return;
    }
    if (w->dl_drain && now >= w->dl_drain) {
        w->dl_drain = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2504) "worker pid %ld of %s did not reach "
                   "its sentinel while its unwanted output was drained; killing it",
                   (long)w->pid, w->pool->script);
        runner_worker_break(w, RUNNER_END_ABORTED, SIGKILL);
        return;
    }
    if (runner_worker_published(w) && w->retire) {
        runner_worker_stop(w, w->retire, 1);
        if (runner_worker_published(w))
            runner_worker_rearm(w);
        return;
    }
    if (w->dl_orphan_max && now >= w->dl_orphan_max && w->orphan_timed) {
        /* a script past the timeouts its request had: as a running
         * request's, relayed or handed back by a child (php-fpm's
         * request_terminate_timeout: "execution timed out") */
        w->dl_orphan_max = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2954) "worker pid %ld of %s ran past its "
                   "request's timeout after its client left (%llu ms ago); stopping it",
                   (long)w->pid, w->pool->script, (unsigned long long)(now - w->t_orphan));
        runner_worker_break(w, RUNNER_END_TIMEOUT, SIGTERM);
        return;
    }
    if (w->dl_orphan_max && now >= w->dl_orphan_max) {
        w->dl_orphan_max = 0;
        int na = w->req && w->req->no_abort;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2084) "worker pid %ld of %s still runs the "
                   "request of a client that left %llu ms ago%s; stopping it",
                   (long)w->pid, w->pool->script, (unsigned long long)(now - w->t_orphan),
                   na ? " (no-abort)" : "");
        runner_worker_break(w, na ? RUNNER_END_TIMEOUT : RUNNER_END_ABORTED, SIGTERM);
        return;
    }
    if (w->dl_reap && now >= w->dl_reap) {
        w->dl_reap = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2015) "worker pid %ld of %s closed its stdout "
                   "but did not exit; killing it", (long)w->pid, w->pool->script);
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    runner_req *r = w->req;
    if (r && r->client && !runner_req_ended(r) && w->state == RUNNER_W_BUSY) {
        uint64_t out = req_tmo(r->tmo_output, s->v[CGP_S_TIMEOUT_OUTPUT]);
        uint64_t np = req_tmo(r->tmo_noprogress, s->v[CGP_S_TIMEOUT_NOPROGRESS]);
        if (out && now >= r->t_start + out) {
            req_timeout(w, "output", out);
            return;
        }
        if (np && now >= r->t_progress + np) {
            req_timeout(w, "no-progress", np);
            return;
        }
    }
    runner_callout_expire(w, 0);
    if (w->state == RUNNER_W_IDLE && runner_worker_published(w)) {
        runner_worker_sync(w); /* the children's use of it */
        if (runner_worker_held(w))
            w->t_idle = now; /* busy on the direct path */
    }
    if (w->state == RUNNER_W_IDLE) {
        uint64_t idle = idle_tmo(w);
        if (idle && now >= w->t_idle + idle) {
            /* The pool's idle timeout trims workers above min_idle; a
             * lifetime the script set for itself always applies. */
            if (w->lifetime == 0 &&
                runner_worker_count_usable(w->pool, 1) <= s->v[CGP_S_MIN_IDLE]) {
                w->t_idle = now;
                runner_worker_rearm(w);
                return;
            }
            runner_worker_stop(w, RUNNER_END_IDLE, 1);
            return;
        }
        if (s->v[CGP_S_MAX_AGE] && now >= w->started + s->v[CGP_S_MAX_AGE]) {
            runner_worker_stop(w, RUNNER_END_LIFETIME, 1);
            return;
        }
    }
    runner_worker_rearm(w);
}

/* How long a no-abort worker whose request ended without it runs on: its
 * output timeout, httpd's Timeout where it has none. */
static uint64_t orphan_bound(uint64_t out)
{
    if (out)
        return out;
    return runner_g.conf.v[CGP_S_HTTP_TIMEOUT] ? runner_g.conf.v[CGP_S_HTTP_TIMEOUT] : RUNNER_DRAIN_MS;
}

/* How long a worker whose client left has to reach its sentinel (then
 * it serves again) before it is stopped and replaced: long enough for a
 * response nearly done, short enough that an endless stream does not hold
 * a pool slot (mod_cgi kills its script at once). */
static uint64_t gone_bound(uint64_t out)
{
    uint64_t b = orphan_bound(out);
    return b < RUNNER_GONE_DRAIN_MS ? b : RUNNER_GONE_DRAIN_MS;
}

/* What is left of what bounds r's run (its output and no-progress
 * deadlines, as runner_worker_deadline applies them), for an orphan of a
 * kind whose script runs on by design; httpd's Timeout where it has none. */
static uint64_t run_left(const runner_worker *w, const runner_req *r)
{
    const runner_pool_set *s = &w->pool->set;
    uint64_t out = req_tmo(r->tmo_output, s->v[CGP_S_TIMEOUT_OUTPUT]);
    uint64_t np = req_tmo(r->tmo_noprogress, s->v[CGP_S_TIMEOUT_NOPROGRESS]);
    uint64_t dl = 0;

    if (out)
        dl = r->t_start + out;
    if (np && (!dl || r->t_progress + np < dl))
        dl = r->t_progress + np;
    if (!dl)
        return orphan_bound(0);
    return dl > runner_g.now ? dl - runner_g.now : 1;
}

void runner_worker_orphaned(runner_worker *w)
{
    runner_req *r = w->req;
    if (!r)
        return;
    runner_callout_expire(w, 1); /* the script may block on an answer */
    if (!r->no_abort && w->kind->abort)
        w->kind->abort(w);
    if (!r->no_abort && w->kind->per_request) {
        /* The client went (or its request failed): a CGI run has no use. */
        runner_worker_stop(w, RUNNER_END_ABORTED, 1);
        runner_worker_update(w);
        return;
    }
    if (!w->dl_orphan_max) {
        /* no-abort: it runs on, but not for ever: one output timeout more
         * (httpd's Timeout where it has none), then it is stopped (issue
         * 10, hole 6). Without: at most RUNNER_GONE_DRAIN_MS, or for a
         * kind whose script runs on by design, what bounded its run. */
        uint64_t out = req_tmo(r->tmo_output, w->pool->set.v[CGP_S_TIMEOUT_OUTPUT]);
        w->t_orphan = runner_g.now;
        w->orphan_timed = !r->no_abort && w->kind->orphan_runs && w->state != RUNNER_W_STOPPING;
        w->dl_orphan_max = runner_g.now + (r->no_abort ? orphan_bound(out)
                                           : w->orphan_timed ? run_left(w, r) : gone_bound(out));
        /* not for one being stopped (its request timed out): it serves no
         * more; nor for one the runner failed (a body lost: 2902 said) */
        if (r->client_left && !r->no_abort && w->state != RUNNER_W_STOPPING)
            runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2506) "request %u (%s) lost its client; "
                       "worker pid %ld of %s runs to its sentinel (at most %llu ms), then "
                       "serves again", r->reqid, r->uri, (long)w->pid, w->pool->script,
                       (unsigned long long)(w->dl_orphan_max - runner_g.now));
    }
    if (w->kind->per_request) {
        if (runner_req_body_short(r) || !r->body_end) {
            /* Nobody will send the rest: the script gets EOF now. */
            if (runner_req_body_short(r))
                runner_spool_discard(&r->body);
            r->body_end = 1;
            w->kind->feed(w);
        }
    } else if (runner_req_body_short(r) && !w->dl_orphan && (r->no_abort || !w->kind->abort)) {
        /* It may be blocked reading a body that will never come: most
         * likely once it has taken every byte it was given (its stdin is
         * empty), and the pool waits for it; one that reads no more, or
         * not yet, gets the longer grace to reach its sentinel. Not a
         * FastCGI worker that got ABORT_REQUEST: its body is over, and
         * it runs on by design, as long as its request could have (PHP's
         * ignore_user_abort; dl_orphan_max); it was killed 5 s after its
         * client left mid-body (2014). */
        int held = 1;
        if (w->body_peer >= 0 && !runner_spool_pending(&r->body) &&
            ioctl(w->body_peer, FIONREAD, &held) < 0)
            held = 1;
        w->dl_orphan = runner_g.now + (held ? RUNNER_ORPHAN_GRACE_MS : RUNNER_ORPHAN_TAKEN_MS);
    }
    runner_worker_rearm(w);
    runner_worker_update(w); /* no client back-pressure any more */
}

void runner_worker_kill(runner_worker *w, int sig)
{
    if (w->exited || w->pid <= 0)
        return;
    /* Its process group (it called setsid); the pid alone if not yet. */
    if (kill(-w->pid, sig) < 0)
        kill(w->pid, sig);
}

void runner_worker_adopt(runner_worker *w, uint64_t bound, int no_abort)
{
    if (!w->kind->adopt) { /* its output cannot be read on from where it is */
        runner_worker_stop(w, RUNNER_END_ABORTED, 1);
        return;
    }
    runner_req *r = runner_req_new(NULL, 0, "(drain)", 7);
    if (!r) {
        runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    r->pool = w->pool;
    runner_req_step(r, RUNNER_RE_DRAIN); /* answered: nobody waits for it */
    r->drain = 1;
    r->have_cl = 1;
    r->body_end = 1;
    r->hdr.done = 1;
    r->t_start = r->t_progress = runner_g.now;
    runner_worker_link(w, r); /* busy draining, as the status page shows it */
    runner_worker_step(w, RUNNER_WE_ASSIGN);
    r->no_abort = no_abort != 0; /* (adopt looks) */
    w->kind->adopt(w);
    /* as an orphan's of the relay */
    /* (a child's FastCGI request: what was left of its run, 0 for none) */
    bound = no_abort || w->kind->orphan_runs ? orphan_bound(bound) : gone_bound(bound);
    if (no_abort || w->kind->orphan_runs) {
        /* A no-abort orphan, or a FastCGI one (its script runs on by
         * design), as one of the relay (runner_worker_orphaned): past the
         * bound it is stopped (2084, 2954: SIGTERM first), not killed. */
        w->orphan_timed = !no_abort;
        w->t_orphan = runner_g.now;
        w->dl_orphan_max = runner_g.now + bound;
    } else {
        w->dl_drain = runner_g.now + bound;
    }
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2505) "draining worker pid %ld of %s to its "
               "sentinel (at most %llu ms), then it serves again", (long)w->pid,
               w->pool->script, (unsigned long long)bound);
    runner_worker_update(w);
    runner_worker_rearm(w);
    runner_worker_read(w, 0); /* it may be there already */
}

/* An idle worker the runner holds becomes free for the children. Its
 * stdout and stderr are no longer watched: a child may be reading them
 * from now on (stderr then goes to the request's virtual host's log). */
void runner_worker_publish(runner_worker *w)
{
    runner_pool *p = w->pool;

    /* A worker's first request goes through the runner, which tells a
     * start-up banner and a program that does not speak CGIplus from a
     * response; only a worker that has answered one is published. */
    if (w->slot < 0 || runner_worker_published(w) || w->state != RUNNER_W_IDLE || w->req ||
        w->retire || !w->served || w->exited || w->gen != p->gen || p->retired ||
        runner_g.stop != RUNNER_RUN)
        return;
    runner_worker_take_stderr(w);
    runner_table_slot_stamp(w, w->t_idle);
    p->owner->pass(w); /* to the oldest waiting request, else IDLE */
    w->kind->watch(w, 0); /* its output is a child's to read now, unless ours again */
    runner_worker_rearm(w); /* its stdout is looked at from time to time */
}

/* A published worker's stdout is a child's to read while the child holds
 * it; with nobody holding it (IDLE) it must be empty: any byte there was
 * written with no request, and would be the next request's response. One
 * poll for all of them; a readable one is taken (IDLE -> RUNNER, so no
 * child can claim it meanwhile) and looked at again: stopped as broken, or
 * published again as it was. Its stderr likewise: a line written with no
 * request (after its response ended) is the runner's to log (2011), not
 * the next request's. */
static void look(void)
{
    static uint64_t next;
    struct pollfd pf[64];
    runner_worker *ws[64], *w;
    int err[64];

    if (runner_g.now < next)
        return;
    next = runner_g.now + RUNNER_LOOK_MS;
    for (w = TAILQ_FIRST(&runner_g.workers); w; ) {
        nfds_t n = 0;

        for (; w && n + 2 <= 64; w = TAILQ_NEXT(w, glink)) {
            int fd = w->kind->idle_fd ? w->kind->idle_fd(w) : -1;
            if (w->state != RUNNER_W_IDLE || fd < 0 || !runner_table_slot_idle(w))
                continue;
            pf[n].fd = fd;
            pf[n].events = POLLIN;
            err[n] = 0;
            ws[n++] = w;
            if (w->ev_err.fd >= 0) {
                pf[n].fd = w->ev_err.fd;
                pf[n].events = POLLIN;
                err[n] = 1;
                ws[n++] = w;
            }
        }
        if (n == 0 || poll(pf, n, 0) <= 0)
            continue;
        for (nfds_t i = 0; i < n; i++) {
            int unread = 0;
            if (!(pf[i].revents & POLLIN) ||
                !runner_table_slot_idle(ws[i]) || !runner_worker_claim(ws[i]))
                continue; /* a child holds it: the output is its request's */
            atomic_thread_fence(memory_order_seq_cst);
            if (err[i]) {
                runner_worker_take_stderr(ws[i]); /* no request: 2011 */
            } else if (!ws[i]->ready_len) { /* a FastCGI worker: no ready line */
                if (ioctl(pf[i].fd, FIONREAD, &unread) == 0 && unread > 0) {
                    runner_worker_junk(ws[i], (size_t)unread, "while it was idle");
                    continue;
                }
            } else if (runner_worker_ready(ws[i], NULL, 0, "while it was idle") ==
                       CGP_READY_JUNK) {
                continue; /* stopped */
            }
            /* its ready line (taken), or what a child's request left behind
             * was read meanwhile: free again, or to a request that waits */
            ws[i]->pool->owner->pass(ws[i]);
        }
    }
}

/* A RETURNED slot: the child is done with it; the runner decides. */
void runner_worker_returned(runner_worker *w)
{
    uint32_t drain_ms;

    if (!runner_table_slot_take_back(w, 0))
        return;
    uint32_t fl = runner_table_slot_flags_take(w, CGP_TS_KILL | CGP_TS_DRAIN | CGP_TS_RETIRE |
                                               CGP_TS_EOF | CGP_TS_BROKEN | CGP_TS_NOABORT,
                                               &drain_ms);
    if (fl & CGP_TS_EOF && w->kind->closed) {
        w->kind->closed(w);
    } else if (fl & CGP_TS_EOF) {
        runner_worker_gone(w); /* it dies by itself; its exit says how */
    } else if (fl & CGP_TS_BROKEN) {
        runner_worker_stop(w, RUNNER_END_BROKEN, 1);
    } else if (fl & CGP_TS_KILL) {
        runner_worker_stop(w, RUNNER_END_TIMEOUT, 1);
    } else if (fl & CGP_TS_DRAIN) {
        runner_worker_adopt(w, drain_ms, (fl & CGP_TS_NOABORT) != 0);
    } else {
        uint64_t maxr = w->pool->set.v[CGP_S_MAX_REQUESTS];
        runner_wend why = w->retire ? w->retire
                          : maxr && w->served >= maxr ? RUNNER_END_MAX_REQUESTS
                          : RUNNER_END_RETIRED;
        runner_worker_stop(w, why, 1);
    }
}

void runner_worker_child_gone(pid_t pid)
{
    runner_worker *w, *wn;

    for (w = TAILQ_FIRST(&runner_g.workers); w; w = wn) {
        wn = TAILQ_NEXT(w, glink);
        if (!runner_worker_published(w))
            continue;
        if (runner_table_slot_take_back(w, pid)) {
            /* A stream read to an unknown point (FastCGI's) cannot be read on. */
            int stop = !w->kind->adopt || w->kind->adopt_handed_only;
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2502) "httpd child pid %ld went away "
                       "holding %s pid %ld of %s; %s", (long)pid, w->kind->name, (long)w->pid,
                       w->pool->script, stop ? "stopping it" : "draining it");
            if (stop)
                runner_worker_stop(w, RUNNER_END_ABORTED, 1);
            else
                runner_worker_adopt(w, w->pool->set.v[CGP_S_TIMEOUT_OUTPUT], 0);
        } else if (runner_table_slot_returned(w)) {
            runner_worker_returned(w);
        }
    }
}

int runner_worker_usable(const runner_pool *p, const runner_worker *w)
{
    return (w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY) && w->gen == p->gen &&
           !w->retire && !w->exec_failed;
}

unsigned runner_worker_count_usable(const runner_pool *p, int idle_only)
{
    unsigned n = 0;
    const runner_worker *w;
    TAILQ_FOREACH(w, &p->workers, plink)
        n += runner_worker_usable(p, w) &&
             (!idle_only || (w->state == RUNNER_W_IDLE && !runner_worker_held(w)));
    return n;
}

static uint64_t workers_deadline(void)
{
    const runner_hnode *e = runner_heap_min(&worker_heap);
    return e ? e->at : 0;
}

#define WORKER_OF(ptr) \
    ((runner_worker *)(void *)((char *)(ptr) - offsetof(runner_worker, tn)))

/* Workers are freed at the turn's end only (workers_bury): those taken due
 * stay valid through the pass. One whose timer was set again meanwhile
 * runs if it is still due, as in a walk of them all. */
static void workers_timers(void)
{
    runner_hnode *e, *next;
    for (e = runner_heap_take_due(&worker_heap, runner_g.now); e; e = next) {
        runner_worker *w = WORKER_OF(e);
        next = e->due_next;
        if (w->deadline && runner_g.now >= w->deadline)
            runner_worker_deadline(w);
        else
            set_deadline(w, w->deadline); /* not due any more: back in the heap */
    }
}

static int workers_reaped(pid_t pid, int status)
{
    runner_worker *w;
    TAILQ_FOREACH(w, &runner_g.workers, glink)
        if (w->pid == pid) {
            runner_worker_reaped(w, status);
            return 1;
        }
    return 0;
}

static unsigned workers_busy(void)
{
    unsigned n = 0;
    runner_worker *w;
    /* one an httpd child holds on the direct path is busy too: a stop
     * must not kill it under that child's request */
    TAILQ_FOREACH(w, &runner_g.workers, glink)
        n += w->req != NULL || (w->state != RUNNER_W_DEAD && !w->exited && runner_worker_held(w));
    return n;
}

static unsigned workers_live(void)
{
    return runner_g.nworkers;
}

static void workers_signal(int sig)
{
    runner_worker *w;
    TAILQ_FOREACH(w, &runner_g.workers, glink)
        if (sig != SIGTERM || !w->dl_sigterm) /* one due soon gets its own */
            runner_worker_kill(w, sig);
}

static void workers_bury(void)
{
    runner_worker *w;
    while ((w = TAILQ_FIRST(&runner_g.dead_workers))) {
        TAILQ_REMOVE(&runner_g.dead_workers, w, glink);
        runner_worker_free(w);
    }
}

static void workers_fini(void)
{
    workers_bury();
    runner_heap_free(&worker_heap);
}

const runner_room runner_worker_room = {
    .name = "workers", .deadline = workers_deadline, .timers = workers_timers,
    .reaped = workers_reaped, .busy = workers_busy, .live = workers_live,
    .signal = workers_signal, .turn_end = workers_bury, .fini = workers_fini,
};
