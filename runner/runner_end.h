/* runner_end.h: why a worker ended, and the ends a pool keeps for the
 * status page. */
#ifndef RUNNER_END_H
#define RUNNER_END_H

#include "runner_types.h"

#define RUNNER_ENDS_KEPT        16u     /* recent worker ends kept per pool for the status page */

/* Why a worker ended. NONE until the runner decides to stop it; a worker
 * that ends by itself becomes EXITED or CRASHED when reaped. */
typedef enum runner_wend {
    RUNNER_END_NONE, RUNNER_END_IDLE, RUNNER_END_LIFETIME, RUNNER_END_MAX_REQUESTS,
    RUNNER_END_TIMEOUT, RUNNER_END_ABORTED, RUNNER_END_DEPLOY, RUNNER_END_RELOAD, RUNNER_END_RETIRED,
    RUNNER_END_EVICTED, RUNNER_END_SHUTDOWN, RUNNER_END_BROKEN, RUNNER_END_EXEC_FAILED,
    RUNNER_END_EXITED, RUNNER_END_CRASHED, RUNNER_END_N_
} runner_wend;
const char *runner_wend_name(runner_wend e);

/* One ended worker, kept for the status page. */
typedef struct runner_ended {
    long pid;
    runner_wend why;
    int status;               /* wait status */
    unsigned long served;
    uint64_t at;              /* monotonic ms */
} runner_ended;

#endif
