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
 * own. 0, or -1 with errno. */
int runner_landlock_enter(void);

#endif
