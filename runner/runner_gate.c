/* runner_gate.c: the gates both kinds of pool put before starting a
 * worker (runner_gate.h). A leaf: the clock and the configuration only. */
#include "runner_gate.h"
#include "runner_ctx.h"

/* Spawn rate as GCRA: tokens_at is the theoretical arrival time in us; a
 * burst of one second's worth is allowed. */
uint64_t runner_rate_next_ms(uint64_t rate, uint64_t tokens_at)
{
    uint64_t iv = rate ? 1000000u / rate : 0, now_us = runner_g.now * 1000u;
    uint64_t burst = rate ? (rate - 1) * iv : 0;
    if (!iv || tokens_at <= now_us + burst)
        return 0;
    return (tokens_at - burst + 999u) / 1000u;
}

void runner_rate_take(uint64_t rate, uint64_t *tokens_at)
{
    uint64_t iv = rate ? 1000000u / rate : 0, now_us = runner_g.now * 1000u;
    if (iv)
        *tokens_at = (*tokens_at > now_us ? *tokens_at : now_us) + iv;
}

uint64_t runner_backoff_ms(unsigned fail_streak)
{
    const runner_conf *c = &runner_g.conf;
    unsigned sh = fail_streak < 2 ? 0 : fail_streak - 2 > 30 ? 30 : fail_streak - 2;
    uint64_t delay = c->v[CGP_S_BACKOFF_BASE] << sh;
    if (delay > c->v[CGP_S_BACKOFF_MAX] || delay < c->v[CGP_S_BACKOFF_BASE])
        delay = c->v[CGP_S_BACKOFF_MAX];
    return delay;
}
