/* runner_heap.c: an intrusive binary min-heap of deadlines (runner_heap.h). */
#include "runner_heap.h"

#include <errno.h>
#include <stdlib.h>

static void place(runner_heap *h, unsigned i, runner_hnode *e)
{
    h->v[i] = e;
    e->idx = i + 1;
}

static void up(runner_heap *h, unsigned i)
{
    runner_hnode *e = h->v[i];
    while (i > 0) {
        unsigned parent = (i - 1) / 2;
        if (h->v[parent]->at <= e->at)
            break;
        place(h, i, h->v[parent]);
        i = parent;
    }
    place(h, i, e);
}

static void down(runner_heap *h, unsigned i)
{
    runner_hnode *e = h->v[i];
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1]->at < h->v[c]->at)
            c++;
        if (e->at <= h->v[c]->at)
            break;
        place(h, i, h->v[c]);
        i = c;
    }
    place(h, i, e);
}

int runner_heap_reserve(runner_heap *h, unsigned n)
{
    if (n <= h->cap)
        return 0;
    unsigned cap = h->cap ? h->cap : 64;
    while (cap < n)
        cap *= 2;
    runner_hnode **v = realloc(h->v, cap * sizeof(*v));
    if (!v) {
        errno = ENOMEM;
        return -1;
    }
    h->v = v;
    h->cap = cap;
    return 0;
}

static void take(runner_heap *h, runner_hnode *e)
{
    unsigned i = e->idx - 1;
    runner_hnode *last = h->v[--h->n];
    e->idx = 0;
    if (last == e)
        return;
    place(h, i, last);
    /* the last node may belong above or below e's place */
    if (i > 0 && h->v[(i - 1) / 2]->at > last->at)
        up(h, i);
    else
        down(h, i);
}

int runner_heap_set(runner_heap *h, runner_hnode *e, uint64_t at)
{
    if (!at) {
        if (e->idx)
            take(h, e);
        e->at = 0;
        return 0;
    }
    if (e->idx) {
        uint64_t was = e->at;
        e->at = at;
        if (at < was)
            up(h, e->idx - 1);
        else if (at > was)
            down(h, e->idx - 1);
        return 0;
    }
    if (runner_heap_reserve(h, h->n + 1) < 0)
        return -1;
    e->at = at;
    h->n++;
    place(h, h->n - 1, e);
    up(h, h->n - 1);
    return 0;
}

runner_hnode *runner_heap_min(const runner_heap *h)
{
    return h->n ? h->v[0] : NULL;
}

runner_hnode *runner_heap_take_due(runner_heap *h, uint64_t now)
{
    runner_hnode *first = NULL, **tail = &first, *e;
    while ((e = runner_heap_min(h)) && e->at <= now) {
        take(h, e);
        e->due_next = NULL;
        *tail = e;
        tail = &e->due_next;
    }
    return first;
}

void runner_heap_free(runner_heap *h)
{
    for (unsigned i = 0; i < h->n; i++)
        h->v[i]->idx = 0;
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}
