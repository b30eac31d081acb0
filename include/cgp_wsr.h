/* cgp_wsr.h: the records of a WebSocket worker's channel (runner <->
 * worker, docs/PROTOCOL.md part 2, "WebSocket workers"), and the payloads
 * of the WebSocket wire frames (module <-> runner, part 1, "WebSocket
 * connections"). Pure C: no httpd or APR headers, no allocation, no I/O.
 * Every length is checked against a cap before it is used. */
#ifndef CGP_WSR_H
#define CGP_WSR_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ channel records */

/* Header (12 bytes): u8 type, u8 flags, u16 reserved (0 on send, ignored),
 * u32 connection id, u32 payload length; the payload follows. */
#define CGP_WSR_HDR_LEN 12u
#define CGP_WSR_VERSION 1u
/* Caps on a payload, by type (the message cap is the pool's, at most this). */
#define CGP_WSR_MSG_MAX   (16u * 1024u * 1024u)   /* MESSAGE, SEND, BROADCAST */
#define CGP_WSR_OPEN_MAX  (1024u * 1024u + 65536u)/* OPEN: the CGI variables */
#define CGP_WSR_REFUSE_MAX (1024u * 1024u)        /* REFUSE: headers and body */
#define CGP_WSR_PROTO_MAX 255u                    /* ACCEPT: a subprotocol */
#define CGP_WSR_REASON_MAX 123u                   /* CLOSE, CLOSED: the reason */
#define CGP_WSR_HDRS_MAX  64u                     /* REFUSE: header lines */
#define CGP_WSR_HNAME_MAX 256u
#define CGP_WSR_HVAL_MAX  8192u

enum cgp_wsr_type {
    /* runner -> worker */
    CGP_WSR_OPEN = 1,      /* conn: a client asks; payload: a kv list of its CGI variables */
    CGP_WSR_MESSAGE = 2,   /* conn: a whole message from the client (flags: BINARY) */
    CGP_WSR_CLOSED = 3,    /* conn: the connection is gone; payload: u16 code + reason */
    /* worker -> runner */
    CGP_WSR_HELLO = 16,    /* conn 0; payload: u16 version, u16 reserved: "I speak WebSocket" */
    CGP_WSR_ACCEPT = 17,   /* conn: take it; payload: the subprotocol chosen, or empty */
    CGP_WSR_REFUSE = 18,   /* conn: answer it with this HTTP response (cgp_wsr_refuse) */
    CGP_WSR_SEND = 19,     /* conn: a message for one connection (flags: BINARY) */
    CGP_WSR_BROADCAST = 20,/* conn 0, or one to leave out: a message for every
                              connection of the pool (flags: BINARY) */
    CGP_WSR_CLOSE = 21     /* conn: close it; payload: empty (1000) or u16 code + reason */
};
#define CGP_WSR_F_BINARY 0x01u

/* Who sent a record: which types a reader accepts. */
#define CGP_WSR_FROM_RUNNER 0
#define CGP_WSR_FROM_WORKER 1

/* One decoded header; the caller's, on its stack. */
typedef struct cgp_wsr_hdr {
    uint8_t type, flags;
    uint32_t conn, len;
} cgp_wsr_hdr;

const char *cgp_wsr_type_name(unsigned type);
/* Writes the 12 bytes; CGP_E_TYPE, CGP_E_VALUE (flags or conn not allowed
 * for the type), CGP_E_LEN (over the type's cap, or max_message). */
int cgp_wsr_hdr_pack(unsigned char out[CGP_WSR_HDR_LEN], const cgp_wsr_hdr *h,
                     uint32_t max_message);
/* Reads and checks a header sent by `from`: the type is one that side
 * sends, the flags and connection id fit it, the length is within its cap
 * (messages: max_message, at most CGP_WSR_MSG_MAX). */
int cgp_wsr_hdr_unpack(const unsigned char in[CGP_WSR_HDR_LEN], cgp_wsr_hdr *h, int from,
                       uint32_t max_message);
/* Checks a whole record's payload (the header passed unpack): HELLO's
 * version, ACCEPT's token, CLOSE/CLOSED's code and UTF-8 reason, REFUSE's
 * layout, OPEN's kv list, a text message's UTF-8. CGP_OK or CGP_E_VALUE
 * (CGP_E_VERSION for a HELLO of another version). */
int cgp_wsr_check(const cgp_wsr_hdr *h, const unsigned char *pl);

/* HELLO's payload (4 bytes). */
#define CGP_WSR_HELLO_LEN 4u
void cgp_wsr_hello_pack(unsigned char out[CGP_WSR_HELLO_LEN]);

/* CLOSE, CLOSED and the wire's WS_CLOSE: u16 code + reason. A worker's
 * CLOSE carries a code a close frame may (cgp_ws_close_code_ok) or nothing
 * (1000); CLOSED and WS_CLOSE may also say 1005 (the client's close had no
 * code) and 1006 (the connection dropped). pack returns the length or a
 * CGP_E_* error. */
#define CGP_WSR_CLOSE_MAX (2u + CGP_WSR_REASON_MAX)
int cgp_wsr_close_pack(unsigned char out[CGP_WSR_CLOSE_MAX], unsigned code, const char *reason,
                       size_t rlen, int any);
/* any: 1005 and 1006 allowed. An empty payload is 1000 (a worker's CLOSE)
 * or, where any is set, 1005. */
int cgp_wsr_close_unpack(const unsigned char *pl, size_t len, int any, unsigned *code,
                         const char **reason, size_t *rlen);

/* REFUSE's payload: u16 status (200-599), u16 header count (at most
 * CGP_WSR_HDRS_MAX), then per header u16 name length (1..256), u16 value
 * length (0..8192), the name (an HTTP token, never "Status"), the value (no
 * control character but HTAB), then the body (the rest). */
/* A checked refusal: points into its payload; the caller's, on its stack. */
typedef struct cgp_wsr_refuse {
    unsigned status;
    unsigned nhdr;
    const unsigned char *hdrs; /* the header entries, in the payload */
    size_t hlen;
    const unsigned char *body;
    size_t blen;
} cgp_wsr_refuse;
int cgp_wsr_refuse_unpack(const unsigned char *pl, size_t len, cgp_wsr_refuse *r);
/* The header at *off of r's entries: 1 with name and value, 0 at the end. */
int cgp_wsr_refuse_next(const cgp_wsr_refuse *r, size_t *off, const char **name, size_t *nlen,
                        const char **val, size_t *vlen);
/* Builds a REFUSE payload in out (cap bytes): names and values as NUL-ended
 * strings, hdrs[0..2n). Returns its length or a CGP_E_* error. */
int cgp_wsr_refuse_pack(unsigned char *out, size_t cap, unsigned status, const char *const *hdrs,
                        unsigned n, const void *body, size_t blen);

/* ------------------------------------------------------------ wire payloads */

/* WS_ACCEPT: u32 connection id (not 0), u32 worker pid (not 0), u8
 * subprotocol length, the subprotocol (a token, or empty). */
#define CGP_WS_ACCEPT_FIXED 9u
#define CGP_WS_ACCEPT_MAX (CGP_WS_ACCEPT_FIXED + CGP_WSR_PROTO_MAX)
/* The caller's, on its stack; proto points into the payload. */
typedef struct cgp_ws_accept_msg {
    uint32_t conn, pid;
    const char *proto;        /* into the payload; not NUL-ended */
    size_t plen;
} cgp_ws_accept_msg;
int cgp_ws_accept_pack(unsigned char out[CGP_WS_ACCEPT_MAX], const cgp_ws_accept_msg *m);
int cgp_ws_accept_unpack(const unsigned char *in, size_t len, cgp_ws_accept_msg *m);

/* WS_MSG's first payload byte. */
#define CGP_WS_KIND_TEXT 1u
#define CGP_WS_KIND_BINARY 2u

/* 1 if s[0..n) is an HTTP token (RFC 9110 tchar), n > 0. */
int cgp_wsr_token(const char *s, size_t n);

#endif
