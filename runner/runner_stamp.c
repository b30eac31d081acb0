/* runner_stamp.c: which configuration last used a pool, and when its
 * superseded siblings go stale (runner_stamp.h). A leaf: the clock and the
 * reload count only. */
#include "runner_stamp.h"
#include "runner_ctx.h"

void runner_stamp_use(runner_stamp *s, uint32_t httpd_gen, const void *pool,
                      runner_stamp_walk walk, void (*staled)(void *sibling))
{
    uint64_t stamp = (uint64_t)httpd_gen << 32 | (runner_g.reloads & 0xffffffffu);
    runner_stamp_sib sib = { NULL, NULL, 0 };
    int newest = 1;

    s->last_used = runner_g.now;
    if (stamp > s->stamp)
        s->stamp = stamp;
    while (walk(pool, &sib)) {
        if (sib.use->stamp > s->stamp) {
            newest = 0;
        } else if (sib.use->stamp < s->stamp && !sib.retired && !sib.use->stale_since) {
            sib.use->stale_since = runner_g.now;
            if (staled)
                staled(sib.it);
        }
    }
    if (newest)
        s->stale_since = 0;
}

int runner_stamp_found(runner_stamp_sib *sib, void *q, runner_stamp *use, int retired)
{
    sib->it = q;
    sib->use = use;
    sib->retired = retired;
    return q != NULL;
}

uint64_t runner_stamp_due(const runner_stamp *s)
{
    return (s->last_used > s->stale_since ? s->last_used : s->stale_since) + RUNNER_STALE_MS;
}
