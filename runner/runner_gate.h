/* runner_gate.h: the gates both kinds of pool (requests' runner_pool.c,
 * WebSocket's runner_ws_pool.c) put before starting a worker
 * (runner_gate.c): the spawn rate and the crash-loop backoff. */
#ifndef RUNNER_GATE_H
#define RUNNER_GATE_H

#include <stdint.h>

/* Spawn rate (GCRA): 0 if a worker may start now, else the ms it may;
 * taking one moves *tokens_at (us). rate 0: no limit. */
uint64_t runner_rate_next_ms(uint64_t rate, uint64_t tokens_at);
void runner_rate_take(uint64_t rate, uint64_t *tokens_at);
/* The crash-loop delay after fail_streak (>= 2) workers in a row died
 * early: backoff_base, doubling, at most backoff_max. */
uint64_t runner_backoff_ms(unsigned fail_streak);

#endif
