/* fuzz_trace.h: the event trace the codec fuzz targets (fuzz_fcgi.c,
 * fuzz_ws.c) build twice, from whole and from chunked input, and compare. */
#ifndef CGP_FUZZ_TRACE_H
#define CGP_FUZZ_TRACE_H

#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* Owned by one fuzz run; freed by trace_same. */
struct trace {
    unsigned char *p;
    size_t len, cap;
};

static inline void put(struct trace *t, const void *d, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = (t->len + n) * 2 + 64;
        unsigned char *p = realloc(t->p, cap);
        CHECK(p);
        t->p = p;
        t->cap = cap;
    }
    if (n)
        memcpy(t->p + t->len, d, n);
    t->len += n;
}

/* Both traces equal, then freed. */
static inline void trace_same(struct trace *a, struct trace *b)
{
    CHECK(a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len)));
    free(a->p);
    free(b->p);
}

#endif
