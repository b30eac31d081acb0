/* cgp_ws.h: WebSocket (RFC 6455) codec for the server's side: the opening
 * handshake's checks and Sec-WebSocket-Accept, an incremental parser of
 * client frames, message reassembly, UTF-8 validation, and the writer of
 * server frames. Pure C: no httpd or APR headers, no allocation, no I/O.
 * No extension is ever negotiated, so every RSV bit must be 0.
 * docs/PROTOCOL.md, "WebSocket codec", is the normative description. */
#ifndef CGP_WS_H
#define CGP_WS_H

#include <stddef.h>
#include <stdint.h>

enum cgp_ws_opcode {
    CGP_WS_CONT = 0x0,
    CGP_WS_TEXT = 0x1,
    CGP_WS_BINARY = 0x2,
    CGP_WS_CLOSE = 0x8,
    CGP_WS_PING = 0x9,
    CGP_WS_PONG = 0xA
};

/* Close codes (RFC 6455 section 7.4.1). */
#define CGP_WS_NORMAL       1000u
#define CGP_WS_GOING_AWAY   1001u
#define CGP_WS_PROTOCOL     1002u
#define CGP_WS_UNSUPPORTED  1003u
#define CGP_WS_NO_STATUS    1005u  /* never sent: a close frame without a code */
#define CGP_WS_ABNORMAL     1006u  /* never sent: the connection dropped */
#define CGP_WS_INVALID_DATA 1007u
#define CGP_WS_POLICY       1008u
#define CGP_WS_TOO_BIG      1009u
#define CGP_WS_INTERNAL     1011u

#define CGP_WS_MAX_CONTROL  125u   /* a control frame's payload */
#define CGP_WS_HDR_MAX      14u    /* 2 + 8 (64-bit length) + 4 (mask) */
#define CGP_WS_KEY_LEN      24u    /* base64 of 16 bytes */
#define CGP_WS_ACCEPT_LEN   28u    /* base64 of a SHA-1 */
#define CGP_WS_CLOSE_MAX    (2u + CGP_WS_MAX_CONTROL)  /* a whole server close frame */

/* ------------------------------------------------------------ handshake */

/* 1 if a Sec-WebSocket-Key is the base64 of exactly 16 bytes (24 characters,
 * "==" last, no spare bits set), else 0. */
int cgp_ws_key_valid(const char *key, size_t len);
/* Sec-WebSocket-Accept for a valid key: 28 characters and a NUL in out.
 * 0, or -1 if the key is not valid. */
int cgp_ws_accept(const char *key, size_t len, char out[CGP_WS_ACCEPT_LEN + 1]);
/* 1 if the comma-separated header value holds token (case-insensitive,
 * blanks around each element ignored): "Upgrade" in Connection, "websocket"
 * in Upgrade. */
int cgp_ws_token_has(const char *list, size_t len, const char *token);

/* ------------------------------------------------------------ UTF-8 */

/* Incremental UTF-8 validator (RFC 3629): a text message's state across
 * fragments and reads. Caller-owned, one per message. */
typedef struct cgp_utf8 {
    uint8_t need;  /* continuation bytes still due; 0xff after an error */
    uint8_t lo, hi;/* the range of the next continuation byte */
} cgp_utf8;

void cgp_utf8_init(cgp_utf8 *u);
/* 1 while the bytes so far begin valid UTF-8; 0 from the first byte that
 * cannot (an overlong form, a surrogate, past U+10FFFF, a stray or missing
 * continuation byte), and on every call after. */
int cgp_utf8_feed(cgp_utf8 *u, const unsigned char *p, size_t n);
/* 1 if valid so far and no sequence is cut at the end. */
int cgp_utf8_complete(const cgp_utf8 *u);
int cgp_utf8_valid(const unsigned char *p, size_t n);

/* ------------------------------------------------------------ the frame parser */

/* Incremental parser of the frames a client sends. One per connection,
 * owned by the caller, lives as long as the connection. */
typedef struct cgp_ws_parser {
    uint64_t max_message;   /* cap on one message's payload (all its fragments) */
    int state;              /* header, payload, closed or failed (cgp_ws.c) */
    unsigned char hdr[CGP_WS_HDR_MAX];
    uint8_t hlen;           /* header bytes gathered */
    uint8_t fin, opcode;    /* the frame being read */
    unsigned char mask[4];  /* its masking key */
    uint64_t plen, done;    /* its payload length, bytes read */
    uint8_t msg;            /* TEXT or BINARY while a message is open, else 0 */
    uint64_t msg_len;       /* its payload so far, counted at each frame header */
    cgp_utf8 utf8;          /* the open text message's */
    unsigned char ctl[CGP_WS_MAX_CONTROL]; /* a control frame's payload */
    uint16_t err;           /* FAILED: the close code to send */
    const char *why;        /* FAILED: a sentence for the log */
} cgp_ws_parser;

/* What cgp_ws_parse yields: the caller's, filled by each call; valid until
 * the next call (data points into buf or into the parser). */
typedef struct cgp_ws_event {
    uint8_t opcode;            /* DATA: TEXT or BINARY; CONTROL: CLOSE, PING, PONG */
    uint8_t fin;               /* DATA: 1 on the message's last piece */
    const unsigned char *data; /* DATA: an unmasked piece, inside buf;
                                  CONTROL: the whole payload (the parser's) */
    size_t len;
    uint16_t code;             /* CLOSE: the code received (1005: none);
                                  ERROR: the code to close with */
    const char *reason;        /* CLOSE: the reason, valid UTF-8 */
    size_t rlen;
    const char *why;           /* ERROR: what was wrong */
} cgp_ws_event;

#define CGP_WS_MORE    0   /* buf is used up */
#define CGP_WS_DATA    1   /* a piece of a data message; fin on its last
                              (a message's end is signalled exactly once) */
#define CGP_WS_CONTROL 2   /* a whole control frame */
#define CGP_WS_ERROR (-1)  /* fail the connection: send a close frame with
                              ev->code (1002, 1007 or 1009), then close */

void cgp_ws_parser_init(cgp_ws_parser *p, uint64_t max_message);
/* Reads frames from buf[*pos..len), unmasking payloads in place (buf is the
 * caller's read buffer), up to the next event. A text message's pieces have
 * passed UTF-8 validation so far; its last piece completes it. After a
 * CLOSE, later bytes are discarded; after an ERROR, it returns ERROR again. */
int cgp_ws_parse(cgp_ws_parser *p, unsigned char *buf, size_t len, size_t *pos,
                 cgp_ws_event *ev);

/* Message reassembly into the caller's buffer (as big as the parser's
 * max_message). Caller-owned, one per connection. */
typedef struct cgp_ws_msg {
    unsigned char *buf;
    size_t cap, len;
    uint8_t opcode;   /* TEXT or BINARY */
    uint8_t complete; /* the last add finished a message */
} cgp_ws_msg;

void cgp_ws_msg_init(cgp_ws_msg *m, unsigned char *buf, size_t cap);
/* Adds a DATA event: 1 when its message is whole in buf[0..len), 0 if more
 * is due, CGP_WS_ERROR past cap (close with 1009). */
int cgp_ws_msg_add(cgp_ws_msg *m, const cgp_ws_event *ev);

/* ------------------------------------------------------------ writing frames */

/* 1 if a close frame may carry this code: 1000-1003, 1007-1014, 3000-4999. */
int cgp_ws_close_code_ok(unsigned code);
/* A frame header with the minimal length encoding; unmasked (the server's)
 * when mask is NULL. Returns its length, or 0 for a bad opcode, a control
 * frame over 125 bytes or not final, or a length of 2^63 or more. */
size_t cgp_ws_frame_hdr(unsigned char out[CGP_WS_HDR_MAX], int fin, unsigned opcode,
                        uint64_t len, const unsigned char *mask);
/* XORs p[0..n) with mask, as if p began offset bytes into the payload. */
void cgp_ws_mask(unsigned char *p, size_t n, const unsigned char mask[4], uint64_t offset);
/* A whole server close frame: code (0: none) and reason (valid UTF-8, at
 * most 123 bytes). Returns its length, or 0 for a code close frames may not
 * carry or a bad reason. */
size_t cgp_ws_close_frame(unsigned char out[CGP_WS_CLOSE_MAX], unsigned code,
                          const char *reason, size_t rlen);

#endif
