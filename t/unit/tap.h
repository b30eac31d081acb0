/* tap.h: a minimal Test Anything Protocol emitter for the C unit tests.
 * One test program per binary: the counters below are that program's. */
#ifndef CGP_TAP_H
#define CGP_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline int tap_ok(int pass, const char *file, int line,
                         const char *fmt, ...)
{
    va_list ap;

    tap_count++;
    if (!pass)
        tap_failed++;
    printf("%sok %d - ", pass ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    if (!pass)
        printf("#   failed at %s:%d\n", file, line);
    fflush(stdout);
    return pass;
}

/* ok(cond, "name %d", ...) */
#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* is_int(got, want, "name"): also prints both values on failure. */
#define is_int(got, want, ...) do {                                         \
        long long g_ = (long long)(got), w_ = (long long)(want);             \
        if (!tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__))              \
            printf("#   got %lld, want %lld\n", g_, w_);                     \
    } while (0)

/* is_mem(p, n, want, wn, "name"): byte strings equal. */
#define is_mem(p, n, want, wn, ...)                                          \
    ok((size_t)(n) == (size_t)(wn) && memcmp((p), (want), (size_t)(wn)) == 0, \
       __VA_ARGS__)

static inline void tap_diag(const char *msg)
{
    printf("# %s\n", msg);
}

/* Prints the plan; returns the exit status for main(). */
static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    if (tap_failed)
        printf("# %d of %d failed\n", tap_failed, tap_count);
    return tap_failed ? 1 : 0;
}

#endif
