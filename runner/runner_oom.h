/* runner_oom.h: the OOM killer takes a worker first (runner_oom.c). */
#ifndef RUNNER_OOM_H
#define RUNNER_OOM_H

/* What a worker's oom_score_adj is raised to (docs/RUNNER.md, Security). */
#define RUNNER_OOM_ADJ 500

/* In a child before exec: raises the calling process's oom_score_adj to
 * RUNNER_OOM_ADJ unless already higher. Best effort (no /proc: nothing). */
void runner_oom_prefer(void);

#endif
