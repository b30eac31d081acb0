/* test_htab.c: the runner's pool hash (runner/runner_htab.c) against a
 * plain list walked in full, as the pools' lookup did before: entries
 * under colliding hashes added and removed while the table grows; each
 * hash's entries found, all of them and only them, in the order they were
 * added; FNV-1a's reference values. */
#include "tap.h"

#include <stdlib.h>

#include "runner_htab.h"

#define N 3000

static struct ent {
    runner_hlink hl;
    unsigned id;              /* order of adding */
    uint32_t hash;
    int in;
} ents[N];

#define ENT(e) ((struct ent *)(void *)(e))  /* hl is the first member */

/* Every hash in use: runner_htab_first/next give the entries in under it,
 * in id order, and nothing else. */
static int matches(const runner_htab *t, uint32_t hash)
{
    unsigned want = 0, got = 0, last = 0;
    for (unsigned i = 0; i < N; i++)
        want += ents[i].in && ents[i].hash == hash;
    for (runner_hlink *e = runner_htab_first(t, hash); e; e = runner_htab_next(e)) {
        struct ent *x = ENT(e);
        if (!x->in || x->hash != hash || (got && x->id <= last))
            return 0;
        last = x->id;
        got++;
    }
    return got == want;
}

int main(void)
{
    runner_htab t = { 0 };
    unsigned bad = 0, next_id = 0, n = 0;

    is_int(runner_hash_bytes(RUNNER_HASH_INIT, "", 0), 0x811c9dc5u, "FNV-1a of nothing");
    is_int(runner_hash_bytes(RUNNER_HASH_INIT, "a", 1), 0xe40c292cu, "FNV-1a of a");
    is_int(runner_hash_bytes(RUNNER_HASH_INIT, "foobar", 6), 0xbf9cf968u, "FNV-1a of foobar");
    is_int(runner_hash_bytes(runner_hash_bytes(RUNNER_HASH_INIT, "foo", 3), "bar", 3),
           0xbf9cf968u, "in pieces, the same");
    ok(runner_htab_first(&t, 1) == NULL, "an empty table finds nothing");

    srand(7);
    for (int step = 0; step < 20000; step++) {
        struct ent *x = &ents[rand() % N];
        if (x->in) {
            runner_htab_del(&t, &x->hl);
            x->in = 0;
            n--;
        } else {
            /* few distinct hashes, some equal in their low bits: chains */
            x->hash = (uint32_t)(rand() % 50) << (rand() % 2 ? 0 : 12);
            x->id = ++next_id;
            if (runner_htab_add(&t, &x->hl, x->hash) < 0)
                bad++;
            x->in = 1;
            n++;
        }
        if (step % 50 == 0)
            for (uint32_t hsh = 0; hsh < 50; hsh++)
                if (!matches(&t, hsh) || !matches(&t, hsh << 12))
                    bad++;
    }
    is_int(bad, 0, "20,000 adds and removes: each hash's entries, in order");
    is_int(t.n, n, "the count (%u)", n);
    ok(t.nb >= t.n && (t.nb & (t.nb - 1)) == 0, "it grew: %u buckets, a power of two", t.nb);

    /* removing one not in the table changes nothing */
    struct ent *out = NULL;
    for (unsigned i = 0; i < N && !out; i++)
        if (!ents[i].in)
            out = &ents[i];
    runner_htab_del(&t, &out->hl);
    is_int(t.n, n, "removing an entry not in it: no change");

    /* everything out */
    for (unsigned i = 0; i < N; i++)
        if (ents[i].in) {
            runner_htab_del(&t, &ents[i].hl);
            ents[i].in = 0;
        }
    bad = 0;
    for (uint32_t hsh = 0; hsh < 50; hsh++)
        bad += runner_htab_first(&t, hsh) != NULL || runner_htab_first(&t, hsh << 12) != NULL;
    ok(t.n == 0 && bad == 0, "all removed: nothing found");
    runner_htab_add(&t, &ents[0].hl, 9);
    runner_htab_free(&t);
    ok(t.b == NULL && t.n == 0 && ents[0].hl.in == 0, "free: entries out, nothing held");
    return tap_done();
}
