/* test_heap.c: the runner's timer heap (runner/runner_heap.c) against a
 * plain array walked in full, as the loop did before: random deadlines
 * set, moved and removed; the nearest always the array's; every node's
 * place right; take_due gives exactly the due nodes, nearest first, and a
 * node set again while it is taken is back in the heap. */
#include "tap.h"

#include <stdlib.h>

#include "runner_heap.h"

#define N 500

static runner_hnode nodes[N];

/* The heap's order and each node's idx; and it holds exactly the nodes
 * with a deadline. */
static int consistent(const runner_heap *h, unsigned *held)
{
    unsigned n = 0;
    for (unsigned i = 0; i < h->n; i++) {
        if (h->v[i]->idx != i + 1 || !h->v[i]->at)
            return 0;
        if (i && h->v[(i - 1) / 2]->at > h->v[i]->at)
            return 0;
    }
    for (unsigned i = 0; i < N; i++) {
        if (!!nodes[i].at != !!nodes[i].idx)
            return 0;
        n += nodes[i].at != 0;
    }
    *held = n;
    return n == h->n;
}

static uint64_t brute_min(void)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < N; i++)
        if (nodes[i].at && (!m || nodes[i].at < m))
            m = nodes[i].at;
    return m;
}

int main(void)
{
    runner_heap h = { 0 };
    unsigned held, bad = 0, badmin = 0;

    srand(4242);
    ok(runner_heap_min(&h) == NULL, "an empty heap has no nearest");
    ok(runner_heap_take_due(&h, 1000) == NULL, "nor anything due");
    is_int(runner_heap_reserve(&h, N), 0, "room for %d nodes", N);
    ok(h.cap >= N, "reserved: %u", h.cap);
    unsigned cap = h.cap;

    for (int step = 0; step < 200000; step++) {
        runner_hnode *e = &nodes[rand() % N];
        int op = rand() % 10;
        /* small range: many equal deadlines */
        uint64_t at = op < 2 ? 0 : 1 + (uint64_t)(rand() % 2000);
        if (runner_heap_set(&h, e, at) < 0)
            bad++;
        if (step % 97 == 0 && !consistent(&h, &held))
            bad++;
        const runner_hnode *m = runner_heap_min(&h);
        if ((m ? m->at : 0) != brute_min())
            badmin++;
    }
    is_int(bad, 0, "200,000 sets: the heap stays ordered, each node knows its place");
    is_int(badmin, 0, "its nearest is always the array's");
    is_int(h.cap, cap, "never grew past what was reserved");

    /* take_due: exactly the due ones, nearest first */
    uint64_t now = 700;
    unsigned want = 0, got = 0, order = 1, still = 1;
    for (unsigned i = 0; i < N; i++)
        want += nodes[i].at && nodes[i].at <= now;
    runner_hnode *due = runner_heap_take_due(&h, now), *e;
    uint64_t last = 0;
    for (e = due; e; e = e->due_next) {
        got++;
        order &= e->at >= last && e->at <= now && e->idx == 0;
        last = e->at;
    }
    is_int(got, want, "take_due gives the %u nodes due", want);
    ok(order, "nearest first, each out of the heap, its deadline kept");
    unsigned kept = 0;
    for (unsigned i = 0; i < h.n; i++)
        still &= h.v[i]->at > now;
    for (e = due; e; e = e->due_next)
        kept += e->at != 0;
    ok(still && kept == got, "what is left is not due; the taken ones keep their deadline");
    /* the taken ones are set again as a timer pass does: some later, some
     * cleared, one due again */
    unsigned i = 0;
    for (e = due; e; e = e->due_next, i++)
        runner_heap_set(&h, e, i % 3 == 0 ? 0 : i % 3 == 1 ? now + 10 + i : now);
    ok(consistent(&h, &held), "set again after being taken: back in the heap (%u)", held);
    ok(got > 2 && runner_heap_min(&h)->at == now, "one set due again is the nearest");

    /* removing everything, in random order */
    for (unsigned k = 0; k < N; k++)
        runner_heap_set(&h, &nodes[(k * 7919u) % N], 0);
    ok(h.n == 0 && runner_heap_min(&h) == NULL && consistent(&h, &held),
       "every node removed: empty");

    /* a heap without reserve grows on set */
    runner_heap g = { 0 };
    runner_hnode a = { 0 }, b = { 0 }, c = { 0 };
    ok(runner_heap_set(&g, &a, 30) == 0 && runner_heap_set(&g, &b, 10) == 0 &&
       runner_heap_set(&g, &c, 20) == 0 && runner_heap_min(&g) == &b, "grows on set");
    runner_heap_set(&g, &b, 40);
    ok(runner_heap_min(&g) == &c, "a node moved later gives way");
    runner_heap_set(&g, &a, 5);
    ok(runner_heap_min(&g) == &a, "a node moved earlier comes first");
    due = runner_heap_take_due(&g, 20);
    ok(due == &a && a.due_next == &c && c.due_next == NULL && g.n == 1 && g.v[0] == &b,
       "take_due(20): a then c; b stays");
    runner_heap_free(&g);
    ok(b.idx == 0 && g.n == 0 && g.v == NULL, "free: nodes out, nothing held");
    runner_heap_free(&h);
    return tap_done();
}
