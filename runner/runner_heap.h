/* runner_heap.h: the timers of many objects without visiting them all: an
 * intrusive binary min-heap of deadlines (runner_heap.c). Each object
 * embeds a runner_hnode; setting its deadline moves it in the heap, so a
 * loop turn finds the nearest one and the due ones in O(log n), whatever
 * the number of pools and workers. No clock, no log: a leaf. */
#ifndef RUNNER_HEAP_H
#define RUNNER_HEAP_H

#include <stdint.h>

/* Embedded in its object (a pool, a worker), which it lives and dies with. */
typedef struct runner_hnode {
    uint64_t at;              /* its deadline, 0: none (not in the heap) */
    unsigned idx;             /* its place in the heap + 1, 0: not in it */
    struct runner_hnode *due_next; /* runner_heap_take_due's chain */
} runner_hnode;

/* One per kind of timer, the runner's for its whole life; it owns the
 * array, not the nodes. */
typedef struct runner_heap {
    runner_hnode **v;
    unsigned n, cap;
} runner_heap;

/* Room for n nodes, so that runner_heap_set never allocates (its objects
 * reserve one more when they are made, and can fail there). 0, or -1
 * (ENOMEM). */
int runner_heap_reserve(runner_heap *h, unsigned n);
/* e's deadline is at now (0: none): in the heap, or out of it. -1
 * (ENOMEM) only if runner_heap_reserve was not called for it. */
int runner_heap_set(runner_heap *h, runner_hnode *e, uint64_t at);
/* The node with the nearest deadline, NULL if none. */
runner_hnode *runner_heap_min(const runner_heap *h);
/* Takes every node due at now (at <= now) out of the heap and returns
 * them chained by due_next, nearest first (their at kept): what runs this
 * turn. A node set again meanwhile is back in the heap. */
runner_hnode *runner_heap_take_due(runner_heap *h, uint64_t now);
void runner_heap_free(runner_heap *h);

#endif
