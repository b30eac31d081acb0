/* test_wsr.c: unit tests (TAP) of common/cgp_wsr.c: a WebSocket worker's
 * channel records (header rules by type and direction, payload checks) and
 * the WebSocket wire payloads (WS_ACCEPT, WS_CLOSE). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cgp_proto.h"
#include "cgp_wsr.h"
#include "tap.h"

static int hdr(unsigned type, unsigned flags, uint32_t conn, uint32_t len, int from, uint32_t max)
{
    unsigned char b[CGP_WSR_HDR_LEN];
    cgp_wsr_hdr h;
    b[0] = (unsigned char)type;
    b[1] = (unsigned char)flags;
    b[2] = 0xaa; /* reserved: ignored */
    b[3] = 0x55;
    cgp_put32(b + 4, conn);
    cgp_put32(b + 8, len);
    return cgp_wsr_hdr_unpack(b, &h, from, max);
}

static void t_header(void)
{
    const int R = CGP_WSR_FROM_RUNNER, W = CGP_WSR_FROM_WORKER;
    unsigned char b[CGP_WSR_HDR_LEN];
    cgp_wsr_hdr h = { .type = CGP_WSR_SEND, .flags = CGP_WSR_F_BINARY, .conn = 7, .len = 100 }, g;

    is_int(cgp_wsr_hdr_pack(b, &h, 1000), CGP_OK, "pack SEND");
    is_int(cgp_wsr_hdr_unpack(b, &g, W, 1000), CGP_OK, "unpack it");
    ok(g.type == h.type && g.flags == h.flags && g.conn == 7 && g.len == 100, "the same back");
    is_int(cgp_wsr_hdr_unpack(b, &g, R, 1000), CGP_E_TYPE, "SEND is the worker's: not from the runner");
    is_int(hdr(CGP_WSR_OPEN, 0, 1, 10, W, 1000), CGP_E_TYPE, "OPEN is the runner's");
    is_int(hdr(CGP_WSR_OPEN, 0, 1, 10, R, 1000), CGP_OK, "OPEN from the runner");
    is_int(hdr(0, 0, 1, 0, R, 1000), CGP_E_TYPE, "type 0");
    is_int(hdr(4, 0, 1, 0, R, 1000), CGP_E_TYPE, "type 4");
    is_int(hdr(22, 0, 1, 0, W, 1000), CGP_E_TYPE, "type 22");
    is_int(hdr(255, 0, 1, 0, W, 1000), CGP_E_TYPE, "type 255");
    /* connection ids */
    is_int(hdr(CGP_WSR_SEND, 0, 0, 1, W, 1000), CGP_E_VALUE, "SEND to connection 0");
    is_int(hdr(CGP_WSR_HELLO, 0, 5, 4, W, 1000), CGP_E_VALUE, "HELLO names no connection");
    is_int(hdr(CGP_WSR_BROADCAST, 0, 0, 3, W, 1000), CGP_OK, "BROADCAST to all");
    is_int(hdr(CGP_WSR_BROADCAST, 0, 9, 3, W, 1000), CGP_OK, "BROADCAST leaving one out");
    /* flags */
    is_int(hdr(CGP_WSR_SEND, 2, 1, 1, W, 1000), CGP_E_VALUE, "an unknown flag");
    is_int(hdr(CGP_WSR_ACCEPT, 1, 1, 0, W, 1000), CGP_E_VALUE, "BINARY on ACCEPT");
    is_int(hdr(CGP_WSR_MESSAGE, 1, 1, 1, R, 1000), CGP_OK, "BINARY on MESSAGE");
    /* lengths */
    is_int(hdr(CGP_WSR_SEND, 0, 1, 1000, W, 1000), CGP_OK, "a message at the cap");
    is_int(hdr(CGP_WSR_SEND, 0, 1, 1001, W, 1000), CGP_E_LEN, "one past the cap");
    is_int(hdr(CGP_WSR_SEND, 0, 1, CGP_WSR_MSG_MAX + 1, W, UINT32_MAX), CGP_E_LEN,
           "the cap never passes 16 MiB");
    is_int(hdr(CGP_WSR_HELLO, 0, 0, 3, W, 1000), CGP_E_LEN, "HELLO of 3 bytes");
    is_int(hdr(CGP_WSR_HELLO, 0, 0, 4, W, 1000), CGP_OK, "HELLO of 4 bytes");
    is_int(hdr(CGP_WSR_CLOSE, 0, 1, 0, W, 1000), CGP_OK, "an empty CLOSE");
    is_int(hdr(CGP_WSR_CLOSE, 0, 1, 1, W, 1000), CGP_E_LEN, "a CLOSE of 1 byte");
    is_int(hdr(CGP_WSR_CLOSE, 0, 1, 126, W, 1000), CGP_E_LEN, "a CLOSE over 125");
    is_int(hdr(CGP_WSR_CLOSED, 0, 1, 0, R, 1000), CGP_E_LEN, "CLOSED always has a code");
    is_int(hdr(CGP_WSR_ACCEPT, 0, 1, 256, W, 1000), CGP_E_LEN, "a subprotocol over 255");
    is_int(hdr(CGP_WSR_REFUSE, 0, 1, 3, W, 1000), CGP_E_LEN, "a REFUSE under 4");
    is_int(hdr(CGP_WSR_REFUSE, 0, 1, CGP_WSR_REFUSE_MAX + 1, W, 1000), CGP_E_LEN,
           "a REFUSE over its cap");
    is_int(hdr(CGP_WSR_OPEN, 0, 1, CGP_WSR_OPEN_MAX + 1, R, 1000), CGP_E_LEN, "an OPEN over its cap");
    h = (cgp_wsr_hdr){ .type = CGP_WSR_SEND, .conn = 0, .len = 1 };
    is_int(cgp_wsr_hdr_pack(b, &h, 1000), CGP_E_VALUE, "pack refuses what unpack would");
    ok(!strcmp(cgp_wsr_type_name(CGP_WSR_BROADCAST), "BROADCAST") &&
       !strcmp(cgp_wsr_type_name(99), "?"), "type names");
}

static int check(unsigned type, unsigned flags, const void *pl, size_t len)
{
    cgp_wsr_hdr h = { .type = (uint8_t)type, .flags = (uint8_t)flags, .conn = 1,
                      .len = (uint32_t)len };
    return cgp_wsr_check(&h, pl);
}

static void t_payloads(void)
{
    unsigned char b[300];
    const char *why;
    size_t n;
    unsigned code;

    cgp_wsr_hello_pack(b);
    is_int(check(CGP_WSR_HELLO, 0, b, 4), CGP_OK, "HELLO version 1");
    b[1] = 2;
    is_int(check(CGP_WSR_HELLO, 0, b, 4), CGP_E_VERSION, "HELLO version 2");
    is_int(check(CGP_WSR_ACCEPT, 0, "chat", 4), CGP_OK, "a token subprotocol");
    is_int(check(CGP_WSR_ACCEPT, 0, "", 0), CGP_OK, "no subprotocol");
    is_int(check(CGP_WSR_ACCEPT, 0, "a b", 3), CGP_E_VALUE, "a blank is no token");
    is_int(check(CGP_WSR_ACCEPT, 0, "a,b", 3), CGP_E_VALUE, "a comma is no token");
    is_int(check(CGP_WSR_SEND, 0, "caf\xc3\xa9", 5), CGP_OK, "UTF-8 text");
    is_int(check(CGP_WSR_SEND, 0, "caf\xc3", 4), CGP_E_VALUE, "cut UTF-8 text");
    is_int(check(CGP_WSR_SEND, 0, "\xed\xa0\x80", 3), CGP_E_VALUE, "a surrogate");
    is_int(check(CGP_WSR_SEND, CGP_WSR_F_BINARY, "\xff\xfe", 2), CGP_OK, "binary is not checked");
    /* close payloads */
    int k = cgp_wsr_close_pack(b, 1000, "bye", 3, 0);
    is_int(k, 5, "CLOSE 1000 bye: 5 bytes");
    is_int(check(CGP_WSR_CLOSE, 0, b, 5), CGP_OK, "it checks");
    is_int(cgp_wsr_close_unpack(b, 5, 0, &code, &why, &n), CGP_OK, "and unpacks");
    ok(code == 1000 && n == 3 && !memcmp(why, "bye", 3), "to 1000, bye");
    is_int(cgp_wsr_close_pack(b, 1006, "", 0, 0), CGP_E_VALUE, "a worker may not send 1006");
    is_int(cgp_wsr_close_pack(b, 1006, "", 0, 1), 2, "CLOSED may say 1006");
    is_int(cgp_wsr_close_pack(b, 1004, "", 0, 1), CGP_E_VALUE, "1004 never");
    is_int(cgp_wsr_close_pack(b, 999, "", 0, 1), CGP_E_VALUE, "999 never");
    is_int(cgp_wsr_close_pack(b, 5000, "", 0, 0), CGP_E_VALUE, "5000 never");
    is_int(cgp_wsr_close_pack(b, 4000, "\xff", 1, 0), CGP_E_VALUE, "a reason not UTF-8");
    memset(b + 100, 'a', 124);
    is_int(cgp_wsr_close_pack(b, 4000, (const char *)b + 100, 124, 0), CGP_E_VALUE,
           "a reason over 123 bytes");
    is_int(cgp_wsr_close_unpack(b, 0, 0, &code, &why, &n), CGP_OK, "empty CLOSE");
    is_int(code, 1000, "is 1000 from a worker");
    cgp_wsr_close_unpack(b, 0, 1, &code, &why, &n);
    is_int(code, 1005, "and 1005 where any is allowed");
    b[0] = 0x03; b[1] = 0xe8; b[2] = 0xc0;
    is_int(cgp_wsr_close_unpack(b, 3, 0, &code, &why, &n), CGP_E_VALUE, "an overlong reason byte");
}

static void t_refuse(void)
{
    static unsigned char b[2048];
    const char *hdrs[] = { "Content-Type", "text/plain", "X-Why", "no room" };
    const char *bad1[] = { "Bad Name", "x" }, *bad2[] = { "X", "a\r\nb" }, *bad3[] = { "STATUS", "101" };
    cgp_wsr_refuse r;
    const char *n, *v;
    size_t nl, vl, off = 0;

    int len = cgp_wsr_refuse_pack(b, sizeof b, 403, hdrs, 2, "go away", 7);
    ok(len > 0, "pack a refusal");
    is_int(check(CGP_WSR_REFUSE, 0, b, (size_t)len), CGP_OK, "it checks");
    is_int(cgp_wsr_refuse_unpack(b, (size_t)len, &r), CGP_OK, "unpacks");
    ok(r.status == 403 && r.nhdr == 2 && r.blen == 7 && !memcmp(r.body, "go away", 7), "status, headers, body");
    ok(cgp_wsr_refuse_next(&r, &off, &n, &nl, &v, &vl) && nl == 12 && !memcmp(n, "Content-Type", 12) &&
       vl == 10 && !memcmp(v, "text/plain", 10), "first header");
    ok(cgp_wsr_refuse_next(&r, &off, &n, &nl, &v, &vl) && vl == 7 && !memcmp(v, "no room", 7),
       "second header");
    ok(!cgp_wsr_refuse_next(&r, &off, &n, &nl, &v, &vl), "no third");
    is_int(cgp_wsr_refuse_pack(b, sizeof b, 101, NULL, 0, "", 0), CGP_E_VALUE, "101 is no refusal");
    is_int(cgp_wsr_refuse_pack(b, sizeof b, 600, NULL, 0, "", 0), CGP_E_VALUE, "600 is none");
    is_int(cgp_wsr_refuse_pack(b, sizeof b, 400, bad1, 1, "", 0), CGP_E_VALUE, "a name with a blank");
    is_int(cgp_wsr_refuse_pack(b, sizeof b, 400, bad2, 1, "", 0), CGP_E_VALUE, "a value with CR LF");
    is_int(cgp_wsr_refuse_pack(b, sizeof b, 400, bad3, 1, "", 0), CGP_E_VALUE, "a Status header");
    is_int(cgp_wsr_refuse_pack(b, 10, 403, hdrs, 2, "", 0), CGP_E_SPACE, "too small a buffer");
    /* hand-made bad payloads */
    len = cgp_wsr_refuse_pack(b, sizeof b, 403, hdrs, 2, "", 0);
    b[3] = 3; /* three headers said, two there */
    is_int(cgp_wsr_refuse_unpack(b, (size_t)len, &r), CGP_E_LEN, "more headers said than there are");
    b[3] = 2;
    b[5] = 200; /* the first name's length past the end */
    is_int(cgp_wsr_refuse_unpack(b, (size_t)len, &r), CGP_E_LEN, "a name past the end");
    b[4] = 0; b[5] = 0;
    is_int(cgp_wsr_refuse_unpack(b, (size_t)len, &r), CGP_E_VALUE, "an empty name");
    b[0] = 0; b[1] = 199; b[2] = 0; b[3] = 0;
    is_int(cgp_wsr_refuse_unpack(b, 4, &r), CGP_E_VALUE, "status 199");
    b[1] = 200; b[3] = 65;
    is_int(cgp_wsr_refuse_unpack(b, 4, &r), CGP_E_VALUE, "65 headers");
}

static void t_wire(void)
{
    unsigned char b[CGP_WS_ACCEPT_MAX];
    cgp_ws_accept_msg m = { .conn = 42, .pid = 4242, .proto = "chat", .plen = 4 }, g;
    int n = cgp_ws_accept_pack(b, &m);

    is_int(n, 13, "WS_ACCEPT of 13 bytes");
    is_int(cgp_ws_accept_unpack(b, (size_t)n, &g), CGP_OK, "unpacks");
    ok(g.conn == 42 && g.pid == 4242 && g.plen == 4 && !memcmp(g.proto, "chat", 4), "the same back");
    is_int(cgp_ws_accept_unpack(b, (size_t)n - 1, &g), CGP_E_LEN, "one byte short");
    is_int(cgp_ws_accept_unpack(b, 8, &g), CGP_E_LEN, "under the fixed part");
    m.conn = 0;
    is_int(cgp_ws_accept_pack(b, &m), CGP_E_VALUE, "connection 0");
    m.conn = 1;
    m.pid = 0;
    is_int(cgp_ws_accept_pack(b, &m), CGP_E_VALUE, "pid 0");
    m.pid = 1;
    m.proto = "a;b";
    m.plen = 3;
    is_int(cgp_ws_accept_pack(b, &m), CGP_E_VALUE, "a subprotocol that is no token");
    ok(cgp_wsr_token("x-y.z~1", 7) && !cgp_wsr_token("", 0) && !cgp_wsr_token("\xc3\xa9", 2),
       "tokens: tchar only, not empty");
}

int main(void)
{
    t_header();
    t_payloads();
    t_refuse();
    t_wire();
    return tap_done();
}
