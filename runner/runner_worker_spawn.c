/* runner_worker_spawn.c: a new script process: its descriptors (a
 * CGIplus worker's four, a plain CGI run's three), fork and exec
 * (runner_spawn.c), one failure path; and the two kinds of worker this
 * runner has, as runner_wkind tables. */
#include "runner_worker.h"
#include "runner_ctx.h"
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_record.h"
#include "runner_req.h"
#include "runner_spawn.h"
#include "runner_suexec.h"
#include "runner_table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* A worker's stdout pipe: libcgiplus's stdout buffer (CGIPLUS_OUT_BUFFER). */
#define RUNNER_STDOUT_PIPE (128 * 1024)


/* Before every start: never root; suEXEC's checks for its pools. */
static int may_start(runner_pool *p, runner_spawn_spec *spec)
{
    if (p->set.suexec) {
        runner_suexec_pool sp = { p->script, p->dir, &p->set, p->id, &p->refused };
        return runner_suexec_check(&sp, &spec->groups, &spec->ngroups);
    }
    if (!runner_g.is_root || p->set.v[CGP_S_USER] != 0)
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

int runner_plumb_pipe(runner_plumbing *pl, int i, int in, int *to)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) < 0)
        return -1;
    runner_plumb(pl, i, fd[in ? 0 : 1], fd[in ? 1 : 0], to);
    return runner_set_nonblock(pl->ours[i]);
}

/* A CGIplus worker: stdin a pipe, stdout, stderr, CGIPLUSIN (one page: it
 * is writable exactly when the worker has read all of it, the moment a
 * request record's last byte waits for); the markers in its environment.
 * Of stdin we keep a reader of our own (non-blocking: the script's is
 * not), to drain what a request left unread, and no writer until the
 * worker has read its first request's "!" line (runner_worker_body_open):
 * a program that reads its stdin to end of file (a plain CGI program,
 * which never reads CGIPLUSIN) gets it at once, with nothing of any
 * request, and exits; its request runs as plain CGI (2080). */
static int plumb_cgiplus(runner_worker *w, runner_req *r, runner_plumbing *pl)
{
    runner_pool *p = w->pool;
    int sv[2], peer;

    if (make_marker(w->eof, "CGIPLUS-EOF-") < 0 || make_marker(w->esc, "CGIPLUS-ESC-") < 0 ||
        make_marker(w->eot, "CGIPLUS-EOT-") < 0)
        return -1;
    if (pipe2(sv, O_CLOEXEC) < 0)
        return -1;
    peer = runner_spawn_reopen(sv[0], O_RDONLY);
    close(sv[1]);
    runner_plumb(pl, 0, sv[0], peer, &w->body_peer);
    if (peer < 0 || runner_plumb_pipe(pl, 1, 0, &w->ev_out.fd) < 0 ||
        runner_plumb_pipe(pl, 2, 0, &w->ev_err.fd) < 0 ||
        runner_plumb_pipe(pl, 3, 1, &w->ev_in.fd) < 0 ||
        fcntl(pl->ours[3], F_SETPIPE_SZ, 1) < 0)
        return -1;
    /* A response the library writes at once (its stdout buffer is as large)
     * then wakes the reader once. Past the user's pipe quota this fails and
     * the pipe keeps the kernel's size: only slower. */
    (void)fcntl(pl->child[1], F_SETPIPE_SZ, RUNNER_STDOUT_PIPE);
    snprintf(pl->ebuf[0], sizeof(pl->ebuf[0]), "CGIPLUSEOF=%s", w->eof);
    snprintf(pl->ebuf[1], sizeof(pl->ebuf[1]), "CGIPLUSESC=%s", w->esc);
    snprintf(pl->ebuf[2], sizeof(pl->ebuf[2]), "CGIPLUSEOT=%s", w->eot);
    char *fixed[] = { pl->ebuf[0], pl->ebuf[1], pl->ebuf[2], "CGIPLUSIN=/dev/fd/3",
                      "PATH=" RUNNER_DEFAULT_PATH, "GATEWAY_INTERFACE=CGI/1.1" };
    memcpy(pl->envp, fixed, sizeof(fixed));
    runner_spawn_env(&p->set, pl->envp, 6, sizeof(pl->envp) / sizeof(pl->envp[0]));
    pl->spec.envp = pl->envp;
    pl->spec.nfds = 4;
    (void)r;
    return 0;
}

/* A plain CGI run: the request's variables are its environment and its
 * argv; stdin, stdout, stderr. */
static int plumb_cgi(runner_worker *w, runner_req *r, runner_plumbing *pl)
{
    runner_pool *p = w->pool;

    if (!(pl->env = runner_record_env(&r->params, r->cl, r->cl_given, &p->set)) ||
        !(pl->argv = runner_argv(&r->params, p->script, &p->set))) {
        errno = ENOMEM;
        return -1;
    }
    if (runner_plumb_pipe(pl, 0, 1, &w->ev_body.fd) < 0 ||
        runner_plumb_pipe(pl, 1, 0, &w->ev_out.fd) < 0 ||
        runner_plumb_pipe(pl, 2, 0, &w->ev_err.fd) < 0)
        return -1;
    pl->spec.envp = pl->env;
    pl->spec.argv = pl->argv;
    pl->spec.nfds = 3;
    return 0;
}

void runner_plumb(runner_plumbing *pl, int i, int child, int ours, int *to)
{
    pl->child[i] = child;
    pl->ours[i] = ours;
    pl->to[i] = to;
}

/* Our ends go where the kind's plumbing said (its events' descriptors),
 * the exec pipe to ev_exec; nothing is left for the failure path. */
static void take_ours(runner_worker *w, runner_plumbing *pl)
{
    for (int i = 0; i < RUNNER_SPAWN_MAXFD; i++) {
        if (pl->to[i])
            *pl->to[i] = pl->ours[i];
        pl->ours[i] = -1;
    }
    w->ev_exec.fd = pl->px[0];
    pl->px[0] = -1;
}

int runner_worker_start(const runner_wkind *kind, runner_pool *p, runner_req *r,
                        runner_plumb_fn *plumb, runner_worker **out)
{
    runner_plumbing pl = { .px = { -1, -1 } };
    runner_worker *w = NULL;
    pid_t pid = -1;
    int err = 0, i;

    for (i = 0; i < RUNNER_SPAWN_MAXFD; i++)
        pl.child[i] = pl.ours[i] = -1;
    if (may_start(p, &pl.spec) < 0)
        return -1;
    if (!(w = calloc(1, sizeof(*w))) || !(w->obuf = malloc(RUNNER_OBUF_CAP)) ||
        runner_worker_heap_reserve() < 0) {
        err = ENOMEM;
        goto fail;
    }
    w->pool = p;
    w->kind = kind;
    w->body_peer = -1;
    w->slot = -1;
    TAILQ_INIT(&w->answers);
    runner_ev_init(&w->ev_in, runner_worker_on_in, -1, w);
    runner_ev_init(&w->ev_body, runner_worker_on_body, -1, w);
    runner_ev_init(&w->ev_out, runner_worker_on_out, -1, w);
    runner_ev_init(&w->ev_err, runner_worker_on_err, -1, w);
    runner_ev_init(&w->ev_exec, runner_worker_on_exec, -1, w);
    if (plumb(w, r, &pl) < 0 || pipe2(pl.px, O_CLOEXEC) < 0 || runner_set_nonblock(pl.px[0]) < 0) {
        err = errno;
        goto fail;
    }
    /* a persistent worker's command line: the pool's own arguments */
    if (!pl.argv && p->set.args_len && !(pl.spec.argv = pl.argv = runner_argv(NULL, p->script, &p->set))) {
        err = ENOMEM;
        goto fail;
    }
    pl.spec.path = p->script;
    pl.spec.dir = p->dir;
    pl.spec.set = &p->set;
    pl.spec.exec_fd = pl.px[1];
    pl.spec.domain = &p->domain;
    memcpy(pl.spec.fds, pl.child, sizeof(pl.spec.fds));
    if ((pid = runner_spawn(&pl.spec)) < 0) {
        err = errno;
        goto fail;
    }
    take_ours(w, &pl);
    w->pid = pid;
    w->started = w->t_idle = runner_g.now;
    w->gen = p->gen;
    TAILQ_INSERT_TAIL(&p->workers, w, plink);
    TAILQ_INSERT_TAIL(&runner_g.workers, w, glink);
    p->nworkers++;
    p->spawned++;
    runner_g.nworkers++;
    runner_ev_watch(&w->ev_exec, EPOLLIN);
    *out = w;
fail:
    for (i = 0; i < RUNNER_SPAWN_MAXFD; i++)
        runner_close_fd(&pl.child[i]), runner_close_fd(&pl.ours[i]);
    runner_close_fd(&pl.px[0]), runner_close_fd(&pl.px[1]);
    runner_env_free(pl.env);
    runner_env_free(pl.argv);
    if (pid >= 0)
        return 0;
    if (err)
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2009) "cannot start a %s for %s%s%s: %s",
                   kind->name, p->script, pl.name ? " on " : "", pl.name ? pl.name : "",
                   strerror(err));
    if (w) {
        if (kind->close)
            kind->close(w);
        free(w->kdata);
        free(w->obuf);
        free(w);
    }
    errno = err;
    return -1;
}

void runner_worker_started(runner_worker *w)
{
    runner_pool *p = w->pool;

    runner_table_slot_take(w);
    runner_worker_update(w);
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2013) "started %s pid %ld for %s (%u of %llu, "
               "generation %u)", w->kind->name, (long)w->pid, p->script, p->nworkers,
               (unsigned long long)p->set.v[CGP_S_MAX_WORKERS], p->gen);
    runner_worker_rearm(w);
}

static int spawn_cgiplus(runner_pool *p, runner_req *r, runner_worker **out)
{
    runner_worker *w;

    if (runner_worker_start(&runner_kind_cgiplus, p, NULL, plumb_cgiplus, &w) < 0)
        return -1;
    cgp_scan_init(&w->scan, w->eof, w->esc, w->eot);
    w->ready_len = cgp_ready_line(w->ready, w->eof);
    runner_worker_started(w);
    *out = w;
    (void)r;
    return 0;
}

static int spawn_cgi(runner_pool *p, runner_req *r, runner_worker **out)
{
    runner_worker *w;

    if (runner_worker_start(&runner_kind_cgi, p, r, plumb_cgi, &w) < 0)
        return -1;
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2017) "started cgi pid %ld for %s", (long)w->pid,
               p->script);
    *out = w;
    return 0;
}

static int idle_fd(const runner_worker *w)
{
    return w->ev_out.fd;
}

static void watch(runner_worker *w, int paused)
{
    /* A published worker's stdout is a child's to read. */
    int mine = !paused && !runner_worker_published(w);
    runner_ev_watch(&w->ev_out, mine ? EPOLLIN : 0);
    runner_ev_watch(&w->ev_err, mine ? EPOLLIN : 0);
    runner_ev_watch(&w->ev_in, runner_worker_in_mask(w));
    runner_ev_watch(&w->ev_body, w->req && w->body_blocked ? EPOLLOUT : 0);
}

const runner_wkind runner_kind_cgiplus = {
    .name = "worker", .spawn = spawn_cgiplus, .request = runner_worker_record,
    .feed = runner_worker_feed, .read = runner_worker_read_stdout, .watch = watch,
    .orphaned = runner_worker_orphaned, .adopt = runner_worker_out_reset, .idle_fd = idle_fd,
};

const runner_wkind runner_kind_cgi = {
    .name = "cgi", .per_request = 1, .spawn = spawn_cgi, .feed = runner_worker_feed,
    .read = runner_worker_read_stdout, .watch = watch, .orphaned = runner_worker_orphaned,
};
