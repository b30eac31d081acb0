/* runner_ws_worker.c: one WebSocket worker seen from the runner: started
 * with its channel on descriptor 3 (CGIPLUSWS=3), its records read and
 * checked (cgp_wsr.h), its sends and broadcasts queued to connections, its
 * stderr logged, its drain and death (its connections then close with
 * 1011; they are not moved to another worker). */
#include "runner_ws.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_loop.h"
#include "runner_end.h"
#include "runner_spawn.h"
#include "runner_suexec.h"
#include "runner_worker.h"
#include "cgp_shebang.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static runner_ev_fn on_chan, on_out, on_err;

int runner_ws_worker_step(runner_ws_worker *w, runner_ws_wevent ev)
{
    unsigned to = runner_ws_wnext(w->state, ev);
    if (to == 0xff)
        return 0;
    w->state = (runner_ws_wstate)to;
    return 1;
}

int runner_ws_worker_spawn(runner_ws_pool *p, runner_ws_worker **out)
{
    int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 }, px[2] = { -1, -1 };
    int devnull = -1, err;
    runner_ws_worker *w = NULL;
    char maxmsg[64];

    runner_spawn_spec spec = { .path = p->script, .dir = p->dir, .nfds = 4, .set = &p->set };

    /* suEXEC's checks before each start, as for its request pools */
    runner_suexec_pool sp = { p->script, p->dir, &p->set, p->id, &p->sx_refused };
    if (p->set.suexec && runner_suexec_check(&sp, &spec.groups, &spec.ngroups) < 0)
        return -1;
    if (!p->set.suexec && runner_g.is_root && p->set.v[CGP_S_USER] == 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2806) "refusing to run %s as root: start "
                   "cgiplus-runner with --user", p->script);
        errno = EPERM;
        return -1;
    }
    if (!(w = calloc(1, sizeof(*w)))) {
        err = ENOMEM;
        goto fail;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
        pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || pipe2(px, O_CLOEXEC) < 0 ||
        (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 ||
        runner_set_nonblock(sv[1]) < 0 || runner_set_nonblock(po[0]) < 0 ||
        runner_set_nonblock(pe[0]) < 0 || runner_set_nonblock(px[0]) < 0) {
        err = errno;
        goto fail;
    }
    snprintf(maxmsg, sizeof(maxmsg), "CGIPLUSWS_MAX_MESSAGE=%llu",
             (unsigned long long)p->set.v[CGP_S_WS_MAX_MESSAGE]);
    char *envp[5 + RUNNER_ENV_MAX] = { "CGIPLUSWS=3", maxmsg, "PATH=" RUNNER_DEFAULT_PATH,
                                       "GATEWAY_INTERFACE=CGI/1.1", NULL };
    runner_spawn_env(&p->set, envp, 4, sizeof(envp) / sizeof(envp[0]));
    spec.envp = envp;
    spec.fds[0] = devnull, spec.fds[1] = po[1], spec.fds[2] = pe[1], spec.fds[3] = sv[0];
    spec.exec_fd = px[1];
    spec.domain = &p->domain;
    pid_t pid = runner_spawn(&spec);
    if (pid < 0) {
        err = errno;
        goto fail;
    }
    runner_close_fd(&devnull);
    runner_close_fd(&sv[0]);
    runner_close_fd(&po[1]);
    runner_close_fd(&pe[1]);
    runner_close_fd(&px[1]);
    w->exec_fd = px[0];
    w->pool = p;
    w->pid = pid;
    w->gen = p->gen;
    w->started = w->t_idle = runner_g.now;
    w->deadline = runner_g.now + RUNNER_WS_HELLO_MS;
    TAILQ_INIT(&w->conns);
    TAILQ_INIT(&w->sent);
    runner_ev_init(&w->ev_chan, on_chan, sv[1], w);
    runner_ev_init(&w->ev_out, on_out, po[0], w);
    runner_ev_init(&w->ev_err, on_err, pe[0], w);
    runner_ev_watch(&w->ev_out, EPOLLIN);
    runner_ev_watch(&w->ev_err, EPOLLIN);
    TAILQ_INSERT_TAIL(&p->workers, w, link);
    p->nworkers++;
    p->spawned++;
    runner_g.nworkers++;
    runner_ws_worker_update(w);
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2807) "started WebSocket worker pid %ld for %s "
               "(%u of %llu, generation %u)", (long)pid, p->script, runner_ws_pool_counted(p),
               (unsigned long long)p->set.v[CGP_S_MAX_WORKERS], p->gen);
    *out = w;
    return 0;
fail:
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2808) "cannot start a WebSocket worker for %s: %s",
               p->script, strerror(err));
    runner_close_fd(&sv[0]), runner_close_fd(&sv[1]), runner_close_fd(&po[0]);
    runner_close_fd(&po[1]), runner_close_fd(&pe[0]), runner_close_fd(&pe[1]);
    runner_close_fd(&px[0]), runner_close_fd(&px[1]);
    runner_close_fd(&devnull);
    free(w);
    errno = err;
    return -1;
}


/* ------------------------------------------------------------ the channel */

static void flush_out(runner_ws_worker *w)
{
    size_t before = cgp_buf_used(&w->out);
    if (!before || w->ev_chan.fd < 0)
        return;
    if (runner_buf_flush(&w->out, w->ev_chan.fd) < 0) {
        if (errno != EPIPE && errno != ECONNRESET)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2809) "write to WebSocket worker pid %ld: "
                       "%s", (long)w->pid, strerror(errno));
        cgp_buf_reset(&w->out);
    }
    runner_ws_g.mem -= before - cgp_buf_used(&w->out);
    if (!cgp_buf_used(&w->out))
        cgp_buf_free(&w->out); /* an idle worker holds no buffer */
    runner_ws_mem_check();
}

void runner_ws_worker_update(runner_ws_worker *w)
{
    if (w->ev_chan.fd < 0)
        return;
    runner_ws_conn *c;
    size_t used = cgp_buf_used(&w->out);
    runner_ev_watch(&w->ev_chan, EPOLLIN | (used ? EPOLLOUT : 0));
    /* Records the worker does not take in hold its connections' reads. */
    int paused = used > RUNNER_WS_CHAN_HIGH || (w->paused && used > RUNNER_WS_CHAN_LOW);
    if (paused != w->paused) {
        w->paused = paused;
        TAILQ_FOREACH(c, &w->conns, wlink)
            runner_ws_conn_update(c);
    }
}

int runner_ws_worker_send(runner_ws_worker *w, unsigned type, unsigned flags, uint32_t conn,
                          const void *pl, size_t len)
{
    unsigned char h[CGP_WSR_HDR_LEN];
    cgp_wsr_hdr hdr = { .type = (uint8_t)type, .flags = (uint8_t)flags, .conn = conn,
                        .len = (uint32_t)len };
    if (w->ev_chan.fd < 0 || w->state == RUNNER_WS_W_DEAD ||
        cgp_wsr_hdr_pack(h, &hdr, (uint32_t)w->pool->set.v[CGP_S_WS_MAX_MESSAGE]) != CGP_OK)
        return -1;
    int was_empty = cgp_buf_used(&w->out) == 0;
    if (cgp_buf_reserve(&w->out, sizeof(h) + len) < 0)
        return -1;
    cgp_buf_append(&w->out, h, sizeof(h));
    if (len)
        cgp_buf_append(&w->out, pl, len);
    runner_ws_g.mem += sizeof(h) + len;
    if (was_empty)
        flush_out(w);
    runner_ws_worker_update(w);
    return 0;
}

static void broken(runner_ws_worker *w, const char *what, const cgp_wsr_hdr *h)
{
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2810) "WebSocket worker pid %ld of %s broke the "
               "protocol (%s record, connection %lu, %lu bytes: %s); stopping it, its "
               "connections close with 1011", (long)w->pid, w->pool->script,
               h ? cgp_wsr_type_name(h->type) : "?", h ? (unsigned long)h->conn : 0UL,
               h ? (unsigned long)h->len : 0UL, what);
    cgp_buf_reset(&w->in);
    runner_ev_watch(&w->ev_chan, 0);
    runner_ws_worker_stop(w, RUNNER_END_BROKEN);
}

static runner_ws_open *sent_open(runner_ws_worker *w, uint32_t id)
{
    runner_ws_open *o;
    TAILQ_FOREACH(o, &w->sent, link)
        if (o->id == id)
            return o;
    return NULL;
}

static void on_broadcast(runner_ws_worker *w, const cgp_wsr_hdr *h, const unsigned char *pl)
{
    runner_ws_pool *p = w->pool;
    runner_ws_worker *x;
    runner_ws_conn *c;
    runner_ws_blk *b = runner_ws_blk_message(h->flags & CGP_WSR_F_BINARY, pl, h->len);
    if (!b) {
        p->dropped++;
        return;
    }
    p->broadcasts++;
    TAILQ_FOREACH(x, &p->workers, link)
        TAILQ_FOREACH(c, &x->conns, wlink)
            if (c->id != h->conn)
                runner_ws_conn_message(c, b);
    runner_ws_blk_put(b);
}

static void on_record(runner_ws_worker *w, const cgp_wsr_hdr *h, const unsigned char *pl)
{
    runner_ws_open *o;
    runner_ws_conn *c;
    int rc = cgp_wsr_check(h, pl);

    if (rc != CGP_OK) {
        broken(w, rc == CGP_E_VERSION ? "a HELLO of another version" : "a malformed payload", h);
        return;
    }
    if (h->type != CGP_WSR_HELLO && w->state == RUNNER_WS_W_STARTING) {
        broken(w, "a record before HELLO", h);
        return;
    }
    switch (h->type) {
    case CGP_WSR_HELLO:
        if (w->said_hello) {
            broken(w, "a second HELLO", h);
            return;
        }
        w->said_hello = 1;
        w->pool->exec_err = 0;
        runner_ws_worker_step(w, RUNNER_WS_WE_HELLO);
        w->deadline = 0;
        w->t_idle = runner_g.now;
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2811) "WebSocket worker pid %ld of %s said "
                   "HELLO", (long)w->pid, w->pool->script);
        runner_ws_pool_dispatch(w->pool);
        return;
    case CGP_WSR_ACCEPT:
    case CGP_WSR_REFUSE:
        if (!(o = sent_open(w, h->conn))) {
            /* its client left meanwhile: the worker learns it is gone */
            if (h->type == CGP_WSR_ACCEPT) {
                unsigned char cl[CGP_WSR_CLOSE_MAX];
                int n = cgp_wsr_close_pack(cl, CGP_WS_ABNORMAL, "", 0, 1);
                runner_ws_worker_send(w, CGP_WSR_CLOSED, 0, h->conn, cl, (size_t)n);
            }
            return;
        }
        if (h->type == CGP_WSR_ACCEPT) {
            runner_ws_open_accepted(o, (const char *)pl, h->len);
        } else {
            cgp_wsr_refuse r;
            cgp_wsr_refuse_unpack(pl, h->len, &r);
            runner_ws_open_refused(o, &r);
        }
        return;
    case CGP_WSR_SEND:
        c = runner_ws_conn_find(h->conn);
        if (!c || c->w != w) { /* closed meanwhile (its CLOSED is on the way), or not its own */
            w->pool->dropped++;
            return;
        }
        {
            runner_ws_blk *b = runner_ws_blk_message(h->flags & CGP_WSR_F_BINARY, pl, h->len);
            if (!b) {
                w->pool->dropped++;
                return;
            }
            runner_ws_conn_message(c, b);
            runner_ws_blk_put(b);
        }
        return;
    case CGP_WSR_BROADCAST:
        on_broadcast(w, h, pl);
        return;
    case CGP_WSR_CLOSE: {
        unsigned code;
        const char *reason;
        size_t rlen;
        char rb[CGP_WSR_REASON_MAX + 1];
        c = runner_ws_conn_find(h->conn);
        if (!c || c->w != w)
            return;
        cgp_wsr_close_unpack(pl, h->len, 0, &code, &reason, &rlen);
        memcpy(rb, reason, rlen);
        rb[rlen] = '\0';
        runner_ws_conn_close(c, code, rb, 1);
        return;
    }
    default:
        broken(w, "a record type a worker does not send", h);
    }
}

static void read_chan(runner_ws_worker *w)
{
    for (int turn = 0; turn < 16 && w->ev_chan.fd >= 0; turn++) {
        if (cgp_buf_reserve(&w->in, RUNNER_WS_READ) < 0)
            return;
        ssize_t n = read(w->ev_chan.fd, w->in.p + w->in.len, RUNNER_WS_READ);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            /* closed its channel: it is ending; reaped soon */
            runner_ev_watch(&w->ev_chan, 0);
            break;
        }
        w->in.len += (size_t)n;
        for (;;) {
            cgp_wsr_hdr h;
            size_t have = cgp_buf_used(&w->in);
            const unsigned char *d = w->in.p + w->in.off;
            int rc;
            if (have < CGP_WSR_HDR_LEN)
                break;
            if ((rc = cgp_wsr_hdr_unpack(d, &h, CGP_WSR_FROM_WORKER,
                                         (uint32_t)w->pool->set.v[CGP_S_WS_MAX_MESSAGE])) != CGP_OK) {
                broken(w, cgp_strerror(rc), &h);
                return;
            }
            if (have - CGP_WSR_HDR_LEN < h.len)
                break;
            /* consumed after: consuming the last bytes may free the buffer */
            on_record(w, &h, d + CGP_WSR_HDR_LEN);
            if (w->state == RUNNER_WS_W_STOPPING && w->why == RUNNER_END_BROKEN)
                return;
            cgp_buf_consume(&w->in, CGP_WSR_HDR_LEN + h.len);
        }
        if ((size_t)n < RUNNER_WS_READ)
            break;
    }
    if (!cgp_buf_used(&w->in))
        cgp_buf_free(&w->in);
}

/* What a WebSocket worker writes on stdout goes nowhere: counted, and
 * said once (a plain script answering a request it never got, say). */
static void read_stdout(runner_ws_worker *w)
{
    char buf[8192];
    ssize_t n;
    while ((n = read(w->ev_out.fd, buf, sizeof(buf))) > 0) {
        if (!w->junk)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2812) "WebSocket worker pid %ld of %s "
                       "wrote on stdout (discarded: its messages go on its channel): %.*s",
                       (long)w->pid, w->pool->script, (int)(n > 80 ? 80 : n), buf);
        w->junk += (uint64_t)n;
    }
    if (n == 0)
        runner_ev_close(&w->ev_out);
}

static void emit_errline(runner_ws_worker *w)
{
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2813) "stderr from WebSocket worker pid %ld of "
               "%s: %.*s", (long)w->pid, w->pool->script, (int)w->errlen, w->errline);
    w->errlen = 0;
}

static void read_stderr(runner_ws_worker *w)
{
    char buf[8192];
    ssize_t n;
    while ((n = read(w->ev_err.fd, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                emit_errline(w);
                continue;
            }
            if (w->errlen == sizeof(w->errline) - 1)
                emit_errline(w);
            w->errline[w->errlen++] = buf[i];
        }
    }
    if (n == 0) {
        if (w->errlen)
            emit_errline(w);
        runner_ev_close(&w->ev_err);
    }
}

/* The channel: frames from the worker, and ours to it. */
static void on_chan(runner_ev *ev, uint32_t events)
{
    runner_ws_worker *w = ev->obj;
    if (events & EPOLLOUT)
        flush_out(w);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        read_chan(w);
    runner_ws_worker_update(w);
}

static void on_out(runner_ev *ev, uint32_t events)
{
    read_stdout(ev->obj);
    (void)events;
}

static void on_err(runner_ev *ev, uint32_t events)
{
    read_stderr(ev->obj);
    (void)events;
}

/* ------------------------------------------------------------ stop, drain, death */

void runner_ws_worker_stop(runner_ws_worker *w, int why)
{
    runner_ws_conn *c, *cn;
    if (w->state == RUNNER_WS_W_STOPPING || w->state == RUNNER_WS_W_DEAD)
        return;
    if (w->why == RUNNER_END_NONE)
        w->why = why;
    if (why == RUNNER_END_SHUTDOWN)
        for (c = TAILQ_FIRST(&w->conns); c; c = cn) {
            cn = TAILQ_NEXT(c, wlink);
            runner_ws_conn_close(c, CGP_WS_GOING_AWAY, "server stopping", 1);
        }
    runner_ws_worker_step(w, RUNNER_WS_WE_STOP);
    w->deadline = runner_g.now + runner_g.conf.v[CGP_S_KILL_GRACE];
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2814) "stopping WebSocket worker pid %ld of %s "
               "(%s, %u connections)", (long)w->pid, w->pool->script, runner_wend_name(w->why),
               w->nconns);
    kill(-w->pid, SIGTERM);
}

void runner_ws_worker_drain(runner_ws_worker *w)
{
    runner_ws_pool *p = w->pool;
    int why = p->retired ? RUNNER_END_RETIRED : w->gen != p->gen ? RUNNER_END_DEPLOY
              : RUNNER_END_LIFETIME;
    if (w->state > RUNNER_WS_W_READY)
        return;
    if (w->state == RUNNER_WS_W_STARTING || (!w->nconns && !w->nsent)) {
        runner_ws_worker_stop(w, why);
        return;
    }
    w->why = why;
    runner_ws_worker_step(w, RUNNER_WS_WE_DRAIN);
    w->drain_until = p->set.v[CGP_S_WS_DRAIN] ? runner_g.now + p->set.v[CGP_S_WS_DRAIN] : 0;
    w->deadline = w->drain_until;
}

/* A draining worker whose last connection closed goes; a ready one may
 * go for a pool waiting at the global cap. */
void runner_ws_worker_conn_gone(runner_ws_worker *w)
{
    if (w->nconns || w->nsent)
        return;
    w->t_idle = runner_g.now;
    if (w->state == RUNNER_WS_W_DRAINING)
        runner_ws_worker_stop(w, w->why);
    else
        runner_ws_pool_worker_idle(w);
}

void runner_ws_worker_timer(runner_ws_worker *w)
{
    runner_ws_conn *c, *cn;
    w->deadline = 0;
    switch (w->state) {
    case RUNNER_WS_W_STARTING:
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2815) "%s does not speak WebSocket: worker "
                   "pid %ld said no HELLO on its channel (descriptor 3) within %u s; upgrades "
                   "to it are answered 501 until the file changes (a WebSocket script uses "
                   "its library's WebSocket calls)", w->pool->script, (long)w->pid,
                   RUNNER_WS_HELLO_MS / 1000);
        w->pool->not_ws = 1;
        runner_ws_worker_stop(w, RUNNER_END_BROKEN);
        runner_ws_pool_dispatch(w->pool);
        break;
    case RUNNER_WS_W_DRAINING:
        if (w->drain_closed) { /* their close handshakes had kill_grace */
            runner_ws_worker_stop(w, w->why);
            break;
        }
        /* The drain time is over: its connections are told to go. */
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2816) "WebSocket worker pid %ld of %s: drain "
                   "time over, closing its %u connections with 1001", (long)w->pid,
                   w->pool->script, w->nconns);
        w->drain_closed = 1;
        w->deadline = runner_g.now + runner_g.conf.v[CGP_S_KILL_GRACE];
        for (c = TAILQ_FIRST(&w->conns); c; c = cn) {
            cn = TAILQ_NEXT(c, wlink);
            runner_ws_conn_close(c, CGP_WS_GOING_AWAY, "worker replaced", 1);
        }
        break;
    case RUNNER_WS_W_STOPPING:
        if (!w->killed) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2817) "WebSocket worker pid %ld of %s "
                       "ignored SIGTERM; killing it", (long)w->pid, w->pool->script);
            kill(-w->pid, SIGKILL);
            w->killed = 1;
        }
        break;
    default:
        break;
    }
}

void runner_ws_worker_reaped(runner_ws_worker *w, int status)
{
    runner_ws_pool *p = w->pool;
    runner_ws_conn *c;
    runner_ws_open *o;
    unsigned char xb[8 + CGP_SHEBANG_MAX];
    char how[64], why[512];
    int execfd = w->exec_fd;
    ssize_t xn = -1;

    w->exec_fd = -1;
    w->status = status;
    if (execfd >= 0) /* the exec pipe: 8 bytes and more if it never ran (one write) */
        xn = read(execfd, xb, sizeof(xb));
    if (w->why == RUNNER_END_NONE)
        w->why = WIFSIGNALED(status) ? RUNNER_END_CRASHED : RUNNER_END_EXITED;
    if (WIFEXITED(status))
        snprintf(how, sizeof(how), "exited with code %d", WEXITSTATUS(status));
    else
        snprintf(how, sizeof(how), "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (xn >= 8) {
        /* A missing or refused interpreter, a CR in the #! line, no program: a mistake
         * that stays, answered 500 as for its request pools (runner_worker.c,
         * 2012) while the backoff lasts; anything else may pass (503). */
        unsigned stage = cgp_get32(xb);
        int err = (int)cgp_get32(xb + 4);
        int interp = stage == RUNNER_STAGE_INTERP;
        if (stage == RUNNER_STAGE_EXEC || interp)
            cgp_shebang_explain((const char *)xb + 8, (size_t)xn - 8, err, strerror(err), why,
                                sizeof(why));
        else
            snprintf(why, sizeof(why), "%s", strerror(err));
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2818) "cannot start %s: %s: %s", p->script,
                   runner_spawn_stage(stage), why);
        if (w->gen == p->gen)
            p->exec_err = (interp || (stage == RUNNER_STAGE_EXEC && cgp_exec_err_permanent(err))) &&
                          !(err == ENOENT && access(p->script, F_OK) < 0) ? err : 0;
        w->why = RUNNER_END_EXEC_FAILED;
    } else if (!w->said_hello && w->gen == p->gen && w->state == RUNNER_WS_W_STARTING &&
               (w->junk || (WIFEXITED(status) && WEXITSTATUS(status) == 0))) {
        /* It ran and ended without a word on its channel: a plain script. */
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2819) "%s does not speak WebSocket: worker "
                   "pid %ld %s without saying HELLO on its channel (descriptor 3)%s; upgrades to "
                   "it are answered 501 until the file changes", p->script, (long)w->pid, how,
                   w->junk ? ", after writing on stdout" : "");
        p->not_ws = 1;
    }
    runner_log(w->why == RUNNER_END_CRASHED || (w->why == RUNNER_END_EXITED && w->nconns)
               ? RUNNER_LOG_WARN : RUNNER_LOG_INFO, CGIPLUS_LOGNO(2820) "WebSocket worker pid "
               "%ld of %s ended: %s (%s) with %u connections open, after %llu s", (long)w->pid,
               p->script, runner_wend_name(w->why), how, w->nconns,
               (unsigned long long)((runner_g.now - w->started) / 1000));
    if (execfd >= 0)
        close(execfd);
    runner_ws_worker_step(w, RUNNER_WS_WE_REAP);
    /* Drain what it said last (stderr), then let go of its descriptors. */
    if (w->ev_err.fd >= 0)
        read_stderr(w);
    runner_ev_close(&w->ev_chan);
    runner_ev_close(&w->ev_out);
    runner_ev_close(&w->ev_err);
    runner_ws_g.mem -= cgp_buf_used(&w->out);
    cgp_buf_free(&w->out);
    cgp_buf_free(&w->in);
    /* Its connections end with 1011; they are not moved to another worker
     * (the worker's state about them died with it). */
    while ((c = TAILQ_FIRST(&w->conns)))
        runner_ws_conn_close(c, CGP_WS_INTERNAL, "worker ended", 0);
    while ((o = TAILQ_FIRST(&w->sent)))
        runner_ws_open_fail(o, p->not_ws ? -1 : w->why == RUNNER_END_EXEC_FAILED
                            ? CGP_O_SPAWN_FAILED : CGP_O_CRASHED, 1, (uint32_t)w->pid, 0);
    TAILQ_REMOVE(&p->workers, w, link);
    p->nworkers--;
    runner_g.nworkers--;
    TAILQ_INSERT_TAIL(&runner_ws_g.dead_workers, w, link);
    runner_ws_pool_reaped(w);
}

int runner_ws_reaped(pid_t pid, int status)
{
    runner_ws_pool *p;
    runner_ws_worker *w;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        TAILQ_FOREACH(w, &p->workers, link)
            if (w->pid == pid) {
                runner_ws_worker_reaped(w, status);
                return 1;
            }
    return 0;
}

void runner_ws_worker_free(runner_ws_worker *w)
{
    runner_close_fd(&w->exec_fd);
    runner_ev_close(&w->ev_chan);
    runner_ev_close(&w->ev_out);
    runner_ev_close(&w->ev_err);
    cgp_buf_free(&w->in);
    cgp_buf_free(&w->out);
    free(w);
}
