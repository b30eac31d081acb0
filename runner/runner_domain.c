/* runner_domain.c: one Landlock domain for all the processes of a pool.
 * Where Landlock scopes signals (ABI 6), a domain of each process's own
 * kept a script from signalling even its own script's other runs: fossil
 * checks its backoffice process, started by an earlier request, with
 * kill(pid, 0), and under that scope each request started another. A
 * thread of the runner per pool enters a domain that scopes signals and
 * nothing else, and forks the pool's processes: they signal each other,
 * nothing outside the pool. Each child then enters a domain of its own
 * without the signal scope (runner_spawn.c), for ptrace and /proc. A
 * thread rather than a process: its fork sees the runner's memory as it
 * is, so a spawn's spec needs no packing, and its children are the
 * runner's to reap. The thread runs as root; a script (another uid) can
 * neither signal nor trace it. */
#include "runner_types.h" /* _GNU_SOURCE */
#include "runner_domain.h"
#include "runner_ctx.h"
#include "runner_landlock.h"
#include "runner_log.h"
#include "runner_spawn.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define DOMAIN_STACK (256 * 1024) /* the child runs on a copy until exec */

enum { RUNNER_D_STARTING, RUNNER_D_READY, RUNNER_D_FAILED, RUNNER_D_STOP };

/* One pool's domain and the thread holding it. Made by the pool's first
 * spawn, owned by the pool (runner_pool, runner_ws_pool), freed with it.
 * spec/pid/err are the one spawn asked for at a time: the loop waits for
 * its answer. */
struct runner_domain {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;
    int joinable;
    const struct runner_spawn_spec *spec; /* asked for; NULL: none */
    pid_t pid;
    int err;
    cpu_set_t cpus;                       /* the runner's, read once: for the fork */
    int has_cpus;
};

static void *holder(void *arg)
{
    runner_domain *d = arg;
    int ok = runner_landlock_enter_signals() == 0, err = errno;

    pthread_mutex_lock(&d->mu);
    d->state = ok ? RUNNER_D_READY : RUNNER_D_FAILED;
    d->err = ok ? 0 : err;
    pthread_cond_broadcast(&d->cv);
    while (ok) {
        while (!d->spec && d->state != RUNNER_D_STOP)
            pthread_cond_wait(&d->cv, &d->mu);
        if (d->state == RUNNER_D_STOP)
            break;
        const struct runner_spawn_spec *s = d->spec;
        pthread_mutex_unlock(&d->mu); /* no lock held across fork */
        if (d->has_cpus)
            (void)sched_setaffinity(0, sizeof(d->cpus), &d->cpus);
        pid_t pid = runner_spawn_here(s, 0);
        err = errno;
        pthread_mutex_lock(&d->mu);
        d->pid = pid;
        d->err = err;
        d->spec = NULL;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* A new domain and its thread (all signals blocked: they are the loop's);
 * state RUNNER_D_FAILED, without a thread, where Landlock refused it. */
static runner_domain *domain_new(void)
{
    runner_domain *d = calloc(1, sizeof(*d));
    pthread_attr_t attr;
    sigset_t all, old;
    int rc;

    if (!d)
        return NULL;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    d->has_cpus = sched_getaffinity(0, sizeof(d->cpus), &d->cpus) == 0;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, DOMAIN_STACK);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&d->thread, &attr, holder, d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc) {
        d->state = RUNNER_D_FAILED;
        d->err = rc;
        return d;
    }
    d->joinable = 1;
    pthread_mutex_lock(&d->mu);
    while (d->state == RUNNER_D_STARTING)
        pthread_cond_wait(&d->cv, &d->mu);
    pthread_mutex_unlock(&d->mu);
    if (d->state == RUNNER_D_FAILED) {
        pthread_join(d->thread, NULL);
        d->joinable = 0;
    }
    return d;
}

pid_t runner_domain_spawn(runner_domain **slot, const struct runner_spawn_spec *s)
{
    runner_domain *d = *slot;
    pid_t pid;

    if (!runner_g.is_root || !runner_landlock_scopes_signals()) {
        errno = EOPNOTSUPP;
        return -1;
    }
    if (!d) {
        if (!(d = *slot = domain_new()))
            return -1; /* ENOMEM: tried again at the next spawn */
        if (d->state == RUNNER_D_FAILED)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(3660) "cannot make the Landlock domain "
                       "of the pool of %s (%s): each of its processes gets one of its own, "
                       "and they cannot signal each other", s->path, strerror(d->err));
    }
    if (d->state == RUNNER_D_FAILED) {
        errno = EOPNOTSUPP;
        return -1;
    }
    /* The loop and the thread meet on the loop's CPU for the hand-over:
     * woken on the other, idle one, each costs a virtual CPU's halt and
     * wake (about 70 us each on the 2-vCPU VMs of bench/, where a CGI
     * run's fork is 100 us). The thread forks with the runner's CPUs. */
    cpu_set_t one;
    int cpu = sched_getcpu(), pinned = 0;
    if (cpu >= 0 && d->has_cpus) {
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pinned = pthread_setaffinity_np(d->thread, sizeof(one), &one) == 0 &&
                 sched_setaffinity(0, sizeof(one), &one) == 0;
    }
    pthread_mutex_lock(&d->mu);
    d->spec = s;
    pthread_cond_broadcast(&d->cv);
    while (d->spec)
        pthread_cond_wait(&d->cv, &d->mu);
    pid = d->pid;
    int err = d->err;
    pthread_mutex_unlock(&d->mu);
    if (pinned)
        (void)sched_setaffinity(0, sizeof(d->cpus), &d->cpus);
    errno = err;
    return pid;
}

void runner_domain_free(runner_domain **slot)
{
    runner_domain *d = *slot;

    if (!d)
        return;
    if (d->joinable) {
        pthread_mutex_lock(&d->mu);
        d->state = RUNNER_D_STOP;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->thread, NULL);
    }
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
    *slot = NULL;
}
