/* fuzz_scan.c: libFuzzer target for the runner's sentinel scanner
 * (common/cgp_scan.c): a worker's stdout, i.e. bytes a script controls.
 * The input is fed in chunks (size from the first byte) the way
 * runner_worker.c feeds it, with a fixed buffer; the events must be the
 * same as when the whole input is scanned at once (reads may split
 * anywhere), and what is held back between reads stays small. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_scan.h"

/* As the runner reads (runner_worker.h: RUNNER_READ_CHUNK, RUNNER_OBUF_CAP); the
 * module's direct path reads 64 KiB after a held tail of the same bound. */
#define RUNNER_READ_CHUNK 61440u
#define RUNNER_OBUF_CAP (RUNNER_READ_CHUNK + CGP_SCAN_LINE_MAX + 64u)

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* Short markers of equal length, as the runner's (prefix + 32 hex). */
static const char M_EOF[] = "CGIPLUS-EOF-7f3a";
static const char M_ESC[] = "CGIPLUS-ESC-7f3a";
static const char M_EOT[] = "CGIPLUS-EOT-7f3a";
/* Markers with no shared prefix: the scanner's byte-by-byte case. */
static const char *const SETS[2][3] = {
    { M_EOF, M_ESC, M_EOT },
    { "EOF-CGIPLUS-7f3a", "ESC-CGIPLUS-7f3a", "EOT-CGIPLUS-7f3a" },
};

/* The event stream, normalized: output bytes merged, a callout line
 * longer than CGP_SCAN_LINE_MAX reported as "long" whichever way it came. */
struct trace {
    unsigned char *p;
    size_t len, cap;
    int in_output;  /* the last record is output, open for merging */
};

static void put(struct trace *t, const void *d, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = (t->len + n) * 2 + 64;
        unsigned char *p = realloc(t->p, cap);
        CHECK(p);
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, d, n);
    t->len += n;
}

static void event(struct trace *t, int ev, const unsigned char *out, size_t outlen)
{
    if (ev == CGP_SCAN_OUTPUT) {
        if (!t->in_output)
            put(t, "\0O", 2);
        put(t, out, outlen);
        t->in_output = 1;
        return;
    }
    t->in_output = 0;
    if (ev == CGP_SCAN_SENTINEL)
        put(t, "\0S", 2);
    else if (ev == CGP_SCAN_CALLOUT_LONG || (ev == CGP_SCAN_CALLOUT && outlen > CGP_SCAN_LINE_MAX))
        put(t, "\0L", 2);
    else {
        uint32_t n = (uint32_t)outlen;
        cgp_callout c;
        /* The line's split stays inside it, trimmed (both sides use it). */
        cgp_callout_split(out, outlen, &c);
        CHECK(c.want >= -1 && c.want <= 1);
        CHECK((const unsigned char *)c.kw >= out && (const unsigned char *)c.kw + c.klen <= out + outlen);
        CHECK(!c.plen || ((const unsigned char *)c.par >= out &&
                          (const unsigned char *)c.par + c.plen <= out + outlen));
        CHECK(!c.klen || (c.kw[c.klen - 1] != ' ' && c.kw[c.klen - 1] != '\t'));
        put(t, "\0C", 2);
        put(t, &n, sizeof n);
        put(t, out, outlen);
    }
}

/* Scans buf[0..len) as runner_worker.c does; returns the new held length. */
static size_t feed(cgp_scan *sc, unsigned char *buf, size_t len, int final, struct trace *t)
{
    size_t pos = 0;
    const unsigned char *out;
    size_t outlen;

    while (pos < len) {
        size_t before = pos;
        int ev = cgp_scan_step(sc, buf, len, &pos, &out, &outlen, final);
        CHECK(pos <= len);
        if (ev == CGP_SCAN_MORE)
            break;
        CHECK(pos > before || ev == CGP_SCAN_CALLOUT_LONG || ev == CGP_SCAN_SENTINEL ||
              ev == CGP_SCAN_CALLOUT);
        if (ev == CGP_SCAN_OUTPUT || ev == CGP_SCAN_CALLOUT)
            CHECK(out >= buf && out + outlen <= buf + len && (outlen > 0 || ev == CGP_SCAN_CALLOUT));
        event(t, ev, out, outlen);
        if (ev == CGP_SCAN_SENTINEL)
            cgp_scan_reset(sc); /* the worker's next request */
    }
    if (pos < len)
        memmove(buf, buf + pos, len - pos);
    return len - pos;
}

/* The first event by a naive search: the first EOF or ESC marker followed
 * by a line end, and the output before it (the scanner's one-pass search
 * must find the same). */
static void check_first(const char *const *m, const unsigned char *d, size_t n,
                        const struct trace *t)
{
    size_t ml = strlen(m[0]), i;

    for (i = 0; i + ml < n; i++) {
        int eof = memcmp(d + i, m[0], ml) == 0;
        size_t e = i + ml;
        if ((eof || memcmp(d + i, m[1], ml) == 0) &&
            (d[e] == '\n' || (d[e] == '\r' && e + 1 < n && d[e + 1] == '\n')))
            break;
    }
    if (i + ml >= n)
        i = n; /* no marker: all of it is output */
    if (i > 0)
        CHECK(t->len >= 2 + i && memcmp(t->p, "\0O", 2) == 0 && memcmp(t->p + 2, d, i) == 0);
    if (i < n) { /* the marker line is no output (output resumes after a block, merged) */
        size_t at = i > 0 ? 2 + i : 0, le = d[i + ml] == '\n' ? 1 : 2;
        CHECK(!(t->len >= at + ml + le && memcmp(t->p + at, d + i, ml + le) == 0));
        if (memcmp(d + i, m[0], ml) == 0)
            CHECK(t->len >= at + 2 && t->p[at] == 0 && t->p[at + 1] == 'S');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    static unsigned char buf[RUNNER_OBUF_CAP];
    struct trace whole = { 0 }, chunked = { 0 };
    cgp_scan sc;
    size_t chunk, held = 0, off;
    unsigned char *copy;

    if (n < 1)
        return 0;
    const char *const *m = SETS[d[0] >> 7 ? (d[0] & 1) : 0];
    chunk = (size_t)d[0] % 64 + 1;
    if (d[0] >= 192)
        chunk = (size_t)(d[0] - 191) * 97; /* a few large reads too */
    d++;
    n--;
    if (n > RUNNER_READ_CHUNK)
        n = RUNNER_READ_CHUNK;

    cgp_scan_init(&sc, m[0], m[1], m[2]);
    copy = malloc(n ? n : 1);
    CHECK(copy);
    memcpy(copy, d, n);
    (void)feed(&sc, copy, n, 1, &whole);
    free(copy);
    check_first(m, d, n, &whole);

    cgp_scan_init(&sc, m[0], m[1], m[2]);
    for (off = 0; off < n;) {
        size_t take = n - off < chunk ? n - off : chunk;
        CHECK(held + take <= sizeof buf);
        memcpy(buf + held, d + off, take);
        off += take;
        held = feed(&sc, buf, held + take, 0, &chunked);
        /* held back: a partial marker and its "\r", or one callout line */
        CHECK(held <= (sc.in_callout ? CGP_SCAN_LINE_MAX : sc.mlen + 1));
    }
    (void)feed(&sc, buf, held, 1, &chunked);

    CHECK(whole.len == chunked.len && memcmp(whole.p, chunked.p, whole.len) == 0);
    free(whole.p);
    free(chunked.p);
    return 0;
}
