/* fuzz_wsr.c: libFuzzer target for a WebSocket worker's channel records
 * and the WebSocket wire payloads (common/cgp_wsr.c): what a script (the
 * runner's side) or the runner (the library's side) may send. The input is
 * read as a stream of records from either side, as the runner and
 * libcgiplus read them; whatever unpacks and checks must pack back to the
 * same bytes, every refusal header lies inside its payload, and the
 * WS_ACCEPT and WS_CLOSE payloads round-trip. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_proto.h"
#include "cgp_wsr.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void one(const cgp_wsr_hdr *h, const unsigned char *raw, const unsigned char *pl,
                uint32_t max)
{
    unsigned char out[CGP_WSR_HDR_LEN];
    CHECK(cgp_wsr_hdr_pack(out, h, max) == CGP_OK);
    CHECK(out[0] == raw[0] && out[1] == raw[1] && !memcmp(out + 4, raw + 4, 8));
    if (cgp_wsr_check(h, pl) != CGP_OK)
        return;
    if (h->type == CGP_WSR_REFUSE) {
        cgp_wsr_refuse r;
        const char *n, *v;
        size_t nl, vl, off = 0;
        unsigned k = 0;
        CHECK(cgp_wsr_refuse_unpack(pl, h->len, &r) == CGP_OK);
        CHECK(r.status >= 200 && r.status <= 599 && r.body + r.blen == pl + h->len);
        while (cgp_wsr_refuse_next(&r, &off, &n, &nl, &v, &vl)) {
            CHECK((const unsigned char *)v + vl <= r.hdrs + r.hlen && nl > 0 &&
                  cgp_wsr_token(n, nl));
            k++;
        }
        CHECK(k == r.nhdr && off == r.hlen);
    } else if (h->type == CGP_WSR_CLOSE || h->type == CGP_WSR_CLOSED) {
        unsigned code;
        const char *reason;
        size_t rlen;
        unsigned char back[CGP_WSR_CLOSE_MAX];
        int any = h->type == CGP_WSR_CLOSED;
        CHECK(cgp_wsr_close_unpack(pl, h->len, any, &code, &reason, &rlen) == CGP_OK);
        if (h->len) {
            int n = cgp_wsr_close_pack(back, code, reason, rlen, any);
            CHECK(n == (int)h->len && !memcmp(back, pl, h->len));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    size_t off = 1;
    uint32_t max;

    if (n < 1)
        return 0;
    max = (uint32_t)1 << (d[0] % 25); /* 1 byte .. 16 MiB */
    while (n - off >= CGP_WSR_HDR_LEN) {
        cgp_wsr_hdr h;
        int from = d[off] >= CGP_WSR_HELLO ? CGP_WSR_FROM_WORKER : CGP_WSR_FROM_RUNNER;
        if (cgp_wsr_hdr_unpack(d + off, &h, from, max) != CGP_OK)
            break;
        if (n - off - CGP_WSR_HDR_LEN < h.len)
            break;
        one(&h, d + off, d + off + CGP_WSR_HDR_LEN, max);
        off += CGP_WSR_HDR_LEN + h.len;
    }
    /* the rest as a WS_ACCEPT payload */
    {
        cgp_ws_accept_msg m;
        unsigned char back[CGP_WS_ACCEPT_MAX];
        if (cgp_ws_accept_unpack(d + off, n - off, &m) == CGP_OK) {
            int k = cgp_ws_accept_pack(back, &m);
            CHECK(k == (int)(n - off) && !memcmp(back, d + off, n - off));
        }
    }
    return 0;
}
