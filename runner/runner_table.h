/* runner_table.h: the runner's side of the direct path's shared table
 * (runner_table.c, include/cgp_table.h). */
#ifndef RUNNER_TABLE_H
#define RUNNER_TABLE_H

#include "runner_types.h"

int runner_table_init(void);
void runner_table_pool_add(runner_pool *p);
void runner_table_pool_del(runner_pool *p);
void runner_table_pool_sync(runner_pool *p);
void runner_table_waiters(runner_pool *p);
void runner_table_pool_used(runner_pool *p);
unsigned long runner_table_pool_served(const runner_pool *p);
void runner_table_pool_counts(const runner_pool *p, unsigned long *requests,
                              unsigned long *outcomes, unsigned nout);
runner_pool *runner_table_pool_at(uint32_t idx, uint32_t gen);
void runner_table_pool_ref(const runner_pool *p, uint32_t *idx, uint32_t *gen);
void runner_table_slot_take(runner_worker *w);
void runner_table_slot_dead(runner_worker *w);
void runner_table_kick(runner_pool *p);
void runner_table_child_gone(pid_t pid);
void runner_table_on_direct(runner_client *c, uint32_t reqid);
void runner_table_on_channel(runner_client *c, uint32_t reqid, const unsigned char *pl,
                             size_t len);
int runner_table_send_fds(runner_client *c, unsigned type, uint32_t reqid, const void *pl,
                          size_t len, const int *fds, int nfds);

#endif
