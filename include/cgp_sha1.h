/* cgp_sha1.h: SHA-1 (FIPS 180-4), for the WebSocket handshake's
 * Sec-WebSocket-Accept only (RFC 6455 section 4.2.2): neither the module nor
 * the runner links a crypto library. Not for anything needing collision
 * resistance. */
#ifndef CGP_SHA1_H
#define CGP_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define CGP_SHA1_LEN 20u

/* Hash state. Caller-owned, lives for one digest. */
typedef struct cgp_sha1 {
    uint32_t h[5];
    uint64_t bytes;          /* message length so far */
    unsigned char blk[64];   /* the partial block */
    size_t blen;
} cgp_sha1;

void cgp_sha1_init(cgp_sha1 *s);
void cgp_sha1_update(cgp_sha1 *s, const void *data, size_t len);
void cgp_sha1_final(cgp_sha1 *s, unsigned char out[CGP_SHA1_LEN]);

#endif
