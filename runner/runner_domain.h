/* runner_domain.h: the Landlock domain a pool's processes share, and the
 * thread that forks them in it (runner_domain.c). */
#ifndef RUNNER_DOMAIN_H
#define RUNNER_DOMAIN_H

#include <sys/types.h>

struct runner_spawn_spec;
typedef struct runner_domain runner_domain;

/* Forks s's process in the domain *slot names, made at the first spawn
 * (a root runner on Landlock ABI 6 only). -1 with errno EOPNOTSUPP where
 * there is none to be had: the caller forks it itself. Else
 * runner_spawn's answer. */
pid_t runner_domain_spawn(runner_domain **slot, const struct runner_spawn_spec *s);
/* When its pool is freed, every process it forked reaped (a child's
 * PR_SET_PDEATHSIG follows the thread that forked it). */
void runner_domain_free(runner_domain **slot);

#endif
