/* runner_landlock.h: the Landlock domain of a root runner's workers
 * (runner_landlock.c; docs/RUNNER.md, "Another pool"). */
#ifndef RUNNER_LANDLOCK_H
#define RUNNER_LANDLOCK_H

/* At start: the kernel's Landlock ABI (>= 2), -1 with errno where there
 * is none, or only ABI 1 (EOPNOTSUPP): then no domain is made. */
int runner_landlock_probe(void);
/* 1 when the domains also scope signals (ABI 6, Linux 6.12). */
int runner_landlock_scopes_signals(void);
/* In a spawned child, as root before the user switch (CAP_SYS_ADMIN: no
 * no_new_privs, so set-uid programs still work): enters a domain of its
 * own, which scopes signals if scope_signals (and ABI 6): a child forked
 * in its pool's domain (runner_domain.c) leaves them to that. 0, or -1
 * with errno. */
int runner_landlock_enter(int scope_signals);
/* In a pool's domain thread (runner_domain.c), ABI 6 only: enters a
 * domain that scopes signals and nothing else. 0, or -1 with errno. */
int runner_landlock_enter_signals(void);

#endif
