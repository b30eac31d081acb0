/* runner_seccomp.h: the seccomp filter of a root runner's workers
 * (runner_seccomp.c). */
#ifndef RUNNER_SECCOMP_H
#define RUNNER_SECCOMP_H

/* At start: 0 if a child of the runner can install the filter (the
 * kernel has seccomp filters; root's CAP_SYS_ADMIN or no_new_privs), -1
 * with errno if not: then runner_seccomp_confine does nothing. */
int runner_seccomp_probe(void);
/* In a spawned child, as root before the user switch: from now on this
 * process and its children may change the resource limits, priority and
 * scheduling of themselves only. 0, or -1 with errno (the filter was
 * refused: the spawn fails rather than run a script without it). */
int runner_seccomp_confine(void);

#endif
