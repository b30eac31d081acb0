/* test_ws.c: unit tests (TAP) of the WebSocket codec common/cgp_ws.c and of
 * common/cgp_sha1.c. The parser's cases follow the Autobahn testsuite's
 * categories (framing, pings, reserved bits, opcodes, fragmentation, UTF-8,
 * close, limits); each asserts what RFC 6455 requires, and every stream is
 * fed whole and in chunks of 1, 2, 3, 5 and 13 bytes (reads split anywhere).
 * Client frames are built here by hand, not with the codec's writer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_sha1.h"
#include "cgp_ws.h"
#include "tap.h"
#include "utf8_ref.h"

/* ------------------------------------------------------------ client frames */

static const unsigned char MASK[4] = { 0x37, 0xfa, 0x21, 0x3d };  /* RFC 6455 5.7 */

static unsigned char S[300000];   /* the stream being built */
static size_t SL;

enum { L_MIN = 0, L_16 = 16, L_64 = 64 };

/* Appends one client frame: fin, rsv (0..7), opcode, payload, masked or not,
 * length in its minimal form or forced into the 16- or 64-bit form. */
static void frame_x(int fin, int rsv, int op, const void *pl, size_t n, int masked, int form)
{
    unsigned char *o = S + SL;
    const unsigned char *p = pl;
    size_t h = 2;

    o[0] = (unsigned char)((fin ? 0x80 : 0) | (rsv & 7) << 4 | (op & 15));
    if (form == L_64 || (form == L_MIN && n > 0xffff)) {
        o[1] = 127;
        for (int i = 0; i < 8; i++)
            o[2 + i] = (unsigned char)((uint64_t)n >> (56 - 8 * i));
        h = 10;
    } else if (form == L_16 || (form == L_MIN && n >= 126)) {
        o[1] = 126;
        o[2] = (unsigned char)(n >> 8);
        o[3] = (unsigned char)n;
        h = 4;
    } else {
        o[1] = (unsigned char)n;
    }
    if (masked) {
        o[1] |= 0x80;
        memcpy(o + h, MASK, 4);
        h += 4;
    }
    for (size_t i = 0; i < n; i++)
        o[h + i] = (unsigned char)(p[i] ^ (masked ? MASK[i & 3] : 0));
    SL += h + n;
}

static void frame(int fin, int op, const void *pl, size_t n)
{
    frame_x(fin, 0, op, pl, n, 1, L_MIN);
}

static void text(const char *s)
{
    frame(1, CGP_WS_TEXT, s, strlen(s));
}

static void close_frame(unsigned code, const char *reason, size_t rlen)
{
    unsigned char pl[256];

    pl[0] = (unsigned char)(code >> 8);
    pl[1] = (unsigned char)code;
    memcpy(pl + 2, reason, rlen);
    frame(1, CGP_WS_CLOSE, pl, 2 + rlen);
}

/* ------------------------------------------------------------ running a stream */

static char T[8192];  /* the transcript of the last run */

static void tput(const char *fmt, const unsigned char *d, size_t n, long a)
{
    size_t l = strlen(T);
    char tmp[128];

    snprintf(tmp, sizeof tmp, fmt, a);
    snprintf(T + l, sizeof T - l, "%s", tmp);
    if (n > 40) {  /* long payloads: length and a checksum */
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; i++)
            h = (h ^ d[i]) * 16777619u;
        l = strlen(T);
        snprintf(T + l, sizeof T - l, "#%08x", h);
    } else {
        for (size_t i = 0; i < n; i++) {
            l = strlen(T);
            if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '\\')
                snprintf(T + l, sizeof T - l, "%c", d[i]);
            else
                snprintf(T + l, sizeof T - l, "\\x%02x", d[i]);
        }
    }
    l = strlen(T);
    snprintf(T + l, sizeof T - l, "|");
}

/* Feeds S in chunks (0: whole) through a parser with this message cap; the
 * transcript lists messages, control frames and the error, if any. Returns
 * the bytes fed when the error came (0: none). */
static size_t run(size_t chunk, uint64_t cap)
{
    static unsigned char work[sizeof S], msgbuf[sizeof S];
    cgp_ws_parser p;
    cgp_ws_msg m;
    cgp_ws_event ev;
    size_t pos = 0, fed = 0;

    memcpy(work, S, SL);
    cgp_ws_parser_init(&p, cap);
    cgp_ws_msg_init(&m, msgbuf, sizeof msgbuf);
    T[0] = '\0';
    while (fed < SL || SL == 0) {
        fed = chunk && SL - fed > chunk ? fed + chunk : SL;
        int rc;
        while ((rc = cgp_ws_parse(&p, work, fed, &pos, &ev)) != CGP_WS_MORE) {
            if (rc == CGP_WS_ERROR) {
                tput("ERR%ld", NULL, 0, ev.code);
                /* the error sticks */
                cgp_ws_event e2;
                size_t p2 = pos;
                if (cgp_ws_parse(&p, work, fed, &p2, &e2) != CGP_WS_ERROR || e2.code != ev.code)
                    tput("NOT-STICKY", NULL, 0, 0);
                return fed;
            }
            if (rc == CGP_WS_DATA) {
                if (ev.data < work || ev.data + ev.len > work + fed)
                    tput("OUT-OF-BOUNDS", NULL, 0, 0);
                if (cgp_ws_msg_add(&m, &ev) == 1)
                    tput(m.opcode == CGP_WS_TEXT ? "T%ld:" : "B%ld:", m.buf, m.len, (long)m.len);
            } else if (ev.opcode == CGP_WS_CLOSE) {
                tput("close%ld:", (const unsigned char *)ev.reason, ev.rlen, ev.code);
            } else {
                tput(ev.opcode == CGP_WS_PING ? "ping%ld:" : "pong%ld:", ev.data, ev.len,
                     (long)ev.len);
            }
        }
        if (SL == 0)
            break;
    }
    return 0;
}

/* The stream gives this transcript however it is split. */
static void expect_cap(const char *name, uint64_t cap, const char *want)
{
    static const size_t chunks[] = { 0, 1, 2, 3, 5, 13 };
    int same = 1;
    char first[sizeof T];

    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        run(chunks[i], cap);
        if (i == 0)
            memcpy(first, T, sizeof T);
        else if (strcmp(first, T) != 0) {
            printf("# chunk %zu: %s\n", chunks[i], T);
            same = 0;
        }
    }
    if (!ok(same && strcmp(first, want) == 0, "%s", name))
        printf("#   got  %s\n#   want %s\n", first, want);
    SL = 0;
}

static void expect(const char *name, const char *want)
{
    expect_cap(name, 1u << 20, want);
}

/* Fed one byte at a time, the error comes once at bytes are in (fail fast). */
static void expect_fail_at(const char *name, size_t at, unsigned code)
{
    size_t got = run(1, 1u << 20);
    char want[32];

    snprintf(want, sizeof want, "ERR%u|", code);
    if (!ok(got == at && strstr(T, want) != NULL, "%s", name))
        printf("#   error after byte %zu (want %zu), transcript %s\n", got, at, T);
    SL = 0;
}

/* ------------------------------------------------------------ 1: framing */

static void t_framing(void)
{
    static unsigned char big[70000];
    static const size_t lens[] = { 0, 1, 125, 126, 127, 128, 65535, 65536, 65537 };
    char name[64], want[64];

    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)('a' + i % 26);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        for (int op = CGP_WS_TEXT; op <= CGP_WS_BINARY; op++) {
            snprintf(name, sizeof name, "1.%d: %s message of %zu bytes", op,
                     op == CGP_WS_TEXT ? "text" : "binary", lens[i]);
            /* the transcript of exactly these bytes, made by hand */
            static char expect_t[sizeof T];
            snprintf(want, sizeof want, "%c%%ld:", op == CGP_WS_TEXT ? 'T' : 'B');
            T[0] = '\0';
            tput(want, big, lens[i], (long)lens[i]);
            snprintf(expect_t, sizeof expect_t, "%s", T);
            frame(1, op, big, lens[i]);
            expect(name, expect_t);
        }
    }
    /* RFC 6455 5.7: a single-frame masked text message "Hello" */
    static const unsigned char hello[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f,
                                           0x9f, 0x4d, 0x51, 0x58 };
    memcpy(S, hello, sizeof hello);
    SL = sizeof hello;
    expect("RFC 6455 5.7: masked \"Hello\"", "T5:Hello|");
    /* a text message whose payload spans every length form across frames */
    frame(0, CGP_WS_TEXT, big, 126);
    frame(0, CGP_WS_CONT, big, 65536);
    frame(1, CGP_WS_CONT, big, 5);
    run(0, 1u << 20);
    ok(strncmp(T, "T65667:", 7) == 0, "fragments with 16-bit, 64-bit and 7-bit lengths reassemble");
    SL = 0;
    /* several messages in one read */
    text("one");
    frame(1, CGP_WS_BINARY, "\x00\xff", 2);
    text("");
    expect("three messages back to back", "T3:one|B2:\\x00\\xff|T0:|");
}

/* ------------------------------------------------------------ 2: pings and pongs */

static void t_ping(void)
{
    unsigned char pl[126];

    memset(pl, 0xfe, sizeof pl);
    frame(1, CGP_WS_PING, "", 0);
    expect("2.1: ping without payload", "ping0:|");
    frame(1, CGP_WS_PING, "Hello, world!", 13);
    expect("2.2: ping with a text payload", "ping13:Hello, world!|");
    frame(1, CGP_WS_PING, "\x00\xff\xfe\xfd\xfc\xfb\x00\xff", 8);
    expect("2.3: ping with a binary payload", "ping8:\\x00\\xff\\xfe\\xfd\\xfc\\xfb\\x00\\xff|");
    frame(1, CGP_WS_PING, pl, 125);
    run(0, 1 << 20);
    ok(strncmp(T, "ping125:#", 9) == 0, "2.4: ping with 125 bytes is delivered whole");
    SL = 0;
    frame_x(1, 0, CGP_WS_PING, pl, 126, 1, L_16);
    expect_fail_at("2.5: ping with 126 bytes: 1002 at its second byte", 2, 1002);
    frame(1, CGP_WS_PONG, "unsolicited", 11);
    expect("2.6: an unsolicited pong is delivered (the server ignores it)", "pong11:unsolicited|");
    for (int i = 0; i < 10; i++)
        frame(1, CGP_WS_PING, "x", 1);
    expect("2.10: ten pings in a row, each delivered",
           "ping1:x|ping1:x|ping1:x|ping1:x|ping1:x|ping1:x|ping1:x|ping1:x|ping1:x|ping1:x|");
    frame(0, CGP_WS_PING, "a", 1);
    expect_fail_at("5.1: fragmented ping: 1002 at its first byte pair", 2, 1002);
    frame(0, CGP_WS_PONG, "a", 1);
    expect_fail_at("5.2: fragmented pong: 1002", 2, 1002);
}

/* ------------------------------------------------------------ 3: reserved bits */

static void t_rsv(void)
{
    for (int rsv = 1; rsv <= 7; rsv++) {
        char name[80];
        text("ok");
        size_t at = SL + 2;
        frame_x(1, rsv, CGP_WS_TEXT, "bad", 3, 1, L_MIN);
        text("never");
        snprintf(name, sizeof name, "3.%d: RSV=%d on a text frame: the message before, then 1002",
                 rsv, rsv);
        expect(name, "T2:ok|ERR1002|");
        text("ok");
        frame_x(1, rsv, CGP_WS_TEXT, "bad", 3, 1, L_MIN);
        snprintf(name, sizeof name, "3.%d: ... failed at the frame's second byte", rsv);
        expect_fail_at(name, at, 1002);
    }
    frame_x(1, 4, CGP_WS_PING, "", 0, 1, L_MIN);
    expect("3.6: RSV on a ping: 1002", "ERR1002|");
    frame_x(1, 2, CGP_WS_BINARY, "\x00", 1, 1, L_MIN);
    expect("3.5: RSV on a binary frame: 1002", "ERR1002|");
    frame_x(1, 1, CGP_WS_CLOSE, "\x03\xe8", 2, 1, L_MIN);
    expect("3.7: RSV on a close frame: 1002", "ERR1002|");
}

/* ------------------------------------------------------------ 4: opcodes */

static void t_opcodes(void)
{
    static const int reserved[] = { 3, 4, 5, 6, 7, 11, 12, 13, 14, 15 };

    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        char name[80];
        text("ok");
        frame(1, reserved[i], "x", 1);
        text("never");
        snprintf(name, sizeof name, "4.%s: reserved opcode %d after a message: 1002",
                 reserved[i] < 8 ? "1" : "2", reserved[i]);
        expect(name, "T2:ok|ERR1002|");
    }
    /* a reserved opcode inside a fragmented message too */
    frame(0, CGP_WS_TEXT, "frag", 4);
    frame(1, 5, "x", 1);
    expect("reserved opcode between fragments: 1002", "ERR1002|");
}

/* ------------------------------------------------------------ 5: fragmentation */

static void t_fragments(void)
{
    frame(0, CGP_WS_TEXT, "frag", 4);
    frame(1, CGP_WS_CONT, "ment1", 5);
    expect("5.3: text in two fragments", "T9:fragment1|");
    frame(0, CGP_WS_BINARY, "ab", 2);
    frame(0, CGP_WS_CONT, "", 0);
    frame(0, CGP_WS_CONT, "c", 1);
    frame(1, CGP_WS_CONT, "d", 1);
    expect("5.5: binary in four fragments, one empty", "B4:abcd|");
    frame(0, CGP_WS_TEXT, "fr", 2);
    frame(1, CGP_WS_PING, "p", 1);
    frame(1, CGP_WS_CONT, "ag", 2);
    expect("5.6: a ping between two fragments is delivered before the message", "ping1:p|T4:frag|");
    frame(0, CGP_WS_TEXT, "a", 1);
    frame(1, CGP_WS_PONG, "q", 1);
    frame(0, CGP_WS_CONT, "b", 1);
    frame(1, CGP_WS_PING, "r", 1);
    frame(1, CGP_WS_CONT, "c", 1);
    expect("5.8: pong and ping interleaved", "pong1:q|ping1:r|T3:abc|");
    frame(0, CGP_WS_TEXT, "a", 1);
    close_frame(1000, "", 0);
    frame(1, CGP_WS_CONT, "b", 1);
    expect("close between fragments: the close is delivered, the rest discarded", "close1000:|");
    frame(1, CGP_WS_CONT, "orphan", 6);
    expect("5.9: continuation without a message: 1002", "ERR1002|");
    frame(0, CGP_WS_CONT, "orphan", 6);
    expect("5.10: non-final continuation without a message: 1002", "ERR1002|");
    text("done");
    frame(1, CGP_WS_CONT, "late", 4);
    expect("5.13: continuation after a finished message: 1002", "T4:done|ERR1002|");
    frame(0, CGP_WS_TEXT, "a", 1);
    text("b");
    expect("5.18: a new text frame inside a fragmented message: 1002", "ERR1002|");
    frame(0, CGP_WS_TEXT, "a", 1);
    frame(1, CGP_WS_BINARY, "b", 1);
    expect("a new binary frame inside a fragmented message: 1002", "ERR1002|");
    for (int i = 0; i < 20; i++)
        frame(i == 19, i ? CGP_WS_CONT : CGP_WS_TEXT, "x", 1);
    expect("5.19-like: twenty one-byte fragments", "T20:xxxxxxxxxxxxxxxxxxxx|");
    frame(0, CGP_WS_TEXT, "", 0);
    frame(1, CGP_WS_CONT, "", 0);
    expect("an empty message in two empty fragments", "T0:|");
}

/* ------------------------------------------------------------ 6: UTF-8 */

static void t_utf8_exhaustive(void)
{
    unsigned char b[4];
    long bad = 0, n = 0;

    for (unsigned x = 0; x < 0x1000000u; x++) {  /* every 1-, 2- and 3-byte string */
        b[0] = (unsigned char)(x >> 16);
        b[1] = (unsigned char)(x >> 8);
        b[2] = (unsigned char)x;
        for (size_t len = (x >> 8 ? (x >> 16 ? 3 : 2) : 1); len <= 3; len += 3) {
            n++;
            if (cgp_utf8_valid(b, len) != ref_utf8(b, len))
                bad++;
        }
    }
    ok(bad == 0, "UTF-8 validator agrees with a reference decoder on %ld short strings", n);
    static const unsigned char edge[] = { 0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff };
    bad = n = 0;
    for (unsigned lead = 0xf0; lead <= 0xff; lead++)
        for (unsigned s = 0; s < 256; s++)
            for (size_t t = 0; t < sizeof edge; t++)
                for (size_t u = 0; u < sizeof edge; u++) {
                    b[0] = (unsigned char)lead; b[1] = (unsigned char)s;
                    b[2] = edge[t]; b[3] = edge[u];
                    n++;
                    if (cgp_utf8_valid(b, 4) != ref_utf8(b, 4))
                        bad++;
                }
    ok(bad == 0, "... and on %ld 4-byte strings around the limits", n);
}

static void t_utf8(void)
{
    static const struct { const char *s; int valid; const char *what; } cases[] = {
        { "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5", 1, "6.2: \"kosme\" in Greek" },
        { "\x7f", 1, "U+007F" }, { "\xc2\x80", 1, "U+0080" }, { "\xdf\xbf", 1, "U+07FF" },
        { "\xe0\xa0\x80", 1, "U+0800" }, { "\xed\x9f\xbf", 1, "U+D7FF" },
        { "\xee\x80\x80", 1, "U+E000" }, { "\xef\xbf\xbf", 1, "U+FFFF (noncharacter, valid)" },
        { "\xf0\x90\x80\x80", 1, "U+10000" }, { "\xf4\x8f\xbf\xbf", 1, "U+10FFFF" },
        { "\xc0\xaf", 0, "6.8: overlong '/' in 2 bytes" },
        { "\xe0\x80\xaf", 0, "6.8: overlong '/' in 3 bytes" },
        { "\xf0\x80\x80\xaf", 0, "6.8: overlong '/' in 4 bytes" },
        { "\xc1\xbf", 0, "6.9: overlong U+007F" },
        { "\xe0\x9f\xbf", 0, "6.9: overlong U+07FF" },
        { "\xf0\x8f\xbf\xbf", 0, "6.9: overlong U+FFFF" },
        { "\xed\xa0\x80", 0, "6.10: surrogate U+D800" },
        { "\xed\xbf\xbf", 0, "6.10: surrogate U+DFFF" },
        { "\xed\xa0\x80\xed\xb0\x80", 0, "6.11: surrogate pair" },
        { "\xf4\x90\x80\x80", 0, "6.3: U+110000" },
        { "\xf5\x80\x80\x80", 0, "lead byte F5" }, { "\xff", 0, "byte FF" }, { "\xfe", 0, "byte FE" },
        { "\x80", 0, "6.6: lone continuation byte" },
        { "\xbf\x80", 0, "two continuation bytes" },
        { "\xc2", 0, "6.12: 2-byte sequence cut at the end" },
        { "\xe0\xa0", 0, "6.12: 3-byte sequence cut at the end" },
        { "\xf0\x90\x80", 0, "6.12: 4-byte sequence cut at the end" },
        { "\xc2\x41", 0, "6.13: continuation byte missing" },
        { "\xe1\x80\xc0", 0, "6.13: third byte not a continuation" },
    };
    char name[128], want[sizeof T];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const unsigned char *s = (const unsigned char *)cases[i].s;
        size_t n = strlen(cases[i].s);
        ok(cgp_utf8_valid(s, n) == cases[i].valid, "validator: %s is %s", cases[i].what,
           cases[i].valid ? "valid" : "invalid");
        snprintf(name, sizeof name, "text message %s: %s", cases[i].what,
                 cases[i].valid ? "delivered" : "1007");
        frame(1, CGP_WS_TEXT, s, n);
        run(0, 1u << 20);
        snprintf(want, sizeof want, "%s", cases[i].valid ? T : "ERR1007|");
        if (cases[i].valid)
            ok(T[0] == 'T', "%s (got a message)", name);
        expect(name, want);
        /* the same bytes in a binary message are not checked */
        frame(1, CGP_WS_BINARY, s, n);
        snprintf(want, sizeof want, "B%zu:", n);
        run(0, 1u << 20);
        ok(strncmp(T, want, strlen(want)) == 0, "binary message %s: not checked", cases[i].what);
        SL = 0;
    }
    /* 6.5: valid sequences split across fragments at every byte */
    const char *kosme = "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5";
    int good = 1;
    for (size_t cut = 0; cut <= strlen(kosme); cut++) {
        SL = 0;
        frame(0, CGP_WS_TEXT, kosme, cut);
        frame(1, CGP_WS_CONT, kosme + cut, strlen(kosme) - cut);
        run(1, 1u << 20);
        good &= strncmp(T, "T11:", 4) == 0;
    }
    ok(good, "6.5: a valid text split into two fragments at every byte is delivered");
    SL = 0;
    /* a sequence cut by the message's end, its rest in another message */
    frame(0, CGP_WS_TEXT, "a\xce", 2);
    frame(1, CGP_WS_CONT, "", 0);
    expect("a text message that ends inside a sequence: 1007", "ERR1007|");
    /* 6.4.1: the first fragment holds U+110000: fail at it, not at the end */
    frame(0, CGP_WS_TEXT, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4\x90\x80\x80", 15);
    size_t at = SL - 2;  /* just past the 0x90 */
    frame(1, CGP_WS_CONT, "edited", 6);
    expect_fail_at("6.4.1: invalid code point in the first fragment: 1007 at its bad byte", at, 1007);
    /* 6.4.2: the bad byte opens the second fragment */
    frame(0, CGP_WS_TEXT, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4", 12);
    frame(1, CGP_WS_CONT, "\x90\x80\x80" "edited", 9);
    at = SL - 8;
    expect_fail_at("6.4.2: invalid sequence split across fragments: 1007 at its bad byte", at, 1007);
    /* 6.4.3 / 6.4.4: one frame sent in pieces: fail before its end */
    frame(1, CGP_WS_TEXT, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80" "edited", 20);
    at = SL - 7;
    expect_fail_at("6.4.3: a surrogate inside one frame: 1007 at its second byte", at, 1007);
    frame(0, CGP_WS_TEXT, "ok\xe2\x82", 4);
    frame(1, CGP_WS_PING, "p", 1);
    frame(1, CGP_WS_CONT, "\xac", 1);
    expect("a sequence split across fragments with a ping between", "ping1:p|T5:ok\\xe2\\x82\\xac|");
    t_utf8_exhaustive();
    /* the validator is incremental: every split point gives the same answer */
    const unsigned char *bad = (const unsigned char *)"abc\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80x";
    size_t bl = strlen((const char *)bad);
    good = 1;
    for (size_t cut = 0; cut <= bl; cut++) {
        cgp_utf8 u;
        cgp_utf8_init(&u);
        int a = cgp_utf8_feed(&u, bad, cut);
        int b = cgp_utf8_feed(&u, bad + cut, bl - cut);
        good &= (cut >= 12 ? a == 0 : a == 1) && b == 0 && !cgp_utf8_complete(&u);
    }
    ok(good, "incremental validation: the error at the same byte wherever the split");
    cgp_utf8 u;
    cgp_utf8_init(&u);
    ok(cgp_utf8_feed(&u, (const unsigned char *)"\x80", 1) == 0 &&
       cgp_utf8_feed(&u, (const unsigned char *)"a", 1) == 0, "an invalid state sticks");
    /* long ASCII runs, the fast path, with the error at each position */
    unsigned char run_[64];
    good = 1;
    for (size_t i = 0; i < sizeof run_; i++) {
        memset(run_, 'a', sizeof run_);
        run_[i] = 0x80;
        good &= !cgp_utf8_valid(run_, sizeof run_);
        run_[i] = 'a';
        good &= cgp_utf8_valid(run_, sizeof run_);
    }
    ok(good, "a bad byte anywhere in a long ASCII run is found");
}

/* ------------------------------------------------------------ 7: close */

static void t_close(void)
{
    static const unsigned valid[] = { 1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010,
                                      1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999 };
    static const unsigned invalid[] = { 0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000,
                                        2999, 5000, 65535 };
    char name[80], want[80];

    frame(1, CGP_WS_CLOSE, "", 0);
    expect("7.3.1: close without payload: code 1005 (none)", "close1005:|");
    frame(1, CGP_WS_CLOSE, "\x03", 1);
    expect("7.3.2: close with a 1-byte payload: 1002", "ERR1002|");
    close_frame(1000, "", 0);
    expect("7.3.3: close 1000", "close1000:|");
    close_frame(1000, "Hello World!", 12);
    expect("7.3.4: close 1000 with a reason", "close1000:Hello World!|");
    char r123[124];
    memset(r123, '*', 123);
    close_frame(1000, r123, 123);
    run(0, 1u << 20);
    ok(strncmp(T, "close1000:#", 11) == 0, "7.3.5: close with a 123-byte reason (payload 125)");
    SL = 0;
    char r126[126];
    memset(r126, '*', sizeof r126);
    frame_x(1, 0, CGP_WS_CLOSE, r126, 126, 1, L_16);
    expect_fail_at("7.3.6: close with payload 126: 1002 at its second byte", 2, 1002);
    close_frame(1000, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80", 14);
    expect("7.5.1: close reason not UTF-8: 1007", "ERR1007|");
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        close_frame(valid[i], "", 0);
        snprintf(name, sizeof name, "7.7: close code %u is accepted", valid[i]);
        snprintf(want, sizeof want, "close%u:|", valid[i]);
        expect(name, want);
        ok(cgp_ws_close_code_ok(valid[i]), "close code %u may be sent", valid[i]);
    }
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        close_frame(invalid[i], "", 0);
        snprintf(name, sizeof name, "7.9: close code %u: 1002", invalid[i]);
        expect(name, "ERR1002|");
        ok(!cgp_ws_close_code_ok(invalid[i]), "close code %u may not be sent", invalid[i]);
    }
    close_frame(1000, "", 0);
    frame(1, CGP_WS_PING, "late", 4);
    text("late");
    expect("7.1.2-7.1.4: frames after the close are discarded", "close1000:|");
    text("before");
    close_frame(1001, "bye", 3);
    frame(1, 3, "junk", 4);  /* would be an error if it were read */
    expect("7.1.5: a message, the close, then junk: the junk is not read",
           "T6:before|close1001:bye|");
}

/* ------------------------------------------------------------ 9, limits, header rules */

static void t_limits(void)
{
    static unsigned char big[70000];

    memset(big, 'z', sizeof big);
    frame(1, CGP_WS_BINARY, big, 1000);
    expect_cap("a message at the cap (1000 bytes) is delivered", 1000, "B1000:#4cc24b85|");
    frame(1, CGP_WS_BINARY, big, 1001);
    expect_cap("one byte over the cap: 1009", 1000, "ERR1009|");
    frame(1, CGP_WS_BINARY, big, 1001);
    run(1, 1000);
    ok(strcmp(T, "ERR1009|") == 0 && SL > 0, "... failed at its header, before the payload");
    size_t got = run(1, 1000);
    ok(got == 4 + 4, "... after byte %zu (the 16-bit length and the mask key)", got);
    SL = 0;
    frame(0, CGP_WS_TEXT, big, 600);
    frame(1, CGP_WS_CONT, big, 401);
    expect_cap("fragments adding up past the cap: 1009", 1000, "ERR1009|");
    frame(0, CGP_WS_TEXT, big, 600);
    frame(1, CGP_WS_PING, big, 125);
    frame(1, CGP_WS_CONT, big, 400);
    text("next");
    run(0, 1000);
    ok(strncmp(T, "ping125:#", 9) == 0 && strstr(T, "|T1000:#") && strstr(T, "|T4:next|"),
       "control frames do not count toward the cap; the next message starts at 0");
    SL = 0;
    frame_x(1, 0, CGP_WS_TEXT, "hi", 2, 0, L_MIN);
    expect_fail_at("an unmasked client frame: 1002", 2, 1002);
    frame_x(1, 0, CGP_WS_TEXT, big, 125, 1, L_16);
    expect_fail_at("a 16-bit length under 126: 1002 (not minimal), at the header's end", 8, 1002);
    frame_x(1, 0, CGP_WS_TEXT, big, 65535, 1, L_64);
    expect_fail_at("a 64-bit length under 65536: 1002 (not minimal)", 14, 1002);
    frame_x(1, 0, CGP_WS_TEXT, big, 126, 1, L_16);
    expect("a 16-bit length of 126 is minimal", "T126:#c51bf295|");
    /* the 64-bit length's high bit */
    static const unsigned char huge[] = { 0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4 };
    memcpy(S, huge, sizeof huge);
    SL = sizeof huge;
    expect_fail_at("a 64-bit length with its high bit set: 1002", 14, 1002);
    static const unsigned char big64[] = { 0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 1, 2, 3, 4 };
    memcpy(S, big64, sizeof big64);
    SL = sizeof big64;
    expect_fail_at("a 2^63-1 byte frame: 1009 before any payload", 14, 1009);
    /* reassembly's own cap */
    cgp_ws_msg m;
    unsigned char mb[4];
    cgp_ws_event ev = { .opcode = CGP_WS_TEXT, .data = (const unsigned char *)"abc", .len = 3 };
    cgp_ws_msg_init(&m, mb, sizeof mb);
    is_int(cgp_ws_msg_add(&m, &ev), 0, "reassembly: a first piece");
    is_int(cgp_ws_msg_add(&m, &ev), CGP_WS_ERROR, "reassembly: past its buffer is an error");
    cgp_ws_msg_init(&m, mb, sizeof mb);
    ev.fin = 1;
    is_int(cgp_ws_msg_add(&m, &ev), 1, "reassembly: a whole message");
    ev.data = (const unsigned char *)"xy";
    ev.len = 2;
    ok(cgp_ws_msg_add(&m, &ev) == 1 && m.len == 2 && !memcmp(m.buf, "xy", 2),
       "reassembly: the next message starts afresh");
    /* an empty stream, a stream cut inside a header */
    SL = 0;
    expect("an empty stream yields nothing", "");
    memcpy(S, "\x81\x85\x37\xfa", 4);
    SL = 4;
    expect("a stream cut inside a header yields nothing yet", "");
}

/* ------------------------------------------------------------ the writer */

static void t_writer(void)
{
    unsigned char h[CGP_WS_HDR_MAX], c[CGP_WS_CLOSE_MAX];
    size_t n;

    n = cgp_ws_frame_hdr(h, 1, CGP_WS_TEXT, 5, NULL);
    is_mem(h, n, "\x81\x05", 2, "RFC 6455 5.7: unmasked \"Hello\" header");
    n = cgp_ws_frame_hdr(h, 0, CGP_WS_TEXT, 3, NULL);
    is_mem(h, n, "\x01\x03", 2, "5.7: first fragment of \"Hel\"");
    n = cgp_ws_frame_hdr(h, 1, CGP_WS_CONT, 2, NULL);
    is_mem(h, n, "\x80\x02", 2, "5.7: last fragment \"lo\"");
    n = cgp_ws_frame_hdr(h, 1, CGP_WS_PING, 5, NULL);
    is_mem(h, n, "\x89\x05", 2, "5.7: unmasked ping");
    n = cgp_ws_frame_hdr(h, 1, CGP_WS_PONG, 5, MASK);
    is_mem(h, n, "\x8a\x85\x37\xfa\x21\x3d", 6, "5.7: masked pong header");
    n = cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, 256, NULL);
    is_mem(h, n, "\x82\x7e\x01\x00", 4, "5.7: 256 bytes binary: 16-bit length");
    n = cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, 65536, NULL);
    is_mem(h, n, "\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10, "5.7: 64 KiB binary: 64-bit length");
    is_int(cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, 125, NULL), 2, "125: 7-bit length");
    is_int(cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, 126, NULL), 4, "126: 16-bit length");
    is_int(cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, 65535, NULL), 4, "65535: 16-bit length");
    is_int(cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, 65536, NULL), 10, "65536: 64-bit length");
    is_int(cgp_ws_frame_hdr(h, 1, CGP_WS_BINARY, (uint64_t)1 << 63, NULL), 0, "2^63: refused");
    is_int(cgp_ws_frame_hdr(h, 1, CGP_WS_PING, 126, NULL), 0, "a 126-byte ping: refused");
    is_int(cgp_ws_frame_hdr(h, 0, CGP_WS_CLOSE, 2, NULL), 0, "a fragmented close: refused");
    is_int(cgp_ws_frame_hdr(h, 1, 3, 0, NULL), 0, "opcode 3: refused");
    is_int(cgp_ws_frame_hdr(h, 1, 11, 0, NULL), 0, "opcode 11: refused");
    n = cgp_ws_close_frame(c, 1000, "bye", 3);
    is_mem(c, n, "\x88\x05\x03\xe8" "bye", 7, "close frame 1000 \"bye\"");
    n = cgp_ws_close_frame(c, 0, "", 0);
    is_mem(c, n, "\x88\x00", 2, "close frame without a code");
    is_int(cgp_ws_close_frame(c, 0, "x", 1), 0, "a reason without a code: refused");
    is_int(cgp_ws_close_frame(c, 1005, "", 0), 0, "close 1005 is never sent");
    is_int(cgp_ws_close_frame(c, 1006, "", 0), 0, "close 1006 is never sent");
    is_int(cgp_ws_close_frame(c, 1015, "", 0), 0, "close 1015 is never sent");
    char r[124];
    memset(r, 'r', sizeof r);
    is_int(cgp_ws_close_frame(c, 1009, r, 123), 127, "a 123-byte reason fits");
    is_int(cgp_ws_close_frame(c, 1009, r, 124), 0, "a 124-byte reason: refused");
    is_int(cgp_ws_close_frame(c, 1000, "\xc0\xaf", 2), 0, "a reason not UTF-8: refused");
    /* what the writer frames (masked, as a client would) the parser reads back */
    static unsigned char pl[70000];
    int good = 1;
    static const size_t lens[] = { 0, 1, 125, 126, 65535, 65536, 65537 };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        for (size_t j = 0; j < lens[i]; j++)
            pl[j] = (unsigned char)(j * 7);
        SL = cgp_ws_frame_hdr(S, 1, CGP_WS_BINARY, lens[i], MASK);
        memcpy(S + SL, pl, lens[i]);
        cgp_ws_mask(S + SL, lens[i], MASK, 0);
        SL += lens[i];
        run(0, 1u << 20);
        char want[32];
        snprintf(want, sizeof want, "B%zu:", lens[i]);
        good &= strncmp(T, want, strlen(want)) == 0;
    }
    SL = 0;
    ok(good, "masked frames from the writer parse back at every length form");
    /* masking at any offset equals the byte-wise definition */
    unsigned char a[37], b[37];
    good = 1;
    for (unsigned off = 0; off < 8; off++)
        for (size_t len = 0; len <= sizeof a; len++) {
            for (size_t j = 0; j < sizeof a; j++)
                a[j] = b[j] = (unsigned char)(j * 13 + off);
            cgp_ws_mask(a, len, MASK, off);
            for (size_t j = 0; j < len; j++)
                b[j] ^= MASK[(off + j) & 3];
            good &= !memcmp(a, b, sizeof a);
        }
    ok(good, "cgp_ws_mask at every offset and length matches the definition");
}

/* ------------------------------------------------------------ handshake, SHA-1 */

static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void sha1_is(const void *data, size_t n, size_t step, const char *want, const char *name)
{
    cgp_sha1 s;
    unsigned char d[CGP_SHA1_LEN];
    char h[41];

    cgp_sha1_init(&s);
    for (size_t i = 0; i < n; i += step)
        cgp_sha1_update(&s, (const unsigned char *)data + i, n - i < step ? n - i : step);
    cgp_sha1_final(&s, d);
    hex(d, sizeof d, h);
    if (!ok(strcmp(h, want) == 0, "SHA-1: %s", name))
        printf("#   got %s\n", h);
}

static void t_handshake(void)
{
    char acc[CGP_WS_ACCEPT_LEN + 1];
    static char million[1000000];

    sha1_is("", 0, 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709", "empty (FIPS 180)");
    sha1_is("abc", 3, 1, "a9993e364706816aba3e25717850c26c9cd0d89d", "\"abc\" (FIPS 180)");
    sha1_is("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 56,
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "448-bit message (FIPS 180)");
    sha1_is("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 5,
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "... fed 5 bytes at a time");
    memset(million, 'a', sizeof million);
    sha1_is(million, sizeof million, 4096, "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
            "a million 'a' (FIPS 180)");
    /* block boundaries (values from an independent implementation) */
    sha1_is(million, 55, 55, "c1c8bbdc22796e28c0e15163d20899b65621d65a", "55 bytes");
    sha1_is(million, 56, 56, "c2db330f6083854c99d4b5bfb6e8f29f201be699", "56 bytes");
    sha1_is(million, 63, 63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5", "63 bytes");
    sha1_is(million, 64, 64, "0098ba824b5c16427bd7a1122a5a442a25ec644d", "64 bytes");
    sha1_is(million, 65, 65, "11655326c708d70319be2610e8a57d9a5b959d3b", "65 bytes");

    is_int(cgp_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", 24, acc), 0, "RFC 6455 1.3 key accepted");
    ok(strcmp(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == 0, "RFC 6455 1.3: Sec-WebSocket-Accept");
    is_int(cgp_ws_accept("x3JJHMbDL1EzLkh9GBhXDw==", 24, acc), 0, "RFC 6455 4.1 key");
    ok(strcmp(acc, "HSmrc0sMlYUkAGmm5OPpG2HaGWk=") == 0, "RFC 6455 4.1: Sec-WebSocket-Accept");
    ok(cgp_ws_key_valid("AAAAAAAAAAAAAAAAAAAAAA==", 24), "16 zero bytes is a valid key");
    ok(cgp_ws_key_valid("/////////////////////w==", 24), "16 0xff bytes is a valid key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub25jZR==", 24), "spare bits set: not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub25jZQ=", 23), "23 characters: not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub25jZQ==A", 25), "25 characters: not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub25jZQ", 22), "no padding: not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub25jZ===", 24), "15 bytes: not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub2 jZQ==", 24), "a blank inside: not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub2-jZQ==", 24), "base64url '-': not a key");
    ok(!cgp_ws_key_valid("dGhlIHNhbXBsZSBub2\0jZQ==", 24), "a NUL inside: not a key");
    ok(!cgp_ws_key_valid("", 0), "empty: not a key");
    is_int(cgp_ws_accept("dGhlIHNhbXBsZSBub25jZR==", 24, acc), -1, "accept refuses a bad key");

    ok(cgp_ws_token_has("Upgrade", 7, "upgrade"), "Connection: Upgrade");
    ok(cgp_ws_token_has("keep-alive, Upgrade", 19, "upgrade"), "Connection: keep-alive, Upgrade");
    ok(cgp_ws_token_has(" websocket\t", 11, "websocket"), "blanks around a token");
    ok(cgp_ws_token_has("foo,,WebSocket", 14, "websocket"), "empty element, mixed case");
    ok(!cgp_ws_token_has("websocket/13", 12, "websocket"), "websocket/13 is another token");
    ok(!cgp_ws_token_has("Upgradex", 8, "upgrade"), "a longer token does not match");
    ok(!cgp_ws_token_has("", 0, "upgrade"), "empty list");
    ok(!cgp_ws_token_has("up grade", 8, "upgrade"), "a blank inside does not match");
    ok(cgp_ws_token_has("Upgrade, x", 7, "upgrade"), "only len bytes are read");
}

int main(void)
{
    t_framing();
    t_ping();
    t_rsv();
    t_opcodes();
    t_fragments();
    t_utf8();
    t_close();
    t_limits();
    t_writer();
    t_handshake();
    return tap_done();
}
