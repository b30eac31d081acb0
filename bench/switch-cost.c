/* bench/switch-cost: what one wake-up of another task costs on this
 * machine, between two threads of one process (httpd's threads, the
 * in-process handler) and between two processes (httpd and a worker, any
 * out-of-process design): a one-byte ping-pong over two pipes, the round
 * trip's time in microseconds: the two tasks free to move, on one CPU, on
 * two (the echo on CPU 1: every wake-up crosses, to a CPU that may be idle).
 *
 *     cc -O2 -pthread -o switch-cost bench/switch-cost.c && ./switch-cost [ROUNDS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The two pipes of one run; the parent's stack, for the run. */
struct pingpong {
    int there[2], back[2];
    long rounds;
    int pin;
};

static void pin_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void *echo(void *arg)
{
    struct pingpong *pp = arg;
    char c;
    if (pp->pin)
        pin_cpu(pp->pin - 1);
    for (long i = 0; i < pp->rounds; i++)
        if (read(pp->there[0], &c, 1) != 1 || write(pp->back[1], &c, 1) != 1)
            break;
    return NULL;
}

static double run(int procs, int pin, long rounds)
{
    struct pingpong pp = { .rounds = rounds, .pin = pin };
    struct timespec t0, t1;
    pthread_t th;
    pid_t pid = -1;
    char c = 'x';
    if (pipe(pp.there) || pipe(pp.back))
        return -1;
    if (procs) {
        if ((pid = fork()) == 0) {
            echo(&pp);
            _exit(0);
        }
    } else if (pthread_create(&th, NULL, echo, &pp)) {
        return -1;
    }
    if (pin)
        pin_cpu(0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < rounds; i++)
        if (write(pp.there[1], &c, 1) != 1 || read(pp.back[0], &c, 1) != 1)
            break;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (procs)
        waitpid(pid, NULL, 0);
    else
        pthread_join(th, NULL);
    for (int i = 0; i < 2; i++) {
        close(pp.there[i]);
        close(pp.back[i]);
    }
    return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / rounds;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    printf("round trip, us (median of 3, %ld rounds each)\n", rounds);
    static const char *where[] = { "free", "one CPU", "two CPUs" };
    /* Free runs first: a pinned run pins the parent and never unpins it. */
    for (int pin = 0; pin <= 2; pin++) {
        for (int procs = 0; procs <= 1; procs++) {
            double r[3];
            for (int k = 0; k < 3; k++)
                r[k] = run(procs, pin, rounds);
            for (int a = 0; a < 2; a++) /* sort three */
                for (int b = 0; b < 2 - a; b++)
                    if (r[b] > r[b + 1]) {
                        double t = r[b];
                        r[b] = r[b + 1];
                        r[b + 1] = t;
                    }
            printf("%-9s %-11s %8.2f\n", procs ? "processes" : "threads",
                   where[pin], r[1]);
        }
    }
    return 0;
}
