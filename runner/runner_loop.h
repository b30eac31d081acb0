/* runner_loop.h: the one epoll loop (runner_loop.c). It knows descriptors
 * and rooms, nothing of clients, pools or workers: each watched
 * descriptor carries its handler, and each part of the runner (a room)
 * hands the loop its timers, its processes and its share of the stop
 * sequence as hooks. Signals arrive through a self-pipe. */
#ifndef RUNNER_LOOP_H
#define RUNNER_LOOP_H

#include "runner_types.h"

#define RUNNER_STOP_GRACE_MS    5000u   /* busy workers finish their request */
#define RUNNER_KILL_WAIT_MS     1000u   /* SIGKILL, then exit anyway */
/* From ending a FastCGI worker's kept connection to its SIGTERM: time to
 * be back in accept(), where the signal interrupts it (runner_worker_break) */
#define RUNNER_TERM_AFTER_CLOSE_MS 100u
/* Then, while the worker says it is not there yet (kind->term_ready), the
 * signal is looked at again this often, for at most this long. */
#define RUNNER_TERM_LOOK_MS     20u
#define RUNNER_TERM_WAIT_MAX_MS 1000u

typedef struct runner_ev runner_ev;
/* What a descriptor's events mean to its owner; events are epoll's, 0 for
 * a deferred run (runner_ev_defer). */
typedef void runner_ev_fn(runner_ev *ev, uint32_t events);

/* One watched descriptor, embedded in its owner and living as long as it.
 * Registered in epoll exactly when mask != 0; fd -1 once closed. */
struct runner_ev {
    runner_ev_fn *fn;         /* its handler */
    int fd;
    uint32_t mask;
    void *obj;                /* its owner, for the handler */
    int deferred;             /* in the loop's deferred list */
    TAILQ_ENTRY(runner_ev) dlink;
};

void runner_ev_init(runner_ev *ev, runner_ev_fn *fn, int fd, void *obj);
int runner_ev_watch(runner_ev *ev, uint32_t mask);
void runner_ev_close(runner_ev *ev);
/* Runs ev's handler with events 0 once this turn's events are handled
 * (and again after its timers): work an owner postpones, such as a
 * connection's next frames once its request ended. */
void runner_ev_defer(runner_ev *ev);
/* ev is handled before the other events of each turn, and whenever a
 * turn's batch is full (it may have been left out): the deploy watch, so a
 * request sent after a file changed meets the rolled-over pool. */
void runner_ev_early(runner_ev *ev);

/* A part of the runner the loop serves without knowing it. Every hook may
 * be NULL; rooms are registered once at start (runner_loop_room) and run
 * in that order. */
typedef struct runner_room {
    const char *name;
    uint64_t (*deadline)(void);   /* its nearest timer (monotonic ms), 0: none */
    void (*timers)(void);         /* runs what is due */
    int (*reaped)(pid_t pid, int status); /* 1: the process was one of its */
    void (*reload)(void);         /* SIGHUP */
    void (*stop)(void);           /* the runner begins to stop: no new work */
    unsigned (*busy)(void);       /* requests that get RUNNER_STOP_GRACE_MS to finish */
    unsigned (*live)(void);       /* its processes: the stop waits for them */
    void (*signal)(int sig);      /* to each of them */
    void (*turn_end)(void);       /* after a turn's events and timers: what closed is freed */
    void (*fini)(void);           /* at exit */
} runner_room;

void runner_loop_room(const runner_room *room);
int runner_loop_init(void);
int runner_loop_run(void);
void runner_loop_fini(void);

#endif
