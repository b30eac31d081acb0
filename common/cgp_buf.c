/* cgp_buf.c: the growable byte FIFO (include/cgp_buf.h). */
#include "cgp_buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cgp_buf_reserve(cgp_buf *b, size_t n)
{
    if (b->cap - b->len >= n)
        return 0;
    if (b->off) {
        memmove(b->p, b->p + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
        if (b->cap - b->len >= n)
            return 0;
    }
    if (n > SIZE_MAX / 2 - b->len) {
        errno = ENOMEM;
        return -1;
    }
    size_t need = b->len + n, cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

int cgp_buf_append(cgp_buf *b, const void *d, size_t n)
{
    if (n == 0)
        return 0;
    if (cgp_buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, d, n);
    b->len += n;
    return 0;
}

void cgp_buf_consume(cgp_buf *b, size_t n)
{
    b->off += n;
    if (b->off >= b->len)
        cgp_buf_reset(b);
}

void cgp_buf_reset(cgp_buf *b)
{
    b->off = b->len = 0;
    if (b->cap > CGP_BUF_KEEP) {
        free(b->p);
        b->p = NULL;
        b->cap = 0;
    }
}

void cgp_buf_free(cgp_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->off = b->len = b->cap = 0;
}
