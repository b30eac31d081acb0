/* cgp_scan.h: the worker stdout scanner (common/cgp_scan.c): finds the
 * CGIPLUSEOF sentinel and the CGIPLUSESC...CGIPLUSEOT callout blocks across
 * read boundaries. Pure: no I/O, no httpd or runner headers; the runner and
 * the module's direct path share it, and t/fuzz/fuzz_scan.c covers it. */
#ifndef CGP_SCAN_H
#define CGP_SCAN_H

#include <stddef.h>

#define CGP_SCAN_LINE_MAX 4096u /* a callout line; longer ones are dropped */

enum cgp_scan_ev {
    CGP_SCAN_MORE,        /* need more bytes; keep buf[*pos..len) */
    CGP_SCAN_OUTPUT,      /* response bytes */
    CGP_SCAN_CALLOUT,     /* one callout request line (no line end) */
    CGP_SCAN_CALLOUT_LONG,/* an over-long callout line was dropped; out = its first byte */
    CGP_SCAN_SENTINEL     /* the CGIPLUSEOF line */
};

/* Sentinel/callout scanner state of one worker; the markers belong to it. */
typedef struct cgp_scan {
    const unsigned char *eof, *esc, *eot;
    size_t mlen;
    size_t plen;             /* eof and esc's shared prefix (the runner's: 9) */
    int in_callout;
    int skipping;            /* discarding an over-long callout line */
    unsigned char skip_first;
} cgp_scan;

void cgp_scan_init(cgp_scan *sc, const char *eof, const char *esc, const char *eot);
void cgp_scan_reset(cgp_scan *sc);
int cgp_scan_step(cgp_scan *sc, const unsigned char *buf, size_t len, size_t *pos,
                     const unsigned char **out, size_t *outlen, int final);

/* One callout line split (docs/PROTOCOL.md, "Callouts"): a leading '!'
 * asks for no answer, a leading '#' makes the line a comment; the rest is
 * "KEYWORD: params", blanks around both trimmed. Points into the line;
 * caller-owned, lives as long as the line. */
typedef struct cgp_callout {
    int want;                /* 1: answer it, 0: carry out, no answer, -1: comment */
    const char *kw, *par;    /* par is "" without a colon */
    size_t klen, plen;
} cgp_callout;

void cgp_callout_split(const unsigned char *line, size_t len, cgp_callout *c);
/* 1 if the keyword is want, ignoring case. */
int cgp_callout_is(const cgp_callout *c, const char *want);

#endif
