/* cgp_buf.h: the growable byte FIFO (common/cgp_buf.c), shared by the
 * runner's pending output and the module's WebSocket connections. */
#ifndef CGP_BUF_H
#define CGP_BUF_H

#include <stddef.h>

/* Pending bytes are p[off..len). Embedded in its owner and freed with it
 * (cgp_buf_free); zeroed: empty, nothing allocated. */
typedef struct cgp_buf {
    unsigned char *p;
    size_t off, len, cap;
} cgp_buf;

static inline size_t cgp_buf_used(const cgp_buf *b) { return b->len - b->off; }
/* Room for n more bytes; -1 (errno ENOMEM) when it cannot grow. */
int cgp_buf_reserve(cgp_buf *b, size_t n);
int cgp_buf_append(cgp_buf *b, const void *d, size_t n);
/* Drops n bytes from the front; an emptied buffer keeps at most
 * CGP_BUF_KEEP bytes of memory. */
void cgp_buf_consume(cgp_buf *b, size_t n);
void cgp_buf_reset(cgp_buf *b);
void cgp_buf_free(cgp_buf *b);

#define CGP_BUF_KEEP (64u * 1024u)

#endif
