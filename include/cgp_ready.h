/* cgp_ready.h: a CGIplus worker's ready line (common/cgp_ready.c,
 * docs/PROTOCOL.md "The ready line"): its CGIPLUSEOF value and "+\n", in
 * one write just before it blocks reading its next record. Whoever holds a
 * worker with no request and finds that line alone on its stdout knows the
 * worker is back in its read and wrote nothing else: the next record may
 * go out whole, without the hand-over's wait (docs/DESIGN.md). */
#ifndef CGP_READY_H
#define CGP_READY_H

#include <stddef.h>

#define CGP_READY_MAX 64u /* a ready line: a 44-byte marker, "+\n" */

enum cgp_ready {
    CGP_READY_NONE, /* nothing there */
    CGP_READY_SEEN, /* the ready line, alone: taken */
    CGP_READY_JUNK, /* anything else: output with no request */
    CGP_READY_EOF   /* stdout closed, nothing before */
};

/* The ready line of the sentinel eof into dst (CGP_READY_MAX bytes); its
 * length, 0 if eof is too long. */
size_t cgp_ready_line(char *dst, const char *eof);

/* 1 when have (n bytes) is the ready line, alone. A read that returned less
 * than it asked for emptied the pipe: nothing follows that line now. */
int cgp_ready_is(const unsigned char *have, size_t n, const char *line, size_t llen);

/* What a worker with no request wrote: the bytes already read (have, n),
 * completed from fd without blocking (the rest of a line written in one
 * write is there already), one byte past the line read to see nothing
 * follows. *seen counts the bytes looked at. */
int cgp_ready_take(int fd, const unsigned char *have, size_t n, const char *line, size_t llen,
                   size_t *seen);

#endif
