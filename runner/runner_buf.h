/* runner_buf.h: the growable byte FIFO (runner_buf.c). */
#ifndef RUNNER_BUF_H
#define RUNNER_BUF_H

#include "runner_types.h"

/* A growable FIFO of bytes, embedded in its owner and freed with it. */
typedef struct runner_buf {
    unsigned char *p;
    size_t off, len, cap; /* pending bytes are p[off..len) */
} runner_buf;

static inline size_t runner_buf_used(const runner_buf *b) { return b->len - b->off; }
int runner_buf_reserve(runner_buf *b, size_t n);
int runner_buf_append(runner_buf *b, const void *d, size_t n);
int runner_buf_printf(runner_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void runner_buf_consume(runner_buf *b, size_t n);
void runner_buf_reset(runner_buf *b);
void runner_buf_free(runner_buf *b);
int runner_buf_flush(runner_buf *b, int fd); /* 0 empty, 1 EAGAIN, -1 errno */
/* Appends s as a Prometheus label value: backslash, quote and newline escaped. */
int runner_buf_label(runner_buf *b, const char *s);

#endif
