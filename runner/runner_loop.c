/* runner_loop.c: the one epoll loop: each event goes to the handler its
 * descriptor carries, signals through a self-pipe, one deadline (the
 * nearest of the rooms') as the epoll_wait timeout, deferred runs, and the
 * stop sequence. The rooms (runner_loop.h) are the only way in: the loop
 * calls no client, pool or worker code by name. */
#include "runner_loop.h"
#include "runner_ctx.h"
#include "runner_log.h"
#include "runner_notify.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 64
#define MAX_ROOMS 8

#define LIST(f) .f = TAILQ_HEAD_INITIALIZER(runner_g.f)
runner_ctx runner_g = { LIST(clients), LIST(dead_clients), LIST(unauth), LIST(pools),
                        LIST(slot_waiters), LIST(owed), LIST(workers), LIST(dead_workers) };
#undef LIST

/* The loop's own state; for the runner's life. */
static struct {
    int epfd;
    runner_ev ev_sig;         /* the self-pipe's read end */
    int sig_w;                /* its write end */
    runner_ev *early;         /* runner_ev_early */
    TAILQ_HEAD(, runner_ev) deferred;
    const runner_room *rooms[MAX_ROOMS];
    unsigned nrooms;
} lp = { .epfd = -1, .ev_sig = { .fd = -1 }, .sig_w = -1 };

#define EACH_ROOM(r, hook) \
    for (unsigned i_ = 0; i_ < lp.nrooms; i_++) \
        if ((r = lp.rooms[i_])->hook)

uint64_t runner_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void runner_ev_init(runner_ev *ev, runner_ev_fn *fn, int fd, void *obj)
{
    ev->fn = fn;
    ev->fd = fd;
    ev->mask = 0;
    ev->obj = obj;
    ev->deferred = 0;
}

int runner_ev_watch(runner_ev *ev, uint32_t mask)
{
    if (ev->fd < 0 || mask == ev->mask)
        return 0;
    struct epoll_event e = { .events = mask, .data.ptr = ev };
    int op = ev->mask == 0 ? EPOLL_CTL_ADD : mask == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    if (epoll_ctl(lp.epfd, op, ev->fd, &e) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2045) "epoll_ctl(%d, fd %d): %s", op, ev->fd,
                   strerror(errno));
        return -1;
    }
    ev->mask = mask;
    return 0;
}

void runner_ev_close(runner_ev *ev)
{
    if (ev->deferred) {
        TAILQ_REMOVE(&lp.deferred, ev, dlink);
        ev->deferred = 0;
    }
    if (ev == lp.early)
        lp.early = NULL;
    if (ev->fd < 0)
        return;
    /* Explicit DEL: a forked child may still share the file description. */
    if (ev->mask)
        epoll_ctl(lp.epfd, EPOLL_CTL_DEL, ev->fd, NULL);
    close(ev->fd);
    ev->fd = -1;
    ev->mask = 0;
}

void runner_ev_defer(runner_ev *ev)
{
    if (ev->deferred || ev->fd < 0)
        return;
    ev->deferred = 1;
    TAILQ_INSERT_TAIL(&lp.deferred, ev, dlink);
}

void runner_ev_early(runner_ev *ev)
{
    lp.early = ev;
}

void runner_loop_room(const runner_room *room)
{
    if (lp.nrooms < MAX_ROOMS)
        lp.rooms[lp.nrooms++] = room;
}

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t n = write(lp.sig_w, &b, 1);
    (void)n;
    errno = saved;
}

static void on_signals(runner_ev *ev, uint32_t events);

int runner_loop_init(void)
{
    int sp[2];
    struct sigaction sa;

    TAILQ_INIT(&lp.deferred);
    runner_g.now = runner_g.started = runner_now_ms();
    if ((lp.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2046) "cannot set up the event loop: %s",
                   strerror(errno));
        return -1;
    }
    lp.sig_w = sp[1];
    runner_ev_init(&lp.ev_sig, on_signals, sp[0], NULL);

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

    return runner_ev_watch(&lp.ev_sig, EPOLLIN);
}

static void reap(void)
{
    const runner_room *r;
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        int mine = 0;
        EACH_ROOM(r, reaped)
            if ((mine = r->reaped(pid, st)))
                break;
        if (!mine)
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2047) "reaped unknown child %ld",
                       (long)pid);
    }
}

static unsigned busy_all(void)
{
    const runner_room *r;
    unsigned n = 0;
    EACH_ROOM(r, busy)
        n += r->busy();
    return n;
}

static unsigned live_all(void)
{
    const runner_room *r;
    unsigned n = 0;
    EACH_ROOM(r, live)
        n += r->live();
    return n;
}

static void signal_all(int sig)
{
    const runner_room *r;
    EACH_ROOM(r, signal)
        r->signal(sig);
}

static void stop_begin(void)
{
    const runner_room *r;
    if (runner_g.stop != RUNNER_RUN) {
        /* A second stop signal: skip the grace period. */
        if (runner_g.stop == RUNNER_STOP_DRAIN)
            runner_g.stop_deadline = runner_g.now;
        return;
    }
    runner_notify("STOPPING=1");
    unsigned busy = busy_all();
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2048) "stopping: %u busy worker%s %s %u s to "
               "finish", busy, CGIPLUS_S(busy), busy == 1 ? "gets" : "get",
               RUNNER_STOP_GRACE_MS / 1000);
    runner_g.stop = RUNNER_STOP_DRAIN;
    runner_g.stop_deadline = runner_g.now + RUNNER_STOP_GRACE_MS;
    EACH_ROOM(r, stop)
        r->stop();
}

/* Moves the stop sequence on; 1 when the runner may exit. */
static int stop_progress(void)
{
    unsigned busy;
    switch (runner_g.stop) {
    case RUNNER_RUN:
        return 0;
    case RUNNER_STOP_DRAIN:
        busy = busy_all();
        if (busy && runner_g.now < runner_g.stop_deadline)
            return 0;
        if (busy)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2049) "%u worker%s still busy; terminating "
                       "%s", busy, CGIPLUS_S(busy), busy == 1 ? "it" : "them");
        signal_all(SIGTERM);
        runner_g.stop = RUNNER_STOP_TERM;
        runner_g.stop_deadline = runner_g.now + runner_g.conf.v[CGP_S_KILL_GRACE];
        /* fall through */
    case RUNNER_STOP_TERM:
        if (!live_all())
            return 1;
        if (runner_g.now < runner_g.stop_deadline)
            return 0;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2050) "workers ignored SIGTERM; killing them");
        signal_all(SIGKILL);
        runner_g.stop = RUNNER_STOP_KILL;
        runner_g.stop_deadline = runner_g.now + RUNNER_KILL_WAIT_MS;
        /* fall through */
    case RUNNER_STOP_KILL:
        return !live_all() || runner_g.now >= runner_g.stop_deadline;
    }
    return 0;
}

static void on_signals(runner_ev *ev, uint32_t events)
{
    const runner_room *r;
    unsigned char b[64];
    ssize_t n;
    int chld = 0;
    while ((n = read(ev->fd, b, sizeof(b))) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (b[i] == SIGCHLD)
                chld = 1;
            else if (b[i] == SIGTERM || b[i] == SIGINT)
                stop_begin();
            else if (b[i] == SIGHUP && runner_g.stop == RUNNER_RUN)
                EACH_ROOM(r, reload)
                    r->reload();
        }
    }
    if (chld)
        reap();
}

static int next_timeout(void)
{
    const runner_room *r;
    uint64_t dl = 0;
    if (!TAILQ_EMPTY(&lp.deferred))
        return 0;
    if (runner_g.stop != RUNNER_RUN)
        dl = runner_g.stop_deadline;
    EACH_ROOM(r, deadline) {
        uint64_t t = r->deadline();
        if (t && (!dl || t < dl))
            dl = t;
    }
    if (!dl)
        return -1;
    uint64_t now = runner_now_ms();
    return dl <= now ? 0 : (int)(dl - now > 60000 ? 60000 : dl - now);
}

static void run_timers(void)
{
    const runner_room *r;
    EACH_ROOM(r, timers)
        r->timers();
}

static void run_deferred(void)
{
    runner_ev *ev;
    while ((ev = TAILQ_FIRST(&lp.deferred))) {
        TAILQ_REMOVE(&lp.deferred, ev, dlink);
        ev->deferred = 0;
        ev->fn(ev, 0);
    }
}

int runner_loop_run(void)
{
    struct epoll_event evs[MAX_EVENTS];
    const runner_room *r;
    for (;;) {
        int n = epoll_wait(lp.epfd, evs, MAX_EVENTS, next_timeout());
        if (n < 0 && errno != EINTR) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2052) "epoll_wait: %s", strerror(errno));
            return -1;
        }
        runner_g.now = runner_now_ms();
        /* The early descriptor first (a full batch may have left it out). */
        runner_ev *early = lp.early;
        uint32_t early_events = n == MAX_EVENTS ? EPOLLIN : 0;
        for (int i = 0; i < n && early; i++)
            if (evs[i].data.ptr == early)
                early_events = evs[i].events;
        if (early && early_events)
            early->fn(early, early_events);
        for (int i = 0; i < n; i++) {
            runner_ev *ev = evs[i].data.ptr;
            if (ev->fd < 0 || ev == early) /* closed earlier in this turn; handled */
                continue;
            ev->fn(ev, evs[i].events);
        }
        run_deferred();
        run_timers();
        run_deferred();
        int done = stop_progress();
        EACH_ROOM(r, turn_end)
            r->turn_end();
        if (done)
            return 0;
    }
}

void runner_loop_fini(void)
{
    const runner_room *r;
    EACH_ROOM(r, fini)
        r->fini();
    runner_ev_close(&lp.ev_sig);
    if (lp.sig_w >= 0)
        close(lp.sig_w);
    if (lp.epfd >= 0)
        close(lp.epfd);
    lp.epfd = lp.sig_w = -1;
}
