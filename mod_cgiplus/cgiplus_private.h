/* cgiplus_private.h: types and functions shared by the files of mod_cgiplus.
 * Nothing here is visible outside the module (-fvisibility=hidden), except
 * the module record itself. */
#ifndef CGIPLUS_PRIVATE_H
#define CGIPLUS_PRIVATE_H

#include <stddef.h> /* before APR: its APR_OFFSETOF then uses offsetof (clang) */

#include "httpd.h"
#include "http_config.h"
#include "apr_buckets.h"
#include "apr_network_io.h"
#include "apr_poll.h"
#include "apr_thread_proc.h"

#include "cgp_proto.h"
#include "cgiplus_logno.h"
#include "cgiplus_reqstate.h"

#define CGIPLUS_EXPORT __attribute__((visibility("default")))

extern CGIPLUS_EXPORT module AP_MODULE_DECLARE_DATA cgiplus_module;

#ifndef CGIPLUS_RUNNER_PATH
#define CGIPLUS_RUNNER_PATH "/usr/local/sbin/cgiplus-runner"
#endif

#define CGIPLUS_HANDLER      "cgiplus-script"
#define CGIPLUS_SOCK_NAME    "cgiplus-runner.sock"
#define CGIPLUS_PID_NAME     "cgiplus-runner.pid"
#define CGIPLUS_MAX_WORKERS  4096
/* How long a request waits for the runner to accept a connection (it may be
 * restarting) before it is answered 503. */
#define CGIPLUS_CONNECT_WAIT apr_time_from_sec(5)
#define CGIPLUS_RETRY_AFTER  5

/* ---- configuration (cgiplus_conf.c) ---- */

typedef enum {
    CGIPLUS_MODE_UNSET = 0,
    CGIPLUS_MODE_CGIPLUS,
    CGIPLUS_MODE_CGI
} cgiplus_mode_e;

/* Server-wide settings; one per server_rec, from pconf, lives one generation. */
typedef struct cgiplus_server_conf {
    const char *runner_socket; /* CGIplusRunnerSocket, NULL: start our own runner */
    const char *runner_path;   /* CGIplusRunnerPath, NULL: the default */
    const char *runner_key_file; /* CGIplusRunnerKeyFile, NULL: a random key */
    struct cgiplus_global_conf *global; /* runner-wide settings (cgiplus_conf.c) */
    struct cgiplus_static_sconf *static_sc; /* CGIplusStatic & co., NULL: none */
} cgiplus_server_conf;

/* Per-directory settings; from pconf, lives one generation. 0 = unset. */
typedef struct cgiplus_dir_conf {
    int max_workers;          /* CGIplusMaxWorkers */
    cgiplus_mode_e mode;      /* CGIplusMode */
    struct cgiplus_pool_conf *pool; /* pool settings (cgiplus_conf.c) */
    int compat;               /* CGIplusCompat: 0 unset, 1 off, 2 on */
    int direct;               /* CGIplusDirect: 0 unset, 1 off, 2 on */
    apr_size_t max_header;    /* CGIplusMaxHeaderSize, 0 unset */
    const char *scriptlog;    /* CGIplusScriptLog, NULL unset, "" none */
    apr_off_t scriptlog_len;  /* CGIplusScriptLogLength, -1 unset */
    apr_off_t scriptlog_buf;  /* CGIplusScriptLogBuffer, -1 unset */
    apr_off_t body_buffer;    /* CGIplusBodyBuffer, -1 unset */
    apr_off_t body_min_rate;  /* CGIplusBodyMinRate, -1 unset */
} cgiplus_dir_conf;

extern const command_rec cgiplus_cmds[];
void *cgiplus_create_server_conf(apr_pool_t *p, server_rec *s);
void *cgiplus_merge_server_conf(apr_pool_t *p, void *basev, void *addv);
void *cgiplus_create_dir_conf(apr_pool_t *p, char *dir);
void *cgiplus_merge_dir_conf(apr_pool_t *p, void *basev, void *addv);
int cgiplus_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                         apr_pool_t *ptemp, server_rec *s);
/* Effective values, defaults applied. */
const char *cgiplus_conf_runner_path(const cgiplus_server_conf *sc);
int cgiplus_conf_max_workers(const cgiplus_dir_conf *dc);
/* CGIplusBodyBuffer and CGIplusBodyMinRate, defaults applied. */
apr_off_t cgiplus_conf_body_buffer(const cgiplus_dir_conf *dc);
apr_off_t cgiplus_conf_body_min_rate(const cgiplus_dir_conf *dc);
const char *cgiplus_conf_mode_name(const cgiplus_dir_conf *dc);

/* ---- the runner process (cgiplus_runner.c) ---- */

int cgiplus_runner_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s);
int cgiplus_runner_monitor(apr_pool_t *p, server_rec *s);

/* The socket path the children connect to (set by post_config). */
const char *cgiplus_runner_socket_path(void);

/* ---- the version in the Server banner and the startup line (cgiplus_version.c) ---- */

int cgiplus_version_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s);

/* ---- the runner's connection key (cgiplus_key.c) ---- */

/* Makes (or reads from file, if not NULL) this generation's key. */
apr_status_t cgiplus_key_post_config(apr_pool_t *ptemp, server_rec *s, const char *file);
void cgiplus_key_child_init(apr_pool_t *pchild, server_rec *s);
/* CGP_KEY_LEN bytes, NULL before post_config made it. */
const unsigned char *cgiplus_key(void);
/* A pipe holding the key for the runner to inherit: its read end, not
 * close-on-exec (the caller closes it), or -1 with errno set. */
int cgiplus_key_pipe(void);

/* ---- connections to the runner (cgiplus_conn.c) ---- */

/* One connection to the runner. Owned by whoever took it from the idle
 * stack (one request at a time); its pool lives until the connection is
 * closed. */
typedef struct cgiplus_conn {
    apr_pool_t *pool;       /* unmanaged: private to this connection */
    apr_socket_t *sock;
    apr_uint32_t runner_pid;
} cgiplus_conn;

void cgiplus_conn_child_init(apr_pool_t *pchild, server_rec *s);
/* Takes an idle connection or opens a new one (retrying for up to
 * CGIPLUS_CONNECT_WAIT). fresh: never reuse an idle one. */
apr_status_t cgiplus_conn_acquire(request_rec *r, int fresh, cgiplus_conn **out);
/* Puts a connection whose last request ended cleanly (END read) back. */
void cgiplus_conn_release(cgiplus_conn *c);
void cgiplus_conn_close(cgiplus_conn *c);
/* Sends all of iov, looping over partial writes; iov is consumed. */
apr_status_t cgiplus_conn_sendv(cgiplus_conn *c, struct iovec *iov, int n);
/* One write of what the socket takes; advances *iov and *n past it. */
apr_status_t cgiplus_conn_send_part(cgiplus_conn *c, struct iovec **iov, int *n);
apr_status_t cgiplus_conn_read_exact(cgiplus_conn *c, void *buf, apr_size_t len);
/* Nonzero if a byte (or EOF) can be read without waiting. */
int cgiplus_conn_readable(cgiplus_conn *c, apr_interval_time_t wait);
/* Waits for events (APR_POLLIN / APR_POLLOUT); sets *rd / *wr. */
apr_status_t cgiplus_conn_wait(cgiplus_conn *c, apr_int16_t events,
                               apr_interval_time_t timeout, int *rd, int *wr);
/* Error codes that mean the runner closed the connection. */
int cgiplus_conn_is_dead(apr_status_t rv);

/* ---- one request's exchange (cgiplus_handler.c and helpers) ---- */

/* One CGI variable; points into r->pool memory. */
typedef struct cgiplus_kv {
    const char *name, *val;
    apr_size_t nlen, vlen;
} cgiplus_kv;

/* The request body as read from the client (cgiplus_body.c): what was
 * read and not yet sent, and the minimum-rate guard. In its request's
 * cgiplus_req (or the direct path's state), from r->pool; lives for the
 * request. */
typedef struct cgiplus_body_in {
    apr_bucket_brigade *bb;  /* read, not yet sent; EOS last once all is read */
    apr_bucket_brigade *tmp; /* scratch of one read */
    char *buf;               /* the pre-read bytes, flat (r->pool) */
    apr_size_t len, cap;
    apr_off_t got;           /* bytes read from the client so far */
    apr_off_t buffer;        /* CGIplusBodyBuffer: read whole up to this */
    apr_off_t min_rate;      /* CGIplusBodyMinRate (bytes/s) past it, 0: none */
    apr_off_t cl;            /* Content-Length, -1: none (chunked, HTTP/2) */
    apr_time_t t0;           /* when reading began */
    int eos;                 /* the body is read to its end */
} cgiplus_body_in;

/* One request's exchange with the runner. From r->pool; lives for the
 * handler call (the connection may outlive it, back on the idle stack). */
typedef struct cgiplus_req {
    request_rec *r;
    cgiplus_conn *conn;        /* held connection; NULL once released/closed */
    apr_uint32_t reqid;
    apr_interval_time_t timeout; /* for every read and write on the runner */
    apr_bucket_brigade *out;   /* STDOUT payloads received, not yet used */
    apr_off_t out_len;         /* bytes in out */
    cgiplus_body_in in;        /* the request body, read ahead of sending */
    char *errbuf;              /* one STDERR payload; allocated on first use */
    apr_uint32_t worker_pid;   /* from STARTED: the process running it, 0: none yet */
    cgp_end end;               /* valid when got_end */
    int got_end;
    int got_stdout;            /* a STDOUT byte has arrived */
    int stdin_done;            /* STDIN|END is sent */
    int conn_dirty;            /* a frame was left half sent: no reuse */
    apr_status_t io_status;    /* last runner I/O error seen by getsfunc */
    int body_eos;              /* the body's EOS went into a STDIN frame */
    int unsent;                /* the runner's socket took no byte of the request */
    int nph;
    const char *mode_name;     /* "cgi" or "cgiplus": the mode sent in BEGIN */
    struct cgiplus_slog *slog; /* script log capture, NULL: no log here */
    const char *hdr_raw;       /* the header bytes as collected (r->pool) */
    apr_size_t hdr_raw_len;
    struct cgiplus_answer *answers; /* callout answers not yet sent */
    int mid_frame;             /* a body frame is half written: answers wait */
    int client_gone;           /* the client left before the first frame: ABORT sent */
    int compat;                /* served as mod_cgi would (CGIplusCompat, SSI) */
    int want_direct;           /* the direct path may serve it (BEGIN asks for POOL) */
    int aborting;              /* ABORT sent: a GRANT then gives the worker back */
    const char *pool_key;      /* script, mode and settings: the pool it belongs to */
    apr_size_t pool_key_len;
    const cgiplus_kv *params;  /* the CGI variables (cgiplus_env.c) */
    int nparams;
    struct cgiplus_direct *dx; /* on the direct path: its worker; NULL: relayed */
    unsigned char rstate;      /* enum cgiplus_rstate: changed by cgiplus_req_step only */
    int rbad;                  /* a state change the table refuses: it answers 500 */
} cgiplus_req;

/* The request's state changes (cgiplus_reqstate_step.c, the table in
 * cgiplus_reqstate.c): OK, or HTTP_INTERNAL_SERVER_ERROR for a pair the
 * table refuses (logged, q abandoned, q->rbad set). */
int cgiplus_req_step(cgiplus_req *q, unsigned ev);
/* The event q->end stands for: SENTINEL, EOF, TIMEOUT or REFUSED. */
unsigned cgiplus_req_end_event(const cgiplus_req *q);

int cgiplus_handler(request_rec *r);
/* Nonzero if a frame (or, direct, output) can be read without waiting. */
int cgiplus_req_readable(cgiplus_req *q, apr_interval_time_t wait);
/* The status a failure is answered with: 502 (the gateway's upstream
 * failed) becomes mod_cgi's 500 where q is served as mod_cgi would. */
int cgiplus_fail_status(const cgiplus_req *q, int status);

/* Callouts forwarded by the runner (cgiplus_callout.c): reads a CALLOUT
 * payload of len bytes and answers it (now, or once the frame being sent is
 * whole); flush sends the queued answers. */
apr_status_t cgiplus_callout_read(cgiplus_req *q, apr_size_t len);
apr_status_t cgiplus_callout_flush(cgiplus_req *q);
/* The answer to a MAP-PATH or LOG callout line (NUL-ended). */
const char *cgiplus_callout_answer(cgiplus_req *q, const char *line);
/* Says what a handler status means, for log lines. */
const char *cgiplus_status_text(request_rec *r, int status);

/* Packs BEGIN and PARAMS frames (cgiplus_env.c) into one buffer. */
apr_status_t cgiplus_env_pack(cgiplus_req *q, unsigned char **buf,
                              apr_size_t *len);

/* Request body (cgiplus_body.c). */
/* Sets in up for r: CGIplusBodyBuffer, CGIplusBodyMinRate, Content-Length. */
void cgiplus_body_init(request_rec *r, cgiplus_body_in *in);
/* Reads the body into in->bb, all of it if it is at most CGIplusBodyBuffer
 * bytes, else that much: before the request goes to the runner, so a slow
 * client holds no worker (the direct path calls it before claiming one).
 * Past the buffer the body must keep CGIplusBodyMinRate. OK, or an HTTP
 * status, logged (408 too slow, 413 LimitRequestBody, 400...). */
int cgiplus_body_preread(request_rec *r, cgiplus_body_in *in);
/* Sends the first frames plus the first body chunk in one sendv. */
apr_status_t cgiplus_body_send_first(cgiplus_req *q, unsigned char *frames,
                                     apr_size_t flen);
/* Streams the rest of the body (what the pre-read holds, then the rest
 * from the client at the minimum rate); stops early if the runner sends
 * END. A failure on the client's side sets *http_status. */
apr_status_t cgiplus_body_stream(cgiplus_req *q, int *http_status);

/* Response (cgiplus_response.c). */
/* Reads and dispatches one frame from the runner. */
apr_status_t cgiplus_resp_read_frame(cgiplus_req *q);
/* Reads frames until a STDOUT byte or END is there. Watches an HTTP/1.x
 * client meanwhile: if it goes away, sends ABORT, sets q->client_gone and
 * returns APR_ECONNABORTED (the request then gets no response). */
apr_status_t cgiplus_resp_wait_first(cgiplus_req *q);
/* The client's socket while waiting for the response (HTTP/1.x), NULL:
 * none; and what a readable one holds: 1 gone, 0 more data, -1 nothing. */
apr_socket_t *cgiplus_resp_client_socket(cgiplus_req *q);
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
void cgiplus_resp_watch_init(cgiplus_req *q, cgiplus_client_watch *w);
/* The watched socket polled readable (client_rd 2: a hang-up or error after
 * its end of file): says what that is and updates w (THERE: no longer
 * watched; EOF: only errors count from now on). One helper for the relay's
 * wait and the direct path's. */
int cgiplus_resp_client_seen(cgiplus_client_watch *w, int client_rd);
/* The client left before the response began: marks q and steps
 * CLIENT_GONE; nonzero if the caller is to give the worker back. */
int cgiplus_resp_client_left(cgiplus_req *q);
/* Logs q->errbuf[0..len) (a CGP_MAX_PAYLOAD + 1 buffer of the script's
 * stderr), a line at a time, in the request's virtual host's error log. */
void cgiplus_resp_log_stderr(cgiplus_req *q, apr_size_t len);
/* Reads frames to END, dropping STDOUT (STDERR is still logged). */
apr_status_t cgiplus_resp_drain(cgiplus_req *q);
/* Drains, then finishes (or abandons, a LOST in DRAIN) the request. */
void cgiplus_resp_drain_rest(cgiplus_req *q);
/* Parses headers and streams the response; returns an HTTP status or OK. */
int cgiplus_resp_handle(cgiplus_req *q);
/* Maps a non-ok END (before any output) to an HTTP status. */
int cgiplus_resp_end_status(cgiplus_req *q);
/* Gives up on the connection: ABORT (if the request is live), then close. */
void cgiplus_req_abandon(cgiplus_req *q);
/* Puts the connection back if END was read, else abandons it. */
void cgiplus_req_finish(cgiplus_req *q);

/* ---- the direct path (cgiplus_direct*.c) ---- */

/* cgp_end.detail of a direct request whose worker closed its stdout: the
 * child cannot know its exit status (the runner reaps it). */
#define CGIPLUS_END_CLOSED 0xffffffffu
/* ...and of one that broke the protocol (left its callout answers unread). */
#define CGIPLUS_END_BROKEN 0xfffffffeu

void cgiplus_direct_child_init(apr_pool_t *pchild, server_rec *s);
/* CGIplusDirect (cgiplus_conf.c keeps the flag). */
const char *cgiplus_set_direct(cmd_parms *cmd, void *dcv, int on);
int cgiplus_direct_on(const cgiplus_dir_conf *dc);
/* Gets the runner's table if this process has none yet; nonzero if it has. */
int cgiplus_direct_begin(cgiplus_req *q);
/* Claims an idle worker and sends it the request: OK, DECLINED (relay it:
 * no idle worker, requests waiting, pool unknown) or an HTTP status. */
int cgiplus_direct_run(cgiplus_req *q);
/* GRANT: the runner handed q, which waited in its pool's queue, a worker
 * this child now holds; q runs on it as if claimed (OK), or the worker
 * goes back unused and q gets the status returned (OK after an ABORT). */
int cgiplus_direct_grant(cgiplus_req *q, const cgp_grant *g);
apr_status_t cgiplus_direct_wait_first(cgiplus_req *q);
/* Reads until more output, the end or a failure (as one relayed frame). */
apr_status_t cgiplus_direct_read(cgiplus_req *q);
int cgiplus_direct_readable(cgiplus_req *q, apr_interval_time_t wait);
/* Hands the worker back: idle, or to the runner to drain or stop. */
void cgiplus_direct_finish(cgiplus_req *q, int client_gone);
void cgiplus_direct_script_control(cgiplus_req *q);
/* A POOL frame: the pool of q's key is at that table entry. */
void cgiplus_direct_learn(cgiplus_req *q, const unsigned char *pl, apr_size_t len);
/* A connection to the runner says its pid: another runner drops the table. */
void cgiplus_direct_runner_seen(apr_uint32_t runner_pid);

/* ---- pool and runner settings, status page (cgiplus_conf.c, cgiplus_status.c) ---- */

#define CGIPLUS_STATUS_HANDLER "cgiplus-status"
#define CGIPLUS_BEGIN_MAX 96  /* BEGIN entries the pool settings may add */

/* Appends the pool settings named for this directory as BEGIN entries
 * (names and values from r->pool); returns how many, at most max. */
int cgiplus_conf_begin(request_rec *r, const cgiplus_dir_conf *dc,
                       const char **names, const char **vals, int max);
/* Writes the runner's configuration file (runner-wide settings and the
 * users scripts may run as) for the main server s. */
apr_status_t cgiplus_conf_write_runner(apr_pool_t *p, server_rec *s, const char *path);
/* The status handler (SetHandler cgiplus-status). */
int cgiplus_status_handler(request_rec *r);
/* ---- CGI compatibility (cgiplus_handler.c, cgiplus_header.c) ---- */

/* Effective per-directory values of the CGI-compatibility directives. */
int cgiplus_conf_compat(const cgiplus_dir_conf *dc);
apr_size_t cgiplus_conf_max_header(const cgiplus_dir_conf *dc);
/* Directive handlers living with their concern (listed in cgiplus_cmds). */
const char *cgiplus_set_compat(cmd_parms *cmd, void *dcv, int on);
const char *cgiplus_set_max_header(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_set_scriptlog(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_set_scriptlog_len(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_set_scriptlog_buf(cmd_parms *cmd, void *dcv, const char *arg);

/* mod_cgi's ScriptLog (cmd->info 0), ScriptLogLength (1), ScriptLogBuffer (2). */
const char *cgiplus_set_cgi_scriptlog(cmd_parms *cmd, void *dcv, const char *arg);
/* Nonzero if mod_cgi or mod_cgid is loaded (valid once LoadModule ran). */
int cgiplus_cgi_module_loaded(void);

/* The script's CGI header (cgiplus_header.c): collects the header block
 * from q->out (reading frames as needed; the body stays in q->out,
 * uncopied), checks it line by line and hands it to httpd's scanner.
 * Returns OK, an HTTP status from the scanner (304, 412...), or 502 with
 * *why set (malformed, folded, oversized, premature end). */
int cgiplus_header_scan(cgiplus_req *q, const char **why);
/* An nph- script's output must start with an HTTP status line
 * ("HTTP/d.d ddd"): reads frames until its first bytes are there (they stay
 * in q->out). OK, or 502 with *why set (or an I/O error in q->io_status). */
int cgiplus_header_nph(cgiplus_req *q, const char **why);
/* The header bytes collected so far (for the script log); may be NULL. */
const char *cgiplus_header_raw(cgiplus_req *q, apr_size_t *len);

/* Script log of failed requests (cgiplus_scriptlog.c), like mod_cgi's
 * ScriptLog but per directory. */
int cgiplus_scriptlog_open_logs(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s);
/* Starts capturing for q if its directory has a script log. */
void cgiplus_scriptlog_start(cgiplus_req *q);
void cgiplus_scriptlog_body(cgiplus_req *q, const char *data, apr_size_t len);
void cgiplus_scriptlog_stderr(cgiplus_req *q, const char *line, apr_size_t len);
/* Writes one entry: a refusal before anything ran (q may be NULL) or a
 * failed exchange; why is the reason as logged. */
void cgiplus_scriptlog_write(request_rec *r, cgiplus_req *q, int status,
                             const char *why);

/* Client went away: ABORT, then wait briefly for the runner's END so the
 * connection can be reused; closes it if END does not come. */
void cgiplus_req_abort(cgiplus_req *q);
/* ---- mod_include's exec element (cgiplus_include.c) ---- */

/* Set on the sub-request of an #exec cgi: served here (as mod_cgi would)
 * even outside a CGIplusCompat scope. */
#define CGIPLUS_INCLUDE_NOTE "cgiplus-include"
/* optional_fn_retrieve hook: registers the exec element with mod_include
 * unless mod_cgi or mod_cgid is loaded. */
void cgiplus_include_retrieve(void);

/* ---- the static fast path (cgiplus_static_*.c, docs/STATIC.md) ---- */

struct cgiplus_static_sconf;
struct cgiplus_static_sconf *cgiplus_static_merge_sconf(
    apr_pool_t *p, const struct cgiplus_static_sconf *base,
    const struct cgiplus_static_sconf *add);
int cgiplus_static_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s);
void cgiplus_static_child_init(apr_pool_t *pchild, server_rec *s);
int cgiplus_static_quick_handler(request_rec *r, int lookup);
int cgiplus_static_translate(request_rec *r);
int cgiplus_static_handler(request_rec *r);
/* Called once the script's header is parsed: if it has X-CGIplus-File,
 * drops the script's body, serves that file and returns OK or an HTTP
 * status; DECLINED otherwise. */
int cgiplus_static_offload(cgiplus_req *q);

#endif
