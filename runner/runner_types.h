/* runner_types.h: what every runner header starts from. The core objects
 * (client, request, pool, worker) are named here only as opaque types, so a
 * leaf file can pass one along without seeing inside; each is defined in
 * its own header (runner_client.h, runner_req.h, runner_pool.h,
 * runner_worker.h). */
#ifndef RUNNER_TYPES_H
#define RUNNER_TYPES_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

typedef struct runner_client runner_client;
typedef struct runner_req runner_req;
typedef struct runner_pool runner_pool;
typedef struct runner_worker runner_worker;
typedef struct runner_wkind runner_wkind;   /* a kind of worker's operations */
typedef struct runner_wowner runner_wowner; /* what a worker tells its pool */

TAILQ_HEAD(runner_client_list, runner_client);
TAILQ_HEAD(runner_req_list, runner_req);
TAILQ_HEAD(runner_pool_list, runner_pool);
TAILQ_HEAD(runner_worker_list, runner_worker);

#endif
