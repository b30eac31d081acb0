/* runner_hdr.h: the response header block of one request (runner_hdr.c).
 * Output is held until the header block ends; Script-Control lines are
 * taken out and noted in ctl, the rest goes to a sink; after the header,
 * X-buffer-records coalesces output. It knows no worker: whoever feeds it
 * applies ctl when the header ends. */
#ifndef RUNNER_HDR_H
#define RUNNER_HDR_H

#include "runner_buf.h"

/* response header block scanned for Script-Control: CGIplusMaxHeaderSize's
 * most, so a line the module takes is never past the scan (the direct path
 * applies every one) */
#define RUNNER_HDR_MAX          (1024u * 1024u)
#define RUNNER_RECORDS_MAX      (64u * 1024u) /* X-buffer-records: coalesce up to this */

/* What the Script-Control lines of a header block asked for; the times as
 * runner_parse_minutes says (-1 none, 0 default, >0 ms). */
typedef struct runner_ctl {
    int no_abort;
    int have_lifetime, have_tmo_output, have_tmo_noprogress;
    int64_t lifetime, tmo_output, tmo_noprogress;
} runner_ctl;

/* The scanner of one request's output: embedded in the request, zeroed at
 * its start, freed with it (runner_hdr_free). */
typedef struct runner_hdr {
    int done;                 /* the header block was scanned */
    size_t scan;              /* hdr bytes already scanned for the blank line */
    int buffer_records;       /* Script-Control: X-buffer-records */
    runner_buf hdr;           /* output held until the header block ends */
    runner_buf recs;          /* output coalesced in X-buffer-records mode */
    runner_ctl ctl;
} runner_hdr;

/* Where the output goes, and whose it is (for log lines). Borrowed for one
 * call. */
typedef struct runner_hdr_sink {
    void (*send)(void *arg, const unsigned char *d, size_t len);
    void *arg;
    long pid;
    const char *script;
} runner_hdr_sink;

/* Both return 1 when the header block ended in this call (then h->ctl is
 * final and the caller applies it), else 0. */
int runner_hdr_output(runner_hdr *h, const runner_hdr_sink *s, const unsigned char *d,
                      size_t len);
/* No more output will come: what is held goes on. */
int runner_hdr_flush(runner_hdr *h, const runner_hdr_sink *s);
void runner_hdr_free(runner_hdr *h);

#endif
