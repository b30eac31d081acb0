/* runner_twait.h: the runner's side of the table's queue (runner_twait.c,
 * include/cgp_twait.h). A leaf below the pool and the request: it moves
 * tickets and slots in the table and says what happened; handing a worker
 * to one of the runner's own requests is the pool's (runner_pool.c). */
#ifndef RUNNER_TWAIT_H
#define RUNNER_TWAIT_H

#include "runner_types.h"

/* r waits: a ticket after every request already waiting (children's
 * too). 0, or -1 if the queue is full (CGIplusQueueDepth). */
int runner_twait_enqueue(runner_req *r);
/* The request of the runner's that holds ticket t of p's queue, or NULL. */
runner_req *runner_twait_holder(runner_pool *p, uint32_t t);
/* r no longer waits; a worker handed to its ticket meanwhile comes back
 * to the runner (its pool's pass_owed). */
void runner_twait_leave(runner_req *r);
/* w (served, clean, idle, its slot the runner's) goes to the oldest
 * ticket (cgp_tq_pass), or IDLE for anyone; a pool without a ring
 * publishes it. CGP_TQ_TO_RUNNER: a ticket of the runner's has it, *ticket. */
int runner_twait_offer(runner_worker *w, uint32_t *ticket);
/* The worker offered to ticket t of the runner's comes back to it (nobody
 * of ours holds t): 1 if it did. */
int runner_twait_take_back(runner_pool *p, uint32_t t);
/* r's ticket was handed a worker: it becomes r's, granted to r's httpd
 * child (grant_pid) or, 0, the runner's to relay on. The worker, or NULL
 * (the offer was gone: r waits again, last). */
runner_worker *runner_twait_accept(runner_req *r, uint32_t grant_pid);
/* 1 if a worker was handed to r's ticket (a child passed it one). */
int runner_twait_handed(const runner_req *r);
/* 1 if requests of httpd children wait in the pool's queue. */
int runner_twait_children(runner_pool *p);
/* Asks the oldest such request to come through the runner (RELAY): 1 if
 * one was asked. */
int runner_twait_convert(runner_pool *p);
/* The pool's GROW flag: we may start workers (a request that finds none
 * idle comes to us; one that waits tells us); FULL: it has max_workers.
 * 1 if GROW was newly set. */
int runner_twait_flags(runner_pool *p, int grow, int full);
/* The waiters' KICK was seen: the next one tells us again. */
void runner_twait_looked(runner_pool *p);
/* Requests waiting now (children's and ours), and the most at once. */
unsigned runner_twait_depth(const runner_pool *p, unsigned *max);
/* Times a first waiter found the pool at max_workers (max reached). */
unsigned long runner_twait_reached(const runner_pool *p);
/* httpd child pid is gone: its tickets leave, workers handed to them and
 * offers it did not finish go to the next waiter (tickets of ours are
 * handed theirs: the pool gives them, runner_pool_child_gone). */
void runner_twait_child_gone(pid_t pid);

#endif
