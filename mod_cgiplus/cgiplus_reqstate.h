/* cgiplus_reqstate.h: a request's states in the module, as one transition
 * table (state x event -> action, next state; docs/DESIGN.md, "A request's
 * states"), like the slot's cgp_tnext() in include/cgp_table.h. Pure: no
 * httpd headers, so t/unit/test_reqstate checks every row. */
#ifndef CGIPLUS_REQSTATE_H
#define CGIPLUS_REQSTATE_H

/* Where a request is. The last five are final. */
enum cgiplus_rstate {
    CGIPLUS_RS_NEW,    /* the handler took it; its variables are packed */
    CGIPLUS_RS_BODY,   /* its body is pre-read (before any worker is taken) */
    CGIPLUS_RS_CLAIM,  /* the direct path tries to claim an idle worker */
    CGIPLUS_RS_SEND,   /* relayed: the request and its body go to the runner */
    CGIPLUS_RS_WAIT,   /* a worker has it, or the runner queued it: no output yet */
    CGIPLUS_RS_HEAD,   /* the script's CGI header is read and parsed */
    CGIPLUS_RS_HOLD,   /* a HEAD request's header waits for the script's end */
    CGIPLUS_RS_STREAM, /* the body goes to the client as it comes */
    CGIPLUS_RS_DRAIN,  /* the rest of the output is dropped: something else answers */
    CGIPLUS_RS_DONE,   /* answered in full */
    CGIPLUS_RS_FAILED, /* answered with an error status before the response began */
    CGIPLUS_RS_CUT,    /* the response had begun: the connection was cut */
    CGIPLUS_RS_GONE,   /* the client left: ABORT sent, worker handed back, queue left */
    CGIPLUS_RS_UPGRADED, /* a WebSocket: the connection is the worker's (cgiplus_ws_*.c) */
    CGIPLUS_RS_N_
};

/* What happened. */
enum cgiplus_revent {
    CGIPLUS_RE_START,       /* the pre-read of the body begins */
    CGIPLUS_RE_BODY_READ,   /* the body is read (or left to stream) */
    CGIPLUS_RE_CLAIMED,     /* an idle worker is ours and has the request record */
    CGIPLUS_RE_NO_IDLE,     /* no idle worker, requests wait, pool unknown, or not direct */
    CGIPLUS_RE_SENT,        /* the runner has the request and its body */
    CGIPLUS_RE_GRANTED,     /* the runner handed the queued request a worker (GRANT) */
    CGIPLUS_RE_RETRY,       /* the runner closed before it took a byte: send again */
    CGIPLUS_RE_OUTPUT,      /* the script's first output */
    CGIPLUS_RE_HEADER,      /* the header is whole and good: the body follows */
    CGIPLUS_RE_HEADER_HEAD, /* ...of a HEAD request */
    CGIPLUS_RE_DIVERT,      /* redirect, X-CGIplus-File, 304/412: not the script's body */
    CGIPLUS_RE_BAD_HEADER,  /* the header is malformed */
    CGIPLUS_RE_HOLD_OVER,   /* HEAD: the script still writes after the hold */
    CGIPLUS_RE_SENTINEL,    /* the script ended its response (END ok) */
    CGIPLUS_RE_EOF,         /* its output closed before the sentinel: the worker died */
    CGIPLUS_RE_TIMEOUT,     /* the script's output or no-progress timeout */
    CGIPLUS_RE_REFUSED,     /* the runner ended it otherwise (503, 404, 413, ...) */
    CGIPLUS_RE_LOST,        /* I/O with the runner or the worker failed or timed out */
    CGIPLUS_RE_CLIENT_GONE, /* the client reset its connection or a write failed */
    CGIPLUS_RE_FINISH,      /* what replaced the script's body is answered */
    CGIPLUS_RE_ERROR,       /* the module answers an error status of its own */
    CGIPLUS_RE_ACCEPTED,    /* a worker accepted the WebSocket upgrade (WS_ACCEPT, no output) */
    CGIPLUS_RE_N_
};

/* What the code does on the way to the next state. */
enum cgiplus_raction {
    CGIPLUS_RA_INVALID,    /* no such transition: the request fails with 500 */
    CGIPLUS_RA_READ_BODY,  /* pre-read the body */
    CGIPLUS_RA_CLAIM,      /* try the direct path */
    CGIPLUS_RA_WRITE,      /* write the record and the body to the worker */
    CGIPLUS_RA_RELAY,      /* send BEGIN, PARAMS and the body to the runner */
    CGIPLUS_RA_WAIT,       /* wait for the first output, watching the client */
    CGIPLUS_RA_RESEND,     /* a fresh connection carries it (it never ran) */
    CGIPLUS_RA_PARSE,      /* parse the CGI header */
    CGIPLUS_RA_PASS,       /* stream the body to the client */
    CGIPLUS_RA_HOLD,       /* count and drop the body until the end (1 s at most) */
    CGIPLUS_RA_DROP,       /* drop the rest of the output */
    CGIPLUS_RA_REPLACE,    /* answer the redirect, the file or the 304/412 */
    CGIPLUS_RA_EOS,        /* pass the end of the response: the worker goes back */
    CGIPLUS_RA_END_STATUS, /* answer what END says (502, 504, 503 ...) */
    CGIPLUS_RA_ANSWER,     /* answer the module's status (502 for a bad header) */
    CGIPLUS_RA_ABANDON,    /* give up the connection or the worker; 502 or 504 */
    CGIPLUS_RA_CUT,        /* cut the client connection (an error bucket) */
    CGIPLUS_RA_ABORT,      /* ABORT, the worker handed back to drain, or the queue left */
    CGIPLUS_RA_UPGRADE,    /* 101: the connection becomes the WebSocket's */
    CGIPLUS_RA_N_
};

/* One cell of the table, returned by value: the caller keeps it. */
typedef struct cgiplus_rnext {
    unsigned char action; /* enum cgiplus_raction; CGIPLUS_RA_INVALID: refused */
    unsigned char next;   /* enum cgiplus_rstate; the old state when refused */
} cgiplus_rnext;

/* The table: what event ev does in state st. Out-of-range values and
 * pairs that cannot happen give CGIPLUS_RA_INVALID. */
cgiplus_rnext cgiplus_req_next(unsigned st, unsigned ev);
/* Nonzero for DONE, FAILED, CUT, GONE, UPGRADED. */
int cgiplus_rstate_final(unsigned st);
/* Names for log lines and the test ("?" out of range). */
const char *cgiplus_rstate_name(unsigned st);
const char *cgiplus_revent_name(unsigned ev);
const char *cgiplus_raction_name(unsigned act);

#endif
