/* runner_table.h: the runner's side of the direct path's shared table
 * (runner_table.c, include/cgp_table.h): what is read and written there,
 * and the moves of a worker's slot, each one step of cgp_tnext() (the
 * worker's own accessors are in runner_worker.h). A leaf: it calls no
 * pool, worker or client code. */
#ifndef RUNNER_TABLE_H
#define RUNNER_TABLE_H

#include "runner_types.h"
#include "runner_buf.h"
#include "cgp_table.h"

/* One script of an engine pool, as the status page shows it (its path,
 * "..." and its tail if longer than an entry holds). */
typedef struct runner_st_script {
    char name[CGP_TSCRIPT_NAME + 4];
    uint64_t requests;
} runner_st_script;

int runner_table_init(void);
/* A new pool's entry; without room it is relayed only (2501). */
void runner_table_pool_add(runner_pool *p);
/* An entry for p, relayed only so far: 1 if it got one. */
int runner_table_pool_attach(runner_pool *p);
void runner_table_pool_del(runner_pool *p);
void runner_table_pool_sync(runner_pool *p);
void runner_table_pool_used(runner_pool *p);
unsigned long runner_table_pool_served(const runner_pool *p);
void runner_table_pool_counts(const runner_pool *p, unsigned long *requests,
                              unsigned long *outcomes, unsigned nout);
/* A relayed request (params: its PARAMS) counted for its script in the
 * table's script entries if its pool is an engine's (the request's
 * SCRIPT_FILENAME is not the pool's program) and has an entry. */
void runner_table_script_add(runner_pool *p, const runner_buf *params);
/* The named script entries of p with requests, at most max, and the
 * requests past them (*other); how many. */
unsigned runner_table_pool_scripts(const runner_pool *p, runner_st_script *out, unsigned max,
                                   unsigned long *other);
/* The direct path's share of the status page's numbers, added to (max_active:
 * replacing, slow: added, last_used: the later of) the runner's own. */
void runner_table_pool_status(const runner_pool *p, unsigned long *max_active,
                              unsigned long *slow, uint64_t *last_used);
/* Adds delta to the pool's busy workers in the table (the children's and
 * the runner's) and keeps its peak there; 0 if the pool has no entry. */
int runner_table_busy(runner_pool *p, int delta);
runner_pool *runner_table_pool_at(uint32_t idx, uint32_t gen);
void runner_table_pool_ref(const runner_pool *p, uint32_t *idx, uint32_t *gen);
/* A new worker fills a free slot of its pool's block (FILL: held by the
 * runner, a new generation); a reaped one's slot is DEAD (REAP). */
void runner_table_slot_take(runner_worker *w);
/* 1 if it died in a child's request (CHILD, or RETURNED closed). */
int runner_table_slot_dead(runner_worker *w);
/* The runner's moves of a worker's slot: 1 if the CAS took. */
/* Its release time, for its idle age. */
void runner_table_slot_stamp(runner_worker *w, uint64_t last_ms);
int runner_table_slot_publish(runner_worker *w);             /* RUNNER -> IDLE */
int runner_table_slot_grant(runner_worker *w, pid_t pid);    /* IDLE -> CHILD(pid) */
/* RETURNED -> RUNNER (holder 0), or a dead child's CHILD(holder) -> RUNNER. */
int runner_table_slot_take_back(runner_worker *w, pid_t holder);
int runner_table_slot_idle(const runner_worker *w);      /* IDLE: nobody holds it */
int runner_table_slot_returned(const runner_worker *w);  /* RETURNED: handed back */
/* Clears mask in the slot's flags: the flags before; *drain_ms its bound. */
uint32_t runner_table_slot_flags_take(runner_worker *w, uint32_t mask, uint32_t *drain_ms);
/* The worker in slot, if it is still that generation's, else NULL. */
runner_worker *runner_table_slot_owner(uint32_t slot, uint32_t sgen);
/* The table's memfd (DIRECT hands it to a child), -1: none. */
int runner_table_fd(void);
/* The worker the runner holds gets a new slot generation (REAP, then
 * FILL): children's channels of the old one are no longer used (a
 * FastCGI reconnect). */
void runner_table_slot_renew(runner_worker *w);
/* Idle published workers' stdout, looked at every RUNNER_LOOK_MS: output
 * there was written with no request (issue 20). look_at: when next. */
#define RUNNER_LOOK_MS 1000u
uint64_t runner_table_look_at(void);
/* The table (NULL: none), its runner's pid, the worker in a slot (NULL:
 * none): for the queue's side in the runner (runner_twait.c). */
void *runner_table_base(void);
uint32_t runner_table_pid(void);
runner_worker *runner_table_owner(uint32_t slot);

#endif
