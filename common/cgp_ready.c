/* cgp_ready.c: the ready line (include/cgp_ready.h). */
#include "cgp_ready.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

size_t cgp_ready_line(char *dst, const char *eof)
{
    size_t n = strlen(eof);

    if (n + 2 > CGP_READY_MAX)
        return 0;
    memcpy(dst, eof, n);
    memcpy(dst + n, "+\n", 2);
    return n + 2;
}

int cgp_ready_is(const unsigned char *have, size_t n, const char *line, size_t llen)
{
    return llen && n == llen && memcmp(have, line, n) == 0;
}

int cgp_ready_take(int fd, const unsigned char *have, size_t n, const char *line, size_t llen,
                   size_t *seen)
{
    unsigned char buf[CGP_READY_MAX + 1];
    size_t want;
    ssize_t k;

    *seen = n;
    if (!llen || n > llen || (n && memcmp(have, line, n) != 0))
        return CGP_READY_JUNK;
    want = llen - n + 1;
    do
        k = read(fd, buf, want);
    while (k < 0 && errno == EINTR);
    if (k <= 0 && n == llen) /* the line whole, nothing after it now */
        return CGP_READY_SEEN;
    if (k < 0) /* EAGAIN: nothing (more) now */
        return n ? CGP_READY_JUNK : CGP_READY_NONE;
    if (k == 0)
        return n ? CGP_READY_JUNK : CGP_READY_EOF;
    *seen = n + (size_t)k;
    if ((size_t)k != llen - n || memcmp(buf, line + n, (size_t)k) != 0)
        return CGP_READY_JUNK;
    return CGP_READY_SEEN;
}
