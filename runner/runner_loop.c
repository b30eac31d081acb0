/* runner_loop.c: the one epoll loop: signals through a self-pipe, one
 * deadline (the nearest one) as the epoll_wait timeout, deferred work
 * (kicked clients) and deferred frees, and the stop sequence. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 64

runner_ctx runner_g;

uint64_t runner_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void runner_ev_init(runner_ev *ev, runner_evkind kind, int fd, void *obj)
{
    ev->kind = kind;
    ev->fd = fd;
    ev->mask = 0;
    ev->obj = obj;
}

int runner_ev_watch(runner_ev *ev, uint32_t mask)
{
    if (ev->fd < 0 || mask == ev->mask)
        return 0;
    struct epoll_event e = { .events = mask, .data.ptr = ev };
    int op = ev->mask == 0 ? EPOLL_CTL_ADD : mask == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    if (epoll_ctl(runner_g.epfd, op, ev->fd, &e) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2045) "epoll_ctl(%d, fd %d): %s", op, ev->fd,
                   strerror(errno));
        return -1;
    }
    ev->mask = mask;
    return 0;
}

void runner_ev_close(runner_ev *ev)
{
    if (ev->fd < 0)
        return;
    /* Explicit DEL: a forked child may still share the file description. */
    if (ev->mask)
        epoll_ctl(runner_g.epfd, EPOLL_CTL_DEL, ev->fd, NULL);
    close(ev->fd);
    ev->fd = -1;
    ev->mask = 0;
}

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t n = write(runner_g.sig_w, &b, 1);
    (void)n;
    errno = saved;
}

int runner_loop_init(int listen_fd)
{
    int sp[2];
    struct sigaction sa;

    runner_ev_init(&runner_g.ev_listen, RUNNER_EV_LISTEN, listen_fd, NULL);
    TAILQ_INIT(&runner_g.clients);
    TAILQ_INIT(&runner_g.kicks);
    TAILQ_INIT(&runner_g.dead_clients);
    TAILQ_INIT(&runner_g.pools);
    TAILQ_INIT(&runner_g.slot_waiters);
    TAILQ_INIT(&runner_g.workers);
    TAILQ_INIT(&runner_g.dead_workers);
    runner_g.now = runner_g.started = runner_now_ms();
    if ((runner_g.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2046) "cannot set up the event loop: %s",
                   strerror(errno));
        return -1;
    }
    runner_g.sig_w = sp[1];
    runner_ev_init(&runner_g.ev_sig, RUNNER_EV_SIGNAL, sp[0], NULL);

    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, NULL);

    if (runner_ev_watch(&runner_g.ev_sig, EPOLLIN) < 0 ||
        runner_ev_watch(&runner_g.ev_listen, EPOLLIN) < 0)
        return -1;
    return 0;
}

void runner_loop_kick(runner_client *c)
{
    if (c->kicked || c->closed)
        return;
    c->kicked = 1;
    TAILQ_INSERT_TAIL(&runner_g.kicks, c, klink);
}

void runner_loop_pause_listener(void)
{
    /* Level-triggered: an accept failing for lack of descriptors would spin. */
    runner_ev_watch(&runner_g.ev_listen, 0);
    runner_g.listen_resume = runner_g.now + RUNNER_LISTEN_PAUSE_MS;
}

static void reap(void)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        runner_worker *w;
        TAILQ_FOREACH(w, &runner_g.workers, glink)
            if (w->pid == pid)
                break;
        if (w)
            runner_worker_reaped(w, st);
        else
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2047) "reaped unknown child %ld",
                       (long)pid);
    }
}

static int busy_workers(void)
{
    int n = 0;
    runner_worker *w;
    TAILQ_FOREACH(w, &runner_g.workers, glink)
        n += w->req != NULL;
    return n;
}

static void signal_all(int sig)
{
    runner_worker *w;
    TAILQ_FOREACH(w, &runner_g.workers, glink)
        runner_worker_kill(w, sig);
}

static void stop_begin(void)
{
    if (runner_g.stop != RUNNER_RUN) {
        /* A second stop signal: skip the grace period. */
        if (runner_g.stop == RUNNER_STOP_DRAIN)
            runner_g.stop_deadline = runner_g.now;
        return;
    }
    runner_notify("STOPPING=1");
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2048) "stopping: %d busy workers get %u s to "
               "finish", busy_workers(), RUNNER_STOP_GRACE_MS / 1000);
    runner_g.stop = RUNNER_STOP_DRAIN;
    runner_g.stop_deadline = runner_g.now + RUNNER_STOP_GRACE_MS;
    runner_ev_close(&runner_g.ev_listen);
    runner_unlink_socket();
    runner_pool_stop();
}

/* Moves the stop sequence on; 1 when the runner may exit. */
static int stop_progress(void)
{
    switch (runner_g.stop) {
    case RUNNER_RUN:
        return 0;
    case RUNNER_STOP_DRAIN:
        if (busy_workers() && runner_g.now < runner_g.stop_deadline)
            return 0;
        if (busy_workers())
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2049) "%d workers still busy; terminating "
                       "them", busy_workers());
        signal_all(SIGTERM);
        runner_g.stop = RUNNER_STOP_TERM;
        runner_g.stop_deadline = runner_g.now + runner_g.conf.kill_grace;
        /* fall through */
    case RUNNER_STOP_TERM:
        if (TAILQ_EMPTY(&runner_g.workers))
            return 1;
        if (runner_g.now < runner_g.stop_deadline)
            return 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2050) "workers ignored SIGTERM; killing them");
        signal_all(SIGKILL);
        runner_g.stop = RUNNER_STOP_KILL;
        runner_g.stop_deadline = runner_g.now + RUNNER_KILL_WAIT_MS;
        /* fall through */
    case RUNNER_STOP_KILL:
        return TAILQ_EMPTY(&runner_g.workers) || runner_g.now >= runner_g.stop_deadline;
    }
    return 0;
}

static void on_signals(void)
{
    unsigned char b[64];
    ssize_t n;
    int chld = 0;
    while ((n = read(runner_g.ev_sig.fd, b, sizeof(b))) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (b[i] == SIGCHLD)
                chld = 1;
            else if (b[i] == SIGTERM || b[i] == SIGINT)
                stop_begin();
            else if (b[i] == SIGHUP && runner_g.stop == RUNNER_RUN)
                runner_reload();
        }
    }
    if (chld)
        reap();
}

static int next_timeout(void)
{
    uint64_t dl = 0;
    runner_worker *w;
    runner_pool *p;
    if (!TAILQ_EMPTY(&runner_g.kicks))
        return 0;
    if (runner_g.listen_resume)
        dl = runner_g.listen_resume;
    if (runner_g.stop != RUNNER_RUN && (!dl || runner_g.stop_deadline < dl))
        dl = runner_g.stop_deadline;
    TAILQ_FOREACH(w, &runner_g.workers, glink)
        if (w->deadline && (!dl || w->deadline < dl))
            dl = w->deadline;
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (p->deadline && (!dl || p->deadline < dl))
            dl = p->deadline;
    if (!dl)
        return -1;
    uint64_t now = runner_now_ms();
    return dl <= now ? 0 : (int)(dl - now > 60000 ? 60000 : dl - now);
}

static void run_deadlines(void)
{
    runner_worker *w, *wn;
    if (runner_g.listen_resume && runner_g.now >= runner_g.listen_resume) {
        runner_g.listen_resume = 0;
        runner_ev_watch(&runner_g.ev_listen, EPOLLIN);
    }
    for (w = TAILQ_FIRST(&runner_g.workers); w; w = wn) {
        wn = TAILQ_NEXT(w, glink);
        if (w->deadline && runner_g.now >= w->deadline)
            runner_worker_deadline(w);
    }
    /* Pools are only freed by runner_pool_gc, never in a timer. */
    runner_pool *p;
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (p->deadline && runner_g.now >= p->deadline)
            runner_pool_timer(p);
}

static void run_kicks(void)
{
    runner_client *c;
    while ((c = TAILQ_FIRST(&runner_g.kicks))) {
        TAILQ_REMOVE(&runner_g.kicks, c, klink);
        c->kicked = 0;
        runner_client_run(c);
    }
}

static void bury(void)
{
    runner_client *c;
    runner_worker *w;
    while ((c = TAILQ_FIRST(&runner_g.dead_clients))) {
        TAILQ_REMOVE(&runner_g.dead_clients, c, link);
        runner_buf_free(&c->out);
        free(c->in);
        free(c);
    }
    while ((w = TAILQ_FIRST(&runner_g.dead_workers))) {
        TAILQ_REMOVE(&runner_g.dead_workers, w, glink);
        runner_worker_free(w);
    }
}

int runner_loop_run(void)
{
    struct epoll_event evs[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(runner_g.epfd, evs, MAX_EVENTS, next_timeout());
        if (n < 0 && errno != EINTR) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2052) "epoll_wait: %s", strerror(errno));
            return -1;
        }
        runner_g.now = runner_now_ms();
        /* Deploy events first: a request httpd sent after it saw the new
         * file meets the rolled-over pool (its event was queued before the
         * request was written; a full batch may have left it out). */
        int watched = n == MAX_EVENTS;
        for (int i = 0; i < n && !watched; i++)
            watched = ((runner_ev *)evs[i].data.ptr)->kind == RUNNER_EV_WATCH;
        if (watched)
            runner_pool_watch_event();
        for (int i = 0; i < n; i++) {
            runner_ev *ev = evs[i].data.ptr;
            if (ev->fd < 0) /* closed earlier in this turn */
                continue;
            switch (ev->kind) {
            case RUNNER_EV_WATCH:
                break;
            case RUNNER_EV_SIGNAL:
                on_signals();
                break;
            case RUNNER_EV_LISTEN:
                runner_client_accept(ev->fd);
                break;
            case RUNNER_EV_CLIENT:
                runner_client_event(ev->obj, evs[i].events);
                break;
            default:
                runner_worker_event(ev, evs[i].events);
                break;
            }
        }
        run_kicks();
        run_deadlines();
        run_kicks();
        int done = stop_progress();
        runner_pool_gc();
        bury();
        if (done)
            return 0;
    }
}

void runner_loop_fini(void)
{
    runner_client_close_all();
    runner_pool_free_all();
    bury();
    runner_watch_fini();
    runner_ev_close(&runner_g.ev_listen);
    runner_ev_close(&runner_g.ev_sig);
    if (runner_g.sig_w >= 0)
        close(runner_g.sig_w);
    if (runner_g.epfd >= 0)
        close(runner_g.epfd);
}
