/* cgp_scan.c: finds the CGIPLUSEOF sentinel and CGIPLUSESC...CGIPLUSEOT
 * callout blocks in a worker's stdout (shared by the runner and the
 * module's direct path), across read boundaries. A marker
 * counts only when a line end ("\n" or "\r\n") follows it; it may start
 * anywhere (the sentinel comes directly after the last body byte). Only a
 * tail that could still become a marker is held back. No I/O. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "cgp_scan.h"

#include <string.h>
#include <strings.h>


enum { SCAN_AGAIN = -1 };

void cgp_scan_init(cgp_scan *sc, const char *eof, const char *esc, const char *eot)
{
    sc->eof = (const unsigned char *)eof;
    sc->esc = (const unsigned char *)esc;
    sc->eot = (const unsigned char *)eot;
    sc->mlen = strlen(eof);
    for (sc->plen = 0; sc->plen < sc->mlen && eof[sc->plen] == esc[sc->plen]; sc->plen++)
        ;
    cgp_scan_reset(sc);
}

void cgp_scan_reset(cgp_scan *sc)
{
    sc->in_callout = 0;
    sc->skipping = 0;
    sc->skip_first = 0;
}

/* 1 for "\n", 2 for "\r\n", 0 for anything else, -1 if more bytes are needed. */
static int line_end(const unsigned char *p, size_t n)
{
    if (n == 0)
        return -1;
    if (p[0] == '\n')
        return 1;
    if (p[0] != '\r')
        return 0;
    if (n < 2)
        return -1;
    return p[1] == '\n' ? 2 : 0;
}

/* Longest tail of p[0..n) that is a proper prefix of a marker. */
static size_t partial_tail(const cgp_scan *sc, const unsigned char *p, size_t n)
{
    size_t k = n < sc->mlen ? n : sc->mlen - 1;
    for (; k > 0; k--) {
        const unsigned char *t = p + n - k;
        if (memcmp(t, sc->eof, k) == 0 || memcmp(t, sc->esc, k) == 0)
            return k;
    }
    return 0;
}

static int scan_output(cgp_scan *sc, const unsigned char *buf, size_t len, size_t *pos,
                       const unsigned char **out, size_t *outlen, int final)
{
    size_t start = *pos, from = start;
    while (from < len) {
        /* one pass for both markers: their shared prefix, then which one */
        const unsigned char *m = memmem(buf + from, len - from, sc->eof, sc->plen);
        if (!m || (size_t)(m - buf) + sc->mlen > len)
            break; /* no whole marker starts here or later */
        int is_eof = memcmp(m, sc->eof, sc->mlen) == 0;
        if (!is_eof && memcmp(m, sc->esc, sc->mlen) != 0) {
            from = (size_t)(m - buf) + 1;
            continue;
        }
        size_t at = (size_t)(m - buf);
        int le = line_end(m + sc->mlen, len - at - sc->mlen);
        if (le != 0 && !(le < 0 && final)) {
            if (at > start) { /* the response bytes before the marker first */
                *out = buf + start;
                *outlen = at - start;
                *pos = at;
                return CGP_SCAN_OUTPUT;
            }
            if (le < 0) { /* the line end has not arrived yet */
                *pos = at;
                return CGP_SCAN_MORE;
            }
            *pos = at + sc->mlen + (size_t)le;
            if (is_eof)
                return CGP_SCAN_SENTINEL;
            sc->in_callout = 1;
            return SCAN_AGAIN;
        }
        from = at + 1; /* a marker not ending a line is plain output */
    }
    size_t keep = final ? 0 : partial_tail(sc, buf + start, len - start);
    size_t end = len - keep;
    *pos = end;
    if (end > start) {
        *out = buf + start;
        *outlen = end - start;
        return CGP_SCAN_OUTPUT;
    }
    return CGP_SCAN_MORE;
}

static int scan_callout(cgp_scan *sc, const unsigned char *buf, size_t len, size_t *pos,
                        const unsigned char **out, size_t *outlen, int final)
{
    size_t start = *pos;
    const unsigned char *nl = memchr(buf + start, '\n', len - start);
    if (!nl) {
        if (!sc->skipping && len - start > CGP_SCAN_LINE_MAX) {
            sc->skipping = 1;
            sc->skip_first = buf[start];
        }
        /* Hold a partial line unless it is being dropped or no more comes. */
        *pos = sc->skipping || final ? len : start;
        return CGP_SCAN_MORE;
    }
    size_t end = (size_t)(nl - buf);
    size_t l = end - start;
    *pos = end + 1;
    if (l && buf[end - 1] == '\r')
        l--;
    if (sc->skipping || l > CGP_SCAN_LINE_MAX) {
        /* (as long when it came whole, in one read, as in pieces) */
        if (!sc->skipping)
            sc->skip_first = buf[start];
        sc->skipping = 0;
        *out = &sc->skip_first;
        *outlen = 1;
        return CGP_SCAN_CALLOUT_LONG;
    }
    if (l == sc->mlen && memcmp(buf + start, sc->eot, l) == 0) {
        sc->in_callout = 0;
        return SCAN_AGAIN;
    }
    if (l == sc->mlen && memcmp(buf + start, sc->eof, l) == 0) {
        /* A script that forgot its CGIPLUSEOT: the response still ends. */
        sc->in_callout = 0;
        return CGP_SCAN_SENTINEL;
    }
    *out = buf + start;
    *outlen = l;
    return CGP_SCAN_CALLOUT;
}

int cgp_scan_step(cgp_scan *sc, const unsigned char *buf, size_t len, size_t *pos,
                     const unsigned char **out, size_t *outlen, int final)
{
    for (;;) {
        int ev = sc->in_callout ? scan_callout(sc, buf, len, pos, out, outlen, final)
                                : scan_output(sc, buf, len, pos, out, outlen, final);
        if (ev != SCAN_AGAIN)
            return ev;
    }
}

void cgp_callout_split(const unsigned char *line, size_t len, cgp_callout *c)
{
    const char *kw = (const char *)line, *colon;

    c->want = 1;
    if (len && (kw[0] == '!' || kw[0] == '#')) {
        c->want = kw[0] == '!' ? 0 : -1;
        kw++;
        len--;
    }
    colon = memchr(kw, ':', len);
    c->kw = kw;
    c->klen = colon ? (size_t)(colon - kw) : len;
    c->par = "";
    c->plen = 0;
    if (colon) {
        c->par = colon + 1;
        c->plen = len - c->klen - 1;
        while (c->plen && (*c->par == ' ' || *c->par == '\t'))
            c->par++, c->plen--;
        while (c->plen && (c->par[c->plen - 1] == ' ' || c->par[c->plen - 1] == '\t'))
            c->plen--;
    }
    while (c->klen && (kw[c->klen - 1] == ' ' || kw[c->klen - 1] == '\t'))
        c->klen--;
}

int cgp_callout_is(const cgp_callout *c, const char *want)
{
    return c->klen == strlen(want) && strncasecmp(c->kw, want, c->klen) == 0;
}
