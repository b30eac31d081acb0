/* test_proto.c: unit tests (TAP) of the wire codec common/cgp_proto.c, of
 * the #! reader common/cgp_shebang.c and of libcgiplus's record parser
 * lib/cgp_records.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cgp_proto.h"
#include "cgp_shebang.h"
#include "cgp_table.h"
#include "../../lib/cgp_records.h"
#include "tap.h"

/* ------------------------------------------------------------ helpers */

static void t_bytes(void)
{
    unsigned char b[4];

    cgp_put16(b, 0x1234);
    ok(b[0] == 0x12 && b[1] == 0x34, "put16 is big-endian");
    is_int(cgp_get16(b), 0x1234, "get16 round trip");
    cgp_put16(b, 0xffff);
    is_int(cgp_get16(b), 0xffff, "get16 of 0xffff");
    cgp_put32(b, 0x89abcdefu);
    ok(b[0] == 0x89 && b[1] == 0xab && b[2] == 0xcd && b[3] == 0xef,
       "put32 is big-endian");
    is_int(cgp_get32(b), 0x89abcdefu, "get32 round trip");
    cgp_put32(b, 0);
    is_int(cgp_get32(b), 0, "get32 of 0");
}

static void t_names(void)
{
    static const int codes[] = { CGP_OK, CGP_E_MAGIC, CGP_E_VERSION,
                                 CGP_E_TYPE, CGP_E_LEN, CGP_E_SPACE,
                                 CGP_E_VALUE };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        ok(strcmp(cgp_strerror(codes[i]), "unknown error") != 0,
           "strerror(%d) is specific", codes[i]);
    ok(strcmp(cgp_strerror(-99), "unknown error") == 0, "strerror(-99)");
    ok(strcmp(cgp_strerror(1), "unknown error") == 0, "strerror(1)");
    ok(strcmp(cgp_type_name(CGP_T_HELLO), "HELLO") == 0 &&
       strcmp(cgp_type_name(CGP_T_ABORT), "ABORT") == 0 &&
       strcmp(cgp_type_name(CGP_T_END), "END") == 0, "type names");
    ok(strcmp(cgp_type_name(0), "?") == 0 && strcmp(cgp_type_name(CGP_T_MAX_ + 1), "?") == 0 &&
       strcmp(cgp_type_name(~0u), "?") == 0, "type name out of range");
    for (unsigned t = 1; t <= CGP_T_MAX_; t++)
        ok(strcmp(cgp_type_name(t), "?") != 0, "type %u has a name", t);
    for (unsigned t = CGP_T_WS_FIRST_; t <= CGP_T_WS_LAST_; t++)
        ok(strcmp(cgp_type_name(t), "?") != 0 && cgp_type_valid(t), "type %u has a name", t);
    ok(strcmp(cgp_type_name(CGP_T_WS_FIRST_ - 1), "?") == 0 &&
       !cgp_type_valid(CGP_T_WS_FIRST_ - 1) && strcmp(cgp_type_name(CGP_T_WS_LAST_ + 1), "?") == 0 &&
       !cgp_type_valid(CGP_T_WS_LAST_ + 1), "no name around the WebSocket types");
    ok(strcmp(cgp_outcome_name(CGP_O_OK), "ok") == 0 &&
       strcmp(cgp_outcome_name(CGP_O_ABORTED), "aborted") == 0 &&
       strcmp(cgp_outcome_name(CGP_O_SPAWN_FAILED), "spawn-failed") == 0,
       "outcome names");
    ok(strcmp(cgp_outcome_name(CGP_O_REFUSED), "refused") == 0 &&
       strcmp(cgp_outcome_name(CGP_O_MAX_ + 1), "?") == 0 &&
       strcmp(cgp_outcome_name(~0u), "?") == 0, "outcome name out of range");
}

/* ------------------------------------------------------------ header */

static void t_hdr(void)
{
    unsigned char b[CGP_HDR_LEN];
    cgp_hdr h, g;

    for (unsigned t = 1; t <= CGP_T_MAX_; t++) {
        h = (cgp_hdr){ .type = (uint8_t)t, .flags = CGP_F_END,
                       .reqid = 0xdeadbeefu, .len = 77 };
        memset(b, 0xaa, sizeof b);
        int rc = cgp_hdr_pack(b, &h);
        memset(&g, 0, sizeof g);
        int rc2 = cgp_hdr_unpack(b, &g);
        ok(rc == CGP_OK && rc2 == CGP_OK && g.type == t &&
           g.flags == CGP_F_END && g.reqid == 0xdeadbeefu && g.len == 77 &&
           g.version == CGP_VERSION, "header round trip, type %u", t);
    }
    h = (cgp_hdr){ .type = CGP_T_STDIN, .flags = 0xfffe, .reqid = 1, .len = 0 };
    cgp_hdr_pack(b, &h);
    ok(b[0] == 'C' && b[1] == 'P' && b[2] == 1 && b[3] == CGP_T_STDIN &&
       b[4] == 0xff && b[5] == 0xfe && b[6] == 0 && b[7] == 0 &&
       b[8] == 0 && b[11] == 1 && b[12] == 0 && b[15] == 0,
       "header layout, reserved packed as 0");
    cgp_hdr_unpack(b, &g);
    is_int(g.flags, 0xfffe, "flags carried verbatim");

    h.len = CGP_MAX_PAYLOAD;
    is_int(cgp_hdr_pack(b, &h), CGP_OK, "pack len 65536 ok");
    is_int(cgp_hdr_unpack(b, &g), CGP_OK, "unpack len 65536 ok");
    is_int(g.len, 65536, "len 65536 kept");
    h.len = CGP_MAX_PAYLOAD + 1;
    is_int(cgp_hdr_pack(b, &h), CGP_E_LEN, "pack len 65537 rejected");
    h.len = UINT32_MAX;
    is_int(cgp_hdr_pack(b, &h), CGP_E_LEN, "pack len 2^32-1 rejected");
    h.len = 0;
    h.type = 0;
    is_int(cgp_hdr_pack(b, &h), CGP_E_TYPE, "pack type 0 rejected");
    h.type = CGP_T_MAX_ + 1;
    is_int(cgp_hdr_pack(b, &h), CGP_E_TYPE, "pack type past the last rejected");
    h.type = 255;
    is_int(cgp_hdr_pack(b, &h), CGP_E_TYPE, "pack type 255 rejected");
    h.type = CGP_T_WS_LAST_ + 1;
    is_int(cgp_hdr_pack(b, &h), CGP_E_TYPE, "pack type past the WebSocket ones rejected");
    h.type = CGP_T_WS_MSG;
    is_int(cgp_hdr_pack(b, &h), CGP_OK, "pack WS_MSG");
    is_int(cgp_hdr_unpack(b, &g), CGP_OK, "unpack WS_MSG");
    b[3] = CGP_T_WS_FIRST_ - 1;
    is_int(cgp_hdr_unpack(b, &g), CGP_E_TYPE, "unpack a type between the ranges rejected");

    h = (cgp_hdr){ .type = CGP_T_PARAMS, .reqid = 5, .len = 10 };
    cgp_hdr_pack(b, &h);
    b[12] = 0; b[13] = 1; b[14] = 0; b[15] = 1;      /* 65537 */
    is_int(cgp_hdr_unpack(b, &g), CGP_E_LEN, "unpack len 65537 rejected");
    b[12] = 0xff; b[13] = 0xff; b[14] = 0xff; b[15] = 0xff;
    is_int(cgp_hdr_unpack(b, &g), CGP_E_LEN, "unpack len 2^32-1 rejected");
    cgp_hdr_pack(b, &h);
    b[0] = 'X';
    is_int(cgp_hdr_unpack(b, &g), CGP_E_MAGIC, "bad magic byte 0");
    b[0] = 'C'; b[1] = 'Q';
    is_int(cgp_hdr_unpack(b, &g), CGP_E_MAGIC, "bad magic byte 1");
    b[1] = 'P'; b[2] = 0;
    is_int(cgp_hdr_unpack(b, &g), CGP_E_VERSION, "version 0 rejected");
    b[2] = 2;
    is_int(cgp_hdr_unpack(b, &g), CGP_E_VERSION, "version 2 rejected");
    b[2] = 1; b[3] = 0;
    is_int(cgp_hdr_unpack(b, &g), CGP_E_TYPE, "unpack type 0 rejected");
    b[3] = CGP_T_MAX_ + 1;
    is_int(cgp_hdr_unpack(b, &g), CGP_E_TYPE, "unpack type past the last rejected");
    b[3] = CGP_T_PARAMS; b[6] = 0x12; b[7] = 0x34;
    is_int(cgp_hdr_unpack(b, &g), CGP_OK, "reserved bytes ignored on receipt");
    /* Error precedence: magic before version before type before length. */
    memset(b, 0xff, sizeof b);
    is_int(cgp_hdr_unpack(b, &g), CGP_E_MAGIC, "all-0xff header: magic first");
}

/* ------------------------------------------------------------ hello, end */

static void t_hello(void)
{
    unsigned char b[CGP_HELLO_LEN + 1];
    cgp_hello m = { .version = 1, .pid = 4000000000u }, g;

    for (unsigned i = 0; i < CGP_KEY_LEN; i++)
        m.key[i] = (unsigned char)(0xc0 + i);
    memset(b, 0xaa, sizeof b);
    is_int(CGP_HELLO_LEN, 40, "HELLO is 40 bytes: version, reserved, pid, key");
    is_int(cgp_hello_pack(b, &m), CGP_OK, "hello pack");
    ok(b[2] == 0 && b[3] == 0 && b[8] == 0xc0 && b[39] == 0xdf && b[40] == 0xaa,
       "hello reserved 0, the key at 8..39, 40 bytes only");
    memset(&g, 0, sizeof g);
    is_int(cgp_hello_unpack(b, CGP_HELLO_LEN, &g), CGP_OK, "hello unpack");
    ok(g.version == 1 && g.pid == 4000000000u && !memcmp(g.key, m.key, CGP_KEY_LEN),
       "hello round trip, key included");
    is_int(cgp_hello_unpack(b, CGP_HELLO_ACK_LEN, &g), CGP_E_LEN,
           "a HELLO of 8 bytes (no key) is refused");
    is_int(cgp_hello_unpack(b, CGP_HELLO_LEN - 1, &g), CGP_E_LEN, "hello len 39");
    is_int(cgp_hello_unpack(b, CGP_HELLO_LEN + 1, &g), CGP_E_LEN, "hello len 41");
    is_int(cgp_hello_unpack(b, 0, &g), CGP_E_LEN, "hello len 0");
    b[2] = 0x55;
    is_int(cgp_hello_unpack(b, CGP_HELLO_LEN, &g), CGP_OK, "hello reserved ignored");

    /* HELLO_ACK: 8 bytes, no key. */
    memset(b, 0xaa, sizeof b);
    is_int(cgp_hello_ack_pack(b, &m), CGP_OK, "hello_ack pack");
    ok(b[2] == 0 && b[3] == 0 && b[8] == 0xaa, "hello_ack: 8 bytes, the key never sent back");
    memset(&g, 0x77, sizeof g);
    is_int(cgp_hello_ack_unpack(b, CGP_HELLO_ACK_LEN, &g), CGP_OK, "hello_ack unpack");
    ok(g.version == 1 && g.pid == 4000000000u && g.key[0] == 0 && g.key[31] == 0,
       "hello_ack round trip, key zeroed");
    is_int(cgp_hello_ack_unpack(b, CGP_HELLO_LEN, &g), CGP_E_LEN, "hello_ack len 40");
}

static void t_key(void)
{
    static const char hex[] =
        "00112233445566778899aabbccddeeffFFEEDDCCBBAA99887766554433221100";
    unsigned char k[CGP_KEY_LEN], k2[CGP_KEY_LEN];
    char buf[80];

    is_int(cgp_key_parse(hex, 64, k), CGP_OK, "key: 64 hex digits");
    ok(k[0] == 0x00 && k[1] == 0x11 && k[15] == 0xff && k[16] == 0xff && k[31] == 0x00,
       "key: digits decoded in order, either case");
    snprintf(buf, sizeof buf, "%s\n", hex);
    is_int(cgp_key_parse(buf, 65, k2), CGP_OK, "key: a final newline");
    snprintf(buf, sizeof buf, "%s\r\n", hex);
    is_int(cgp_key_parse(buf, 66, k2), CGP_OK, "key: a final CRLF");
    ok(cgp_key_equal(k, k2), "key_equal: same key");
    k2[31] ^= 1;
    ok(!cgp_key_equal(k, k2), "key_equal: the last bit differs");
    k2[31] ^= 1;
    k2[0] ^= 0x80;
    ok(!cgp_key_equal(k, k2), "key_equal: the first bit differs");
    is_int(cgp_key_parse(hex, 63, k), CGP_E_VALUE, "key: 63 digits refused");
    snprintf(buf, sizeof buf, "%s0", hex);
    is_int(cgp_key_parse(buf, 65, k), CGP_E_VALUE, "key: 65 digits refused");
    snprintf(buf, sizeof buf, "%s\n\n", hex);
    is_int(cgp_key_parse(buf, 66, k), CGP_E_VALUE, "key: two newlines refused");
    memcpy(buf, hex, 64);
    buf[10] = 'g';
    is_int(cgp_key_parse(buf, 64, k), CGP_E_VALUE, "key: a non-hex digit refused");
    buf[10] = ' ';
    is_int(cgp_key_parse(buf, 64, k), CGP_E_VALUE, "key: a space refused");
    is_int(cgp_key_parse("", 0, k), CGP_E_VALUE, "key: empty refused");
}

static void t_end(void)
{
    unsigned char b[CGP_END_LEN];
    cgp_end e, g;

    for (unsigned o = 0; o <= CGP_O_MAX_; o++) {
        e = (cgp_end){ .outcome = (uint8_t)o, .retry_after = 65535,
                       .pid = 123456, .detail = 0x80000001u };
        memset(&g, 0, sizeof g);
        int rc = cgp_end_pack(b, &e);
        int rc2 = cgp_end_unpack(b, sizeof b, &g);
        ok(rc == CGP_OK && rc2 == CGP_OK && g.outcome == o &&
           g.retry_after == 65535 && g.pid == 123456 && g.detail == 0x80000001u,
           "end round trip, outcome %u", o);
    }
    ok(b[1] == 0, "end reserved packed as 0");
    e.outcome = CGP_O_MAX_ + 1;
    is_int(cgp_end_pack(b, &e), CGP_E_VALUE, "end pack outcome 9 rejected");
    e.outcome = 0;
    cgp_end_pack(b, &e);
    b[0] = CGP_O_MAX_ + 1;
    is_int(cgp_end_unpack(b, sizeof b, &g), CGP_E_VALUE, "end unpack outcome 9 rejected");
    b[0] = 0xff;
    is_int(cgp_end_unpack(b, sizeof b, &g), CGP_E_VALUE, "end unpack outcome 255 rejected");
    b[0] = 0;
    is_int(cgp_end_unpack(b, CGP_END_LEN - 1, &g), CGP_E_LEN, "end len 11");
    is_int(cgp_end_unpack(b, CGP_END_LEN + 1, &g), CGP_E_LEN, "end len 13");
    b[1] = 0x77;
    is_int(cgp_end_unpack(b, sizeof b, &g), CGP_OK, "end reserved ignored");
}

/* ABORT: empty (the client left) or the cause httpd failed the request for. */
static void t_abort(void)
{
    unsigned char b[2];
    unsigned c = 0;

    is_int(cgp_abort_unpack(b, 0, &c), CGP_OK, "abort: empty payload");
    is_int(c, CGP_O_ABORTED, "empty: aborted");
    for (unsigned k = 1; k <= CGP_C_MAX_; k++) {
        c = 0;
        if (cgp_abort_pack(b, k) != CGP_OK || cgp_abort_unpack(b, 1, &c) != CGP_OK || c != k)
            break;
    }
    is_int(c, CGP_C_MAX_, "abort: every cause 1..%u packs and unpacks", CGP_C_MAX_);
    is_int(cgp_abort_pack(b, 0), CGP_E_VALUE, "abort: cause 0 (ok) is no failure");
    is_int(cgp_abort_pack(b, CGP_C_MAX_ + 1), CGP_E_VALUE, "abort: a cause past the last refused");
    b[0] = CGP_C_MAX_ + 1;
    is_int(cgp_abort_unpack(b, 1, &c), CGP_E_VALUE, "abort unpack: unknown cause refused");
    b[0] = 0;
    is_int(cgp_abort_unpack(b, 1, &c), CGP_E_VALUE, "abort unpack: cause 0 refused");
    is_int(cgp_abort_unpack(b, 2, &c), CGP_E_LEN, "abort unpack: 2 bytes refused");
    ok(!strcmp(cgp_cause_name(CGP_C_BAD_HEADER), "bad-header") &&
       !strcmp(cgp_cause_name(CGP_C_BAD_BODY), "bad-body") &&
       !strcmp(cgp_cause_name(CGP_O_TIMEOUT), "timeout") && !strcmp(cgp_cause_name(99), "?"),
       "cause names");
    /* the status page counts both in one array: a cause is no outcome */
    ok((unsigned)CGP_C_BAD_HEADER > (unsigned)CGP_O_MAX_ && !strcmp(cgp_cause_name(CGP_O_REFUSED), "refused"),
       "causes come after the last outcome (refused is %u, bad-header %u)", CGP_O_REFUSED,
       CGP_C_BAD_HEADER);
}

static void t_started(void)
{
    unsigned char b[CGP_STARTED_LEN + 1];
    cgp_started m = { .pid = 4000000001u }, g = { 0 };

    ok(CGP_T_STARTED == 14 && strcmp(cgp_type_name(CGP_T_STARTED), "STARTED") == 0,
       "STARTED is type 14");
    memset(b, 0xaa, sizeof b);
    is_int(cgp_started_pack(b, &m), CGP_OK, "started pack");
    ok(b[0] == 0xee && b[1] == 0x6b && b[2] == 0x28 && b[3] == 0x01 && b[4] == 0xaa,
       "started: u32 pid, big-endian, 4 bytes only");
    is_int(cgp_started_unpack(b, CGP_STARTED_LEN, &g), CGP_OK, "started unpack");
    ok(g.pid == 4000000001u, "started round trip");
    is_int(cgp_started_unpack(b, CGP_STARTED_LEN - 1, &g), CGP_E_LEN, "started len 3");
    is_int(cgp_started_unpack(b, CGP_STARTED_LEN + 1, &g), CGP_E_LEN, "started len 5");
    is_int(cgp_started_unpack(b, 0, &g), CGP_E_LEN, "started len 0");
    m.pid = 0;
    is_int(cgp_started_pack(b, &m), CGP_E_VALUE, "started pack pid 0 rejected");
    memset(b, 0, sizeof b);
    is_int(cgp_started_unpack(b, CGP_STARTED_LEN, &g), CGP_E_VALUE,
           "started unpack pid 0 rejected");
}

static void t_grant(void)
{
    unsigned char b[CGP_GRANT_LEN];
    cgp_grant m = { .slot = 4095, .sgen = 0x01020304u, .pidx = 255, .pgen = 7 }, g = { 0 };

    ok(CGP_T_GRANT == 22 && strcmp(cgp_type_name(CGP_T_GRANT), "GRANT") == 0,
       "GRANT is type 22");
    is_int(cgp_grant_pack(b, &m), CGP_OK, "grant pack");
    ok(b[0] == 0 && b[2] == 0x0f && b[3] == 0xff && b[4] == 1 && b[7] == 4 && b[11] == 255 &&
       b[15] == 7, "grant: four u32, big-endian");
    is_int(cgp_grant_unpack(b, CGP_GRANT_LEN, &g), CGP_OK, "grant unpack");
    ok(g.slot == 4095 && g.sgen == 0x01020304u && g.pidx == 255 && g.pgen == 7,
       "grant round trip");
    is_int(cgp_grant_unpack(b, CGP_GRANT_LEN - 1, &g), CGP_E_LEN, "grant len 15");
    b[0] = 0; /* slot CGP_TABLE_SLOTS: past the table */
    b[1] = (unsigned char)(CGP_TABLE_SLOTS >> 16);
    b[2] = (unsigned char)(CGP_TABLE_SLOTS >> 8);
    b[3] = (unsigned char)CGP_TABLE_SLOTS;
    is_int(cgp_grant_unpack(b, CGP_GRANT_LEN, &g), CGP_E_VALUE, "grant slot past the table");
    m.pidx = 256;
    is_int(cgp_grant_pack(b, &m), CGP_E_VALUE, "grant pack pool past the table");
}

/* ------------------------------------------------------------ kv list */

static void t_kv(void)
{
    static unsigned char big[6 + CGP_MAX_NAME + CGP_MAX_PAYLOAD + 16];
    static char name[CGP_MAX_NAME + 2], val[CGP_MAX_PAYLOAD + 2];
    unsigned char b[256];
    size_t off = 0, r = 0, nl, vl;
    const char *n, *v;

    is_int(cgp_kv_size(3, 4), 13, "kv_size");
    is_int(cgp_kv_pack(b, sizeof b, &off, "KEY", 3, "val", 3), CGP_OK, "kv pack 1");
    is_int(cgp_kv_pack(b, sizeof b, &off, "E", 1, NULL, 0), CGP_OK, "kv pack empty value");
    is_int(cgp_kv_pack(b, sizeof b, &off, "B", 1, "\0\n\xff", 3), CGP_OK, "kv pack binary");
    is_int(off, 12 + 7 + 10, "kv offsets add up");
    ok(b[0] == 0 && b[1] == 3 && b[2] == 0 && b[5] == 3 &&
       memcmp(b + 6, "KEYval", 6) == 0, "kv layout");

    is_int(cgp_kv_next(b, off, &r, &n, &nl, &v, &vl), 1, "kv next 1");
    ok(nl == 3 && !memcmp(n, "KEY", 3) && vl == 3 && !memcmp(v, "val", 3), "kv 1 data");
    is_int(cgp_kv_next(b, off, &r, &n, &nl, &v, &vl), 1, "kv next 2");
    ok(nl == 1 && *n == 'E' && vl == 0, "kv 2 empty value");
    is_int(cgp_kv_next(b, off, &r, &n, &nl, &v, &vl), 1, "kv next 3");
    ok(vl == 3 && !memcmp(v, "\0\n\xff", 3), "kv 3 binary value");
    is_int(cgp_kv_next(b, off, &r, &n, &nl, &v, &vl), 0, "kv end of list");
    is_int(r, off, "kv read offset at end");
    r = 0;
    is_int(cgp_kv_next(b, 0, &r, &n, &nl, &v, &vl), 0, "empty list");

    /* Every truncation of a one-entry list fails, none reads out of bounds. */
    int bad = 0;
    for (size_t len = 1; len < 12; len++) {
        unsigned char *t = malloc(len);
        memcpy(t, b, len);
        r = 0;
        if (cgp_kv_next(t, len, &r, &n, &nl, &v, &vl) != CGP_E_LEN || r != 0)
            bad++;
        free(t);
    }
    is_int(bad, 0, "every truncated entry is CGP_E_LEN, offset kept");
    r = 13;
    is_int(cgp_kv_next(b, 12, &r, &n, &nl, &v, &vl), CGP_E_LEN, "offset past end");

    /* Entry exactly at the end of a buffer (heap, so ASan sees overruns). */
    unsigned char *exact = malloc(cgp_kv_size(2, 5));
    off = 0;
    is_int(cgp_kv_pack(exact, cgp_kv_size(2, 5), &off, "AB", 2, "12345", 5),
           CGP_OK, "kv pack into exact-size buffer");
    r = 0;
    is_int(cgp_kv_next(exact, off, &r, &n, &nl, &v, &vl), 1, "kv next at buffer end");
    ok(vl == 5 && !memcmp(v, "12345", 5), "kv at buffer end data");
    off = 0;
    is_int(cgp_kv_pack(exact, cgp_kv_size(2, 5) - 1, &off, "AB", 2, "12345", 5),
           CGP_E_SPACE, "kv pack one byte short");
    is_int(off, 0, "offset untouched on CGP_E_SPACE");
    off = 100;
    is_int(cgp_kv_pack(exact, 10, &off, "A", 1, "", 0), CGP_E_SPACE, "kv pack offset > cap");
    free(exact);

    /* Caps. */
    memset(name, 'n', sizeof name);
    memset(val, 'v', sizeof val);
    off = 0;
    is_int(cgp_kv_pack(b, sizeof b, &off, name, 0, "x", 1), CGP_E_LEN, "kv name length 0");
    is_int(cgp_kv_pack(big, sizeof big, &off, name, CGP_MAX_NAME + 1, "x", 1),
           CGP_E_LEN, "kv name length 1025");
    is_int(cgp_kv_pack(big, sizeof big, &off, name, 1, val, CGP_MAX_PAYLOAD + 1),
           CGP_E_LEN, "kv value length 65537");
    is_int(cgp_kv_pack(big, sizeof big, &off, name, CGP_MAX_NAME, val, CGP_MAX_PAYLOAD),
           CGP_OK, "kv name 1024 + value 65536");
    r = 0;
    is_int(cgp_kv_next(big, off, &r, &n, &nl, &v, &vl), 1, "kv next at the caps");
    ok(nl == CGP_MAX_NAME && vl == CGP_MAX_PAYLOAD, "kv cap lengths");

    unsigned char h[6 + 2];
    memset(h, 'x', sizeof h);
    cgp_put16(h, 0); cgp_put32(h + 2, 0);
    r = 0;
    is_int(cgp_kv_next(h, sizeof h, &r, &n, &nl, &v, &vl), CGP_E_LEN, "kv next name length 0");
    cgp_put16(h, CGP_MAX_NAME + 1);
    r = 0;
    is_int(cgp_kv_next(h, sizeof h, &r, &n, &nl, &v, &vl), CGP_E_LEN, "kv next name length 1025");
    cgp_put16(h, 1); cgp_put32(h + 2, CGP_MAX_PAYLOAD + 1);
    r = 0;
    is_int(cgp_kv_next(h, sizeof h, &r, &n, &nl, &v, &vl), CGP_E_LEN, "kv next value length 65537");
    cgp_put32(h + 2, UINT32_MAX);
    r = 0;
    is_int(cgp_kv_next(h, sizeof h, &r, &n, &nl, &v, &vl), CGP_E_LEN, "kv next value length 2^32-1");
    cgp_put16(h, 1); cgp_put32(h + 2, 2);
    r = 0;
    is_int(cgp_kv_next(h, sizeof h, &r, &n, &nl, &v, &vl), CGP_E_LEN, "kv value past the end");
    cgp_put32(h + 2, 1);
    r = 0;
    is_int(cgp_kv_next(h, sizeof h, &r, &n, &nl, &v, &vl), 1, "kv exactly filling the buffer");
}

/* ------------------------------------------------------------ struct mode */

static void t_struct(void)
{
    static unsigned char big[2 + 65535 + 2];
    static char e64[65536];
    unsigned char b[64];
    size_t off = 0, r = 0, el;
    const char *e;

    is_int(cgp_struct_pack(b, sizeof b, &off, "A=1", 3), CGP_OK, "struct pack 1");
    is_int(cgp_struct_pack(b, sizeof b, &off, "LONGER=x y", 10), CGP_OK, "struct pack 2");
    is_int(cgp_struct_end(b, sizeof b, &off), CGP_OK, "struct end");
    is_int(off, 5 + 12 + 2, "struct size");
    ok(b[0] == 0 && b[1] == 3 && b[off - 2] == 0 && b[off - 1] == 0, "struct layout");
    is_int(cgp_struct_next(b, off, &r, &e, &el), 1, "struct next 1");
    is_mem(e, el, "A=1", 3, "struct entry 1");
    is_int(cgp_struct_next(b, off, &r, &e, &el), 1, "struct next 2");
    is_mem(e, el, "LONGER=x y", 10, "struct entry 2");
    is_int(cgp_struct_next(b, off, &r, &e, &el), 0, "struct terminator");
    is_int(r, off, "terminator consumed");
    is_int(cgp_struct_next(b, off, &r, &e, &el), CGP_E_LEN, "struct next past terminator");

    off = 0;
    is_int(cgp_struct_pack(b, sizeof b, &off, "", 0), CGP_E_LEN, "struct entry length 0");
    memset(e64, 'x', sizeof e64);
    is_int(cgp_struct_pack(big, sizeof big, &off, e64, 65536), CGP_E_LEN, "struct entry 65536");
    is_int(cgp_struct_pack(big, sizeof big, &off, e64, 65535), CGP_OK, "struct entry 65535");
    is_int(cgp_struct_end(big, sizeof big, &off), CGP_OK, "struct end fills buffer");
    is_int(off, sizeof big, "struct exact fit");
    is_int(cgp_struct_end(big, sizeof big, &off), CGP_E_SPACE, "struct end no space");
    r = 0;
    is_int(cgp_struct_next(big, off, &r, &e, &el), 1, "struct next 65535");
    is_int(el, 65535, "struct 65535 length");
    off = 0;
    is_int(cgp_struct_pack(b, 4, &off, "ABC", 3), CGP_E_SPACE, "struct pack one short");
    is_int(off, 0, "struct offset untouched");
    off = 65;
    is_int(cgp_struct_pack(b, 64, &off, "A", 1), CGP_E_SPACE, "struct pack offset > cap");
    is_int(cgp_struct_end(b, 64, &off), CGP_E_SPACE, "struct end offset > cap");

    /* Truncations: length byte alone, declared length over the rest. */
    off = 0;
    cgp_struct_pack(b, sizeof b, &off, "A=1", 3);
    int bad = 0;
    for (size_t len = 0; len < off; len++) {
        unsigned char *t = malloc(len ? len : 1);
        memcpy(t, b, len);
        r = 0;
        if (cgp_struct_next(t, len, &r, &e, &el) != CGP_E_LEN || r != 0)
            bad++;
        free(t);
    }
    is_int(bad, 0, "every truncated struct entry is CGP_E_LEN");
    r = 10;
    is_int(cgp_struct_next(b, 5, &r, &e, &el), CGP_E_LEN, "struct offset past end");
}

/* ------------------------------------------------------------ records */

/* A memory source for cgp_rd: hands out at most chunk bytes a call, can
 * fail with EIO at a given offset or with EINTR every other call. */
struct src {
    const char *p;
    size_t len, pos, chunk, fail_at;
    int eintr, flip, calls;
};

static ssize_t src_read(void *ctx, void *buf, size_t n)
{
    struct src *s = ctx;

    s->calls++;
    if (s->eintr && (s->flip ^= 1)) {
        errno = EINTR;
        return -1;
    }
    if (s->fail_at && s->pos >= s->fail_at) {
        errno = EIO;
        return -1;
    }
    size_t left = s->len - s->pos;
    if (n > left)
        n = left;
    if (s->chunk && n > s->chunk)
        n = s->chunk;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (ssize_t)n;
}

static void rd_init(cgp_rd *rd, struct src *s, const char *p, size_t len,
                    size_t chunk)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->len = len;
    s->chunk = chunk;
    memset(rd, 0, sizeof *rd);
    rd->fn = src_read;
    rd->ctx = s;
}

/* mod_ssl's PEM in record mode: its line ends back in place; anything
 * else unchanged. */
static void pem_case(const char *in, const char *want, const char *what)
{
    char buf[256];
    size_t len = strlen(in);
    int nlen = cgp_rec_check(in, len);

    memcpy(buf, in, len + 1);
    if (nlen > 0)
        cgp_rec_pem(buf, len, (size_t)nlen);
    is_mem(buf, len, want, strlen(want), what);
}

static void t_pem(void)
{
    pem_case("SSL_CLIENT_CERT=-----BEGIN CERTIFICATE----- MIIB+/a= Zz09 -----END CERTIFICATE----- ",
             "SSL_CLIENT_CERT=-----BEGIN CERTIFICATE-----\nMIIB+/a=\nZz09\n-----END CERTIFICATE-----\n",
             "PEM: line ends back, the trailing one too");
    pem_case("SSL_SERVER_CERT=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE-----",
             "SSL_SERVER_CERT=-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----",
             "PEM without a trailing line end");
    pem_case("SSL_CLIENT_CERT_CHAIN_12=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "SSL_CLIENT_CERT_CHAIN_12=-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n",
             "a chain's certificate");
    pem_case("SSL_CLIENT_CERT_CHAIN_=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "SSL_CLIENT_CERT_CHAIN_=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "not a chain's name: unchanged");
    pem_case("REDIRECT_REDIRECT_SSL_CLIENT_CERT=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "REDIRECT_REDIRECT_SSL_CLIENT_CERT=-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n",
             "an internal redirect's copy");
    pem_case("REDIRECT_=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "REDIRECT_=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "REDIRECT_ alone: unchanged");
    pem_case("HTTP_X_CERT=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "HTTP_X_CERT=-----BEGIN CERTIFICATE----- QUJD -----END CERTIFICATE----- ",
             "another variable: unchanged");
    pem_case("SSL_CLIENT_CERT=-----BEGIN CERTIFICATE----- QU.D -----END CERTIFICATE----- ",
             "SSL_CLIENT_CERT=-----BEGIN CERTIFICATE----- QU.D -----END CERTIFICATE----- ",
             "not base64: unchanged");
    pem_case("SSL_CLIENT_CERT=-----BEGIN CERTIFICATE----- -----END CERTIFICATE-----",
             "SSL_CLIENT_CERT=-----BEGIN CERTIFICATE----- -----END CERTIFICATE-----",
             "nothing between: unchanged");
    pem_case("SSL_CLIENT_CERT=", "SSL_CLIENT_CERT=", "empty (no certificate): unchanged");
}

static void t_sync(void)
{
    size_t n = 0;

    is_int(cgp_rec_sync("!", 1, &n), 0, "sync ! is record mode");
    is_int(cgp_rec_sync("!!2", 3, &n), 1, "sync !!2 is struct mode");
    is_int(n, 2, "sync N=2");
    is_int(cgp_rec_sync("!!002097152", 11, &n), 1, "sync at the block cap");
    is_int(n, CGP_REC_MAX_BLOCK, "sync N=cap");
    is_int(cgp_rec_sync("!!2097153", 9, &n), CGP_E_LEN, "sync over the cap");
    is_int(cgp_rec_sync("!!99999999999999999999999999", 28, &n), CGP_E_LEN,
           "sync huge N does not overflow");
    is_int(cgp_rec_sync("!!0", 3, &n), CGP_E_LEN, "sync N=0");
    is_int(cgp_rec_sync("!!1", 3, &n), CGP_E_LEN, "sync N=1");
    is_int(cgp_rec_sync("!!", 2, &n), CGP_E_VALUE, "sync !! without N");
    is_int(cgp_rec_sync("!!x", 3, &n), CGP_E_VALUE, "sync !!x");
    is_int(cgp_rec_sync("!! 5", 4, &n), CGP_E_VALUE, "sync !! 5");
    is_int(cgp_rec_sync("!!5 ", 4, &n), CGP_E_VALUE, "sync trailing space");
    is_int(cgp_rec_sync("!!-5", 4, &n), CGP_E_VALUE, "sync negative");
    is_int(cgp_rec_sync("!x", 2, &n), CGP_E_VALUE, "sync !x");
    is_int(cgp_rec_sync("", 0, &n), CGP_E_VALUE, "sync empty");
    is_int(cgp_rec_sync("!\r", 2, &n), CGP_E_VALUE, "sync with CR");
    is_int(cgp_rec_sync("A=1", 3, &n), CGP_E_VALUE, "sync is a variable");

    is_int(cgp_rec_check("A=b", 3), 1, "check A=b");
    is_int(cgp_rec_check("NAME=", 5), 4, "check empty value");
    is_int(cgp_rec_check("A=b=c", 5), 1, "check name ends at first =");
    is_int(cgp_rec_check("=b", 2), CGP_E_VALUE, "check empty name");
    is_int(cgp_rec_check("AB", 2), CGP_E_VALUE, "check no =");
    is_int(cgp_rec_check("A\0=b", 4), CGP_E_VALUE, "check NUL in name");
    is_int(cgp_rec_check("A=\0", 3), CGP_E_VALUE, "check NUL in value");
}

static void t_rd(void)
{
    static const char text[] = "one\ntwo\n\nthree-is-longer\nlast";
    size_t chunks[] = { 1, 2, 3, 7, 0 };
    cgp_rd rd;
    struct src s;
    cgp_buf b = { 0 };

    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        int good = 1, rc;
        rd_init(&rd, &s, text, sizeof text - 1, chunks[c]);
        static const char *const want[] = { "one", "two", "", "three-is-longer" };
        for (int i = 0; i < 4; i++) {
            b.len = 0;
            rc = cgp_rd_line(&rd, &b, 100);
            if (rc != 1 || b.len != strlen(want[i]) || memcmp(b.p, want[i], b.len))
                good = 0;
        }
        b.len = 0;
        errno = 0;
        rc = cgp_rd_line(&rd, &b, 100);
        ok(good && rc == -1 && errno == EPROTO,
           "lines, chunk %zu; EOF inside the last line is EPROTO", chunks[c]);
    }
    rd_init(&rd, &s, "", 0, 0);
    is_int(cgp_rd_line(&rd, &b, 10), 0, "EOF before any byte is 0");

    /* Over-long lines are consumed whole, the stream stays in step. */
    rd_init(&rd, &s, "12345\n123456\nok\n", 16, 0);
    b.len = 0;
    is_int(cgp_rd_line(&rd, &b, 5), 1, "line of exactly max");
    b.len = 0;
    errno = 0;
    is_int(cgp_rd_line(&rd, &b, 5), -1, "line of max+1 fails");
    is_int(errno, EMSGSIZE, "... with EMSGSIZE");
    b.len = 0;
    is_int(cgp_rd_line(&rd, &b, 5), 1, "next line after an over-long one");
    is_mem(b.p, b.len, "ok", 2, "... is in step");

    /* A line longer than the reader's buffer. */
    size_t biglen = 3 * sizeof rd.buf + 17;
    char *big = malloc(biglen + 1);
    memset(big, 'q', biglen);
    big[biglen] = '\n';
    rd_init(&rd, &s, big, biglen + 1, 0);
    b.len = 0;
    is_int(cgp_rd_line(&rd, &b, biglen), 1, "line over the reader buffer");
    is_int(b.len, biglen, "... whole");
    rd_init(&rd, &s, big, biglen + 1, 0);
    is_int(cgp_rd_line(&rd, &b, biglen - 1), -1, "long line over max");
    is_int(cgp_rd_line(&rd, &b, 10), 0, "... consumed to EOF");
    free(big);

    /* Read errors and EINTR. */
    rd_init(&rd, &s, "abc\ndef\n", 8, 2);
    s.fail_at = 4;
    b.len = 0;
    is_int(cgp_rd_line(&rd, &b, 10), 1, "line before a read error");
    errno = 0;
    is_int(cgp_rd_line(&rd, &b, 10), -1, "read error");
    is_int(errno, EIO, "... keeps its errno");
    rd_init(&rd, &s, "abc\n", 4, 1);
    s.eintr = 1;
    b.len = 0;
    is_int(cgp_rd_line(&rd, &b, 10), 1, "EINTR is retried");
    is_mem(b.p, b.len, "abc", 3, "... data intact");

    /* rd_exact: from the buffer, then straight from the source, never more. */
    rd_init(&rd, &s, "L\nABCDEFGHIJ", 12, 4);
    b.len = 0;
    cgp_rd_line(&rd, &b, 10);           /* buffers "L\nAB" */
    char out[16];
    is_int(cgp_rd_exact(&rd, out, 6), 1, "exact across buffer and source");
    is_mem(out, 6, "ABCDEF", 6, "... bytes");
    is_int(s.pos, 8, "... read nothing beyond");
    errno = 0;
    is_int(cgp_rd_exact(&rd, out, 5), -1, "exact hits EOF");
    is_int(errno, EPROTO, "... EPROTO");
    rd_init(&rd, &s, "XYZ", 3, 0);
    is_int(cgp_rd_exact(&rd, out, 0), 1, "exact of 0 bytes");
    is_int(s.calls, 0, "... reads nothing");
    rd_init(&rd, &s, "XYZ", 3, 1);
    s.eintr = 1;
    is_int(cgp_rd_exact(&rd, out, 3), 1, "exact retries EINTR");
    rd_init(&rd, &s, "XYZ", 3, 1);
    s.fail_at = 1;
    errno = 0;
    ok(cgp_rd_exact(&rd, out, 3) == -1 && errno == EIO, "exact read error");
    cgp_buf_free(&b);
}

/* Finds NAME's value in a NULL-ended "NAME=value" array. */
static const char *vget(char **vec, const char *name)
{
    size_t nl = strlen(name);
    for (; vec && *vec; vec++)
        if (!strncmp(*vec, name, nl) && (*vec)[nl] == '=')
            return *vec + nl + 1;
    return NULL;
}

static size_t vcount(char **vec)
{
    size_t n = 0;
    while (vec && vec[n])
        n++;
    return n;
}

static int req(const char *p, size_t len, size_t chunk, cgp_vars *v, int *why)
{
    cgp_rd rd;
    struct src s;

    rd_init(&rd, &s, p, len, chunk);
    *why = 0;
    return cgp_req_read(&rd, v, why);
}
#define REQ(lit, v, why) req(lit, sizeof lit - 1, 0, v, why)

static void t_req(void)
{
    static const char two[] =
        "!\nA=1\nB=x y\nEMPTY=\n\n"
        "!\nC=3\nA=2\n\n";
    char *base[] = { "PATH=/bin", "A=base", "CGIPLUSEOF=S", "NOEQ", NULL };
    cgp_vars v = { 0 };
    cgp_rd rd;
    struct src s;
    int why = 0;

    for (size_t chunk = 0; chunk < 4; chunk++) {
        rd_init(&rd, &s, two, sizeof two - 1, chunk);
        int r1 = cgp_req_read(&rd, &v, &why);
        int m1 = cgp_vars_merge(&v, base);
        int good1 = r1 == 1 && m1 == 0 && v.n == 3 &&
                    !strcmp(vget(v.vec, "A"), "1") &&
                    !strcmp(vget(v.vec, "B"), "x y") &&
                    !strcmp(vget(v.vec, "EMPTY"), "") &&
                    !strcmp(vget(v.vec, "PATH"), "/bin") &&
                    vcount(v.vec) == 6;
        int r2 = cgp_req_read(&rd, &v, &why);
        cgp_vars_merge(&v, base);
        int good2 = r2 == 1 && !vget(v.vec, "B") && !vget(v.vec, "EMPTY") &&
                    !strcmp(vget(v.vec, "A"), "2") &&
                    !strcmp(vget(v.vec, "C"), "3") && vcount(v.vec) == 5;
        int r3 = cgp_req_read(&rd, &v, &why);
        ok(good1 && good2 && r3 == 0,
           "two record requests then clean EOF, chunk %zu", chunk);
    }
    ok(!strcmp(v.vec[0], "C=3") && !strcmp(v.vec[1], "A=2"),
       "request entries first, as they came");
    ok(vget(v.vec, "NOEQ") == NULL && !strcmp(v.vec[4], "NOEQ"),
       "base entry without '=' kept");

    is_int(REQ("!\nX=1\nX=2\nX=3\nY=0\n\n", &v, &why), 1, "duplicates read");
    cgp_vars_merge(&v, NULL);
    ok(!strcmp(vget(v.vec, "X"), "3") && vcount(v.vec) == 2,
       "duplicate name: the last wins, once");
    is_int(REQ("!\n\n", &v, &why), 1, "empty request");
    cgp_vars_merge(&v, base);
    is_int(vcount(v.vec), 4, "empty request: the base only");
    cgp_vars_merge(&v, NULL);
    ok(v.vec[0] == NULL, "empty request, no base: empty array");

    /* Errors, each with its reason and errno. */
    struct { const char *in; size_t len; int why, err; const char *name; } bad[] = {
        { "?\n", 2, CGP_RQ_SYNC, EPROTO, "bad sync" },
        { "A=1\n\n", 5, CGP_RQ_SYNC, EPROTO, "variable where sync expected" },
        { "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n", 43, CGP_RQ_SYNC, EPROTO,
          "over-long sync line" },
        { "!", 1, CGP_RQ_TRUNC, EPROTO, "EOF inside the sync line" },
        { "!\n", 2, CGP_RQ_TRUNC, EPROTO, "EOF after sync" },
        { "!\nA=1\n", 6, CGP_RQ_TRUNC, EPROTO, "EOF before the empty line" },
        { "!\nA=1", 5, CGP_RQ_TRUNC, EPROTO, "EOF inside a record" },
        { "!\nNOEQUALS\n\n", 12, CGP_RQ_RECORD, EPROTO, "record without =" },
        { "!\n=v\n\n", 6, CGP_RQ_RECORD, EPROTO, "record with empty name" },
        { "!\nA=\0\n\n", 7, CGP_RQ_RECORD, EPROTO, "record with NUL" },
        { "!!2\n", 4, CGP_RQ_TRUNC, EPROTO, "struct block missing" },
        { "!!5\n\0\3A=", 8, CGP_RQ_TRUNC, EPROTO, "struct block short" },
        { "!!4\n\0\0\0\0", 8, CGP_RQ_RECORD, EPROTO, "bytes after terminator" },
        { "!!5\n\0\3A=1", 9, CGP_RQ_RECORD, EPROTO, "struct without terminator" },
        { "!!7\n\0\3A=1\0\1", 11, CGP_RQ_RECORD, EPROTO, "struct entry past block" },
        { "!!7\n\0\3ABC\0\0", 11, CGP_RQ_RECORD, EPROTO, "struct entry without =" },
        { "!!7\n\0\3A=\0\0\0", 11, CGP_RQ_RECORD, EPROTO, "struct entry with NUL" },
        { "!!3000000\n", 10, CGP_RQ_SYNC, EPROTO, "struct N over the cap" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        int rc = req(bad[i].in, bad[i].len, 0, &v, &why);
        int e = errno;
        ok(rc == -1 && why == bad[i].why && e == bad[i].err, "error: %s", bad[i].name);
        if (rc != -1 || why != bad[i].why || e != bad[i].err)
            printf("#   rc %d why %d errno %d\n", rc, why, e);
    }
    rd_init(&rd, &s, "!\nA=1\n\n", 7, 3);
    s.fail_at = 3;
    errno = 0;
    ok(cgp_req_read(&rd, &v, &why) == -1 && why == CGP_RQ_READ && errno == EIO,
       "error: read failure keeps errno");

    /* Struct mode: verbatim values, then record mode again. */
    unsigned char blk[256];
    size_t off = 0;
    cgp_struct_pack(blk, sizeof blk, &off, "V=a\nb\r\n", 7);
    cgp_struct_pack(blk, sizeof blk, &off, "W==", 3);
    cgp_struct_end(blk, sizeof blk, &off);
    char msg[300];
    int hl = snprintf(msg, sizeof msg, "!!%zu\n", off);
    memcpy(msg + hl, blk, off);
    memcpy(msg + hl + off, "!\nZ=9\n\n", 7);
    rd_init(&rd, &s, msg, (size_t)hl + off + 7, 1);
    is_int(cgp_req_read(&rd, &v, &why), 1, "struct request");
    cgp_vars_merge(&v, NULL);
    ok(!strcmp(vget(v.vec, "V"), "a\nb\r\n") && !strcmp(vget(v.vec, "W"), "="),
       "struct values verbatim");
    is_int(cgp_req_read(&rd, &v, &why), 1, "record request after struct");
    cgp_vars_merge(&v, NULL);
    ok(!strcmp(vget(v.vec, "Z"), "9") && vcount(v.vec) == 1, "record after struct data");
    is_int(cgp_req_read(&rd, &v, &why), 0, "then EOF");

    /* Line caps: the longest record line passes, one byte more fails. */
    size_t ll = CGP_REC_MAX_LINE;
    char *line = malloc(ll + 16);
    if (!line) {
        ok(0, "malloc for the line caps");
        return;
    }
    memcpy(line, "!\nN=", 4);
    memset(line + 4, 'v', ll - 2);
    memcpy(line + 2 + ll, "\n\n", 2);
    is_int(req(line, ll + 4, 0, &v, &why), 1, "record line at CGP_REC_MAX_LINE");
    memcpy(line, "!\nN=v", 5);
    memset(line + 5, 'v', ll - 2);
    memcpy(line + 3 + ll, "\n\n", 2);
    errno = 0;
    ok(req(line, ll + 5, 0, &v, &why) == -1 && why == CGP_RQ_SIZE && errno == EMSGSIZE,
       "record line over CGP_REC_MAX_LINE");
    free(line);

    /* Request size cap: many lines adding up to over 2 MiB. */
    size_t cnt = CGP_REC_MAX_BLOCK / 1000 + 2, tl = 0;
    char *many = malloc(cnt * 1000 + 8);
    tl += (size_t)sprintf(many, "!\n");
    for (size_t i = 0; i < cnt; i++) {
        memset(many + tl, 'x', 999);
        many[tl] = 'K';
        many[tl + 1] = '=';
        many[tl + 999] = '\n';
        tl += 1000;
    }
    many[tl++] = '\n';
    errno = 0;
    ok(req(many, tl, 0, &v, &why) == -1 && why == CGP_RQ_SIZE && errno == EMSGSIZE,
       "request over CGP_REC_MAX_BLOCK");
    free(many);

    /* A large struct block near the cap, many entries. */
    size_t nent = 100000, bl = 0;
    unsigned char *sb = malloc(nent * 12 + 2);
    for (size_t i = 0; i < nent; i++) {
        char ent[16];
        int el = snprintf(ent, sizeof ent, "K%07zu=v", i);
        cgp_struct_pack(sb, nent * 12 + 2, &bl, ent, (size_t)el);
    }
    cgp_struct_end(sb, nent * 12 + 2, &bl);
    char *sm = malloc(bl + 32);
    hl = snprintf(sm, 32, "!!%zu\n", bl);
    memcpy(sm + hl, sb, bl);
    is_int(req(sm, (size_t)hl + bl, 0, &v, &why), 1, "struct block of 100000 entries");
    cgp_vars_merge(&v, base);
    ok(vcount(v.vec) == nent + 4 && !strcmp(vget(v.vec, "K0099999"), "v"),
       "... all merged");
    free(sb);
    free(sm);
    cgp_vars_free(&v);
    ok(v.vec == NULL && v.n == 0, "vars freed");
}

/* The #! line as the kernel reads it, and the sentence a failed exec gets. */
static void t_shebang(void)
{
    static const char crlf[] = "#!/usr/bin/perl\r\nprint 1;\r\n";
    static const char args[] = "#! /usr/bin/env python3 -u\r\n";
    char buf[512];
    cgp_shebang sb;

    cgp_shebang_parse("#!/usr/bin/python\nprint(1)\n", 26, &sb);
    is_mem(sb.interp, sb.interp_len, "/usr/bin/python", 15, "the interpreter of a #! line");
    ok(!sb.cr, "no CR");
    cgp_shebang_parse(crlf, sizeof(crlf) - 1, &sb);
    is_mem(sb.interp, sb.interp_len, "/usr/bin/perl\r", 14, "CR LF: the CR is part of the name");
    ok(sb.cr, "and the CR is seen");
    cgp_shebang_parse(args, sizeof(args) - 1, &sb);
    is_mem(sb.interp, sb.interp_len, "/usr/bin/env", 12, "spaces before it, arguments after it");
    is_mem(sb.arg, sb.arg_len, "python3 -u\r", 11, "the rest of the line is one argument, its CR kept");
    ok(sb.cr, "a CR after the arguments is seen too");
    cgp_shebang_parse("#!/bin/sh  \t\n", 13, &sb);
    ok(sb.arg == NULL && !sb.cr, "trailing blanks are no argument");
    cgp_shebang_parse("#!", 2, &sb);
    ok(sb.interp && sb.interp_len == 0, "an empty #! line names no interpreter");
    cgp_shebang_parse("\x7f" "ELF", 4, &sb);
    ok(!sb.interp, "no #! line");
    cgp_shebang_parse("#", 1, &sb);
    ok(!sb.interp, "one byte: no #! line");
    memset(buf, 'a', sizeof(buf));
    buf[0] = '#', buf[1] = '!';
    cgp_shebang_parse(buf, sizeof(buf), &sb);
    ok(sb.interp_len == CGP_SHEBANG_MAX - 2, "only what the kernel reads (%u bytes)", CGP_SHEBANG_MAX);

    ok(cgp_exec_err_permanent(ENOENT) && cgp_exec_err_permanent(ENOEXEC), "ENOENT, ENOEXEC stay");
    ok(!cgp_exec_err_permanent(EAGAIN) && !cgp_exec_err_permanent(ENOMEM) &&
       !cgp_exec_err_permanent(ETXTBSY) && !cgp_exec_err_permanent(EACCES), "EAGAIN, ENOMEM, ETXTBSY, EACCES do not");

    cgp_shebang_explain("#!/usr/bin/python\n", 18, ENOENT, "No such file", buf, sizeof(buf));
    is_mem(buf, strlen(buf), "its interpreter '/usr/bin/python' (named on its #! line) does not exist", 71,
           "a missing interpreter is named");
    cgp_shebang_explain(crlf, sizeof(crlf) - 1, ENOENT, "No such file", buf, sizeof(buf));
    ok(strstr(buf, "ends in a carriage return") && strstr(buf, "'/usr/bin/perl^M', CR included"),
       "a CR is named, written as ^M: %s", buf);
    cgp_shebang_explain(args, sizeof(args) - 1, ENOENT, "No such file", buf, sizeof(buf));
    ok(strstr(buf, "its interpreter '/usr/bin/env' is given 'python3 -u^M', CR included") != NULL,
       "env and a CR: the argument env cannot find is named: %s", buf);
    cgp_shebang_explain("echo hi\n", 8, ENOEXEC, "Exec format error", buf, sizeof(buf));
    ok(strstr(buf, "no") || strstr(buf, "neither"), "no #! line: %s", buf);
    cgp_shebang_explain("", 0, ENOENT, "No such file", buf, sizeof(buf));
    is_mem(buf, strlen(buf), "No such file", 12, "unreadable: the error's text alone");
    cgp_shebang_explain("#!/x\x01\n", 6, ENOENT, "No such file", buf, 20);
    ok(strlen(buf) == 19, "cut at the buffer's size");
    cgp_shebang_explain("#!/a'b\n", 7, ENOENT, "No such file", buf, sizeof(buf));
    ok(strstr(buf, "'/a<x27>b'") != NULL, "a quote in the name is escaped: %s", buf);
}

int main(void)
{
    t_bytes();
    t_names();
    t_hdr();
    t_hello();
    t_key();
    t_end();
    t_abort();
    t_started();
    t_grant();
    t_kv();
    t_struct();
    t_sync();
    t_pem();
    t_rd();
    t_req();
    t_shebang();
    return tap_done();
}
