/* runner_htab.c: an intrusive hash table by chaining (runner_htab.h). */
#include "runner_htab.h"

#include <errno.h>
#include <stdlib.h>

uint32_t runner_hash_bytes(uint32_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 16777619u;
    }
    return h;
}

/* Doubles the buckets; each new bucket takes its entries from one old
 * bucket, in their order. */
static int grow(runner_htab *t)
{
    unsigned nb = t->nb ? t->nb * 2 : 64;
    runner_hlink **b = calloc(nb, sizeof(*b)), ***tail;
    if (!b || !(tail = malloc(nb * sizeof(*tail)))) {
        free(b);
        errno = ENOMEM;
        return -1;
    }
    for (unsigned i = 0; i < nb; i++)
        tail[i] = &b[i];
    for (unsigned i = 0; i < t->nb; i++) {
        runner_hlink *e = t->b[i], *next;
        for (; e; e = next) {
            next = e->next;
            unsigned j = e->hash & (nb - 1);
            e->next = NULL;
            *tail[j] = e;
            tail[j] = &e->next;
        }
    }
    free(tail);
    free(t->b);
    t->b = b;
    t->nb = nb;
    return 0;
}

int runner_htab_add(runner_htab *t, runner_hlink *e, uint32_t hash)
{
    if ((t->n >= t->nb || !t->b) && grow(t) < 0 && !t->b)
        return -1; /* a table that cannot grow takes it still, in longer chains */
    runner_hlink **pp = &t->b[hash & (t->nb - 1)];
    while (*pp)
        pp = &(*pp)->next;
    e->hash = hash;
    e->next = NULL;
    e->in = 1;
    *pp = e;
    t->n++;
    return 0;
}

void runner_htab_del(runner_htab *t, runner_hlink *e)
{
    if (!e->in)
        return;
    runner_hlink **pp = &t->b[e->hash & (t->nb - 1)];
    while (*pp != e)
        pp = &(*pp)->next;
    *pp = e->next;
    e->next = NULL;
    e->in = 0;
    t->n--;
}

static runner_hlink *same(runner_hlink *e, uint32_t hash)
{
    while (e && e->hash != hash)
        e = e->next;
    return e;
}

runner_hlink *runner_htab_first(const runner_htab *t, uint32_t hash)
{
    return t->nb ? same(t->b[hash & (t->nb - 1)], hash) : NULL;
}

runner_hlink *runner_htab_next(const runner_hlink *e)
{
    return same(e->next, e->hash);
}

void runner_htab_free(runner_htab *t)
{
    for (unsigned i = 0; i < t->nb; i++)
        for (runner_hlink *e = t->b[i]; e; e = e->next)
            e->in = 0;
    free(t->b);
    t->b = NULL;
    t->nb = t->n = 0;
}
