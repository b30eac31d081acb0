/* runner_htab.h: an intrusive hash table (runner_htab.c): pools found by
 * their key in O(1) whatever their number. The owner hashes its key
 * (runner_hash_bytes) and compares keys itself: the table keeps entries by
 * hash only, each bucket in the order they were added. No log: a leaf. */
#ifndef RUNNER_HTAB_H
#define RUNNER_HTAB_H

#include <stddef.h>
#include <stdint.h>

/* Embedded in its pool, which it lives and dies with. */
typedef struct runner_hlink {
    struct runner_hlink *next;
    uint32_t hash;
    int in;                   /* in a table */
} runner_hlink;

/* The runner's, for its whole life; it owns the buckets, not the entries. */
typedef struct runner_htab {
    runner_hlink **b;
    unsigned nb, n;           /* buckets (a power of two), entries */
} runner_htab;

#define RUNNER_HASH_INIT 2166136261u
/* FNV-1a of n bytes at p, on from h (RUNNER_HASH_INIT to begin). */
uint32_t runner_hash_bytes(uint32_t h, const void *p, size_t n);
/* Adds e (not in a table) under hash, after the entries already there; the
 * table grows to keep about one entry a bucket. 0, or -1 (ENOMEM). */
int runner_htab_add(runner_htab *t, runner_hlink *e, uint32_t hash);
/* Takes e out (no-op if it is in none). */
void runner_htab_del(runner_htab *t, runner_hlink *e);
/* The first entry added under hash, then the next one under it after e;
 * NULL: no more. */
runner_hlink *runner_htab_first(const runner_htab *t, uint32_t hash);
runner_hlink *runner_htab_next(const runner_hlink *e);
void runner_htab_free(runner_htab *t);

#endif
