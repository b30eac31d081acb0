/* cgiplus_req.h: one request, its one owner (cgiplus_req.c). Its state
 * changes only in cgiplus_req_step, which looks the change up in the table
 * (cgiplus_reqstate.h) and runs the change's action; the actions return
 * the next event (docs/DESIGN.md, "A request's states"). The kind of
 * worker that carries it (cgiplus_xport.h) is reached through q->xp only. */
#ifndef CGIPLUS_REQ_H
#define CGIPLUS_REQ_H

#include "cgiplus_module.h"

#include "apr_network_io.h"

#include "cgp_proto.h"
#include "cgiplus_body.h"
#include "cgiplus_reqstate.h"
#include "cgiplus_xport.h"

/* cgp_end.detail of a direct request whose worker closed its stdout: the
 * child cannot know its exit status (the runner reaps it). */
#define CGIPLUS_END_CLOSED 0xffffffffu
/* ...and of one that broke the protocol (left its callout answers unread). */
#define CGIPLUS_END_BROKEN 0xfffffffeu

/* No event: the action ended in a final state (the run is over). */
#define CGIPLUS_RE_NONE 255u

/* One CGI variable; points into r->pool memory. */
typedef struct cgiplus_kv {
    const char *name, *val;
    apr_size_t nlen, vlen;
} cgiplus_kv;

/* One request. From r->pool; lives for the handler call. */
typedef struct cgiplus_req {
    request_rec *r;
    apr_uint32_t reqid;
    apr_interval_time_t timeout; /* for every wait on the runner or a worker */

    /* What the handler chose (set before the run, then read only). */
    int nph;
    int compat;                /* served as mod_cgi would (CGIplusCompat, SSI) */
    /* compat, or a CGI script an engine (not a FastCGI one) runs in mod_cgi's
     * place: its output read, its failures answered, as mod_cgi's (APPS.md) */
    int as_cgi;
    const char *mode_name;     /* "cgi" or "cgiplus": the mode sent in BEGIN */
    const char *engine;        /* the engine program running the script, NULL: none */
    int fcgid;                 /* served for mod_fcgid's handler (cgiplus_fcgid_conf.c) */
    struct cgiplus_slog *slog; /* script log capture, NULL: no log here */
    const cgiplus_xport *claim; /* a kind that claims a worker itself, NULL: relayed only */
    const cgiplus_xport *relay; /* through the runner: every request's fallback */
    /* An exchange built on the relay (a WebSocket upgrade): frames of a
     * type the relay does not know go to on_frame (NULL: a protocol
     * error), and own_conn gets it a fresh connection of its own, which
     * the exchange may keep (cgiplus_relay_take). */
    apr_status_t (*on_frame)(struct cgiplus_req *q, unsigned type, apr_size_t len);
    int own_conn;
    void *ws;                  /* a WebSocket upgrade's own state (cgiplus_ws_open.c), NULL: none */

    /* The request as it goes out. */
    cgiplus_body_in in;        /* the body, read ahead of any worker */
    unsigned char *begin;      /* BEGIN and PARAMS frames, NULL: not packed yet */
    apr_size_t begin_len;
    const cgiplus_kv *begin_kv; /* BEGIN's entries (cgiplus_env.c) */
    int nbegin;
    const cgiplus_kv *params;  /* the CGI variables */
    /* Its script's peer is mod_cgi (or mod_proxy_fcgi) and it had no
     * Content-Length: no CONTENT_LENGTH either if its body is empty. */
    int cl_cgi;
    /* A built-in engine's request: its record in struct mode whatever the
     * worker asked (a CR or LF in PATH_INFO reaches the script as is). */
    int struct_rec;
    int nparams;
    const char *suexec;        /* suEXEC's identity sent in BEGIN, NULL: none */
    const char *pool_key;      /* script, mode and settings: the pool it belongs to */
    apr_size_t pool_key_len;

    /* The state machine: changed by cgiplus_req_step only. */
    unsigned char rstate;      /* enum cgiplus_rstate */
    int rbad;                  /* a change the table refuses: it answers 500 */
    unsigned redos;            /* workers found unfit before they had it (WAIT, RETRY) */
    int status;                /* what the handler answers (OK or an HTTP status) */

    /* The kind that has it now: changed by cgiplus_req_attach/detach only. */
    const cgiplus_xport *xp;   /* NULL: none (before, between, after) */
    void *xd;                  /* xp's own state for this request */
    cgp_grant grant;           /* the GRANTED event's worker (set by the relay) */

    /* What comes back: added by the kinds (cgiplus_req_out, cgiplus_req_end),
     * taken by the response. */
    apr_bucket_brigade *out;   /* output not yet used */
    apr_off_t out_len;         /* bytes in out */
    apr_off_t out_total;       /* bytes of output so far */
    apr_uint32_t worker_pid;   /* the process running it, 0: none yet */
    cgp_end end;               /* valid when ended */
    int ended;                 /* the end is known: changed by cgiplus_req_end only */

    /* Why this module failed it, for the status page's counts: changed by
     * cgiplus_req_failed and cgiplus_req_report only. */
    unsigned char fail_cause;  /* enum cgp_cause, 0: it did not */
    int fail_reported;         /* ...and a kind has told the runner or the table */

    /* The response's own (cgiplus_response.c, cgiplus_header.c). */
    void *resp;
    const char *hdr_raw;       /* the header bytes as collected (r->pool) */
    apr_size_t hdr_raw_len;
} cgiplus_req;

/* What a change of state does: the action of the table's row, given the
 * event; returns the next event (CGIPLUS_RE_NONE in a final state). */
typedef unsigned (*cgiplus_raction_fn)(cgiplus_req *q, unsigned ev);
/* The actions by enum cgiplus_raction (cgiplus_handler.c wires them). */
typedef struct cgiplus_ractions {
    cgiplus_raction_fn run[CGIPLUS_RA_N_];
} cgiplus_ractions;

/* Runs q from NEW to a final state: each event goes through the one step
 * (the table, the log line, the state, the action). Returns q->status. A
 * change the table refuses is logged (CGIPLUS1091), q's worker or runner
 * connection is given up and q->rbad set. */
int cgiplus_req_run(cgiplus_req *q, const cgiplus_ractions *acts);

/* The kind that carries q from now on, with its own state; detach: none. */
void cgiplus_req_attach(cgiplus_req *q, const cgiplus_xport *xp, void *xd);
void cgiplus_req_detach(cgiplus_req *q);
/* The end of q's output, as the runner's END says (or a kind says it). */
void cgiplus_req_end(cgiplus_req *q, const cgp_end *e);
/* The module failed q (a bad header, its own timeout, the client's body):
 * the status page counts it under cause (docs/RUNNER.md, "Status"). The
 * first cause given stays. */
void cgiplus_req_failed(cgiplus_req *q, unsigned cause);
/* For the kind that tells the runner or the table: the cause to count, once
 * (0: none, or told already). */
unsigned cgiplus_req_report(cgiplus_req *q);
/* Output of q: b goes to q->out. */
void cgiplus_req_out(cgiplus_req *q, apr_bucket *b);
/* The event q->end stands for: SENTINEL, EOF, TIMEOUT or REFUSED. */
unsigned cgiplus_req_end_event(const cgiplus_req *q);
/* After a wait for the first output: OUTPUT, or the end's event. */
unsigned cgiplus_req_first_event(const cgiplus_req *q);

/* Through q's kind (an error, 0, -1 when none has it). */
apr_status_t cgiplus_req_read(cgiplus_req *q);
int cgiplus_req_readable(cgiplus_req *q, apr_interval_time_t wait);
int cgiplus_req_out_fd(cgiplus_req *q);
/* How q's worker or connection is let go (nothing when none has it). */
void cgiplus_req_finish(cgiplus_req *q);
void cgiplus_req_abort(cgiplus_req *q);
void cgiplus_req_abandon(cgiplus_req *q);

/* The status a failure is answered with: 502 (the gateway's upstream
 * failed) becomes mod_cgi's 500 where q is served as mod_cgi would. */
int cgiplus_fail_status(const cgiplus_req *q, int status);
/* Where q is served as mod_cgi would, gives r's "error-notes" (an
 * ErrorDocument's REDIRECT_ERROR_NOTES) mod_cgi's words for a script that
 * failed before its header: what = "End of script output before headers",
 * "Premature end of script headers", "Script timed out before returning
 * headers", or "malformed header" with line, its
 * first len bytes (not NUL-ended). The first note stays, as httpd's. */
void cgiplus_req_error_notes(cgiplus_req *q, const char *what, const char *line,
                             apr_size_t len);
/* Says what a handler status means, for log lines. */
const char *cgiplus_status_text(request_rec *r, int status);

/* What a client socket that polled readable holds, while its request waits
 * for the first output. EOF: it shut down its sending side, which a client
 * that waits for its response does too (shutdown(SHUT_WR), nc -N), so it is
 * no sign it left. */
enum cgiplus_client_state {
    CGIPLUS_CLIENT_NOTHING = -1, /* nothing after all */
    CGIPLUS_CLIENT_THERE = 0,    /* it sent more (a pipelined request) */
    CGIPLUS_CLIENT_GONE = 1,     /* a reset or another error */
    CGIPLUS_CLIENT_EOF = 2,
};
/* The client watch of one wait (on the caller's stack). */
typedef struct cgiplus_client_watch {
    apr_socket_t *cs; /* NULL: not watched (HTTP/2; or it is known to be there) */
    int eof;          /* its end of file was seen: only a reset or error counts */
} cgiplus_client_watch;
/* Watches the client's socket (HTTP/1.x: an HTTP/2 stream's connection is
 * the shared one of all its streams). */
void cgiplus_req_watch_init(cgiplus_req *q, cgiplus_client_watch *w);
/* The watched socket polled readable (client_rd 2: a hang-up or error after
 * its end of file): says what that is and updates w (THERE: no longer
 * watched; EOF: only errors count from now on). One helper for every
 * kind's wait. */
int cgiplus_req_client_seen(cgiplus_client_watch *w, int client_rd);
/* The client reset its connection before the response began: httpd is
 * told (no response is written); the caller returns CLIENT_GONE. */
unsigned cgiplus_req_client_left(cgiplus_req *q);

#endif
