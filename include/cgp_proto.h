/* cgp_proto.h: wire protocol v1 between mod_cgiplus and cgiplus-runner.
 * Pure codec: no httpd or APR headers, so the module, the runner, the unit
 * tests and the fuzz targets all share one implementation (libcgp).
 * The normative description is docs/PROTOCOL.md, part 1. */
#ifndef CGP_PROTO_H
#define CGP_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CGP_MAGIC0        0x43u /* 'C' */
#define CGP_MAGIC1        0x50u /* 'P' */
#define CGP_VERSION       1u
#define CGP_HDR_LEN       16u
/* Caps: every length read off the wire is checked against these. */
#define CGP_MAX_PAYLOAD   65536u          /* any single frame */
#define CGP_MAX_PARAMS    (1024u * 1024u) /* all PARAMS frames of one request */
#define CGP_MAX_NAME      1024u           /* one kv name */
#define CGP_MAX_ARGS      32u             /* BEGIN's arg entries (a program's arguments) */
#define CGP_MAX_ARG       4096u           /* ...and the bytes of one */

/* Frame types. Direction: M = module -> runner, R = runner -> module. */
enum cgp_type {
    CGP_T_HELLO  = 1, /* M: opens a connection; payload cgp_hello */
    CGP_T_HELLO_ACK = 2, /* R: answer to HELLO; payload cgp_hello */
    CGP_T_BEGIN  = 3, /* M: starts request <reqid>; payload kv list (pool key) */
    CGP_T_PARAMS = 4, /* M: kv list of CGI variables; CGP_F_END on the last */
    CGP_T_STDIN  = 5, /* M: request body bytes; CGP_F_END on the last */
    CGP_T_STDOUT = 6, /* R: script output bytes, sentinel removed */
    CGP_T_STDERR = 7, /* R: script stderr, whole lines */
    CGP_T_END    = 8, /* R: request over; payload cgp_end */
    CGP_T_ABORT  = 9, /* M: ends request <reqid> (runner answers END), or counts a failure of
                       * the one that ended last; payload none or cgp_abort */
    CGP_T_CALLOUT = 10, /* R: a script callout only httpd can answer (text line) */
    CGP_T_CALLOUT_ANSWER = 11, /* M: the answer line to CALLOUT */
    CGP_T_STATUS = 12, /* M: asks for the runner's state (no request active) */
    CGP_T_STATUS_REPLY = 13, /* R: JSON text; CGP_F_END on the last frame */
    CGP_T_STARTED = 14, /* R: the request went to a worker; payload cgp_started */
    CGP_T_PROGRESS = 15, /* R: the script made progress the module sees no frame of; empty */
    /* The direct path (docs/PROTOCOL.md, "The direct path"): */
    CGP_T_DIRECT = 16, /* M: asks for the shared table; this connection is the anchor */
    CGP_T_DIRECT_ACK = 17, /* R: cgp_pair (table bytes, table version) + the memfd */
    CGP_T_CHANNEL = 18, /* M: cgp_pair (slot, slot generation): that worker's descriptors */
    CGP_T_CHANNEL_ACK = 19, /* R: cgp_channel + 5 descriptors (none if gone) */
    CGP_T_KICK = 20,   /* M: cgp_pair (pool index, pool generation): look at its slots */
    CGP_T_POOL = 21,   /* R: cgp_pair (pool index, pool generation) of this request's pool */
    CGP_T_GRANT = 22,  /* R: cgp_grant: a queued request's worker, now held by the child */
    /* A FastCGI worker's connection (docs/PROTOCOL.md, "FastCGI workers"): */
    CGP_T_FCGI_CHANNEL = 23, /* M: cgp_pair (slot, slot generation) of a FastCGI worker */
    CGP_T_FCGI_CHANNEL_ACK = 24, /* R: cgp_pair (slot, generation; 0: none) + its socket */
    CGP_T_MAX_   = 24,
    /* WebSocket connections (docs/PROTOCOL.md, "WebSocket connections"):
     * numbered from 40, apart from the request frames above. */
    CGP_T_WS_ACCEPT = 40, /* R: the worker took the upgrade; END follows (cgp_wsr.h) */
    CGP_T_WS_MSG = 41,    /* M, R: u8 kind (1 text, 2 binary) + a piece of a message;
                             CGP_F_END on its last piece */
    CGP_T_WS_CLOSE = 42,  /* M, R: u16 close code + UTF-8 reason (at most 123 bytes) */
    CGP_T_WS_FIRST_ = 40,
    CGP_T_WS_LAST_ = 42
};
/* 1 if type is a frame type of this protocol version. */
int cgp_type_valid(unsigned type);

#define CGP_F_END 0x0001u /* last frame of its stream */

/* Outcome carried by END: how the request ended on the runner side. */
enum cgp_outcome {
    CGP_O_OK = 0,         /* script sent its sentinel */
    CGP_O_OVERLOADED = 1, /* queue full or wait exceeded: 503 + Retry-After */
    CGP_O_TIMEOUT = 2,    /* output / no-progress timeout: 504 */
    CGP_O_CRASHED = 3,    /* worker died before its sentinel: 502 */
    CGP_O_SPAWN_FAILED = 4, /* could not start a worker (or backoff): 503 */
    CGP_O_NOT_FOUND = 5,  /* script missing or not executable: 404/403 */
    CGP_O_TOO_LARGE = 6,  /* body over the configured limit: 413 */
    CGP_O_BAD_REQUEST = 7,/* protocol misuse by the module: 500 */
    CGP_O_ABORTED = 8,    /* answer to ABORT */
    CGP_O_REFUSED = 9,    /* suEXEC's checks refused the script: 500; detail: cgp_suexec_why */
    CGP_O_MAX_ = 9
};
/* END's detail for overloaded: why (docs/PROTOCOL.md, "end"). Besides the
 * errno values (ETIMEDOUT, ENOBUFS, ESHUTDOWN, EBUSY, ECHILD), a WebSocket
 * upgrade's causes, above every errno. */
enum cgp_overloaded_why {
    CGP_OVL_WS_CONNS = 0x10001,  /* the pool's connection limit (ws_max_conns) */
    CGP_OVL_WS_MEMORY = 0x10002, /* the runner's WebSocket buffers at ws_memory */
    CGP_OVL_WS_QUEUE = 0x10003,  /* upgrades waiting for a worker at queue_depth */
    CGP_OVL_WS_WAIT = 0x10004,   /* it waited queue_wait, no worker ready */
    CGP_OVL_WS_NO_WORKER = 0x10005 /* no worker, none may start (max_workers_total, retired) */
};

/* Why a request failed, as the status page counts it: an END outcome
 * (1..CGP_O_MAX_) the runner decided, or one of these, which only httpd
 * sees and reports (ABORT's cause, or the direct path's table). They come
 * after the last outcome: a new outcome moves them (both sides of the
 * wire are built from this header). */
enum cgp_cause {
    CGP_C_BAD_HEADER = CGP_O_MAX_ + 1, /* the script's output is no valid CGI response: 502 (500 compat) */
    CGP_C_BAD_BODY,                    /* the client's body could not be read: 400, 408 */
    CGP_C_MAX_ = CGP_C_BAD_BODY
};

/* One decoded frame header. Caller-owned, lives on the stack. */
typedef struct cgp_hdr {
    uint8_t  version;
    uint8_t  type;
    uint16_t flags;
    uint32_t reqid;
    uint32_t len;
} cgp_hdr;

/* The connection key: a secret only httpd's processes and the runner hold
 * (docs/RUNNER.md, "Who may drive the runner"). HELLO proves it. */
#define CGP_KEY_LEN 32u
/* A key file: the key as 64 hex digits, an optional line end, nothing else. */
#define CGP_KEY_HEX_MAX (2u * CGP_KEY_LEN + 2u)

/* HELLO payload (40 bytes): u16 version, u16 reserved, u32 pid, the key.
 * HELLO_ACK payload (8 bytes): the same without the key. */
#define CGP_HELLO_LEN (8u + CGP_KEY_LEN)
#define CGP_HELLO_ACK_LEN 8u
typedef struct cgp_hello {
    uint16_t version;
    uint32_t pid;
    unsigned char key[CGP_KEY_LEN]; /* HELLO only; zero in a HELLO_ACK */
} cgp_hello;

/* END payload (12 bytes): u8 outcome, u8 reserved, u16 retry_after (s),
 * u32 worker pid (0: none), u32 detail (wait status or errno). */
#define CGP_END_LEN 12u
typedef struct cgp_end {
    uint8_t  outcome;
    uint16_t retry_after;
    uint32_t pid;
    uint32_t detail;
} cgp_end;

/* ABORT payload: none (the client went away), or 1 byte: the cause
 * (1..CGP_C_MAX_) under which httpd failed the request. */
#define CGP_ABORT_LEN 1u
int cgp_abort_pack(unsigned char out[CGP_ABORT_LEN], unsigned cause);
/* Sets *cause (CGP_O_ABORTED for an empty payload); CGP_E_LEN, CGP_E_VALUE. */
int cgp_abort_unpack(const unsigned char *in, size_t len, unsigned *cause);
/* "bad-header", "bad-body", else cgp_outcome_name. */
const char *cgp_cause_name(unsigned cause);

/* STARTED payload (4 bytes): u32 pid of the worker the request went to. */
#define CGP_STARTED_LEN 4u
typedef struct cgp_started {
    uint32_t pid;
} cgp_started;

/* The direct path's small payloads: two u32 (8 bytes). */
#define CGP_PAIR_LEN 8u
typedef struct cgp_pair {
    uint32_t a, b;
} cgp_pair;

/* GRANT payload (16 bytes): u32 slot, u32 slot generation, u32 pool index,
 * u32 pool generation. The runner moved the slot IDLE -> CHILD(the pid of
 * the connection's HELLO); the request is over on the runner's side. */
#define CGP_GRANT_LEN 16u
typedef struct cgp_grant {
    uint32_t slot, sgen, pidx, pgen;
} cgp_grant;

/* CHANNEL_ACK payload (144 bytes): u32 slot, u32 slot generation (0: no
 * such worker, no descriptors follow), u32 worker pid, then the worker's
 * CGIPLUSEOF, CGIPLUSESC and CGIPLUSEOT values, 44 bytes each. The
 * descriptors (SCM_RIGHTS) are CGIPLUSIN's write end, our end of its stdin
 * socket, its stdout's read end, its own stdin end (to drain a body it
 * left unread) and its stderr's read end, in that order. */
#define CGP_MARK_LEN 44u
#define CGP_CHANNEL_LEN (12u + 3u * CGP_MARK_LEN)
#define CGP_CHANNEL_FDS 5
typedef struct cgp_channel {
    uint32_t slot, gen, pid;
    char eof[CGP_MARK_LEN + 1], esc[CGP_MARK_LEN + 1], eot[CGP_MARK_LEN + 1];
} cgp_channel;

/* The payload structs above are decoded values: the caller's, on its
 * stack or in its frame, for as long as it needs them. */

/* Codec results. */
#define CGP_OK        0
#define CGP_E_MAGIC   (-1)
#define CGP_E_VERSION (-2)
#define CGP_E_TYPE    (-3)
#define CGP_E_LEN     (-4)  /* a length over its cap or past the buffer */
#define CGP_E_SPACE   (-5)  /* output buffer too small */
#define CGP_E_VALUE   (-6)  /* a field holds a value out of range */

const char *cgp_strerror(int rc);
const char *cgp_type_name(unsigned type);
const char *cgp_outcome_name(unsigned outcome);

/* Big-endian helpers, exposed for the script protocol's struct mode. */
void     cgp_put16(unsigned char *p, uint16_t v);
void     cgp_put32(unsigned char *p, uint32_t v);
uint16_t cgp_get16(const unsigned char *p);
uint32_t cgp_get32(const unsigned char *p);

/* Header. pack writes exactly CGP_HDR_LEN bytes and returns CGP_E_LEN if
 * h->len is over the cap. unpack validates magic, version, type, length. */
int cgp_hdr_pack(unsigned char out[CGP_HDR_LEN], const cgp_hdr *h);
int cgp_hdr_unpack(const unsigned char in[CGP_HDR_LEN], cgp_hdr *h);

int cgp_hello_pack(unsigned char out[CGP_HELLO_LEN], const cgp_hello *m);
int cgp_hello_unpack(const unsigned char *in, size_t len, cgp_hello *m);
int cgp_hello_ack_pack(unsigned char out[CGP_HELLO_ACK_LEN], const cgp_hello *m);
int cgp_hello_ack_unpack(const unsigned char *in, size_t len, cgp_hello *m);
/* 1 if the keys are equal; time independent of where they differ. */
int cgp_key_equal(const unsigned char a[CGP_KEY_LEN], const unsigned char b[CGP_KEY_LEN]);
/* A key file's text: exactly 64 hex digits, then at most "\n" or "\r\n".
 * CGP_E_VALUE for anything else; key is then left undefined. */
int cgp_key_parse(const char *text, size_t len, unsigned char key[CGP_KEY_LEN]);
int cgp_end_pack(unsigned char out[CGP_END_LEN], const cgp_end *e);
int cgp_end_unpack(const unsigned char *in, size_t len, cgp_end *e);
/* pid 0 names no process: pack and unpack refuse it (CGP_E_VALUE). */
int cgp_started_pack(unsigned char out[CGP_STARTED_LEN], const cgp_started *s);
int cgp_started_unpack(const unsigned char *in, size_t len, cgp_started *s);

int cgp_pair_pack(unsigned char out[CGP_PAIR_LEN], const cgp_pair *p);
int cgp_pair_unpack(const unsigned char *in, size_t len, cgp_pair *p);
/* A slot or pool index past the table's (CGP_TABLE_SLOTS, CGP_TABLE_POOLS
 * in cgp_table.h) is CGP_E_VALUE. */
int cgp_grant_pack(unsigned char out[CGP_GRANT_LEN], const cgp_grant *g);
int cgp_grant_unpack(const unsigned char *in, size_t len, cgp_grant *g);
/* A marker is "CGIPLUS-XXX-" and 32 hex digits; anything else is CGP_E_VALUE. */
int cgp_channel_pack(unsigned char out[CGP_CHANNEL_LEN], const cgp_channel *c);
int cgp_channel_unpack(const unsigned char *in, size_t len, cgp_channel *c);

/* kv list (BEGIN and PARAMS payloads): entries of
 *   u16 name length (1..CGP_MAX_NAME), u32 value length, name, value.
 * No terminator: the frame length ends the list. */
size_t cgp_kv_size(size_t nlen, size_t vlen);
/* Appends one entry at out[*off]; advances *off. CGP_E_SPACE if it does not fit. */
int cgp_kv_pack(unsigned char *out, size_t cap, size_t *off,
                const char *name, size_t nlen, const char *val, size_t vlen);
/* Reads the entry at buf[*off]: returns 1 and advances *off, 0 at the end of
 * the list, or a CGP_E_* error. Name and value point into buf (not NUL-ended). */
int cgp_kv_next(const unsigned char *buf, size_t len, size_t *off,
                const char **name, size_t *nlen, const char **val, size_t *vlen);
/* The name (of nlen bytes, not NUL-ended) is want. */
static inline int cgp_kv_name_is(const char *name, size_t nlen, const char *want)
{
    return nlen == strlen(want) && memcmp(name, want, nlen) == 0;
}

/* Script protocol, struct mode (docs/PROTOCOL.md part 2): entries of
 * u16 length L (1..65535) followed by L bytes "NAME=value"; u16 0 ends.
 * The frame is announced by a "!!N\n" line, N = total bytes incl. the 0. */
int cgp_struct_pack(unsigned char *out, size_t cap, size_t *off,
                    const char *entry, size_t len);
int cgp_struct_end(unsigned char *out, size_t cap, size_t *off);
/* Returns 1 with one entry, 0 at the terminator, or CGP_E_*. */
int cgp_struct_next(const unsigned char *buf, size_t len, size_t *off,
                    const char **entry, size_t *elen);

#endif
