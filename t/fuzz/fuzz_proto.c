/* fuzz_proto.c: libFuzzer target for the wire codec's decoders
 * (common/cgp_proto.c). Checks that every decoder stays in bounds and that
 * whatever decodes re-encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_proto.h"
#include "cgp_table.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void fuzz_hdr(const uint8_t *d, size_t n)
{
    unsigned char out[CGP_HDR_LEN];
    cgp_hdr h;

    if (n < CGP_HDR_LEN)
        return;
    if (cgp_hdr_unpack(d, &h) != CGP_OK)
        return;
    CHECK(h.len <= CGP_MAX_PAYLOAD && cgp_type_valid(h.type));
    CHECK(cgp_hdr_pack(out, &h) == CGP_OK);
    /* Equal but for the reserved bytes, which are ignored on receipt. */
    CHECK(!memcmp(out, d, 6) && !memcmp(out + 8, d + 8, 8));
}

static void fuzz_kv(const uint8_t *d, size_t n)
{
    unsigned char *out = malloc(n ? n : 1);
    size_t off = 0, wo = 0, nl, vl;
    const char *nm, *v;
    int rc;

    while ((rc = cgp_kv_next(d, n, &off, &nm, &nl, &v, &vl)) == 1) {
        CHECK(nl >= 1 && nl <= CGP_MAX_NAME && vl <= CGP_MAX_PAYLOAD);
        CHECK((const uint8_t *)v + vl <= d + n);
        CHECK(cgp_kv_pack(out, n, &wo, nm, nl, v, vl) == CGP_OK);
    }
    CHECK(rc == 0 || rc == CGP_E_LEN);
    CHECK(wo == off && !memcmp(out, d, off));
    free(out);
}

static void fuzz_struct(const uint8_t *d, size_t n)
{
    unsigned char *out = malloc(n + 2);
    size_t off = 0, wo = 0, el;
    const char *e;
    int rc;

    while ((rc = cgp_struct_next(d, n, &off, &e, &el)) == 1) {
        CHECK(el >= 1 && (const uint8_t *)e + el <= d + n);
        CHECK(cgp_struct_pack(out, n + 2, &wo, e, el) == CGP_OK);
    }
    CHECK(rc == 0 || rc == CGP_E_LEN);
    if (rc == 0) {
        CHECK(cgp_struct_end(out, n + 2, &wo) == CGP_OK);
        CHECK(wo == off && !memcmp(out, d, off));
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    cgp_hello m;
    cgp_end e;
    cgp_started st;
    cgp_pair pr;
    cgp_grant gr;
    cgp_channel ch;
    unsigned cause;
    unsigned char out[CGP_CHANNEL_LEN], key[CGP_KEY_LEN];

    fuzz_hdr(d, n);
    if (cgp_hello_unpack(d, n, &m) == CGP_OK) {
        CHECK(n == CGP_HELLO_LEN);
        cgp_hello_pack(out, &m);
        CHECK(!memcmp(out, d, 2) && !memcmp(out + 4, d + 4, CGP_HELLO_LEN - 4));
        CHECK(cgp_key_equal(m.key, d + CGP_HELLO_ACK_LEN));
    }
    if (cgp_hello_ack_unpack(d, n, &m) == CGP_OK) {
        CHECK(n == CGP_HELLO_ACK_LEN);
        cgp_hello_ack_pack(out, &m);
        CHECK(!memcmp(out, d, 2) && !memcmp(out + 4, d + 4, 4));
    }
    if (cgp_key_parse((const char *)d, n, key) == CGP_OK)
        CHECK(n >= 2 * CGP_KEY_LEN && n <= CGP_KEY_HEX_MAX);
    if (cgp_abort_unpack(d, n, &cause) == CGP_OK) {
        CHECK(n <= CGP_ABORT_LEN && cause >= 1 && cause <= CGP_C_MAX_);
        if (n == CGP_ABORT_LEN)
            CHECK(cgp_abort_pack(out, cause) == CGP_OK && out[0] == d[0]);
        CHECK(strcmp(cgp_cause_name(cause), "?") != 0);
    }
    if (cgp_end_unpack(d, n, &e) == CGP_OK) {
        CHECK(n == CGP_END_LEN && e.outcome <= CGP_O_MAX_);
        CHECK(cgp_end_pack(out, &e) == CGP_OK);
        CHECK(out[0] == d[0] && !memcmp(out + 2, d + 2, 10));
    }
    if (cgp_started_unpack(d, n, &st) == CGP_OK) {
        CHECK(n == CGP_STARTED_LEN && st.pid != 0);
        CHECK(cgp_started_pack(out, &st) == CGP_OK);
        CHECK(!memcmp(out, d, CGP_STARTED_LEN));
    }
    if (cgp_pair_unpack(d, n, &pr) == CGP_OK) {
        CHECK(n == CGP_PAIR_LEN);
        cgp_pair_pack(out, &pr);
        CHECK(!memcmp(out, d, CGP_PAIR_LEN));
    }
    if (cgp_grant_unpack(d, n, &gr) == CGP_OK) {
        CHECK(n == CGP_GRANT_LEN && gr.slot < CGP_TABLE_SLOTS && gr.pidx < CGP_TABLE_POOLS);
        CHECK(cgp_grant_pack(out, &gr) == CGP_OK);
        CHECK(!memcmp(out, d, CGP_GRANT_LEN));
    }
    if (cgp_channel_unpack(d, n, &ch) == CGP_OK) {
        /* a worker named has three well-formed markers; they pack back */
        CHECK(n == CGP_CHANNEL_LEN);
        CHECK(ch.gen == 0 || (strlen(ch.eof) == CGP_MARK_LEN && ch.pid != 0));
        CHECK(cgp_channel_pack(out, &ch) == CGP_OK);
        CHECK(!memcmp(out, d, ch.gen ? CGP_CHANNEL_LEN : 12));
    }
    fuzz_kv(d, n);
    fuzz_struct(d, n);
    /* The same decoders at an offset: a frame inside a larger buffer. */
    if (n > CGP_HDR_LEN) {
        fuzz_kv(d + CGP_HDR_LEN, n - CGP_HDR_LEN);
        fuzz_struct(d + 1, n - 1);
    }
    return 0;
}
