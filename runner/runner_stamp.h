/* runner_stamp.h: which configuration last used a pool, for both kinds of
 * pool (requests' runner_pool.c, WebSocket's runner_ws_pool.c). A reload
 * (httpd's, or our SIGHUP) that changes a script's settings makes a new
 * pool; the pools of the same script that only older configurations used
 * become stale and retire once unused for RUNNER_STALE_MS (a pool the new
 * configuration still has is used again before that, and stays). Pools of
 * one configuration never retire each other: one script may run with
 * several settings. */
#ifndef RUNNER_STAMP_H
#define RUNNER_STAMP_H

#include <stdint.h>

#define RUNNER_STALE_MS         3000u   /* a superseded pool retires after this long unused */

/* Embedded in its pool, which it lives and dies with. */
typedef struct runner_stamp {
    uint64_t stamp;           /* newest (httpd generation, reload) that used it */
    uint64_t stale_since;     /* a sibling of a newer configuration appeared, 0: no */
    uint64_t last_used;       /* monotonic ms */
} runner_stamp;

/* One sibling of a pool (the same script, another configuration): the
 * walk sets it to the one after it (it NULL: the first) and returns 1, or
 * returns 0 past the last. */
typedef struct runner_stamp_sib {
    void *it;                 /* the sibling pool */
    runner_stamp *use;        /* its stamp */
    int retired;
} runner_stamp_sib;
typedef int (*runner_stamp_walk)(const void *pool, runner_stamp_sib *sib);
/* A walk's step: q (NULL: past the last) is the sibling it found. */
int runner_stamp_found(runner_stamp_sib *sib, void *q, runner_stamp *use, int retired);

/* pool (whose stamp is s) is used now by httpd generation httpd_gen: its
 * older siblings not retired go stale (staled, if not NULL, is told each);
 * it is fresh again unless a sibling is newer. */
void runner_stamp_use(runner_stamp *s, uint32_t httpd_gen, const void *pool,
                      runner_stamp_walk walk, void (*staled)(void *sibling));
/* When a stale pool retires, unused since. */
uint64_t runner_stamp_due(const runner_stamp *s);

#endif
