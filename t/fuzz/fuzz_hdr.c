/* fuzz_hdr.c: libFuzzer target for the runner's response header scanner
 * (runner/runner_hdr.c): a worker's output after the sentinel scanner, i.e.
 * bytes a script controls. It is fed in chunks (size from the first byte);
 * what the runner passes on must be the input with the Script-Control
 * lines of the header block taken out (but those holding a directive of
 * httpd's), nothing else lost, added or reordered. It links the scanner alone: its sink appends to a buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../runner/runner_hdr.h"
#include "../../runner/runner_log.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static unsigned char filler[RUNNER_HDR_MAX]; /* 'x', no line end */

static runner_buf sent;

static void sink(void *arg, const unsigned char *d, size_t len)
{
    (void)arg;
    CHECK(cgp_buf_append(&sent, d, len) == 0);
}

/* The model: "Script-Control" in any case, blanks, then ':' (1), unless
 * one of its ';'- or ','-separated directives, blanks trimmed, is
 * X-location-as-is in any case: httpd's to apply, the line stays (2). */
static int is_control(const unsigned char *l, size_t len)
{
    static const char keep[] = "X-location-as-is";
    size_t i = 14;
    if (len < i || strncasecmp((const char *)l, "Script-Control", i) != 0)
        return 0;
    while (i < len && (l[i] == ' ' || l[i] == '\t'))
        i++;
    if (!(i < len && l[i] == ':'))
        return 0;
    for (i++; i < len;) {
        while (i < len && (l[i] == ' ' || l[i] == '\t' || l[i] == ';' || l[i] == ','))
            i++;
        size_t b = i;
        while (i < len && l[i] != ';' && l[i] != ',')
            i++;
        size_t e = i;
        while (e > b && (l[e - 1] == ' ' || l[e - 1] == '\t'))
            e--;
        if (e - b == sizeof(keep) - 1 && strncasecmp((const char *)l + b, keep, e - b) == 0)
            return 2;
    }
    return 1;
}

/* What the client must get from in[0..n) when the header is scanned. */
static void expect(const unsigned char *in, size_t n, runner_buf *out)
{
    size_t pos = 0;
    while (pos < n) {
        const unsigned char *nl = memchr(in + pos, '\n', n - pos);
        if (!nl)
            break;
        size_t next = (size_t)(nl - in) + 1, l = next - 1 - pos;
        if (l && in[pos + l - 1] == '\r')
            l--;
        if (!(l && is_control(in + pos, l) == 1))
            CHECK(cgp_buf_append(out, in + pos, next - pos) == 0);
        pos = next;
        if (l == 0)
            break; /* the blank line ends the header */
    }
    CHECK(cgp_buf_append(out, in + pos, n - pos) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    runner_hdr h;
    runner_hdr_sink s = { sink, NULL, 1, "/fuzz/script" };
    runner_buf want = { 0 };
    size_t chunk, off;
    int unscanned, ended = 0;

    if (n < 2)
        return 0;
    chunk = (size_t)(d[0] & 0x7f) + 1;
    unscanned = d[0] & 0x80; /* no header end within RUNNER_HDR_MAX */
    memset(&h, 0, sizeof h);
    h.buffer_records = d[1] & 1;
    d += 2;
    n -= 2;
    memset(&sent, 0, sizeof sent);

    if (unscanned)
        ended += runner_hdr_output(&h, &s, filler, sizeof filler);
    for (off = 0; off < n; off += chunk)
        ended += runner_hdr_output(&h, &s, d + off, n - off < chunk ? n - off : chunk);
    ended += runner_hdr_flush(&h, &s);
    CHECK(ended == 1 && h.done); /* the header block ends exactly once */

    if (unscanned) {
        CHECK(cgp_buf_used(&sent) == sizeof filler + n);
        CHECK(memcmp(sent.p + sent.off + sizeof filler, d, n) == 0);
    } else {
        expect(d, n, &want);
        CHECK(cgp_buf_used(&sent) == cgp_buf_used(&want));
        CHECK(memcmp(sent.p + sent.off, want.p + want.off, cgp_buf_used(&want)) == 0);
    }
    cgp_buf_free(&want);
    cgp_buf_free(&sent);
    runner_hdr_free(&h);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    runner_log_level = RUNNER_LOG_ERROR; /* directives log at debug */
    memset(filler, 'x', sizeof filler);
    return 0;
}
