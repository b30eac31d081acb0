/* runner_buf.h: what the runner adds to the byte FIFO (runner_buf.c):
 * formatted appends, flushing to a descriptor, metric labels. */
#ifndef RUNNER_BUF_H
#define RUNNER_BUF_H

#include "runner_types.h"
#include "cgp_buf.h"

/* The runner's pending output: the shared byte FIFO (cgp_buf.h). */
typedef cgp_buf runner_buf;

int runner_buf_printf(runner_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int runner_buf_flush(runner_buf *b, int fd); /* 0 empty, 1 EAGAIN, -1 errno */
/* The same, telling took() each piece the descriptor took, before it goes. */
int runner_buf_flush_tee(runner_buf *b, int fd, void (*took)(void *arg, const void *p, size_t n),
                         void *arg);
/* Appends s as a Prometheus label value: backslash, quote and newline escaped. */
int runner_buf_label(runner_buf *b, const char *s);
/* Appends s[0..n) as a JSON string: quoted, escaped, bytes that are not UTF-8 as Latin-1. */
int runner_buf_json(runner_buf *b, const char *s, size_t n);
/* Appends s[0..n) escaped for HTML text and attributes. */
int runner_buf_html(runner_buf *b, const char *s, size_t n);

#endif
