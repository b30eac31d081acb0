/* cgp_defaults.h: defaults the module and the runner compute alike (the
 * module to word its warnings, the runner to resolve a pool's settings). */
#ifndef CGP_DEFAULTS_H
#define CGP_DEFAULTS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <unistd.h>

/* CGIplusMaxWorkers when not set (docs/RUNNER.md, "How many workers"):
 * 4 a CPU, at least 8 and at most 64, and never more than httpd can have
 * requests at once (threads, its MaxRequestWorkers; 0: unknown) nor than
 * CGIplusMaxWorkersTotal (total, 0: none). */
#define CGP_WORKERS_PER_CPU 4u
#define CGP_WORKERS_MIN     8u
#define CGP_WORKERS_MAX     64u

static inline unsigned cgp_default_max_workers(unsigned cpus, unsigned threads, unsigned total)
{
    unsigned n = cpus > CGP_WORKERS_MAX ? CGP_WORKERS_MAX : cpus * CGP_WORKERS_PER_CPU;

    n = n < CGP_WORKERS_MIN ? CGP_WORKERS_MIN : n > CGP_WORKERS_MAX ? CGP_WORKERS_MAX : n;
    if (threads && n > threads)
        n = threads;
    if (total && n > total)
        n = total;
    return n ? n : 1;
}

/* The CPUs this process may run on (what nproc says). */
static inline unsigned cgp_cpus(void)
{
    cpu_set_t set;
    long n;

    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

#endif
