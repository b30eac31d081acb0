/* test_fcgi.c: unit tests (TAP) of the FastCGI codec common/cgp_fcgi.c
 * against the FastCGI specification's rules. Streams are built by hand (or
 * with cgp_fcgi_record_pack, which checks nothing) and fed whole and in
 * chunks of 1, 2, 3, 7 and 64 bytes: the events must not depend on where
 * reads split. Real peers (libfcgi, php-cgi): test_fcgi_peers.c. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_fcgi.h"
#include "cgp_table.h"
#include "tap.h"

/* ------------------------------------------------------------ helpers */

static unsigned char S[1 << 21];  /* a stream being built */
static size_t SL;

static void rec(uint8_t type, uint16_t reqid, const void *c, size_t n, uint8_t plen)
{
    if (cgp_fcgi_record_pack(S, sizeof S, &SL, type, reqid, c, n, plen) != CGP_FCGI_OK)
        abort();
}

static void end_rec(uint16_t reqid, uint32_t app, uint8_t ps)
{
    unsigned char b[CGP_FCGI_BODY_LEN];

    memset(b, 0, sizeof b);
    b[0] = (unsigned char)(app >> 24); b[1] = (unsigned char)(app >> 16);
    b[2] = (unsigned char)(app >> 8); b[3] = (unsigned char)app; b[4] = ps;
    rec(CGP_FCGI_END_REQUEST, reqid, b, sizeof b, 0);
}

static char T[16384];

static void tcat(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tcat(const char *fmt, ...)
{
    va_list ap;
    size_t l = strlen(T);

    va_start(ap, fmt);
    vsnprintf(T + l, sizeof T - l, fmt, ap);
    va_end(ap);
}

static void tdata(const unsigned char *d, size_t n)
{
    if (n > 48) {
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; i++)
            h = (h ^ d[i]) * 16777619u;
        tcat("#%zu/%08x", n, h);
        return;
    }
    for (size_t i = 0; i < n; i++)
        tcat(d[i] >= 0x20 && d[i] < 0x7f && d[i] != '\\' ? "%c" : "\\x%02x", d[i]);
}

/* Parses S in chunks (0: whole) on this side; with expect set, the request
 * in flight. Record content pieces are joined; name-value streams decoded.
 * The transcript lists one entry per record and the error, if any. */
static void run(size_t chunk, int side, uint16_t expect)
{
    static unsigned char work[sizeof S], acc[sizeof S], nvbuf[CGP_FCGI_NV_BUF];
    cgp_fcgi_parser p;
    cgp_fcgi_event ev;
    size_t pos = 0, fed = 0, alen = 0;

    memcpy(work, S, SL);
    cgp_fcgi_parser_init(&p, side);
    if (expect)
        cgp_fcgi_parser_expect(&p, expect, 1);
    T[0] = '\0';
    do {
        fed = chunk && SL - fed > chunk ? fed + chunk : SL;
        int rc;
        while ((rc = cgp_fcgi_parse(&p, work, fed, &pos, &ev)) != CGP_FCGI_MORE) {
            if (rc < 0) {
                tcat("ERR(%s)|", cgp_fcgi_strerror(rc));
                size_t p2 = pos;
                if (cgp_fcgi_parse(&p, work, fed, &p2, &ev) != rc)
                    tcat("NOT-STICKY|");
                return;
            }
            if (rc == CGP_FCGI_PIECE) {
                if (ev.data < work || ev.data + ev.len > work + fed || ev.len == 0)
                    tcat("BAD-PIECE|");
                memcpy(acc + alen, ev.data, ev.len);
                alen += ev.len;
                continue;
            }
            tcat("%s/%u", cgp_fcgi_type_name(ev.hdr.type), ev.hdr.reqid);
            switch (ev.hdr.type) {
            case CGP_FCGI_BEGIN_REQUEST:
                tcat(":role=%u,flags=%u", ev.u.begin.role, ev.u.begin.flags);
                break;
            case CGP_FCGI_END_REQUEST:
                tcat(":app=%u,ps=%u", (unsigned)ev.u.end.app_status, ev.u.end.pstatus);
                break;
            case CGP_FCGI_UNKNOWN_TYPE:
                tcat(":type=%u", ev.u.unknown);
                break;
            case CGP_FCGI_ABORT_REQUEST:
                break;
            default:
                if (ev.hdr.clen == 0) {
                    tcat(":EOF");
                } else if (alen != ev.hdr.clen) {
                    tcat(":LEN-MISMATCH");
                } else if (ev.hdr.type == CGP_FCGI_GET_VALUES ||
                           ev.hdr.type == CGP_FCGI_GET_VALUES_RESULT) {
                    cgp_fcgi_nv d;
                    const char *n, *v;
                    size_t nl, vl, q = 0;
                    int r;
                    cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
                    while ((r = cgp_fcgi_nv_next(&d, acc, alen, &q, &n, &nl, &v, &vl)) == 1)
                        tcat(":%.*s=%.*s", (int)nl, n, (int)vl, v);
                    if (r < 0 || cgp_fcgi_nv_finish(&d) != CGP_FCGI_OK)
                        tcat(":NV-ERROR");
                } else {
                    tcat(":");
                    tdata(acc, alen);
                }
            }
            alen = 0;
            tcat("|");
        }
    } while (fed < SL);
}

static void expect_side(const char *name, int side, uint16_t reqid, const char *want)
{
    static const size_t chunks[] = { 0, 1, 2, 3, 7, 64 };
    static char first[sizeof T];
    int same = 1;

    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        run(chunks[i], side, reqid);
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

#define FROM_APP(name, want) expect_side(name, CGP_FCGI_FROM_APP, 1, want)
#define FROM_SERVER(name, want) expect_side(name, CGP_FCGI_FROM_SERVER, 0, want)

/* ------------------------------------------------------------ fixed layouts */

static void t_layout(void)
{
    unsigned char b[16];
    cgp_fcgi_hdr h = { .type = CGP_FCGI_STDOUT, .reqid = 0x1234, .clen = 0xfedc, .plen = 7 }, g;

    memset(b, 0xaa, sizeof b);
    cgp_fcgi_hdr_pack(b, &h);
    is_mem(b, 9, "\x01\x06\x12\x34\xfe\xdc\x07\x00\xaa", 9,
           "header: version, type, request id, content length (big-endian), padding, reserved 0");
    is_int(cgp_fcgi_hdr_unpack(b, &g), CGP_FCGI_OK, "header unpacks");
    ok(g.type == 6 && g.reqid == 0x1234 && g.clen == 0xfedc && g.plen == 7, "header round trip");
    b[7] = 0x55;
    is_int(cgp_fcgi_hdr_unpack(b, &g), CGP_FCGI_OK, "reserved byte ignored on receipt");
    b[0] = 0;
    is_int(cgp_fcgi_hdr_unpack(b, &g), CGP_FCGI_E_VERSION, "version 0 refused");
    b[0] = 2;
    is_int(cgp_fcgi_hdr_unpack(b, &g), CGP_FCGI_E_VERSION, "version 2 refused");

    cgp_fcgi_begin bg = { .role = CGP_FCGI_RESPONDER, .flags = CGP_FCGI_KEEP_CONN }, bg2;
    memset(b, 0xaa, sizeof b);
    cgp_fcgi_begin_pack(b, &bg);
    is_mem(b, 8, "\x00\x01\x01\x00\x00\x00\x00\x00", 8, "BEGIN_REQUEST body: role, flags, 5 reserved");
    cgp_fcgi_begin_unpack(b, &bg2);
    ok(bg2.role == 1 && bg2.flags == CGP_FCGI_KEEP_CONN, "BEGIN_REQUEST round trip");

    cgp_fcgi_end e = { .app_status = 0x80000001u, .pstatus = CGP_FCGI_OVERLOADED }, e2;
    is_int(cgp_fcgi_end_pack(b, &e), CGP_FCGI_OK, "END_REQUEST packs");
    is_mem(b, 8, "\x80\x00\x00\x01\x02\x00\x00\x00", 8,
           "END_REQUEST body: appStatus (32 bits), protocolStatus, 3 reserved");
    is_int(cgp_fcgi_end_unpack(b, &e2), CGP_FCGI_OK, "END_REQUEST unpacks");
    ok(e2.app_status == 0x80000001u && e2.pstatus == CGP_FCGI_OVERLOADED, "END_REQUEST round trip");
    for (unsigned ps = 0; ps <= 3; ps++) {
        b[4] = (unsigned char)ps;
        is_int(cgp_fcgi_end_unpack(b, &e2), CGP_FCGI_OK, "protocolStatus %u accepted", ps);
    }
    b[4] = 4;
    is_int(cgp_fcgi_end_unpack(b, &e2), CGP_FCGI_E_VALUE, "protocolStatus 4 refused");
    e.pstatus = 4;
    is_int(cgp_fcgi_end_pack(b, &e), CGP_FCGI_E_VALUE, "protocolStatus 4 not packed");
    cgp_fcgi_unknown_pack(b, 99);
    is_mem(b, 8, "\x63\x00\x00\x00\x00\x00\x00\x00", 8, "UNKNOWN_TYPE body: the type, 7 reserved");
    cgp_fcgi_abort_pack(b, 0x0102);
    is_mem(b, 8, "\x01\x02\x01\x02\x00\x00\x00\x00", 8, "ABORT_REQUEST: a header, no content");

    unsigned char gv[CGP_FCGI_GET_VALUES_LEN];
    cgp_fcgi_get_values_pack(gv);
    is_mem(gv, sizeof gv,
           "\x01\x09\x00\x00\x00\x30\x00\x00"
           "\x0e\x00" "FCGI_MAX_CONNS" "\x0d\x00" "FCGI_MAX_REQS" "\x0f\x00" "FCGI_MPXS_CONNS",
           56, "GET_VALUES: request id 0, the three names with empty values");

    size_t off = 0;
    unsigned char small[10];
    is_int(cgp_fcgi_record_pack(small, sizeof small, &off, 6, 1, "abc", 3, 0), CGP_FCGI_E_SPACE,
           "record_pack: too small a buffer");
    is_int(cgp_fcgi_record_pack(S, sizeof S, &off, 6, 1, S, 65536, 0), CGP_FCGI_E_LEN,
           "record_pack: content over 65535");

    ok(!strcmp(cgp_fcgi_type_name(1), "BEGIN_REQUEST") && !strcmp(cgp_fcgi_type_name(11), "UNKNOWN_TYPE") &&
       !strcmp(cgp_fcgi_type_name(0), "?") && !strcmp(cgp_fcgi_type_name(12), "?"), "type names");
    int distinct = 1;
    for (int rc = -1; rc >= -7; rc--)
        distinct &= strcmp(cgp_fcgi_strerror(rc), "unknown error") != 0;
    ok(distinct && !strcmp(cgp_fcgi_strerror(-8), "unknown error"), "every error has a text");
}

/* ------------------------------------------------------------ name-value pairs */

static void t_nv(void)
{
    unsigned char b[300];
    size_t off = 0;
    static char big[CGP_FCGI_MAX_VALUE + 2];

    is_int(cgp_fcgi_nv_size(1, 0), 3, "nv size: 1-byte lengths");
    is_int(cgp_fcgi_nv_size(127, 127), 2 + 254, "127 still takes 1 byte");
    is_int(cgp_fcgi_nv_size(128, 0), 5 + 128, "128 takes 4 bytes");
    is_int(cgp_fcgi_nv_pack(b, sizeof b, &off, "A", 1, "xy", 2), CGP_FCGI_OK, "pack a short pair");
    is_mem(b, off, "\x01\x02" "Axy", 5, "... 1-byte lengths, name, value");
    off = 0;
    memset(big, 'v', sizeof big);
    is_int(cgp_fcgi_nv_pack(b, sizeof b, &off, "N", 1, big, 200), CGP_FCGI_OK, "pack a 200-byte value");
    is_mem(b, 6, "\x01\x80\x00\x00\xc8N", 6, "... its length in 4 bytes, high bit set");
    off = 0;
    is_int(cgp_fcgi_nv_pack(b, sizeof b, &off, "", 0, "", 0), CGP_FCGI_E_LEN, "empty name refused");
    is_int(cgp_fcgi_nv_pack(S, sizeof S, &off, big, CGP_FCGI_MAX_NAME + 1, "", 0), CGP_FCGI_E_LEN,
           "name over the cap refused");
    is_int(cgp_fcgi_nv_pack(S, sizeof S, &off, "N", 1, big, CGP_FCGI_MAX_VALUE + 1), CGP_FCGI_E_LEN,
           "value over the cap refused");
    is_int(cgp_fcgi_nv_pack(S, sizeof S, &off, "N", 1, big, CGP_FCGI_MAX_VALUE), CGP_FCGI_OK,
           "value at the cap packed");
    off = 0;
    is_int(cgp_fcgi_nv_pack(b, 4, &off, "A", 1, "xy", 2), CGP_FCGI_E_SPACE, "too small a buffer");

    /* a stream of pairs, decoded whole and split at every byte */
    size_t L = 0;
    static unsigned char st[CGP_FCGI_MAX_VALUE + 2000];
    cgp_fcgi_nv_pack(st, sizeof st, &L, "SCRIPT_NAME", 11, "/x.php", 6);
    cgp_fcgi_nv_pack(st, sizeof st, &L, "EMPTY", 5, "", 0);
    cgp_fcgi_nv_pack(st, sizeof st, &L, "LONG", 4, big, 300);
    cgp_fcgi_nv_pack(st, sizeof st, &L, big, 130, "v", 1);
    unsigned char nvbuf[CGP_FCGI_NV_BUF];
    int good = 1;
    for (size_t cut = 0; cut <= L; cut++) {
        cgp_fcgi_nv d;
        const char *n, *v;
        size_t nl, vl, q = 0, cnt = 0;
        char got[1024] = "";
        cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
        for (int part = 0; part < 2; part++) {
            const unsigned char *in = part ? st + cut : st;
            size_t len = part ? L - cut : cut;
            q = 0;
            int r;
            while ((r = cgp_fcgi_nv_next(&d, in, len, &q, &n, &nl, &v, &vl)) == 1) {
                cnt++;
                size_t l = strlen(got);
                snprintf(got + l, sizeof got - l, "%zu:%.*s=%zu:%.*s;", nl, (int)(nl < 11 ? nl : 11), n,
                         vl, (int)(vl < 6 ? vl : 6), v);
            }
            good &= r == 0 && q == len;
        }
        good &= cgp_fcgi_nv_finish(&d) == CGP_FCGI_OK && cnt == 4 &&
                !strcmp(got, "11:SCRIPT_NAME=6:/x.php;5:EMPTY=0:;4:LONG=300:vvvvvv;130:vvvvvvvvvvv=1:v;");
        if (!good) {
            printf("# cut %zu: %s\n", cut, got);
            break;
        }
    }
    ok(good, "a pair stream split at any byte decodes to the same 4 pairs");

    /* a 64 KiB value split across two records' content */
    L = 0;
    cgp_fcgi_nv_pack(st, sizeof st, &L, "Q", 1, big, CGP_FCGI_MAX_VALUE);
    cgp_fcgi_nv d;
    const char *n, *v;
    size_t nl, vl, q = 0;
    cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
    is_int(cgp_fcgi_nv_next(&d, st, CGP_FCGI_MAX_CONTENT, &q, &n, &nl, &v, &vl), 0,
           "a pair cut by a record's end: more is due");
    q = 0;
    ok(cgp_fcgi_nv_next(&d, st + CGP_FCGI_MAX_CONTENT, L - CGP_FCGI_MAX_CONTENT, &q, &n, &nl,
                        &v, &vl) == 1 && nl == 1 && vl == CGP_FCGI_MAX_VALUE && v[vl - 1] == 'v',
       "... and whole from the next record's content");
    /* the caller's buffer bounds a split pair */
    unsigned char tiny[16];
    cgp_fcgi_nv_init(&d, tiny, sizeof tiny);
    q = 0;
    is_int(cgp_fcgi_nv_next(&d, st, 100, &q, &n, &nl, &v, &vl), CGP_FCGI_E_SPACE,
           "a split pair bigger than the buffer: E_SPACE");
    q = 0;
    is_int(cgp_fcgi_nv_next(&d, st, L, &q, &n, &nl, &v, &vl), CGP_FCGI_E_SPACE, "... and it sticks");
    cgp_fcgi_nv_init(&d, NULL, 0);
    q = 0;
    ok(cgp_fcgi_nv_next(&d, st, L, &q, &n, &nl, &v, &vl) == 1,
       "without a buffer, whole pairs still decode (no copy)");

    /* caps on receipt */
    static const struct { const char *bytes; size_t n; int rc; const char *what; } bad[] = {
        { "\x00\x00", 2, CGP_FCGI_E_LEN, "name length 0" },
        { "\x80\x00\x04\x01\x00", 5, CGP_FCGI_E_LEN, "name length 1025" },
        { "\x01\x80\x01\x00\x01", 5, CGP_FCGI_E_LEN, "value length 65537" },
        { "\xff\xff\xff\xff\x00", 5, CGP_FCGI_E_LEN, "name length 2^31-1" },
        { "\x01\xff\xff\xff\xff", 5, CGP_FCGI_E_LEN, "value length 2^31-1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
        q = 0;
        is_int(cgp_fcgi_nv_next(&d, (const unsigned char *)bad[i].bytes, bad[i].n, &q, &n, &nl,
                                &v, &vl), bad[i].rc, "receipt: %s refused", bad[i].what);
    }
    cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
    q = 0;
    ok(cgp_fcgi_nv_next(&d, (const unsigned char *)"\x80\x00\x00\x01\x80\x00\x00\x02" "Axy", 11,
                        &q, &n, &nl, &v, &vl) == 1 && nl == 1 && vl == 2 && !memcmp(v, "xy", 2),
       "4-byte encodings of short lengths are accepted");
    cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
    q = 0;
    is_int(cgp_fcgi_nv_next(&d, (const unsigned char *)"\x05\x01" "AB", 4, &q, &n, &nl, &v, &vl), 0,
           "a cut pair waits for more");
    is_int(cgp_fcgi_nv_finish(&d), CGP_FCGI_E_LEN, "... and is an error at the stream's end");
    cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
    q = 0;
    is_int(cgp_fcgi_nv_next(&d, (const unsigned char *)"\x80", 1, &q, &n, &nl, &v, &vl), 0,
           "a cut 4-byte length waits");
    is_int(cgp_fcgi_nv_finish(&d), CGP_FCGI_E_LEN, "... and is an error at the end");
    /* the total cap: 1 MiB of pairs */
    cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
    L = 0;
    cgp_fcgi_nv_pack(st, sizeof st, &L, "N", 1, big, 60000);
    int r = 1;
    size_t pairs = 0;
    while (r == 1 && pairs < 100) {
        q = 0;
        r = cgp_fcgi_nv_next(&d, st, L, &q, &n, &nl, &v, &vl);
        pairs += r == 1;
    }
    ok(r == CGP_FCGI_E_LEN && pairs == CGP_FCGI_MAX_PARAMS / (L), "pairs past 1 MiB in all: E_LEN after %zu",
       pairs);

    /* GET_VALUES_RESULT values */
    cgp_fcgi_values vals = { 0 };
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_CONNS", 14, "10", 2), CGP_FCGI_OK, "FCGI_MAX_CONNS=10");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_REQS", 13, "1", 1), CGP_FCGI_OK, "FCGI_MAX_REQS=1");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MPXS_CONNS", 15, "0", 1), CGP_FCGI_OK, "FCGI_MPXS_CONNS=0");
    is_int(cgp_fcgi_values_add(&vals, "X_OTHER", 7, "junk", 4), CGP_FCGI_OK, "unknown name ignored");
    ok(vals.have == 7 && vals.max_conns == 10 && vals.max_reqs == 1 && vals.mpxs_conns == 0,
       "values gathered");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MPXS_CONNS", 15, "2", 1), CGP_FCGI_E_VALUE, "MPXS_CONNS=2 refused");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_REQS", 13, "", 0), CGP_FCGI_E_VALUE, "empty value refused");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_REQS", 13, "1x", 2), CGP_FCGI_E_VALUE, "non-digit refused");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_REQS", 13, "-1", 2), CGP_FCGI_E_VALUE, "sign refused");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_REQS", 13, "1234567890", 10), CGP_FCGI_E_VALUE,
           "10 digits refused");
    is_int(cgp_fcgi_values_add(&vals, "FCGI_MAX_REQS", 13, "999999999", 9), CGP_FCGI_OK, "9 digits taken");
    is_int(cgp_fcgi_values_add(&vals, "fcgi_max_reqs", 13, "x", 1), CGP_FCGI_OK,
           "names are case-sensitive (another name, ignored)");
}

/* ------------------------------------------------------------ the parser, server side */

static void t_from_app(void)
{
    static unsigned char big[70000];

    rec(CGP_FCGI_STDOUT, 1, "Content-Type: text/plain\r\n\r\nhi", 30, 0);
    rec(CGP_FCGI_STDERR, 1, "warn\n", 5, 3);
    rec(CGP_FCGI_STDOUT, 1, "", 0, 0);
    rec(CGP_FCGI_STDERR, 1, "", 0, 0);
    end_rec(1, 0, CGP_FCGI_REQUEST_COMPLETE);
    FROM_APP("a response: STDOUT, STDERR (padded), both ends, END_REQUEST",
             "STDOUT/1:Content-Type: text/plain\\x0d\\x0a\\x0d\\x0ahi|STDERR/1:warn\\x0a|"
             "STDOUT/1:EOF|STDERR/1:EOF|END_REQUEST/1:app=0,ps=0|");
    memset(big, 'o', sizeof big);
    rec(CGP_FCGI_STDOUT, 1, big, 65535, 255);
    rec(CGP_FCGI_STDOUT, 1, big, 1, 7);
    end_rec(1, 0xffffffffu, CGP_FCGI_REQUEST_COMPLETE);
    FROM_APP("a 65535-byte record with 255 bytes of padding, then a 1-byte one",
             "STDOUT/1:#65535/bac6da28|STDOUT/1:o|END_REQUEST/1:app=4294967295,ps=0|");
    end_rec(1, 0, CGP_FCGI_OVERLOADED);
    FROM_APP("END_REQUEST OVERLOADED", "END_REQUEST/1:app=0,ps=2|");
    end_rec(1, 0, CGP_FCGI_CANT_MPX_CONN);
    FROM_APP("END_REQUEST CANT_MPX_CONN", "END_REQUEST/1:app=0,ps=1|");
    end_rec(1, 0, CGP_FCGI_UNKNOWN_ROLE);
    FROM_APP("END_REQUEST UNKNOWN_ROLE", "END_REQUEST/1:app=0,ps=3|");
    end_rec(1, 0, 4);
    FROM_APP("END_REQUEST with protocolStatus 4: refused", "ERR(FastCGI field value out of range)|");
    unsigned char nine[9] = { 0 };
    rec(CGP_FCGI_END_REQUEST, 1, nine, 9, 0);
    FROM_APP("END_REQUEST of 9 bytes: refused",
             "ERR(FastCGI length over its cap or not the fixed one)|");
    rec(CGP_FCGI_END_REQUEST, 1, nine, 7, 0);
    FROM_APP("END_REQUEST of 7 bytes: refused",
             "ERR(FastCGI length over its cap or not the fixed one)|");

    /* management records */
    size_t L = 0;
    unsigned char nv[128];
    cgp_fcgi_nv_pack(nv, sizeof nv, &L, "FCGI_MAX_CONNS", 14, "1", 1);
    cgp_fcgi_nv_pack(nv, sizeof nv, &L, "FCGI_MPXS_CONNS", 15, "0", 1);
    rec(CGP_FCGI_GET_VALUES_RESULT, 0, nv, L, 1);
    unsigned char ut[8];
    cgp_fcgi_unknown_pack(ut, 42);
    rec(CGP_FCGI_UNKNOWN_TYPE, 0, ut, 8, 0);
    rec(CGP_FCGI_STDOUT, 1, "x", 1, 0);
    FROM_APP("GET_VALUES_RESULT and UNKNOWN_TYPE (request id 0) amid a request",
             "GET_VALUES_RESULT/0:FCGI_MAX_CONNS=1:FCGI_MPXS_CONNS=0|UNKNOWN_TYPE/0:type=42|STDOUT/1:x|");
    rec(CGP_FCGI_GET_VALUES_RESULT, 0, nv, L, 0);
    expect_side("GET_VALUES_RESULT with no request in flight", CGP_FCGI_FROM_APP, 0,
                "GET_VALUES_RESULT/0:FCGI_MAX_CONNS=1:FCGI_MPXS_CONNS=0|");

    /* what the application may not send */
    static const uint8_t not_app[] = { CGP_FCGI_BEGIN_REQUEST, CGP_FCGI_ABORT_REQUEST,
                                       CGP_FCGI_PARAMS, CGP_FCGI_STDIN, CGP_FCGI_DATA,
                                       CGP_FCGI_GET_VALUES, 0, 12, 255 };
    for (size_t i = 0; i < sizeof not_app; i++) {
        char name[64];
        rec(not_app[i], not_app[i] == CGP_FCGI_GET_VALUES || not_app[i] == 0 || not_app[i] > 11 ? 0 : 1,
            "", 0, 0);
        snprintf(name, sizeof name, "type %u from the application: refused", not_app[i]);
        FROM_APP(name, "ERR(FastCGI record type not allowed from this side)|");
    }
    rec(CGP_FCGI_STDOUT, 0, "x", 1, 0);
    FROM_APP("STDOUT with request id 0: refused", "ERR(FastCGI request id not the one in flight)|");
    rec(CGP_FCGI_STDOUT, 2, "x", 1, 0);
    FROM_APP("STDOUT for another request: refused", "ERR(FastCGI request id not the one in flight)|");
    end_rec(2, 0, 0);
    FROM_APP("END_REQUEST for another request: refused", "ERR(FastCGI request id not the one in flight)|");
    rec(CGP_FCGI_STDOUT, 4, "late", 4, 0);
    expect_side("request 5 in flight: STDOUT of request 4 (late) refused", CGP_FCGI_FROM_APP, 5,
                "ERR(FastCGI request id not the one in flight)|");
    rec(CGP_FCGI_STDOUT, 1, "x", 1, 0);
    end_rec(1, 0, 0);
    expect_side("request 5 in flight: records of id 1 are its (an application that always "
                "answers 1)", CGP_FCGI_FROM_APP, 5, "STDOUT/1:x|END_REQUEST/1:app=0,ps=0|");
    rec(CGP_FCGI_GET_VALUES_RESULT, 1, "", 0, 0);
    FROM_APP("GET_VALUES_RESULT with request id 1: refused",
             "ERR(FastCGI request id not the one in flight)|");
    rec(CGP_FCGI_UNKNOWN_TYPE, 0, ut, 7, 0);
    FROM_APP("UNKNOWN_TYPE of 7 bytes: refused", "ERR(FastCGI length over its cap or not the fixed one)|");
    rec(CGP_FCGI_STDOUT, 1, "x", 1, 0);
    expect_side("STDOUT with no request in flight: refused", CGP_FCGI_FROM_APP, 0,
                "ERR(FastCGI record not allowed in the request's state)|");
    end_rec(1, 0, 0);
    rec(CGP_FCGI_STDOUT, 1, "late", 4, 0);
    FROM_APP("STDOUT after END_REQUEST: refused",
             "END_REQUEST/1:app=0,ps=0|ERR(FastCGI record not allowed in the request's state)|");
    rec(CGP_FCGI_STDOUT, 1, "", 0, 0);
    rec(CGP_FCGI_STDOUT, 1, "more", 4, 0);
    FROM_APP("STDOUT after its end: refused",
             "STDOUT/1:EOF|ERR(FastCGI record not allowed in the request's state)|");
    rec(CGP_FCGI_STDERR, 1, "", 0, 0);
    rec(CGP_FCGI_STDOUT, 1, "out", 3, 0);
    rec(CGP_FCGI_STDERR, 1, "e", 1, 0);
    FROM_APP("STDERR after its end: refused (STDOUT still open)",
             "STDERR/1:EOF|STDOUT/1:out|ERR(FastCGI record not allowed in the request's state)|");
    memcpy(S, "\x02\x06\x00\x01\x00\x00\x00\x00", 8);
    SL = 8;
    FROM_APP("version 2: refused", "ERR(FastCGI version not 1)|");
    rec(CGP_FCGI_STDOUT, 1, "abc", 3, 0);
    SL--;
    FROM_APP("a record cut short: its piece, no record yet", "");

    /* the next request on a kept connection */
    cgp_fcgi_parser p;
    cgp_fcgi_event ev;
    size_t pos = 0;
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
    cgp_fcgi_parser_expect(&p, 1, 1);
    rec(CGP_FCGI_STDOUT, 1, "", 0, 0);
    end_rec(1, 0, 0);
    size_t first = SL;
    rec(CGP_FCGI_STDOUT, 2, "two", 3, 0);
    int rc, records = 0;
    while ((rc = cgp_fcgi_parse(&p, S, first, &pos, &ev)) > 0)
        records += rc == CGP_FCGI_RECORD;
    ok(rc == CGP_FCGI_MORE && records == 2, "first request: STDOUT end, END_REQUEST");
    cgp_fcgi_parser_expect(&p, 2, 1);
    ok(cgp_fcgi_parse(&p, S, SL, &pos, &ev) == CGP_FCGI_PIECE && ev.len == 3 && ev.hdr.reqid == 2,
       "the next request's STDOUT, once expected (its STDOUT open again)");
    SL = 0;

    /* records of id 1 while 2 is in flight: an application's that answers 1
     * whatever it is asked (learnt), else something else's (a process a
     * script left holding the connection) */
    rec(CGP_FCGI_STDOUT, 1, "one", 3, 0);
    for (int one = 0; one < 2; one++) {
        pos = 0;
        cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
        cgp_fcgi_parser_expect(&p, 2, one);
        rc = cgp_fcgi_parse(&p, S, SL, &pos, &ev);
        ok(one ? rc == CGP_FCGI_PIECE && ev.hdr.reqid == 1 : rc == CGP_FCGI_E_REQID,
           one ? "id 1 while 2 is asked: passes where the application answers 1"
               : "id 1 while 2 is asked: refused unless the application answers 1");
    }
    SL = 0;
}

/* ------------------------------------------------------------ the parser, application side */

static void t_from_server(void)
{
    unsigned char body[8];
    cgp_fcgi_begin b = { .role = CGP_FCGI_RESPONDER, .flags = CGP_FCGI_KEEP_CONN };

    cgp_fcgi_begin_pack(body, &b);
    rec(CGP_FCGI_BEGIN_REQUEST, 7, body, 8, 0);
    rec(CGP_FCGI_PARAMS, 7, "\x01\x01" "AB", 4, 4);
    rec(CGP_FCGI_PARAMS, 7, "", 0, 0);
    rec(CGP_FCGI_STDIN, 7, "body", 4, 0);
    rec(CGP_FCGI_STDIN, 7, "", 0, 0);
    rec(CGP_FCGI_ABORT_REQUEST, 7, "", 0, 0);
    FROM_SERVER("a request: BEGIN_REQUEST (KEEP_CONN), PARAMS, STDIN, ABORT_REQUEST",
                "BEGIN_REQUEST/7:role=1,flags=1|PARAMS/7:\\x01\\x01AB|PARAMS/7:EOF|STDIN/7:body|"
                "STDIN/7:EOF|ABORT_REQUEST/7|");
    b.role = 99;
    cgp_fcgi_begin_pack(body, &b);
    rec(CGP_FCGI_BEGIN_REQUEST, 1, body, 8, 0);
    FROM_SERVER("an unknown role is delivered (the application answers UNKNOWN_ROLE)",
                "BEGIN_REQUEST/1:role=99,flags=1|");
    unsigned char gv[CGP_FCGI_GET_VALUES_LEN];
    cgp_fcgi_get_values_pack(gv);
    memcpy(S, gv, sizeof gv);
    SL = sizeof gv;
    FROM_SERVER("GET_VALUES as packed", "GET_VALUES/0:FCGI_MAX_CONNS=:FCGI_MAX_REQS=:FCGI_MPXS_CONNS=|");
    rec(99, 0, "xyz", 3, 0);
    rec(0, 0, "", 0, 0);
    FROM_SERVER("management records of unknown types are delivered (for UNKNOWN_TYPE)",
                "?/0:xyz|?/0:EOF|");
    rec(99, 1, "xyz", 3, 0);
    FROM_SERVER("an application record of an unknown type: refused",
                "ERR(FastCGI record type not allowed from this side)|");
    rec(CGP_FCGI_ABORT_REQUEST, 1, "x", 1, 0);
    FROM_SERVER("ABORT_REQUEST with content: refused",
                "ERR(FastCGI length over its cap or not the fixed one)|");
    rec(CGP_FCGI_BEGIN_REQUEST, 1, body, 4, 0);
    FROM_SERVER("BEGIN_REQUEST of 4 bytes: refused",
                "ERR(FastCGI length over its cap or not the fixed one)|");
    rec(CGP_FCGI_BEGIN_REQUEST, 0, body, 8, 0);
    FROM_SERVER("BEGIN_REQUEST with request id 0: refused",
                "ERR(FastCGI request id not the one in flight)|");
    rec(CGP_FCGI_GET_VALUES, 3, "", 0, 0);
    FROM_SERVER("GET_VALUES with request id 3: refused",
                "ERR(FastCGI request id not the one in flight)|");
    static const uint8_t not_server[] = { CGP_FCGI_END_REQUEST, CGP_FCGI_STDOUT, CGP_FCGI_STDERR,
                                          CGP_FCGI_GET_VALUES_RESULT, CGP_FCGI_UNKNOWN_TYPE };
    for (size_t i = 0; i < sizeof not_server; i++) {
        char name[64];
        rec(not_server[i], 1, "", 0, 0);
        snprintf(name, sizeof name, "%s from the web server: refused", cgp_fcgi_type_name(not_server[i]));
        FROM_SERVER(name, "ERR(FastCGI record type not allowed from this side)|");
    }
}

/* ------------------------------------------------------------ packing requests */

static void t_request(void)
{
    static unsigned char out[1 << 21], big[CGP_FCGI_MAX_VALUE];
    static cgp_fcgi_pair many[40];
    cgp_fcgi_pair pairs[] = {
        { "SCRIPT_FILENAME", 15, "/srv/x.php", 10 },
        { "QUERY_STRING", 12, "", 0 },
        { "HTTP_X_BIG", 10, (const char *)big, sizeof big },
    };
    size_t len = 0, need;

    memset(big, 'b', sizeof big);
    need = cgp_fcgi_request_size(pairs, 3);
    is_int(cgp_fcgi_request_pack(out, sizeof out, &len, 1, CGP_FCGI_RESPONDER, 0, pairs, 3),
           CGP_FCGI_OK, "a request with a 64 KiB value packs");
    is_int(len, need, "request_size is exact (%zu bytes)", need);
    is_mem(out, 16, "\x01\x01\x00\x01\x00\x08\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00", 16,
           "BEGIN_REQUEST first: responder, no KEEP_CONN");
    ok(out[16 + 1] == CGP_FCGI_PARAMS && out[16 + 4] == 0xff && out[16 + 5] == 0xff,
       "the first PARAMS record is full (65535 bytes): the big pair spans two");
    is_mem(out + len - 8, 8, "\x01\x04\x00\x01\x00\x00\x00\x00", 8, "an empty PARAMS record last");
    /* parse it back on the application's side */
    memcpy(S, out, len);
    SL = len;
    run(0, CGP_FCGI_FROM_SERVER, 0);
    static char want[512];
    snprintf(want, sizeof want, "BEGIN_REQUEST/1:role=1,flags=0|PARAMS/1:#65535/");
    ok(strncmp(T, want, strlen(want)) == 0 && strstr(T, "|PARAMS/1:EOF|"), "it parses back");
    /* and the pairs come back across the record boundary */
    {
        cgp_fcgi_parser p;
        cgp_fcgi_event ev;
        cgp_fcgi_nv d;
        static unsigned char nvbuf[CGP_FCGI_NV_BUF];
        size_t pos = 0, got = 0;
        int rc, same = 1, eof = 0;
        cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_SERVER);
        cgp_fcgi_nv_init(&d, nvbuf, sizeof nvbuf);
        while ((rc = cgp_fcgi_parse(&p, out, len, &pos, &ev)) > 0) {
            if (rc == CGP_FCGI_RECORD && ev.hdr.type == CGP_FCGI_PARAMS && ev.hdr.clen == 0)
                eof = cgp_fcgi_nv_finish(&d) == CGP_FCGI_OK;
            if (rc != CGP_FCGI_PIECE)
                continue;
            const char *n, *v;
            size_t nl, vl, q = 0;
            while (cgp_fcgi_nv_next(&d, ev.data, ev.len, &q, &n, &nl, &v, &vl) == 1) {
                same &= got < 3 && nl == pairs[got].nlen && vl == pairs[got].vlen &&
                        !memcmp(n, pairs[got].name, nl) && !memcmp(v, pairs[got].val, vl);
                got++;
            }
        }
        ok(rc == CGP_FCGI_MORE && same && got == 3 && eof,
           "the three pairs decode from the PARAMS records, the split one included");
    }
    for (size_t cap = 0; cap < need; cap += (cap < 100 ? 1 : 997)) {
        if (cgp_fcgi_request_pack(out, cap, &len, 1, 1, 0, pairs, 3) != CGP_FCGI_E_SPACE) {
            ok(0, "E_SPACE below the size (cap %zu)", cap);
            break;
        }
    }
    is_int(cgp_fcgi_request_pack(out, need - 1, &len, 1, 1, 0, pairs, 3), CGP_FCGI_E_SPACE,
           "one byte short: E_SPACE");
    is_int(cgp_fcgi_request_pack(out, need, &len, 1, 1, 0, pairs, 3), CGP_FCGI_OK, "exactly enough");
    is_int(cgp_fcgi_request_pack(out, sizeof out, &len, 0, 1, 0, pairs, 3), CGP_FCGI_E_VALUE,
           "request id 0 refused");
    pairs[1].nlen = 0;
    is_int(cgp_fcgi_request_pack(out, sizeof out, &len, 1, 1, 0, pairs, 3), CGP_FCGI_E_LEN,
           "an empty name refused");
    is_int(cgp_fcgi_request_size(pairs, 3), 0, "... its size is 0");
    pairs[1].nlen = 12;
    for (size_t i = 0; i < 40; i++)
        many[i] = (cgp_fcgi_pair){ "V", 1, (const char *)big, sizeof big };
    is_int(cgp_fcgi_request_pack(out, sizeof out, &len, 1, 1, 0, many, 40), CGP_FCGI_E_LEN,
           "pairs over 1 MiB in all refused");
    is_int(cgp_fcgi_request_size(many, 40), 0, "... their size is 0");
    is_int(cgp_fcgi_request_pack(out, sizeof out, &len, 1, 1, CGP_FCGI_KEEP_CONN, NULL, 0),
           CGP_FCGI_OK, "a request without pairs");
    is_mem(out, len, "\x01\x01\x00\x01\x00\x08\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00"
           "\x01\x04\x00\x01\x00\x00\x00\x00", 24, "... BEGIN_REQUEST (KEEP_CONN) and the empty PARAMS only");
    /* exactly 65535 bytes of pairs: one full record, no empty one between */
    static cgp_fcgi_pair exact = { "N", 1, (const char *)big, 65535 - 1 - 1 - 4 };
    is_int(cgp_fcgi_nv_size(exact.nlen, exact.vlen), 65535, "a 65535-byte pair");
    cgp_fcgi_request_pack(out, sizeof out, &len, 1, 1, 0, &exact, 1);
    ok(len == 16 + 8 + 65535 + 8 && out[len - 8 + 1] == CGP_FCGI_PARAMS && out[len - 8 + 5] == 0,
       "... one full PARAMS record, then the empty one");
}

static void t_stream_iov(void)
{
    static unsigned char data[200000], flat[300000];
    unsigned char hdrs[4][CGP_FCGI_HDR_LEN];
    struct iovec iov[8];
    size_t taken, n;

    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 31);
    n = cgp_fcgi_stream_iov(CGP_FCGI_STDIN, 5, NULL, 0, hdrs, 4, iov, &taken);
    ok(n == 1 && taken == 0 && iov[0].iov_len == 8 &&
       !memcmp(iov[0].iov_base, "\x01\x05\x00\x05\x00\x00\x00\x00", 8),
       "no data: the empty STDIN record that ends the stream");
    n = cgp_fcgi_stream_iov(CGP_FCGI_STDIN, 5, data, 70000, hdrs, 4, iov, &taken);
    ok(n == 4 && taken == 70000 && iov[1].iov_len == 65535 && iov[3].iov_len == 4465 &&
       iov[1].iov_base == data && iov[3].iov_base == data + 65535,
       "70000 bytes: two records (65535 + 4465), the data not copied");
    n = cgp_fcgi_stream_iov(CGP_FCGI_STDIN, 5, data, sizeof data, hdrs, 2, iov, &taken);
    ok(n == 4 && taken == 2 * 65535, "out of records: the bytes framed so far (%zu)", taken);
    is_int(cgp_fcgi_stream_iov(CGP_FCGI_STDIN, 5, data, 10, hdrs, 0, iov, &taken), 0,
           "no record room: nothing");
    /* the iovecs, concatenated, parse back as the same bytes */
    n = cgp_fcgi_stream_iov(CGP_FCGI_STDIN, 5, data, 140000, hdrs, 4, iov, &taken);
    size_t fl = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(flat + fl, iov[i].iov_base, iov[i].iov_len);
        fl += iov[i].iov_len;
    }
    n = cgp_fcgi_stream_iov(CGP_FCGI_STDIN, 5, NULL, 0, hdrs, 4, iov, &taken);
    memcpy(flat + fl, iov[0].iov_base, 8);
    fl += 8;
    cgp_fcgi_parser p;
    cgp_fcgi_event ev;
    size_t pos = 0, got = 0;
    int rc, same = 1, eof = 0;
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_SERVER);
    while ((rc = cgp_fcgi_parse(&p, flat, fl, &pos, &ev)) > 0) {
        if (rc == CGP_FCGI_PIECE) {
            same &= !memcmp(ev.data, data + got, ev.len);
            got += ev.len;
        } else if (ev.hdr.clen == 0) {
            eof = 1;
        }
    }
    ok(rc == CGP_FCGI_MORE && same && got == 140000 && eof,
       "140000 bytes in three STDIN records and the end parse back");
}

/* Where a reader may hand the connection to another: after a whole record
 * and its padding, at every split of the stream. */
static void t_between(void)
{
    cgp_fcgi_parser p;
    cgp_fcgi_event ev;
    size_t bounds[8], nb = 0, pos, i;
    int rc, agree = 1;

    SL = 0;
    rec(CGP_FCGI_STDOUT, 1, "hello", 5, 3);
    bounds[nb++] = SL;
    rec(CGP_FCGI_STDERR, 1, "e", 1, 0);
    bounds[nb++] = SL;
    end_rec(1, 0, CGP_FCGI_REQUEST_COMPLETE);
    bounds[nb++] = SL;
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
    ok(cgp_fcgi_parser_between(&p), "a new parser is between records");
    cgp_fcgi_parser_expect(&p, 1, 1);
    /* one byte at a time: between exactly at the ends of records */
    for (i = 1; i <= SL; i++) {
        int at = 0;
        pos = i - 1;
        while ((rc = cgp_fcgi_parse(&p, S, i, &pos, &ev)) > 0)
            ;
        for (size_t k = 0; k < nb; k++)
            at |= bounds[k] == i;
        agree &= rc == CGP_FCGI_MORE && cgp_fcgi_parser_between(&p) == at;
    }
    ok(agree, "between after each whole record (padding read), never inside one");
    pos = 0;
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
    cgp_fcgi_parser_expect(&p, 1, 1);
    rc = cgp_fcgi_parse(&p, S, 9, &pos, &ev);
    ok(rc == CGP_FCGI_PIECE && !cgp_fcgi_parser_between(&p), "inside a record's content: not between");
    SL = 0;
    rec(CGP_FCGI_STDIN, 1, "x", 1, 0); /* a type the application does not send */
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
    cgp_fcgi_parser_expect(&p, 1, 1);
    pos = 0;
    rc = cgp_fcgi_parse(&p, S, SL, &pos, &ev);
    ok(rc == CGP_FCGI_E_TYPE && !cgp_fcgi_parser_between(&p), "after an error: never between");
    SL = 0;
}

/* docs/PROTOCOL.md, "The connection": a worker's request ids run 2 to
 * 65535, then 2 again, never 1 (nor 0), one more each request. */
static void t_reqids(void)
{
    cgp_tslot slot;
    uint32_t cur = 0;
    int bad = 0, wraps = 0;

    ok(cgp_fcgi_reqid_next(0) == 2 && cgp_fcgi_reqid_next(1) == 2,
       "request ids: a fresh slot's first id is 2, never 1");
    ok(cgp_fcgi_reqid_next(2) == 3 && cgp_fcgi_reqid_next(65534) == 65535,
       "request ids: one more each request");
    ok(cgp_fcgi_reqid_next(65535) == 2, "request ids: after 65535, 2 again");
    for (int i = 0; i < 3 * 65536; i++) {
        uint16_t n = cgp_fcgi_reqid_next(cur);
        if (n < 2 || (n != cur + 1 && !(cur == 65535 && n == 2) && cur >= 2))
            bad++;
        wraps += n == 2 && cur == 65535;
        cur = n;
    }
    ok(!bad && wraps == 3, "request ids: 196608 in a row stay in 2..65535, wrapping three times");
    memset(&slot, 0, sizeof(slot));
    ok(cgp_tslot_fcgi_next(&slot) == 2 && cgp_tslot_fcgi_next(&slot) == 3 &&
       atomic_load(&slot.fcgi_reqid) == 3,
       "request ids: the slot keeps the last one (u32 fcgi_reqid)");
}

int main(void)
{
    t_reqids();
    t_layout();
    t_nv();
    t_from_app();
    t_from_server();
    t_request();
    t_stream_iov();
    t_between();
    return tap_done();
}
