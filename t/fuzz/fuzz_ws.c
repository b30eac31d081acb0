/* fuzz_ws.c: libFuzzer target for the WebSocket codec (common/cgp_ws.c):
 * frames a client controls. The input (after two bytes choosing the read
 * size and the message cap) is parsed whole and in chunks, into separate
 * copies (payloads are unmasked in place); the messages, control frames and
 * error must be the same however reads split. Every text message is valid
 * UTF-8 by an independent decoder, no message passes the cap, errors are
 * 1002, 1007 or 1009. Each message, framed again by the writer (masked),
 * parses back the same; the UTF-8 validator agrees with the decoder on the
 * raw input, fed whole or in two parts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_ws.h"
#include "fuzz_trace.h"
#include "../unit/utf8_ref.h"

static const unsigned char MASK[4] = { 0xa5, 0x01, 0x7e, 0xff };

/* One message, framed as a client would (masked, in two fragments), parsed
 * by a fresh parser: the same message comes back. */
static void reframe(const cgp_ws_msg *m, uint64_t cap)
{
    static unsigned char buf[2 * CGP_WS_HDR_MAX + 70000], out[70000];
    size_t half = m->len / 2, n = 0, h;
    cgp_ws_parser p;
    cgp_ws_msg back;
    cgp_ws_event ev;
    size_t pos = 0;
    int rc, done = 0;

    if (m->len > 65536)
        return;
    /* split anywhere, inside a UTF-8 sequence too: validation spans fragments */
    h = cgp_ws_frame_hdr(buf, 0, m->opcode, half, MASK);
    CHECK(h > 0);
    memcpy(buf + h, m->buf, half);
    cgp_ws_mask(buf + h, half, MASK, 0);
    n = h + half;
    h = cgp_ws_frame_hdr(buf + n, 1, CGP_WS_CONT, m->len - half, MASK);
    CHECK(h > 0);
    memcpy(buf + n + h, m->buf + half, m->len - half);
    cgp_ws_mask(buf + n + h, m->len - half, MASK, 0);
    n += h + m->len - half;
    cgp_ws_parser_init(&p, cap);
    cgp_ws_msg_init(&back, out, sizeof out);
    while ((rc = cgp_ws_parse(&p, buf, n, &pos, &ev)) == CGP_WS_DATA)
        done = cgp_ws_msg_add(&back, &ev) == 1;
    CHECK(rc == CGP_WS_MORE && done && back.len == m->len && back.opcode == m->opcode);
    CHECK(!m->len || !memcmp(back.buf, m->buf, m->len));
}

static void parse(const uint8_t *d, size_t n, size_t chunk, uint64_t cap, struct trace *t, int check)
{
    unsigned char *buf = malloc(n ? n : 1), *mb = malloc((size_t)cap + 1);
    cgp_ws_parser p;
    cgp_ws_msg m;
    cgp_ws_event ev;
    size_t pos = 0, fed = 0;
    int rc;

    CHECK(buf && mb);
    memcpy(buf, d, n);
    cgp_ws_parser_init(&p, cap);
    cgp_ws_msg_init(&m, mb, (size_t)cap);
    do {
        fed = chunk && n - fed > chunk ? fed + chunk : n;
        while ((rc = cgp_ws_parse(&p, buf, fed, &pos, &ev)) != CGP_WS_MORE) {
            CHECK(pos <= fed);
            if (rc == CGP_WS_ERROR) {
                CHECK(ev.code == CGP_WS_PROTOCOL || ev.code == CGP_WS_INVALID_DATA ||
                      ev.code == CGP_WS_TOO_BIG);
                CHECK(ev.why != NULL);
                put(t, "E", 1);
                put(t, &ev.code, sizeof ev.code);
                cgp_ws_event e2;
                CHECK(cgp_ws_parse(&p, buf, fed, &pos, &e2) == CGP_WS_ERROR && e2.code == ev.code);
                goto out;
            }
            if (rc == CGP_WS_DATA) {
                CHECK(ev.opcode == CGP_WS_TEXT || ev.opcode == CGP_WS_BINARY);
                CHECK(ev.data >= buf && ev.data + ev.len <= buf + fed);
                CHECK(ev.len > 0 || ev.fin);
                int r = cgp_ws_msg_add(&m, &ev);
                CHECK(r >= 0);  /* the parser's cap is the buffer's */
                if (r == 1) {
                    CHECK(m.len <= cap);
                    CHECK(m.opcode != CGP_WS_TEXT || ref_utf8(m.buf, m.len));
                    put(t, "M", 1);
                    put(t, &m.opcode, 1);
                    put(t, &m.len, sizeof m.len);
                    put(t, m.buf, m.len);
                    if (check)
                        reframe(&m, cap);
                }
                continue;
            }
            CHECK(rc == CGP_WS_CONTROL);
            CHECK(ev.opcode == CGP_WS_PING || ev.opcode == CGP_WS_PONG || ev.opcode == CGP_WS_CLOSE);
            CHECK(ev.len <= CGP_WS_MAX_CONTROL && ev.fin);
            put(t, "C", 1);
            put(t, &ev.opcode, 1);
            put(t, &ev.len, sizeof ev.len);
            put(t, ev.data, ev.len);
            if (ev.opcode == CGP_WS_CLOSE) {
                CHECK(ev.code == CGP_WS_NO_STATUS ? ev.len == 0
                      : cgp_ws_close_code_ok(ev.code) && ev.len >= 2);
                CHECK(ref_utf8((const unsigned char *)ev.reason, ev.rlen));
                /* the server's answer can always be written */
                unsigned char cf[CGP_WS_CLOSE_MAX];
                CHECK(cgp_ws_close_frame(cf, ev.code == CGP_WS_NO_STATUS ? 0 : ev.code,
                                         ev.reason, ev.rlen) == 2 + ev.len);
            }
        }
    } while (fed < n);
out:
    free(buf);
    free(mb);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    struct trace whole = { 0 }, split = { 0 };
    size_t chunk;
    uint64_t cap;

    if (n < 2)
        return 0;
    chunk = (size_t)d[0] % 64 + 1;
    if (d[0] >= 192)
        chunk = (size_t)(d[0] - 191) * 997;
    cap = (uint64_t)1 << (d[1] % 18);  /* 1 byte .. 128 KiB */
    d += 2;
    n -= 2;

    parse(d, n, 0, cap, &whole, 1);
    parse(d, n, chunk, cap, &split, 0);
    trace_same(&whole, &split);

    /* the validator alone, on the raw bytes, whole and in two parts */
    int v = ref_utf8(d, n);
    CHECK(cgp_utf8_valid(d, n) == v);
    cgp_utf8 u;
    size_t cut = n ? d[0] % (n + 1) : 0;
    cgp_utf8_init(&u);
    int a = cgp_utf8_feed(&u, d, cut);
    int b = cgp_utf8_feed(&u, d + cut, n - cut);
    CHECK((a && b && cgp_utf8_complete(&u)) == v);
    /* a key is valid iff the accept can be computed */
    char acc[CGP_WS_ACCEPT_LEN + 1];
    size_t kl = n < 30 ? n : 30;
    CHECK((cgp_ws_accept((const char *)d, kl, acc) == 0) == cgp_ws_key_valid((const char *)d, kl));
    return 0;
}
