/* runner_buf.c: what the runner appends to the shared byte FIFO
 * (cgp_buf): formatted text, JSON strings, HTML and metric labels; and
 * flushing it to a descriptor. */
#include "runner_buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        return cgp_buf_append(b, tmp, (size_t)n);
    /* longer (status pages): format again straight into the buffer */
    if (cgp_buf_reserve(b, (size_t)n + 1) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int runner_buf_flush(runner_buf *b, int fd)
{
    return runner_buf_flush_tee(b, fd, NULL, NULL);
}

int runner_buf_flush_tee(runner_buf *b, int fd, void (*took)(void *arg, const void *p, size_t n),
                         void *arg)
{
    while (cgp_buf_used(b)) {
        ssize_t n = write(fd, b->p + b->off, cgp_buf_used(b));
        if (n > 0) {
            if (took)
                took(arg, b->p + b->off, (size_t)n);
            cgp_buf_consume(b, (size_t)n);
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
        int rc = *s == '\\' ? cgp_buf_append(b, "\\\\", 2)
                 : *s == '"' ? cgp_buf_append(b, "\\\"", 2)
                 : *s == '\n' ? cgp_buf_append(b, "\\n", 2) : cgp_buf_append(b, s, 1);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Length of the valid UTF-8 sequence at p, 0 if it is not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

int runner_buf_json(runner_buf *b, const char *s, size_t n)
{
    if (cgp_buf_append(b, "\"", 1) < 0)
        return -1;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned char ch = p[i];
        int rc;
        if (ch == '"' || ch == '\\') {
            char e[2] = { '\\', (char)ch };
            rc = cgp_buf_append(b, e, 2);
        } else if (ch < 0x20 || ch == 0x7f) {
            rc = runner_buf_printf(b, "\\u%04x", ch);
        } else if (ch < 0x80) {
            rc = cgp_buf_append(b, &p[i], 1);
        } else {
            size_t l = utf8_len(p + i, n - i);
            if (l) {
                rc = cgp_buf_append(b, p + i, l);
                i += l;
                if (rc < 0)
                    return -1;
                continue;
            }
            rc = runner_buf_printf(b, "\\u%04x", ch); /* not UTF-8: as Latin-1 */
        }
        if (rc < 0)
            return -1;
        i++;
    }
    return cgp_buf_append(b, "\"", 1);
}

int runner_buf_html(runner_buf *b, const char *s, size_t n)
{
    for (const char *end = s + n; s < end; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
                        : *s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;
        if (e ? cgp_buf_append(b, e, strlen(e)) < 0 : cgp_buf_append(b, s, 1) < 0)
            return -1;
    }
    return 0;
}
