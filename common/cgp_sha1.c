/* cgp_sha1.c: SHA-1 as FIPS 180-4 section 6.1 gives it. */
#include "cgp_sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned n)
{
    return x << n | x >> (32 - n);
}

static void block(cgp_sha1 *s, const unsigned char *p)
{
    uint32_t w[80], a, b, c, d, e, f, k, t;
    unsigned i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3]; e = s->h[4];
    for (i = 0; i < 80; i++) {
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdcu;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6u;
        }
        t = rol(a, 5) + f + e + k + w[i];
        e = d; d = c; c = rol(b, 30); b = a; a = t;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d; s->h[4] += e;
}

void cgp_sha1_init(cgp_sha1 *s)
{
    static const uint32_t h0[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu,
                                    0x10325476u, 0xc3d2e1f0u };
    memcpy(s->h, h0, sizeof h0);
    s->bytes = 0;
    s->blen = 0;
}

void cgp_sha1_update(cgp_sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;

    s->bytes += len;
    while (len) {
        size_t k = 64 - s->blen < len ? 64 - s->blen : len;
        memcpy(s->blk + s->blen, p, k);
        s->blen += k;
        p += k;
        len -= k;
        if (s->blen == 64) {
            block(s, s->blk);
            s->blen = 0;
        }
    }
}

void cgp_sha1_final(cgp_sha1 *s, unsigned char out[CGP_SHA1_LEN])
{
    uint64_t bits = s->bytes * 8;
    unsigned char pad = 0x80;

    cgp_sha1_update(s, &pad, 1);
    pad = 0;
    while (s->blen != 56)
        cgp_sha1_update(s, &pad, 1);
    for (int i = 7; i >= 0; i--) {
        unsigned char b = (unsigned char)(bits >> (8 * i));
        cgp_sha1_update(s, &b, 1);
    }
    for (unsigned i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}
