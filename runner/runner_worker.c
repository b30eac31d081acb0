/* runner_worker.c: one script process seen from the runner: start, request
 * record and body in, stdout (sentinel, callouts) and stderr out, death. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A worker's stdout pipe: libcgiplus's stdout buffer (CGIPLUS_OUT_BUFFER). */
#define RUNNER_STDOUT_PIPE (128 * 1024)

static void read_out(runner_worker *w, int drain);
static void read_err(runner_worker *w, int drain);

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static runner_worker *worker_new(runner_pool *p)
{
    runner_worker *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    if (!(w->obuf = malloc(RUNNER_OBUF_CAP))) {
        free(w);
        return NULL;
    }
    w->pool = p;
    w->body_peer = -1;
    w->slot = -1;
    TAILQ_INIT(&w->answers);
    runner_ev_init(&w->ev_in, RUNNER_EV_W_IN, -1, w);
    runner_ev_init(&w->ev_body, RUNNER_EV_W_BODY, -1, w);
    runner_ev_init(&w->ev_out, RUNNER_EV_W_OUT, -1, w);
    runner_ev_init(&w->ev_err, RUNNER_EV_W_ERR, -1, w);
    runner_ev_init(&w->ev_exec, RUNNER_EV_W_EXEC, -1, w);
    return w;
}

static void worker_close_fds(runner_worker *w)
{
    runner_ev_close(&w->ev_in);
    runner_ev_close(&w->ev_body);
    runner_ev_close(&w->ev_out);
    runner_ev_close(&w->ev_err);
    runner_ev_close(&w->ev_exec);
    close_fd(&w->body_peer);
}

void runner_worker_free(runner_worker *w)
{
    worker_close_fds(w);
    if (w->req) {
        if (w->req->client)
            w->req->client->req = NULL;
        runner_req_free(w->req);
    }
    runner_callout_free(w);
    runner_buf_free(&w->inq);
    runner_buf_free(&w->held);
    free(w->obuf);
    free(w);
}

static void worker_insert(runner_worker *w, pid_t pid)
{
    w->pid = pid;
    w->state = RUNNER_W_IDLE;
    w->started = w->t_idle = runner_g.now;
    w->gen = w->pool->gen;
    TAILQ_INSERT_TAIL(&w->pool->workers, w, plink);
    TAILQ_INSERT_TAIL(&runner_g.workers, w, glink);
    w->pool->nworkers++;
    w->pool->spawned++;
    runner_g.nworkers++;
}

static int refuse_root(const runner_pool *p)
{
    if (!runner_g.is_root || p->set.v[RUNNER_S_USER] != 0)
        return 0;
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2010) "refusing to run %s as root: start "
               "cgiplus-runner with --user", p->script);
    errno = EPERM;
    return -1;
}

static int make_marker(char *out, const char *prefix)
{
    memcpy(out, prefix, RUNNER_MARK_PREFIX_LEN);
    return runner_random_hex(out + RUNNER_MARK_PREFIX_LEN, RUNNER_MARK_LEN - RUNNER_MARK_PREFIX_LEN);
}

int runner_worker_spawn(runner_pool *p, runner_worker **out)
{
    int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pi[2] = { -1, -1 },
        px[2] = { -1, -1 };
    char e_eof[16 + RUNNER_MARK_LEN], e_esc[16 + RUNNER_MARK_LEN], e_eot[16 + RUNNER_MARK_LEN];
    runner_worker *w = NULL;
    int err;

    if (refuse_root(p) < 0)
        return -1;
    if (!(w = worker_new(p))) {
        err = ENOMEM;
        goto fail;
    }
    if (make_marker(w->eof, "CGIPLUS-EOF-") < 0 || make_marker(w->esc, "CGIPLUS-ESC-") < 0 ||
        make_marker(w->eot, "CGIPLUS-EOT-") < 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
        pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || pipe2(pi, O_CLOEXEC) < 0 ||
        pipe2(px, O_CLOEXEC) < 0 ||
        /* only our ends: each is its own open file description */
        set_nonblock(sv[1]) < 0 || set_nonblock(po[0]) < 0 || set_nonblock(pe[0]) < 0 ||
        set_nonblock(pi[1]) < 0 || set_nonblock(px[0]) < 0) {
        err = errno;
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2009) "cannot start a worker for %s: %s",
                   p->script, strerror(err));
        goto fail;
    }
    /* A response the library writes at once (its stdout buffer is as large)
     * then wakes the reader once. Past the user's pipe quota this fails and
     * the pipe keeps the kernel's size: only slower. */
    (void)fcntl(po[1], F_SETPIPE_SZ, RUNNER_STDOUT_PIPE);
    snprintf(e_eof, sizeof(e_eof), "CGIPLUSEOF=%s", w->eof);
    snprintf(e_esc, sizeof(e_esc), "CGIPLUSESC=%s", w->esc);
    snprintf(e_eot, sizeof(e_eot), "CGIPLUSEOT=%s", w->eot);
    char *envp[7 + RUNNER_ENV_MAX] = { e_eof, e_esc, e_eot, "CGIPLUSIN=/dev/fd/3",
                                       "PATH=" RUNNER_DEFAULT_PATH,
                                       "GATEWAY_INTERFACE=CGI/1.1", NULL };
    runner_spawn_env(&p->set, envp, 6, sizeof(envp) / sizeof(envp[0]));
    runner_spawn_spec spec = { .path = p->script, .dir = p->dir, .envp = envp,
                               .fds = { sv[0], po[1], pe[1], pi[0] }, .nfds = 4,
                               .exec_fd = px[1], .set = &p->set };
    pid_t pid = runner_spawn(&spec);
    if (pid < 0) {
        err = errno;
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2009) "cannot start a worker for %s: %s",
                   p->script, strerror(err));
        goto fail;
    }
    close_fd(&po[1]);
    close_fd(&pe[1]);
    close_fd(&pi[0]);
    close_fd(&px[1]);
    w->body_peer = sv[0]; /* kept: drains what the script left unread */
    w->ev_in.fd = pi[1];
    w->ev_body.fd = sv[1];
    w->ev_out.fd = po[0];
    w->ev_err.fd = pe[0];
    w->ev_exec.fd = px[0];
    cgp_scan_init(&w->scan, w->eof, w->esc, w->eot);
    worker_insert(w, pid);
    runner_table_slot_take(w);
    runner_ev_watch(&w->ev_exec, EPOLLIN);
    runner_worker_update(w);
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2013) "started worker pid %ld for %s (%u of %llu, "
               "generation %u)", (long)pid, p->script, p->nworkers,
               (unsigned long long)p->set.v[RUNNER_S_MAX_WORKERS], p->gen);
    runner_worker_rearm(w);
    *out = w;
    return 0;
fail:
    close_fd(&sv[0]), close_fd(&sv[1]), close_fd(&po[0]), close_fd(&po[1]);
    close_fd(&pe[0]), close_fd(&pe[1]), close_fd(&pi[0]), close_fd(&pi[1]);
    close_fd(&px[0]), close_fd(&px[1]);
    if (w) {
        free(w->obuf);
        free(w);
    }
    errno = err;
    return -1;
}

int runner_worker_spawn_cgi(runner_pool *p, runner_req *r)
{
    int pin[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 }, px[2] = { -1, -1 };
    runner_worker *w = NULL;
    char **env = NULL, **argv = NULL;
    int err;

    if (refuse_root(p) < 0)
        return -1;
    if (!(w = worker_new(p)) || !(env = runner_record_env(&r->params, r->cl, r->cl_given, &p->set)) ||
        !(argv = runner_cgi_argv(&r->params, p->script))) {
        err = ENOMEM;
        goto fail;
    }
    w->is_cgi = 1;
    if (pipe2(pin, O_CLOEXEC) < 0 || pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 ||
        pipe2(px, O_CLOEXEC) < 0 || set_nonblock(pin[1]) < 0 || set_nonblock(po[0]) < 0 ||
        set_nonblock(pe[0]) < 0 || set_nonblock(px[0]) < 0) {
        err = errno;
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2009) "cannot start a worker for %s: %s",
                   p->script, strerror(err));
        goto fail;
    }
    runner_spawn_spec spec = { .path = p->script, .argv = argv, .dir = p->dir, .envp = env,
                               .fds = { pin[0], po[1], pe[1] }, .nfds = 3, .exec_fd = px[1],
                               .set = &p->set };
    pid_t pid = runner_spawn(&spec);
    if (pid < 0) {
        err = errno;
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2009) "cannot start a worker for %s: %s",
                   p->script, strerror(err));
        goto fail;
    }
    runner_env_free(env);
    runner_env_free(argv);
    close_fd(&pin[0]);
    close_fd(&po[1]);
    close_fd(&pe[1]);
    close_fd(&px[1]);
    w->ev_body.fd = pin[1];
    w->ev_out.fd = po[0];
    w->ev_err.fd = pe[0];
    w->ev_exec.fd = px[0];
    worker_insert(w, pid);
    runner_ev_watch(&w->ev_exec, EPOLLIN);
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2017) "started cgi pid %ld for %s", (long)pid,
               p->script);
    runner_worker_assign(w, r);
    return 0;
fail:
    runner_env_free(env);
    runner_env_free(argv);
    close_fd(&pin[0]), close_fd(&pin[1]), close_fd(&po[0]), close_fd(&po[1]);
    close_fd(&pe[0]), close_fd(&pe[1]), close_fd(&px[0]), close_fd(&px[1]);
    if (w) {
        free(w->obuf);
        free(w);
    }
    errno = err;
    return -1;
}

/* Bytes the last request left unread on the script's stdin would be read as
 * the next request's body: take them back out of the socket. */
static void drain_body(runner_worker *w)
{
    unsigned char junk[16384];
    size_t total = 0;
    if (w->body_peer < 0)
        return;
    for (;;) {
        ssize_t n = recv(w->body_peer, junk, sizeof(junk), MSG_DONTWAIT);
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
                   "bytes unread; discarded", (long)w->pid, w->pool->script, total);
}


/* The worker is no use any more: never assign it again, make it go. */
static void worker_break(runner_worker *w, runner_wend why, int sig)
{
    if (w->why == RUNNER_END_NONE)
        w->why = why;
    if (w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY)
        w->state = RUNNER_W_STOPPING;
    if (sig == SIGKILL)
        w->killed = 1;
    else if (!w->t_term)
        w->t_term = runner_g.now;
    runner_worker_kill(w, sig);
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
    worker_break(w, why, SIGTERM);
}

static void flush_in(runner_worker *w)
{
    if (w->ev_in.fd < 0 || !runner_buf_used(&w->inq))
        return;
    if (runner_buf_flush(&w->inq, w->ev_in.fd) < 0) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2019) "worker pid %ld of %s does not read "
                   "CGIPLUSIN (%s); stopping it", (long)w->pid, w->pool->script, strerror(errno));
        runner_buf_reset(&w->inq);
        runner_ev_close(&w->ev_in);
        worker_break(w, RUNNER_END_BROKEN, SIGKILL);
    }
    runner_ev_watch(&w->ev_in, runner_buf_used(&w->inq) ? EPOLLOUT : 0);
}

void runner_worker_reply(runner_worker *w, const char *line)
{
    if (w->ev_in.fd < 0 || w->flooded)
        return;
    if (runner_buf_append(&w->inq, line, strlen(line)) < 0 || runner_buf_append(&w->inq, "\n", 1) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2020) "out of memory answering a callout of "
                   "worker pid %ld; stopping it", (long)w->pid);
        worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    flush_in(w);
    /* What is left past the record is answers it has not read (at least). */
    if (runner_buf_used(&w->inq) > w->inq_base + RUNNER_ANS_BYTES_MAX)
        runner_worker_flooded(w);
}

void runner_worker_flooded(runner_worker *w)
{
    if (w->flooded)
        return;
    w->flooded = 1;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2082) "worker pid %ld of %s has %u callout "
               "answers (%zu bytes) it does not read; stopping it as broken", (long)w->pid,
               w->pool->script, w->nanswers, runner_buf_used(&w->inq));
    runner_buf_free(&w->inq);
    runner_ev_watch(&w->ev_in, 0);
    worker_break(w, RUNNER_END_BROKEN, SIGKILL);
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

/* The first request of a new worker: only its "!" line goes on CGIPLUSIN;
 * the variables and the body follow once the worker has read it. Until
 * then the worker cannot know its request, so whatever it writes is
 * start-up output (a banner) and is discarded, never a response. */
static void hold_first_record(runner_worker *w)
{
    runner_buf *q = &w->inq;
    if (runner_buf_used(q) < 2 || q->p[q->off] != '!' || q->p[q->off + 1] != '\n')
        return; /* not a record-mode record: nothing to hold */
    if (runner_buf_append(&w->held, q->p + q->off + 2, runner_buf_used(q) - 2) < 0)
        return; /* out of memory: send it whole, as before */
    q->len = q->off + 2;
    w->sync_wait = 1;
    w->dl_sync = sync_next(w);
}

/* Bytes of the first record the worker has not read (-1: unknown). */
static int unread_in(const runner_worker *w)
{
    int n = 0;
    if (w->ev_in.fd < 0 || ioctl(w->ev_in.fd, FIONREAD, &n) < 0)
        return -1;
    return n + (int)runner_buf_used(&w->inq);
}

/* Once the worker has read the "!" line: what it wrote until now is
 * discarded (one warning), the rest of its record and its body go out. */
static void sync_check(runner_worker *w)
{
    unsigned char buf[RUNNER_READ_CHUNK];
    ssize_t n;
    if (!w->sync_wait)
        return;
    if (unread_in(w) != 0) {
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
    if (w->banner)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2079) "%s (worker pid %ld) wrote %zu bytes "
                   "before reading its first request; discarded (a CGIplus script must not "
                   "print before it reads its request)", w->pool->script, (long)w->pid,
                   w->banner);
    if (runner_buf_append(&w->inq, w->held.p + w->held.off, runner_buf_used(&w->held)) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2081) "out of memory passing the request "
                   "record to worker pid %ld of %s; stopping it", (long)w->pid, w->pool->script);
        worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    runner_buf_free(&w->held);
    flush_in(w);
    runner_worker_feed(w);
    runner_worker_update(w);
}

void runner_worker_assign(runner_worker *w, runner_req *r)
{
    w->req = r;
    r->worker = w;
    r->state = RUNNER_R_RUNNING;
    r->t_start = r->t_progress = runner_g.now;
    w->state = RUNNER_W_BUSY;
    w->dl_orphan = w->dl_orphan_max = 0;
    w->body_blocked = 0;
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2021) "request %u (%s) to worker pid %ld",
               r->reqid, r->uri, (long)w->pid);
    if (!w->is_cgi) {
        w->had_output = 0;
        drain_body(w);
        cgp_scan_reset(&w->scan);
        w->olen = 0;
        w->junk = 0;
        size_t before = runner_buf_used(&w->inq);
        if (runner_record_build(&r->params, r->cl, w->struct_mode, &w->inq) < 0) {
            int err = errno;
            w->inq.len = w->inq.off + before; /* never leave half a record */
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2022) "cannot build the request record "
                       "for %s: %s", w->pool->script, strerror(err));
            w->req = NULL;
            r->worker = NULL;
            w->state = RUNNER_W_IDLE;
            runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)err);
            return;
        }
        if (w->served == 0 && before == 0 && !w->synced)
            hold_first_record(w);
        flush_in(w);
        w->inq_base = runner_buf_used(&w->inq);
    }
    send_started(w, r);
    runner_worker_feed(w);
    runner_worker_update(w);
    runner_worker_rearm(w);
}

void runner_worker_feed(runner_worker *w)
{
    runner_req *r = w->req;
    if (!r || w->ev_body.fd < 0 || w->sync_wait)
        return;
    uint64_t before = runner_spool_pending(&r->body);
    int rc = runner_spool_flush(&r->body, w->ev_body.fd);
    w->body_blocked = rc == 1;
    if (runner_spool_pending(&r->body) < before)
        runner_req_progress(r); /* the script takes its body */
    if (rc < 0) {
        if (errno == EPIPE || errno == ECONNRESET)
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2023) "worker pid %ld of %s closed its "
                       "stdin; body discarded", (long)w->pid, w->pool->script);
        else
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2024) "cannot pass the body to worker pid "
                       "%ld of %s: %s", (long)w->pid, w->pool->script, strerror(errno));
        runner_spool_discard(&r->body);
        if (w->is_cgi)
            runner_ev_close(&w->ev_body);
    } else if (rc == 0 && w->is_cgi && r->body_end) {
        runner_ev_close(&w->ev_body); /* plain CGI: the body ends with EOF */
    }
    runner_ev_watch(&w->ev_body, w->body_blocked ? EPOLLOUT : 0);
    if (r->client)
        runner_client_update(r->client); /* less pending body: reading may resume */
}

int runner_worker_out_paused(const runner_worker *w)
{
    const runner_req *r = w->req;
    return r && r->client && runner_client_backlog(r->client) > RUNNER_OUT_HIGH;
}

void runner_worker_update(runner_worker *w)
{
    if (w->state == RUNNER_W_DEAD)
        return;
    int paused = runner_worker_out_paused(w);
    /* A published worker's stdout is a child's to read. */
    runner_ev_watch(&w->ev_out, paused || w->published ? 0 : EPOLLIN);
    runner_ev_watch(&w->ev_err, paused || w->published ? 0 : EPOLLIN);
    runner_ev_watch(&w->ev_in, runner_buf_used(&w->inq) ? EPOLLOUT : 0);
    runner_ev_watch(&w->ev_body, w->req && w->body_blocked ? EPOLLOUT : 0);
    if (paused != w->out_paused) {
        w->out_paused = paused;
        if (w->req && w->req->client)
            runner_client_update(w->req->client);
    }
}

static void idle_junk(runner_worker *w, size_t n)
{
    if (!w->junk)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2025) "worker pid %ld of %s wrote %zu bytes "
                   "after its sentinel; discarded", (long)w->pid, w->pool->script, n);
    w->junk += n;
}


void runner_worker_send(runner_worker *w, const unsigned char *d, size_t len)
{
    runner_req *r = w->req;
    if (!r) {
        idle_junk(w, len);
        return;
    }
    if (!r->client) /* orphan: the output goes nowhere */
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
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2011) "%s (pid %ld): %.*s", w->pool->script,
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
        if (w->ev_err.fd < 0 || (w->published && !drain))
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

static void request_done(runner_worker *w)
{
    runner_req *r = w->req;
    runner_pool *p = w->pool;
    hdr_feed(w, NULL, 0, 1);
    take_stderr(w);
    runner_callout_log_summary(w, 1);
    runner_callout_expire(w, 2); /* unanswered and no longer awaited */
    w->req = NULL;
    r->worker = NULL;
    if (!r->drain) {
        runner_worker_count(w);
        p->served++;
    }
    w->dl_drain = 0;
    w->body_blocked = 0;
    w->dl_orphan = w->dl_orphan_max = 0;
    runner_ev_watch(&w->ev_body, 0);
    if (!r->ended) {
        runner_pool_request_ok(p);
        runner_req_end(r, CGP_O_OK, 0, (uint32_t)w->pid, 0);
    } else {
        runner_req_free(r);
    }
    drain_body(w);
    if (w->state == RUNNER_W_BUSY) {
        uint64_t maxr = p->set.v[RUNNER_S_MAX_REQUESTS], age = p->set.v[RUNNER_S_MAX_AGE];
        w->state = RUNNER_W_IDLE;
        w->t_idle = runner_g.now;
        if (w->exited)
            w->state = RUNNER_W_STOPPING;
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
    if (!r) {
        idle_junk(w, len);
        return;
    }
    if (len) {
        w->had_output = 1;
        runner_req_progress(r);
    }
    hdr_feed(w, d, len, 0);
}

static void process_out(runner_worker *w, size_t n, int final)
{
    size_t len = w->olen + n, pos = 0, outlen = 0;
    const unsigned char *out = NULL;
    int went_idle = 0;

    if (w->is_cgi) {
        output(w, w->obuf, len);
        w->olen = 0;
        return;
    }
    if (!w->req) {
        idle_junk(w, len);
        w->olen = 0;
        return;
    }
    if (w->sync_wait) { /* before it read its request: start-up output */
        w->banner += len;
        w->olen = 0;
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
            request_done(w);
            went_idle = 1;
            if (pos < len)
                idle_junk(w, len - pos);
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
        runner_pool_worker_idle(w);
}

/* A child saw its stdout close mid-request: it should be exiting. */
void runner_worker_gone(runner_worker *w)
{
    if (w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY)
        w->state = RUNNER_W_STOPPING;
    if (!w->exited && !w->dl_reap) {
        w->dl_reap = runner_g.now + RUNNER_EOF_REAP_MS;
        runner_worker_rearm(w);
    }
}

static void out_eof(runner_worker *w)
{
    if (!w->is_cgi && w->olen && w->req)
        process_out(w, 0, 1); /* a held tail was output after all */
    w->olen = 0;
    runner_ev_close(&w->ev_out);
    if (w->is_cgi) {
        /* Plain CGI: the response ends at EOF; no output at all is a crash,
         * decided when the exit status is known. */
        runner_req *r = w->req;
        if (r && w->had_output) {
            hdr_feed(w, NULL, 0, 1);
            take_stderr(w);
            w->req = NULL;
            r->worker = NULL;
            w->served++;
            w->pool->served++;
            if (!r->ended)
                runner_req_end(r, CGP_O_OK, 0, (uint32_t)w->pid, 0);
            else
                runner_req_free(r);
        }
        return;
    }
    /* A worker without stdout cannot serve: it should be exiting. */
    if (w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY)
        w->state = RUNNER_W_STOPPING;
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
        if (w->ev_out.fd < 0 || w->published)
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

static void read_out(runner_worker *w, int drain)
{
    runner_client *c = w->req ? w->req->client : NULL; /* freed only after the loop turn */
    if (c)
        c->corked = 1;
    read_out_all(w, drain);
    if (w->sync_wait && !drain)
        sync_check(w);
    if (c)
        runner_client_uncork(c);
}

static void read_exec(runner_worker *w)
{
    unsigned char b[8];
    ssize_t n;
    do
        n = read(w->ev_exec.fd, b, sizeof(b));
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    runner_ev_close(&w->ev_exec);
    if (n != (ssize_t)sizeof(b))
        return; /* EOF: the exec succeeded */
    unsigned stage = cgp_get32(b);
    int err = (int)cgp_get32(b + 4);
    w->exec_failed = 1;
    if (w->why == RUNNER_END_NONE)
        w->why = RUNNER_END_EXEC_FAILED;
    if (w->state == RUNNER_W_IDLE || w->state == RUNNER_W_BUSY)
        w->state = RUNNER_W_STOPPING;
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2012) "cannot start %s: %s: %s", w->pool->script,
               runner_spawn_stage(stage), strerror(err));
    runner_req *r = w->req;
    if (!r)
        return;
    w->req = NULL;
    r->worker = NULL;
    /* Not executable for the user: 403. Anything else (a missing
     * interpreter is ENOENT from exec) is the server's fault: 503. */
    int nf = err == EACCES || (stage == RUNNER_STAGE_CHDIR && err == ENOENT);
    if (!r->ended)
        runner_req_end(r, nf ? CGP_O_NOT_FOUND : CGP_O_SPAWN_FAILED, nf ? 0 : 1, 0, (uint32_t)err);
    else
        runner_req_free(r);
}

void runner_worker_event(runner_ev *ev, uint32_t events)
{
    runner_worker *w = ev->obj;
    switch (ev->kind) {
    case RUNNER_EV_W_IN:   flush_in(w); break;
    case RUNNER_EV_W_BODY: runner_worker_feed(w); break;
    case RUNNER_EV_W_OUT:  read_out(w, 0); break;
    case RUNNER_EV_W_ERR:  read_err(w, 0); break;
    case RUNNER_EV_W_EXEC: read_exec(w); break;
    default: break;
    }
    (void)events;
    runner_worker_update(w);
}

const char *runner_wend_name(runner_wend e)
{
    static const char *const names[RUNNER_END_N_] = {
        "none", "idle", "lifetime", "max_requests", "timeout", "aborted", "deploy",
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

static void log_exit(runner_worker *w, const runner_req *r, int crashed)
{
    char how[64];
    describe_status(how, sizeof(how), w->status);
    if (w->exec_failed) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2026) "%s pid %ld %s after a failed exec",
                   w->is_cgi ? "cgi" : "worker", (long)w->pid, how);
        return;
    }
    if (crashed)
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2027) "%s pid %ld of %s %s during request %u "
                   "(%s) before ending its response", w->is_cgi ? "cgi" : "worker",
                   (long)w->pid, w->pool->script, how, r->reqid, r->uri);
    if (w->is_cgi) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2029) "cgi pid %ld of %s %s", (long)w->pid,
                   w->pool->script, how);
        return;
    }
    /* A crash during a request is logged by the module in the request's
     * virtual host (one record); the runner's own lines are debug then. */
    int bad = w->why == RUNNER_END_CRASHED || w->why == RUNNER_END_BROKEN ||
              (w->why == RUNNER_END_EXITED && w->served == 0 && !w->not_cgiplus);
    runner_log(crashed ? RUNNER_LOG_DEBUG : bad ? RUNNER_LOG_WARN : RUNNER_LOG_INFO, CGIPLUS_LOGNO(2028) "worker pid %ld of "
               "%s ended: %s (%s) after %lu requests in %llu.%01llu s", (long)w->pid,
               w->pool->script, runner_wend_name(w->why), how, w->served,
               (unsigned long long)((runner_g.now - w->started) / 1000),
               (unsigned long long)((runner_g.now - w->started) % 1000 / 100));
}

void runner_worker_reaped(runner_worker *w, int status)
{
    runner_pool *p = w->pool;
    w->exited = 1;
    w->status = status;
    if (w->ev_exec.fd >= 0)
        read_exec(w);
    if (!w->published) /* else a child may be reading it */
        read_out(w, 1); /* what it wrote before dying, a sentinel perhaps */
    take_stderr(w);
    runner_callout_log_summary(w, 1);
    runner_table_slot_dead(w);
    if (w->why == RUNNER_END_NONE)
        w->why = w->exec_failed ? RUNNER_END_EXEC_FAILED
                 : WIFSIGNALED(status) ? RUNNER_END_CRASHED : RUNNER_END_EXITED;

    runner_req *r = w->req;
    /* It wrote output and exited with its first request unread: not a
     * CGIplus program (a plain CGI one, most likely). The request never
     * reached it: it runs as plain CGI, and so does the pool from now on.
     * One that dies without output is a crash (502, the backoff). */
    runner_req *rerun = r && !r->ended && r->client && w->sync_wait && w->banner &&
                        WIFEXITED(status) && unread_in(w) == 2 ? r : NULL;
    if (rerun) {
        w->req = NULL;
        r->worker = NULL;
        r = NULL;
        w->not_cgiplus = 1;
    }
    if (r) {
        w->req = NULL;
        r->worker = NULL;
        int ok = w->is_cgi && w->had_output;
        log_exit(w, r, !ok && !r->ended);
        if (!r->ended) {
            /* The request was handed to this process: its death is this
             * request's failure (502), even a fresh worker's that also
             * counts toward the crash-loop backoff (runner_pool_reaped).
             * 503 is only for requests that got no worker at all. */
            runner_req_end(r, ok ? CGP_O_OK : CGP_O_CRASHED, 0, (uint32_t)w->pid,
                           ok ? 0 : (uint32_t)status);
        } else {
            runner_req_free(r);
        }
    } else {
        log_exit(w, NULL, 0);
    }
    w->state = RUNNER_W_DEAD;
    w->deadline = 0;
    worker_close_fds(w);
    TAILQ_REMOVE(&p->workers, w, plink);
    p->nworkers--;
    runner_g.nworkers--;
    TAILQ_REMOVE(&runner_g.workers, w, glink);
    TAILQ_INSERT_TAIL(&runner_g.dead_workers, w, glink);
    if (rerun) {
        if (!p->as_cgi)
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2080) "%s does not speak CGIplus: its "
                       "worker (pid %ld) exited without reading its request; running it as "
                       "plain CGI from now on (set CGIplusMode cgi for it)", p->script,
                       (long)w->pid);
        p->as_cgi = 1;
        if (runner_worker_spawn_cgi(p, rerun) < 0)
            runner_req_end(rerun, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)errno);
    }
    runner_pool_reaped(w); /* counters; waiting requests get a new worker */
}

static uint64_t req_tmo(int64_t over, uint64_t pool)
{
    return over < 0 ? 0 : over > 0 ? (uint64_t)over : pool;
}

static uint64_t idle_tmo(const runner_worker *w)
{
    return req_tmo(w->lifetime, w->pool->set.v[RUNNER_S_IDLE_TIMEOUT]);
}

void runner_worker_rearm(runner_worker *w)
{
    const runner_pool_set *s = &w->pool->set;
    const runner_req *r = w->req;
    uint64_t dl = 0, t;
#define MIN_DL(x) do { t = (x); if (t && (!dl || t < dl)) dl = t; } while (0)
    if (w->state == RUNNER_W_DEAD || w->exited) {
        w->deadline = 0;
        return;
    }
    if (w->t_term && !w->killed)
        MIN_DL(w->t_term + runner_g.conf.kill_grace);
    MIN_DL(w->dl_orphan);
    MIN_DL(w->dl_orphan_max);
    MIN_DL(w->dl_reap);
    MIN_DL(w->dl_drain);
    if (w->published && w->retire)
        MIN_DL(runner_g.now + 1000u); /* a child holds it: ask again */
    if (w->sync_wait)
        MIN_DL(w->dl_sync);
    if (r && r->client && !r->ended && w->state == RUNNER_W_BUSY) {
        uint64_t out = req_tmo(r->tmo_output, s->v[RUNNER_S_TIMEOUT_OUTPUT]);
        uint64_t np = req_tmo(r->tmo_noprogress, s->v[RUNNER_S_TIMEOUT_NOPROGRESS]);
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
        if (s->v[RUNNER_S_MAX_AGE])
            MIN_DL(w->started + s->v[RUNNER_S_MAX_AGE]);
    }
#undef MIN_DL
    w->deadline = dl;
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
    if (!r->no_abort)
        runner_worker_stop(w, RUNNER_END_TIMEOUT, 1);
    runner_req_end(r, CGP_O_TIMEOUT, 0, (uint32_t)w->pid, 0);
}

void runner_worker_deadline(runner_worker *w)
{
    uint64_t now = runner_g.now;
    const runner_pool_set *s = &w->pool->set;
    w->deadline = 0;
    if (w->exited || w->state == RUNNER_W_DEAD)
        return;
    if (w->t_term && !w->killed && now >= w->t_term + runner_g.conf.kill_grace) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2071) "worker pid %ld of %s did not exit %llu "
                   "ms after SIGTERM; killing it", (long)w->pid, w->pool->script,
                   (unsigned long long)runner_g.conf.kill_grace);
        worker_break(w, w->why, SIGKILL);
        return;
    }
    if (w->sync_wait && now >= w->dl_sync)
        sync_check(w);
    if (w->dl_orphan && now >= w->dl_orphan) {
        w->dl_orphan = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2014) "worker pid %ld of %s still waits for a "
                   "request body that will not come; killing it", (long)w->pid, w->pool->script);
        worker_break(w, RUNNER_END_ABORTED, SIGKILL);
        return;
    }
    if (w->dl_drain && now >= w->dl_drain) {
        w->dl_drain = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2504) "worker pid %ld of %s did not reach "
                   "its sentinel while its unwanted output was drained; killing it",
                   (long)w->pid, w->pool->script);
        worker_break(w, RUNNER_END_ABORTED, SIGKILL);
        return;
    }
    if (w->published && w->retire) {
        runner_worker_stop(w, w->retire, 1);
        if (w->published)
            runner_worker_rearm(w);
        return;
    }
    if (w->dl_orphan_max && now >= w->dl_orphan_max) {
        w->dl_orphan_max = 0;
        int na = w->req && w->req->no_abort;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2084) "worker pid %ld of %s still runs the "
                   "request of a client that left %llu ms ago%s; stopping it",
                   (long)w->pid, w->pool->script, (unsigned long long)(now - w->t_orphan),
                   na ? " (no-abort)" : "");
        worker_break(w, na ? RUNNER_END_TIMEOUT : RUNNER_END_ABORTED, SIGTERM);
        return;
    }
    if (w->dl_reap && now >= w->dl_reap) {
        w->dl_reap = 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2015) "worker pid %ld of %s closed its stdout "
                   "but did not exit; killing it", (long)w->pid, w->pool->script);
        worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    runner_req *r = w->req;
    if (r && r->client && !r->ended && w->state == RUNNER_W_BUSY) {
        uint64_t out = req_tmo(r->tmo_output, s->v[RUNNER_S_TIMEOUT_OUTPUT]);
        uint64_t np = req_tmo(r->tmo_noprogress, s->v[RUNNER_S_TIMEOUT_NOPROGRESS]);
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
    if (w->state == RUNNER_W_IDLE && w->published) {
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
                runner_pool_idle_count(w->pool) <= s->v[RUNNER_S_MIN_IDLE]) {
                w->t_idle = now;
                runner_worker_rearm(w);
                return;
            }
            runner_worker_stop(w, RUNNER_END_IDLE, 1);
            return;
        }
        if (s->v[RUNNER_S_MAX_AGE] && now >= w->started + s->v[RUNNER_S_MAX_AGE]) {
            runner_worker_stop(w, RUNNER_END_LIFETIME, 1);
            return;
        }
    }
    runner_worker_rearm(w);
}

void runner_worker_orphaned(runner_worker *w)
{
    runner_req *r = w->req;
    if (!r)
        return;
    runner_callout_expire(w, 1); /* the script may block on an answer */
    if (!r->no_abort && w->is_cgi) {
        /* The client went (or its request failed): a CGI run has no use. */
        runner_worker_stop(w, RUNNER_END_ABORTED, 1);
        runner_worker_update(w);
        return;
    }
    if (!w->dl_orphan_max) {
        /* It runs on, but not for ever: one output timeout more (httpd's
         * Timeout where it has none), then it is stopped (issue 10, hole 6). */
        uint64_t out = req_tmo(r->tmo_output, w->pool->set.v[RUNNER_S_TIMEOUT_OUTPUT]);
        w->t_orphan = runner_g.now;
        w->dl_orphan_max = runner_g.now + (out ? out : runner_g.conf.http_timeout);
        if (!r->no_abort)
            runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2506) "request %u (%s) lost its client; "
                       "worker pid %ld of %s runs to its sentinel (at most %llu ms), then "
                       "serves again", r->reqid, r->uri, (long)w->pid, w->pool->script,
                       (unsigned long long)(w->dl_orphan_max - runner_g.now));
    }
    if (w->is_cgi) {
        if (runner_req_body_short(r) || !r->body_end) {
            /* Nobody will send the rest: the script gets EOF now. */
            if (runner_req_body_short(r))
                runner_spool_discard(&r->body);
            r->body_end = 1;
            runner_worker_feed(w);
        }
    } else if (runner_req_body_short(r) && !w->dl_orphan) {
        /* It may be blocked reading a body that will never come. */
        w->dl_orphan = runner_g.now + RUNNER_ORPHAN_GRACE_MS;
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
    runner_req *r = runner_req_new(NULL, 0, "(drain)", 7);
    if (!r) {
        worker_break(w, RUNNER_END_BROKEN, SIGKILL);
        return;
    }
    r->pool = w->pool;
    r->ended = 1;
    r->drain = 1;
    r->have_cl = 1;
    r->body_end = 1;
    r->hdr.done = 1;
    r->state = RUNNER_R_RUNNING;
    r->t_start = r->t_progress = runner_g.now;
    w->req = r;
    r->worker = w;
    w->state = RUNNER_W_BUSY;
    w->had_output = 0;
    w->olen = 0;
    cgp_scan_reset(&w->scan);
    /* as an orphan's: one output timeout, httpd's Timeout where none */
    if (!bound)
        bound = runner_g.conf.http_timeout ? runner_g.conf.http_timeout : RUNNER_DRAIN_MS;
    if (no_abort) {
        /* A no-abort orphan, as one of the relay (runner_worker_orphaned):
         * past the bound it is stopped as a timeout (2084), not killed. */
        r->no_abort = 1;
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
    read_out(w, 0); /* it may be there already */
}
