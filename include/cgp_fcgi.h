/* cgp_fcgi.h: FastCGI 1.0 codec (the FastCGI specification, "fcgi-spec"),
 * for the web-server side (the module's direct path and the runner talk to
 * FastCGI workers) and, for tests, the application side.
 * Pure C: no httpd or APR headers, no allocation, no I/O. Every length read
 * off the wire is checked against a cap. docs/PROTOCOL.md, "FastCGI codec",
 * is the normative description. */
#ifndef CGP_FCGI_H
#define CGP_FCGI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define CGP_FCGI_VERSION      1u
#define CGP_FCGI_HDR_LEN      8u
#define CGP_FCGI_MAX_CONTENT  65535u  /* the 16-bit contentLength */
#define CGP_FCGI_BODY_LEN     8u      /* BEGIN_REQUEST, END_REQUEST, UNKNOWN_TYPE */
/* A request's first record, BEGIN_REQUEST, whole (no padding) */
#define CGP_FCGI_BEGIN_LEN    (CGP_FCGI_HDR_LEN + CGP_FCGI_BODY_LEN)
/* Caps on name-value pairs (PARAMS, GET_VALUES, GET_VALUES_RESULT), sent or
 * received: a name, a value, all pairs of one stream. */
#define CGP_FCGI_MAX_NAME     1024u
#define CGP_FCGI_MAX_VALUE    65536u
#define CGP_FCGI_MAX_PARAMS   (1024u * 1024u)
/* A buffer this big holds any pair the decoder accepts. */
#define CGP_FCGI_NV_BUF       (CGP_FCGI_MAX_NAME + CGP_FCGI_MAX_VALUE)

enum cgp_fcgi_type {
    CGP_FCGI_BEGIN_REQUEST = 1,
    CGP_FCGI_ABORT_REQUEST = 2,
    CGP_FCGI_END_REQUEST = 3,
    CGP_FCGI_PARAMS = 4,
    CGP_FCGI_STDIN = 5,
    CGP_FCGI_STDOUT = 6,
    CGP_FCGI_STDERR = 7,
    CGP_FCGI_DATA = 8,
    CGP_FCGI_GET_VALUES = 9,
    CGP_FCGI_GET_VALUES_RESULT = 10,
    CGP_FCGI_UNKNOWN_TYPE = 11
};

enum cgp_fcgi_role {
    CGP_FCGI_RESPONDER = 1,
    CGP_FCGI_AUTHORIZER = 2,
    CGP_FCGI_FILTER = 3
};
#define CGP_FCGI_KEEP_CONN 1u /* BEGIN_REQUEST flags */

enum cgp_fcgi_pstatus {
    CGP_FCGI_REQUEST_COMPLETE = 0,
    CGP_FCGI_CANT_MPX_CONN = 1,
    CGP_FCGI_OVERLOADED = 2,
    CGP_FCGI_UNKNOWN_ROLE = 3
};

/* Codec results (distinct from cgp_proto.h's). */
#define CGP_FCGI_OK        0
#define CGP_FCGI_E_VERSION (-1)  /* version byte not 1 */
#define CGP_FCGI_E_TYPE    (-2)  /* a type the reading side may not receive */
#define CGP_FCGI_E_REQID   (-3)  /* request id 0 on an application record, or
                                    another than the one in flight; not 0 on a
                                    management record */
#define CGP_FCGI_E_LEN     (-4)  /* a length over its cap or not the fixed one */
#define CGP_FCGI_E_STATE   (-5)  /* a record the request's state does not allow */
#define CGP_FCGI_E_SPACE   (-6)  /* the caller's buffer is too small */
#define CGP_FCGI_E_VALUE   (-7)  /* a field out of range */

const char *cgp_fcgi_strerror(int rc);
const char *cgp_fcgi_type_name(unsigned type);

/* One record header. Caller-owned, on the stack. */
typedef struct cgp_fcgi_hdr {
    uint8_t  type;
    uint16_t reqid;
    uint16_t clen;   /* content length */
    uint8_t  plen;   /* padding length */
} cgp_fcgi_hdr;

/* pack writes version 1 and reserved 0. unpack checks the version only:
 * which types are allowed depends on the side (the parser below). */
void cgp_fcgi_hdr_pack(unsigned char out[CGP_FCGI_HDR_LEN], const cgp_fcgi_hdr *h);
int  cgp_fcgi_hdr_unpack(const unsigned char in[CGP_FCGI_HDR_LEN], cgp_fcgi_hdr *h);

/* Fixed bodies (8 bytes each), decoded. Caller-owned, on the stack or in
 * an event. */
typedef struct cgp_fcgi_begin {
    uint16_t role;
    uint8_t  flags;
} cgp_fcgi_begin;
typedef struct cgp_fcgi_end {
    uint32_t app_status;
    uint8_t  pstatus;  /* enum cgp_fcgi_pstatus */
} cgp_fcgi_end;
void cgp_fcgi_begin_pack(unsigned char out[CGP_FCGI_BODY_LEN], const cgp_fcgi_begin *b);
void cgp_fcgi_begin_unpack(const unsigned char in[CGP_FCGI_BODY_LEN], cgp_fcgi_begin *b);
/* A protocolStatus past UNKNOWN_ROLE is CGP_FCGI_E_VALUE both ways. */
int  cgp_fcgi_end_pack(unsigned char out[CGP_FCGI_BODY_LEN], const cgp_fcgi_end *e);
int  cgp_fcgi_end_unpack(const unsigned char in[CGP_FCGI_BODY_LEN], cgp_fcgi_end *e);
void cgp_fcgi_unknown_pack(unsigned char out[CGP_FCGI_BODY_LEN], uint8_t type);

/* One whole record, copied into out[*off]: header, content, plen zero bytes
 * of padding. No side's rules are checked (tests build bad streams with it). */
int cgp_fcgi_record_pack(unsigned char *out, size_t cap, size_t *off, uint8_t type,
                         uint16_t reqid, const void *content, size_t clen, uint8_t plen);

/* ------------------------------------------------------------ name-value pairs */

/* A pair to send: points into the caller's strings for one pack call. */
typedef struct cgp_fcgi_pair {
    const char *name;
    size_t nlen;
    const char *val;
    size_t vlen;
} cgp_fcgi_pair;

/* Bytes of one pair: lengths below 128 take 1 byte, others 4 (high bit set). */
size_t cgp_fcgi_nv_size(size_t nlen, size_t vlen);
/* Appends one pair at out[*off]. A name of 0 or over CGP_FCGI_MAX_NAME bytes,
 * a value over CGP_FCGI_MAX_VALUE: CGP_FCGI_E_LEN. */
int cgp_fcgi_nv_pack(unsigned char *out, size_t cap, size_t *off,
                     const char *name, size_t nlen, const char *val, size_t vlen);

/* Incremental decoder of one name-value stream (the content of all PARAMS,
 * GET_VALUES or GET_VALUES_RESULT records of one request, in order). A pair
 * may be split anywhere, across records or reads: its bytes then gather in
 * the caller's buffer. Owned by the caller, lives as long as the stream. */
typedef struct cgp_fcgi_nv {
    unsigned char *buf;  /* caller's; CGP_FCGI_NV_BUF holds any accepted pair */
    size_t cap;
    size_t total;        /* pair bytes so far, capped by CGP_FCGI_MAX_PARAMS */
    unsigned char lb[8]; /* length bytes gathered */
    unsigned lbn;
    uint32_t nlen, vlen; /* lengths of the pair in hand, once lbn is complete */
    size_t have;         /* bytes of name + value gathered in buf */
    int err;             /* the first error, returned again */
} cgp_fcgi_nv;

void cgp_fcgi_nv_init(cgp_fcgi_nv *d, unsigned char *buf, size_t cap);
/* Reads from in[*pos..len): 1 with a pair (name and value point into in or
 * the buffer, valid until the next call), 0 when in is used up, or an error:
 * CGP_FCGI_E_LEN (a length over its cap, or 0 for a name),
 * CGP_FCGI_E_SPACE (a split pair larger than the buffer). Errors stick. */
int cgp_fcgi_nv_next(cgp_fcgi_nv *d, const unsigned char *in, size_t len, size_t *pos,
                     const char **name, size_t *nlen, const char **val, size_t *vlen);
/* At the stream's end: CGP_FCGI_OK, or CGP_FCGI_E_LEN if a pair is cut. */
int cgp_fcgi_nv_finish(const cgp_fcgi_nv *d);

/* ------------------------------------------------------------ the record parser */

/* Which side's records a parser reads. */
enum cgp_fcgi_side {
    CGP_FCGI_FROM_APP = 1,    /* we are the web server: STDOUT, STDERR,
                                 END_REQUEST; GET_VALUES_RESULT, UNKNOWN_TYPE */
    CGP_FCGI_FROM_SERVER = 2  /* we are the application: BEGIN_REQUEST,
                                 ABORT_REQUEST, PARAMS, STDIN, DATA; GET_VALUES
                                 and management records of unknown types */
};

/* Incremental record parser: takes byte chunks as they are read and yields
 * record pieces. Owned by the caller (one per connection), no allocation. */
typedef struct cgp_fcgi_parser {
    int side;
    int state;          /* header, content or padding (cgp_fcgi.c) */
    int err;            /* the first error, returned again on every call */
    uint16_t reqid;     /* FROM_APP: the request in flight (0: none) */
    uint8_t eof;        /* FROM_APP: bit per stream type ended in this request */
    uint8_t one;        /* FROM_APP: records of id 1 pass for the request in flight */
    uint8_t hlen;       /* header bytes gathered */
    uint8_t pad;        /* padding bytes skipped */
    unsigned char hdr[CGP_FCGI_HDR_LEN];
    unsigned char body[CGP_FCGI_BODY_LEN];
    cgp_fcgi_hdr cur;   /* the record being read, once hlen is complete */
    uint16_t done;      /* its content bytes consumed */
} cgp_fcgi_parser;

/* What cgp_fcgi_parse yields: the caller's, filled by each call; data
 * points into the caller's input. */
typedef struct cgp_fcgi_event {
    cgp_fcgi_hdr hdr;           /* the record's header */
    const unsigned char *data;  /* DATA: a piece of its content, inside in */
    size_t len;
    union {
        cgp_fcgi_begin begin;   /* RECORD of BEGIN_REQUEST */
        cgp_fcgi_end end;       /* RECORD of END_REQUEST */
        uint8_t unknown;        /* RECORD of UNKNOWN_TYPE: the type refused */
    } u;
} cgp_fcgi_event;

#define CGP_FCGI_MORE   0  /* in is used up */
#define CGP_FCGI_PIECE  1  /* ev->data/len: part of a stream record's content */
#define CGP_FCGI_RECORD 2  /* a record is complete; a stream record with
                              clen 0 ends its stream */

void cgp_fcgi_parser_init(cgp_fcgi_parser *p, int side);
/* FROM_APP: the request the server just sent; its records are accepted until
 * its END_REQUEST. Records of any other request id are CGP_FCGI_E_REQID,
 * but 1 where one is nonzero: a server that never asks 1 takes those as an
 * application's that answers 1 whatever it is asked (cgp_fcgi_reqid_next),
 * once it learnt the application does (CGP_TS_FCGI_ONE). */
void cgp_fcgi_parser_expect(cgp_fcgi_parser *p, uint16_t reqid, int one);
/* Reads from in[*pos..len) up to the next event. Errors stick; after one
 * the connection is unusable (the stream is out of step). */
int cgp_fcgi_parse(cgp_fcgi_parser *p, const unsigned char *in, size_t len, size_t *pos,
                   cgp_fcgi_event *ev);
/* 1 if the bytes read so far end a whole record (padding included) and no
 * error stuck: another reader may take the connection on from here. */
int cgp_fcgi_parser_between(const cgp_fcgi_parser *p);

/* ------------------------------------------------------------ the server's side */

/* Bytes cgp_fcgi_request_pack needs for these pairs, or 0 if a pair is over
 * the caps. */
size_t cgp_fcgi_request_size(const cgp_fcgi_pair *pairs, size_t n);
/* BEGIN_REQUEST (role, flags), the pairs as PARAMS records of at most
 * CGP_FCGI_MAX_CONTENT bytes (only a pair longer than that spans two: a
 * shorter one starts a new record where the open one has no room for it, as
 * PHP's FastCGI needs), then the empty PARAMS
 * record, into out; *len the bytes written. CGP_FCGI_E_LEN: a pair over the
 * caps or all over CGP_FCGI_MAX_PARAMS; E_SPACE: out too small; E_VALUE:
 * reqid 0. */
int cgp_fcgi_request_pack(unsigned char *out, size_t cap, size_t *len, uint16_t reqid,
                          uint16_t role, uint8_t flags, const cgp_fcgi_pair *pairs, size_t n);
/* Frames data as stream records of type (STDIN, DATA; STDOUT, STDERR on the
 * application's side) without copying it: record i gets header hdrs[i] and
 * the iovecs iov[2i] (header) and iov[2i+1] (its part of data). len 0 frames
 * the one empty record that ends the stream. At most nrec records; returns
 * the iovecs filled and sets *taken to the bytes of data framed. */
size_t cgp_fcgi_stream_iov(uint8_t type, uint16_t reqid, const void *data, size_t len,
                           unsigned char (*hdrs)[CGP_FCGI_HDR_LEN], size_t nrec,
                           struct iovec *iov, size_t *taken);
#define CGP_FCGI_ABORT_LEN CGP_FCGI_HDR_LEN
void cgp_fcgi_abort_pack(unsigned char out[CGP_FCGI_ABORT_LEN], uint16_t reqid);
/* GET_VALUES asking for FCGI_MAX_CONNS, FCGI_MAX_REQS and FCGI_MPXS_CONNS. */
#define CGP_FCGI_GET_VALUES_LEN (CGP_FCGI_HDR_LEN + 2u + 14u + 2u + 13u + 2u + 15u)
void cgp_fcgi_get_values_pack(unsigned char out[CGP_FCGI_GET_VALUES_LEN]);

/* The answer to GET_VALUES, gathered pair by pair. Caller-owned, for one
 * answer. */
typedef struct cgp_fcgi_values {
    unsigned have;        /* CGP_FCGI_V_* bits of the values received */
    uint32_t max_conns, max_reqs, mpxs_conns;
} cgp_fcgi_values;
#define CGP_FCGI_V_MAX_CONNS  1u
#define CGP_FCGI_V_MAX_REQS   2u
#define CGP_FCGI_V_MPXS_CONNS 4u
/* One pair of GET_VALUES_RESULT: a known name with a decimal value
 * (at most 9 digits; 0 or 1 for FCGI_MPXS_CONNS), else CGP_FCGI_E_VALUE.
 * Unknown names are ignored (the specification lets an application add its
 * own). */
int cgp_fcgi_values_add(cgp_fcgi_values *v, const char *name, size_t nlen,
                        const char *val, size_t vlen);

#endif
