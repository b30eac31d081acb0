/* cgp_records.h: the pure part of libcgiplus: reading one request's records
 * off the CGIPLUSIN channel (docs/PROTOCOL.md part 2) and building the
 * environment array a request is served with. No stdio, no globals: the read
 * function is injected, so the unit tests and the fuzz target drive it from
 * memory. Private to libcgiplus (symbols are not exported from the .so). */
#ifndef CGP_RECORDS_H
#define CGP_RECORDS_H

#include "cgp_buf.h" /* the growable byte buffer (common/cgp_buf.c) */
#include <stddef.h>
#include <sys/types.h>

#include "cgp_proto.h"

/* Caps on what the runner may send. A record line is "NAME=value" with the
 * wire caps of a kv entry; a whole request (record or struct block) may hold
 * the 1 MiB of PARAMS plus the runner's own variables. */
#define CGP_REC_MAX_SYNC  32u
#define CGP_REC_MAX_LINE  (CGP_MAX_NAME + 1u + CGP_MAX_PAYLOAD)
#define CGP_REC_MAX_BLOCK (2u * CGP_MAX_PARAMS)

/* Reads up to n bytes: returns the count, 0 at end of file, -1 with errno. */
typedef ssize_t (*cgp_readfn)(void *ctx, void *buf, size_t n);

/* Buffered reader over the request channel. Owned by its user (libcgiplus
 * keeps one for the process's life); zero it, then set fn and ctx. */
typedef struct cgp_rd {
    cgp_readfn fn;
    void *ctx;
    size_t pos, end;             /* unread bytes are buf[pos..end) */
    unsigned char buf[4096];
} cgp_rd;


/* One request's variables: the "NAME=value\0" strings in one arena, and the
 * NULL-ended environment array built from them. Owned by libcgiplus (two,
 * used in turn: the current request's and the next); reused across requests,
 * freed only by cgp_vars_free. */
typedef struct cgp_vars {
    cgp_buf arena;               /* entries, each NUL-terminated */
    cgp_buf raw;                 /* struct mode: the block as received */
    size_t *off;                 /* start of each entry in arena */
    size_t n, ncap;
    char **vec;                  /* built by cgp_vars_merge */
    size_t vcap;
    size_t *slot;                /* cgp_vars_merge's name table: vec index + 1, 0 free */
    size_t scap;                 /* its size, a power of two */
} cgp_vars;

/* Why cgp_req_read failed; the library logs CGIPLUS(3000 + reason). */
enum cgp_req_err {
    CGP_RQ_SYNC = 1,   /* first line neither "!" nor "!!N" (EPROTO) */
    CGP_RQ_RECORD = 2, /* a variable without '=', empty name, or NUL (EPROTO) */
    CGP_RQ_TRUNC = 3,  /* channel ended inside a request (EPROTO) */
    CGP_RQ_SIZE = 4,   /* a line or the request over its cap (EMSGSIZE) */
    CGP_RQ_READ = 5,   /* read failed (its errno) */
    CGP_RQ_NOMEM = 6   /* allocation failed (ENOMEM) */
};


/* Appends the next line, without its '\n', to out. Returns 1, 0 at end of
 * file before any byte, -1 with errno: EPROTO for end of file inside the
 * line, EMSGSIZE if the line is over max bytes (the rest of the line is read
 * and dropped, so the stream stays in step), else the read's errno. */
int cgp_rd_line(cgp_rd *rd, cgp_buf *out, size_t max);
/* Reads exactly n bytes (never more). 1, or -1 with errno (EPROTO at EOF). */
int cgp_rd_exact(cgp_rd *rd, void *dst, size_t n);

/* Parses a sync line: 0 for "!" (record mode), 1 for "!!N" with N stored in
 * *n (2..CGP_REC_MAX_BLOCK), or CGP_E_VALUE / CGP_E_LEN. */
int cgp_rec_sync(const char *line, size_t len, size_t *n);
/* Checks one "NAME=value" entry: returns the name length (>= 1), or
 * CGP_E_VALUE if there is no '=', the name is empty or a NUL is inside. */
int cgp_rec_check(const char *entry, size_t len);

/* mod_ssl's PEM certificates (SSLOptions +ExportCertData: SSL_CLIENT_CERT,
 * SSL_SERVER_CERT, SSL_CLIENT_CERT_CHAIN_n, and their REDIRECT_ copies
 * after an internal redirect) come in record mode with their
 * line ends as spaces; base64 has none, so this puts them back in place
 * (the same length) in a record-mode "NAME=value" entry of name length nlen
 * whose value has that shape. Other entries are left alone. */
void cgp_rec_pem(char *entry, size_t len, size_t nlen);

/* Reads one whole request into v (emptied first). Returns 1, 0 on end of file
 * before the request's first byte, -1 with errno and *why set. */
int cgp_req_read(cgp_rd *rd, cgp_vars *v, int *why);

/* Builds v->vec: the request's entries (for a name sent twice, the last
 * wins) followed by the base entries whose names the request does not carry,
 * NULL-ended. base is NULL-ended and may be NULL. 0, or -1 with ENOMEM. */
int cgp_vars_merge(cgp_vars *v, char *const *base);
void cgp_vars_free(cgp_vars *v);

#endif
