/* test_ready.c: the ready line (common/cgp_ready.c) against a real pipe:
 * alone it is taken, with anything before or after it is junk, split across
 * reads it is completed, an empty or closed pipe says so. */
#define _GNU_SOURCE
#include "cgp_ready.h"
#include "tap.h"

#include <fcntl.h>
#include <unistd.h>

#define EOFV "CGIPLUS-EOF-0123456789abcdef0123456789abcdef"

static int take(const char *pre, size_t pn, const char *in, size_t inn, int close_w,
                size_t *seen)
{
    int p[2], rc;

    if (pipe2(p, O_NONBLOCK) < 0)
        return -1;
    if (inn && write(p[1], in, inn) != (ssize_t)inn)
        return -1;
    if (close_w)
        close(p[1]);
    rc = cgp_ready_take(p[0], (const unsigned char *)pre, pn, EOFV "+\n", 46, seen);
    close(p[0]);
    if (!close_w)
        close(p[1]);
    return rc;
}

int main(void)
{
    char line[CGP_READY_MAX];
    size_t n = cgp_ready_line(line, EOFV), seen;

    is_int(n, 46, "the line is the marker, '+', LF");
    ok(memcmp(line, EOFV "+\n", 46) == 0, "its bytes");
    is_int(take(NULL, 0, EOFV "+\n", 46, 0, &seen), CGP_READY_SEEN, "alone on the pipe: taken");
    is_int(seen, 46, "46 bytes looked at");
    is_int(take(NULL, 0, "", 0, 0, &seen), CGP_READY_NONE, "an empty pipe: nothing");
    is_int(take(NULL, 0, "", 0, 1, &seen), CGP_READY_EOF, "a closed pipe: its end");
    is_int(take(NULL, 0, EOFV "+\nX", 47, 0, &seen), CGP_READY_JUNK, "a byte after it: junk");
    is_int(take(NULL, 0, "X" EOFV "+\n", 47, 0, &seen), CGP_READY_JUNK, "a byte before it: junk");
    is_int(take(NULL, 0, EOFV "\n", 45, 0, &seen), CGP_READY_JUNK, "a sentinel is no ready line");
    is_int(take(EOFV, 44, "+\n", 2, 0, &seen), CGP_READY_SEEN, "read in two pieces: completed");
    is_int(take(EOFV "+\n", 46, "", 0, 0, &seen), CGP_READY_SEEN, "read whole already: taken");
    is_int(take(EOFV "+\n", 46, "x", 1, 0, &seen), CGP_READY_JUNK, "read whole, then more: junk");
    is_int(take(EOFV, 44, "", 0, 0, &seen), CGP_READY_JUNK, "its start with no rest: junk");
    is_int(take(EOFV, 44, "", 0, 1, &seen), CGP_READY_JUNK, "its start, then the end: junk");
    is_int(take("abc", 3, "", 0, 0, &seen), CGP_READY_JUNK, "other bytes read already: junk");
    is_int(seen, 3, "3 bytes looked at");
    ok(cgp_ready_is((const unsigned char *)line, n, line, n) &&
       !cgp_ready_is((const unsigned char *)line, n - 1, line, n) &&
       !cgp_ready_is((const unsigned char *)line, n, line, 0), "cgp_ready_is: whole line only");
    is_int(cgp_ready_line(line, EOFV EOFV), 0, "an over-long marker has no line");
    return tap_done();
}
