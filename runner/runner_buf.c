/* runner_buf.c: the growable byte FIFO used for every pending output. */
#include "runner_buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_KEEP (64u * 1024u) /* an empty buffer larger than this is released */

int runner_buf_reserve(runner_buf *b, size_t n)
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

int runner_buf_append(runner_buf *b, const void *d, size_t n)
{
    if (n == 0)
        return 0;
    if (runner_buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, d, n);
    b->len += n;
    return 0;
}

int runner_buf_printf(runner_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0) {
        errno = EINVAL;
        return -1;
    }
    if ((size_t)n < sizeof(tmp))
        return runner_buf_append(b, tmp, (size_t)n);
    /* longer (status pages): format again straight into the buffer */
    if (runner_buf_reserve(b, (size_t)n + 1) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

void runner_buf_consume(runner_buf *b, size_t n)
{
    b->off += n;
    if (b->off >= b->len)
        runner_buf_reset(b);
}

void runner_buf_reset(runner_buf *b)
{
    b->off = b->len = 0;
    if (b->cap > BUF_KEEP) {
        free(b->p);
        b->p = NULL;
        b->cap = 0;
    }
}

void runner_buf_free(runner_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->off = b->len = b->cap = 0;
}

int runner_buf_flush(runner_buf *b, int fd)
{
    while (runner_buf_used(b)) {
        ssize_t n = write(fd, b->p + b->off, runner_buf_used(b));
        if (n > 0) {
            runner_buf_consume(b, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (n == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

int runner_buf_label(runner_buf *b, const char *s)
{
    for (; *s; s++) {
        int rc = *s == '\\' ? runner_buf_append(b, "\\\\", 2)
                 : *s == '"' ? runner_buf_append(b, "\\\"", 2)
                 : *s == '\n' ? runner_buf_append(b, "\\n", 2) : runner_buf_append(b, s, 1);
        if (rc < 0)
            return -1;
    }
    return 0;
}
