/* cgiplus_reqstate.c: the table of a request's states (cgiplus_reqstate.h).
 * Every state change of a request, on the direct path and the relay, is a
 * row here, applied by cgiplus_req_step() (cgiplus_reqstate_step.c). */
#include "cgiplus_reqstate.h"

#define R(st, ev, act, nx) [CGIPLUS_RS_##st][CGIPLUS_RE_##ev] = \
    { CGIPLUS_RA_##act, CGIPLUS_RS_##nx }

/* An empty cell (action 0, CGIPLUS_RA_INVALID) cannot happen. */
static const cgiplus_rnext req_table[CGIPLUS_RS_N_][CGIPLUS_RE_N_] = {
    R(NEW,    START,       READ_BODY,  BODY),
    R(NEW,    ERROR,       ANSWER,     FAILED),

    R(BODY,   BODY_READ,   CLAIM,      CLAIM),
    R(BODY,   ERROR,       ANSWER,     FAILED),

    R(CLAIM,  CLAIMED,     WRITE,      WAIT),
    R(CLAIM,  NO_IDLE,     RELAY,      SEND),
    R(CLAIM,  ERROR,       ANSWER,     FAILED), /* also 503: the table's queue full, or waited out */
    R(CLAIM,  CLIENT_GONE, ABORT,      GONE),   /* it left while waiting in the table's queue */

    R(SEND,   SENT,        WAIT,       WAIT),
    R(SEND,   RETRY,       RESEND,     SEND),
    R(SEND,   LOST,        ABANDON,    FAILED),
    R(SEND,   ERROR,       ANSWER,     FAILED),

    R(WAIT,   GRANTED,     WRITE,      WAIT),   /* relayed until now; direct from here */
    R(WAIT,   OUTPUT,      PARSE,      HEAD),
    R(WAIT,   SENTINEL,    END_STATUS, FAILED), /* nothing before the sentinel: 502 */
    R(WAIT,   EOF,         END_STATUS, FAILED),
    R(WAIT,   TIMEOUT,     END_STATUS, FAILED),
    R(WAIT,   REFUSED,     END_STATUS, FAILED),
    R(WAIT,   LOST,        ABANDON,    FAILED),
    R(WAIT,   RETRY,       RESEND,     SEND),
    R(WAIT,   CLIENT_GONE, ABORT,      GONE),
    R(WAIT,   ACCEPTED,    UPGRADE,    UPGRADED), /* a WebSocket's (cgiplus_ws_open.c) */

    R(HEAD,   HEADER,      PASS,       STREAM),
    R(HEAD,   HEADER_HEAD, HOLD,       HOLD),
    R(HEAD,   DIVERT,      DROP,       DRAIN),
    R(HEAD,   BAD_HEADER,  ANSWER,     FAILED), /* the rest is dropped or ABORTed */
    R(HEAD,   EOF,         END_STATUS, FAILED),
    R(HEAD,   TIMEOUT,     END_STATUS, FAILED),
    R(HEAD,   REFUSED,     END_STATUS, FAILED),
    R(HEAD,   LOST,        ABANDON,    FAILED),

    R(HOLD,   HOLD_OVER,   PASS,       STREAM), /* the header goes without a length */
    R(HOLD,   SENTINEL,    PASS,       STREAM), /* with its length; only EOS is left */
    R(HOLD,   EOF,         END_STATUS, FAILED),
    R(HOLD,   TIMEOUT,     END_STATUS, FAILED),
    R(HOLD,   REFUSED,     END_STATUS, FAILED),
    R(HOLD,   LOST,        ABANDON,    FAILED),

    R(STREAM, SENTINEL,    EOS,        DONE),
    R(STREAM, EOF,         CUT,        CUT),
    R(STREAM, TIMEOUT,     CUT,        CUT),
    R(STREAM, REFUSED,     CUT,        CUT),
    R(STREAM, LOST,        CUT,        CUT),
    R(STREAM, CLIENT_GONE, ABORT,      GONE),

    R(DRAIN,  LOST,        ABANDON,    DRAIN),  /* the answer is decided already */
    R(DRAIN,  FINISH,      REPLACE,    DONE),
    R(DRAIN,  ERROR,       ANSWER,     FAILED),
};

cgiplus_rnext cgiplus_req_next(unsigned st, unsigned ev)
{
    cgiplus_rnext n = { CGIPLUS_RA_INVALID, (unsigned char)st };

    if (st < CGIPLUS_RS_N_ && ev < CGIPLUS_RE_N_ && req_table[st][ev].action)
        n = req_table[st][ev];
    return n;
}

int cgiplus_rstate_final(unsigned st)
{
    return st == CGIPLUS_RS_DONE || st == CGIPLUS_RS_FAILED || st == CGIPLUS_RS_CUT ||
           st == CGIPLUS_RS_GONE || st == CGIPLUS_RS_UPGRADED;
}

const char *cgiplus_rstate_name(unsigned st)
{
    static const char *const n[CGIPLUS_RS_N_] = {
        "NEW", "BODY", "CLAIM", "SEND", "WAIT", "HEAD", "HOLD", "STREAM", "DRAIN",
        "DONE", "FAILED", "CUT", "GONE", "UPGRADED",
    };
    return st < CGIPLUS_RS_N_ ? n[st] : "?";
}

const char *cgiplus_revent_name(unsigned ev)
{
    static const char *const n[CGIPLUS_RE_N_] = {
        "start", "body-read", "claimed", "no-idle", "sent", "granted", "retry", "output", "header",
        "header-head", "divert", "bad-header", "hold-over", "sentinel", "eof", "timeout",
        "refused", "lost", "client-gone", "finish", "error", "accepted",
    };
    return ev < CGIPLUS_RE_N_ ? n[ev] : "?";
}

const char *cgiplus_raction_name(unsigned act)
{
    static const char *const n[CGIPLUS_RA_N_] = {
        "invalid", "read-body", "claim", "write", "relay", "wait", "resend", "parse",
        "pass", "hold", "drop", "replace", "eos", "end-status", "answer", "abandon", "cut",
        "abort", "upgrade",
    };
    return act < CGIPLUS_RA_N_ ? n[act] : "?";
}
