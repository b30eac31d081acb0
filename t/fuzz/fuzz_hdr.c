/* fuzz_hdr.c: libFuzzer target for the runner's response header scanner
 * (runner/runner_hdr.c): a worker's output after the sentinel scanner, i.e.
 * bytes a script controls. It is fed in chunks (size from the first byte);
 * what the runner passes on must be the input with the Script-Control
 * lines of the header block taken out, nothing else lost, added or
 * reordered. runner_worker_send/rearm are the sink here (they live in
 * runner_worker.c, which this target does not link). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../runner/runner.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static unsigned char filler[RUNNER_HDR_MAX]; /* 'x', no line end */

static runner_buf sent;

void runner_worker_send(runner_worker *w, const unsigned char *d, size_t len)
{
    (void)w;
    CHECK(runner_buf_append(&sent, d, len) == 0);
}

void runner_worker_rearm(runner_worker *w)
{
    (void)w;
}

/* runner_table.c's, without a table. */
void runner_worker_set_lifetime(runner_worker *w, int64_t v)
{
    w->lifetime = v;
}

/* The model: "Script-Control" in any case, blanks, then ':'. */
static int is_control(const unsigned char *l, size_t len)
{
    size_t i = 14;
    if (len < i || strncasecmp((const char *)l, "Script-Control", i) != 0)
        return 0;
    while (i < len && (l[i] == ' ' || l[i] == '\t'))
        i++;
    return i < len && l[i] == ':';
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
        if (!(l && is_control(in + pos, l)))
            CHECK(runner_buf_append(out, in + pos, next - pos) == 0);
        pos = next;
        if (l == 0)
            break; /* the blank line ends the header */
    }
    CHECK(runner_buf_append(out, in + pos, n - pos) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    runner_pool pool;
    runner_worker w;
    runner_req r;
    runner_buf want = { 0 };
    size_t chunk, off;
    int unscanned, r_records;

    if (n < 2)
        return 0;
    chunk = (size_t)(d[0] & 0x7f) + 1;
    unscanned = d[0] & 0x80; /* no header end within RUNNER_HDR_MAX */
    r_records = d[1] & 1;
    d += 2;
    n -= 2;
    memset(&pool, 0, sizeof pool);
    memset(&w, 0, sizeof w);
    memset(&r, 0, sizeof r);
    pool.script = "/fuzz/script";
    w.pool = &pool;
    w.req = &r;
    w.pid = 1;
    r.buffer_records = r_records;
    memset(&sent, 0, sizeof sent);

    if (unscanned) {
        runner_hdr_output(&w, filler, sizeof filler);
    }
    for (off = 0; off < n; off += chunk)
        runner_hdr_output(&w, d + off, n - off < chunk ? n - off : chunk);
    runner_hdr_flush(&w);

    if (unscanned) {
        CHECK(runner_buf_used(&sent) == sizeof filler + n);
        CHECK(memcmp(sent.p + sent.off + sizeof filler, d, n) == 0);
    } else {
        expect(d, n, &want);
        CHECK(runner_buf_used(&sent) == runner_buf_used(&want));
        CHECK(memcmp(sent.p + sent.off, want.p + want.off, runner_buf_used(&want)) == 0);
    }
    runner_buf_free(&want);
    runner_buf_free(&sent);
    runner_buf_free(&r.hdr);
    runner_buf_free(&r.recs);
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

/* runner_conf.c's settings code refers to the runner's state; unused here. */
runner_ctx runner_g;
