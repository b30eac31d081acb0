/* runner.h: cgiplus-runner internals shared by its files.
 * One thread, one epoll loop, a self-pipe for signals, explicit state per
 * client connection, per request and per worker (docs/PROTOCOL.md). */
#ifndef RUNNER_H
#define RUNNER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "cgiplus_logno.h"
#include "cgp_proto.h"
#include "cgp_scan.h"
#include "cgp_table.h"

/* ---- limits (the per-pool and global settings live in runner_conf.c) ---- */
#define RUNNER_DEFAULT_MAX_WORKERS 4u
#define RUNNER_MAX_WORKERS_CAP  4096u
#define RUNNER_BODY_HIGH        (256u * 1024u) /* pause client reads above this unsent body */
#define RUNNER_SPOOL_MEM        (1024u * 1024u) /* body bytes kept in memory, then a temp file */
#define RUNNER_OUT_HIGH         (256u * 1024u) /* pause worker reads above this client backlog */
#define RUNNER_READ_CHUNK       61440u  /* one worker stdout read */
#define RUNNER_LINE_MAX         4096u   /* stderr and callout lines */
#define RUNNER_OBUF_CAP         (RUNNER_READ_CHUNK + RUNNER_LINE_MAX + 64u)
#define RUNNER_CIN_CAP          (2u * (CGP_HDR_LEN + CGP_MAX_PAYLOAD))
#define RUNNER_MARK_PREFIX_LEN  12u     /* "CGIPLUS-EOF-" */
#define RUNNER_MARK_LEN         (RUNNER_MARK_PREFIX_LEN + 32u)
#define RUNNER_DEFAULT_PATH     "/usr/local/bin:/usr/bin:/bin" /* every script's, unless env PATH */
/* Workers above min_idle stop after 5 min idle (mod_fcgid's FcgidIdleTimeout
 * default): a pool stays warm across ordinary gaps in traffic, and the
 * extra workers of a burst give their memory back within minutes. */
#define RUNNER_DEFAULT_IDLE_MS  300000u
#define RUNNER_STOP_GRACE_MS    5000u   /* busy workers finish their request */
#define RUNNER_KILL_WAIT_MS     1000u   /* SIGKILL, then exit anyway */
#define RUNNER_ORPHAN_GRACE_MS  5000u   /* orphan waiting for a body that never comes */
#define RUNNER_EOF_REAP_MS      2000u   /* closed stdout but did not exit */
#define RUNNER_LISTEN_PAUSE_MS  200u    /* after EMFILE on accept */
#define RUNNER_HDR_MAX          (64u * 1024u) /* response header block scanned for Script-Control */
#define RUNNER_RECORDS_MAX      (64u * 1024u) /* X-buffer-records: coalesce up to this */
#define RUNNER_ENDS_KEPT        16u     /* recent worker ends kept per pool for the status page */
#define RUNNER_ENV_MAX          64u     /* configured environment entries per pool */
#define RUNNER_CGI_ARGS_MAX     4094u   /* ISINDEX arguments of a plain CGI run (mod_cgi's cap) */
#define RUNNER_CGI_ARG_BYTES    (64u * 1024u) /* ...and their bytes, escaped, with NULs */
#define RUNNER_SETTLE_MS        200u    /* a script changed in place must be still this long */
#define RUNNER_STALE_MS         3000u   /* a superseded pool retires after this long unused */
#define RUNNER_DRAIN_MS         60000u  /* drain bound when neither an output timeout nor httpd's Timeout is known */
/* Callout answers a worker may leave unread (bytes on CGIPLUSIN past its
 * request record, and answer slots): past either it is stopped as broken,
 * so a script that asks and never reads cannot grow the runner. */
#define RUNNER_ANS_BYTES_MAX    (64u * 1024u)
#define RUNNER_ANS_COUNT_MAX    64u
/* LOG callouts per worker: a token bucket of this many lines, refilled at
 * this many a second; the excess is dropped and counted in one line at the
 * request's end (or every RUNNER_LOG_SUMMARY_MS in a long request). */
#define RUNNER_LOG_BURST        100u
#define RUNNER_LOG_RATE         10u
#define RUNNER_LOG_SUMMARY_MS   10000u

typedef struct runner_client runner_client;
typedef struct runner_req runner_req;
typedef struct runner_pool runner_pool;
typedef struct runner_worker runner_worker;

/* ---- logging (runner_log.c) ---- */
enum runner_level { RUNNER_LOG_ERROR, RUNNER_LOG_WARN, RUNNER_LOG_INFO, RUNNER_LOG_DEBUG };
extern int runner_log_level;
int runner_log_parse_level(const char *s);
const char *runner_log_level_name(int level);
void runner_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define RUNNER_LOG_ON(l) ((l) <= runner_log_level)
/* stderr becomes the parent's current stderr (httpd's error log); -1/errno */
int runner_log_take_parent_stderr(pid_t parent);

/* ---- epoll registration (runner_loop.c) ---- */
typedef enum runner_evkind {
    RUNNER_EV_LISTEN, RUNNER_EV_SIGNAL, RUNNER_EV_CLIENT,
    RUNNER_EV_W_IN, RUNNER_EV_W_BODY, RUNNER_EV_W_OUT, RUNNER_EV_W_ERR, RUNNER_EV_W_EXEC
} runner_evkind;

/* One watched descriptor, embedded in its owner and living as long as it.
 * Registered in epoll exactly when mask != 0; fd -1 once closed. */
typedef struct runner_ev {
    runner_evkind kind;
    int fd;
    uint32_t mask;
    void *obj;
} runner_ev;

void runner_ev_init(runner_ev *ev, runner_evkind kind, int fd, void *obj);
int runner_ev_watch(runner_ev *ev, uint32_t mask);
void runner_ev_close(runner_ev *ev);

/* ---- byte FIFO (runner_buf.c) ---- */
/* A growable FIFO of bytes, embedded in its owner and freed with it. */
typedef struct runner_buf {
    unsigned char *p;
    size_t off, len, cap; /* pending bytes are p[off..len) */
} runner_buf;

static inline size_t runner_buf_used(const runner_buf *b) { return b->len - b->off; }
int runner_buf_reserve(runner_buf *b, size_t n);
int runner_buf_append(runner_buf *b, const void *d, size_t n);
int runner_buf_printf(runner_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void runner_buf_consume(runner_buf *b, size_t n);
void runner_buf_reset(runner_buf *b);
void runner_buf_free(runner_buf *b);
int runner_buf_flush(runner_buf *b, int fd); /* 0 empty, 1 EAGAIN, -1 errno */

/* ---- request body spool (runner_spool.c) ---- */
/* Body bytes not yet written to the script: memory first, then an unlinked
 * file in the spool directory. Owned by its request. */
typedef struct runner_spool {
    runner_buf mem;      /* the oldest pending bytes */
    int fd;              /* temp file, -1: none yet */
    uint64_t file_wr;    /* temp file holds [file_rd, file_wr) */
    uint64_t file_rd;
    uint64_t total;      /* bytes ever appended */
} runner_spool;

/* Makes (0700) or checks the spool directory; 0, or -1 with err. */
int runner_spool_setup(const char *dir, char *err, size_t errlen);
void runner_spool_init(runner_spool *s);
/* Past mem_cap bytes in memory the rest goes to the file, which may hold at
 * most file_cap bytes (else -1, errno EFBIG). */
int runner_spool_append(runner_spool *s, const void *d, size_t n, size_t mem_cap,
                        uint64_t file_cap);
uint64_t runner_spool_pending(const runner_spool *s);
int runner_spool_flush(runner_spool *s, int fd); /* 0 empty, 1 EAGAIN, -1 errno */
void runner_spool_discard(runner_spool *s);
void runner_spool_free(runner_spool *s);

/* ---- worker stdout scanner: cgp_scan.h (common/cgp_scan.c) ---- */

/* ---- settings (runner_conf.c) ---- */
typedef enum runner_mode { RUNNER_MODE_CGIPLUS, RUNNER_MODE_CGI } runner_mode;

/* Per-pool settings, in a fixed order (the field table in runner_conf.c
 * follows it). Times in ms and 0 means none (no limit); counts 0 means
 * unlimited unless noted. Every field is part of the pool key. */
enum runner_setting {
    RUNNER_S_MAX_WORKERS,    /* 1..4096 */
    RUNNER_S_MIN_IDLE,       /* idle workers kept warm */
    RUNNER_S_MAX_REQUESTS,   /* requests per worker */
    RUNNER_S_MAX_AGE,        /* ms a worker may live */
    RUNNER_S_IDLE_TIMEOUT,   /* ms idle before it is stopped (CGIplus LIFETIME) */
    RUNNER_S_SPAWN_RATE,     /* starts per second */
    RUNNER_S_QUEUE_DEPTH,    /* requests waiting; 0: none wait */
    RUNNER_S_QUEUE_WAIT,     /* ms a request may wait */
    RUNNER_S_TIMEOUT_OUTPUT, /* ms a request may take */
    RUNNER_S_TIMEOUT_NOPROGRESS, /* ms without output */
    RUNNER_S_RLIMIT_CPU,     /* s; 0: not set */
    RUNNER_S_RLIMIT_AS,      /* bytes */
    RUNNER_S_RLIMIT_NOFILE,
    RUNNER_S_RLIMIT_NPROC,
    RUNNER_S_USER,           /* uid << 32 | gid; 0: the runner's default user */
    RUNNER_S_N_
};

/* Resolved settings of one pool; env is owned (NUL-separated "N=v"). */
typedef struct runner_pool_set {
    uint64_t v[RUNNER_S_N_];
    char *env;
    size_t env_len;
} runner_pool_set;

/* Settings named at one level (defaults, a [pool] section, a BEGIN):
 * have bit i says v[i] was given. Owned by whoever holds it. */
typedef struct runner_set_over {
    runner_pool_set s;
    uint32_t have;
    int have_env;
} runner_set_over;

/* A [pool SCRIPT] section of the configuration file. */
typedef struct runner_conf_pool {
    char *script;
    runner_mode mode;
    runner_set_over over;
} runner_conf_pool;

/* Runner-wide settings: built-ins, then the configuration file, then the
 * command line. Replaced as a whole on SIGHUP; lives in runner_g. */
typedef struct runner_conf {
    uint64_t max_workers_total;
    uint64_t kill_grace;      /* ms between SIGTERM and SIGKILL */
    uint64_t backoff_base, backoff_max; /* ms, crash-loop backoff */
    uint64_t http_timeout;    /* ms: httpd's Timeout; our timeouts stay below */
    uint64_t callout_timeout; /* ms a forwarded callout waits for its answer */
    uint64_t pool_idle;       /* ms without requests before a pool retires */
    uint64_t slow_request;    /* ms on a worker after which a request counts as slow */
    uint64_t allow[64];       /* uid << 32 | gid scripts may run as */
    unsigned nallow;
    runner_set_over defaults;
    runner_conf_pool *pools;
    unsigned npools;
    /* process settings: read at start only */
    uint64_t spool_max;       /* bytes one request body may hold in the spool file */
    char *socket, *user, *group, *pidfile, *log_level, *key_file, *spool_dir;
    int die_with_parent;
} runner_conf;

int runner_conf_load(const char *path, runner_conf *out, char *err, size_t errlen);
/* The parser alone, on an open file (runner_conf_load checks its owner). */
int runner_conf_read(FILE *f, runner_conf *out, char *err, size_t errlen);
void runner_conf_init(runner_conf *c);
void runner_conf_free(runner_conf *c);
/* Parses one setting into o; -1 with *why on a bad name or value. */
int runner_set_parse(runner_set_over *o, const char *name, size_t nlen, const char *val,
                     size_t vlen, const char **why);
void runner_set_over_free(runner_set_over *o);
/* Built-ins < [defaults] < the script's [pool] section < begin; a section
 * of the same mode sets begin aside (then 1 if begin named any). */
int runner_set_resolve(const char *script, runner_mode mode, const runner_set_over *begin,
                       runner_pool_set *out);
int runner_set_equal(const runner_pool_set *a, const runner_pool_set *b);
void runner_set_free(runner_pool_set *s);
int runner_set_copy(runner_pool_set *dst, const runner_pool_set *src);
const char *runner_set_name(unsigned i);
int runner_set_is_time(unsigned i);
int runner_user_allowed(uint64_t user);
/* Strict decimal: 1-19 digits, no sign, no space (so no overflow). */
int runner_parse_u64(const char *s, size_t len, uint64_t *out);
/* "none" | N[.F][ms|s|m] (default unit: unit_ms) -> ms; 0 = none. */
int runner_parse_duration(const char *s, size_t len, uint64_t unit_ms, uint64_t *ms);

/* ---- pools (runner_pool.c) ---- */
TAILQ_HEAD(runner_worker_list, runner_worker);
TAILQ_HEAD(runner_req_list, runner_req);

/* Why a worker ended. NONE until the runner decides to stop it; a worker
 * that ends by itself becomes EXITED or CRASHED when reaped. */
typedef enum runner_wend {
    RUNNER_END_NONE, RUNNER_END_IDLE, RUNNER_END_LIFETIME, RUNNER_END_MAX_REQUESTS,
    RUNNER_END_TIMEOUT, RUNNER_END_ABORTED, RUNNER_END_DEPLOY, RUNNER_END_RETIRED,
    RUNNER_END_EVICTED, RUNNER_END_SHUTDOWN, RUNNER_END_BROKEN, RUNNER_END_EXEC_FAILED,
    RUNNER_END_EXITED, RUNNER_END_CRASHED, RUNNER_END_N_
} runner_wend;
const char *runner_wend_name(runner_wend e);

/* One ended worker, kept for the status page. */
typedef struct runner_ended {
    long pid;
    runner_wend why;
    int status;               /* wait status */
    unsigned long served;
    uint64_t at;              /* monotonic ms */
} runner_ended;

/* One (script, mode, settings) pool. Owned by runner_g.pools; freed when it
 * is empty and retired or unused for pool_idle. */
struct runner_pool {
    char *script;             /* absolute path */
    char *dir;                /* its directory: the workers' cwd */
    runner_mode mode;
    runner_pool_set set;
    uint64_t id;              /* numbered in creation order */
    struct runner_worker_list workers;
    unsigned nworkers;        /* live processes, dying ones included */
    struct runner_req_list queue; /* FIFO of requests waiting for a worker */
    unsigned qlen, qmax;
    int retired;              /* superseded or unused: drains, keeps nobody warm */
    int as_cgi;               /* its script does not speak CGIplus: plain CGI runs */
    int begin_noted;          /* logged that its [pool] section sets requests' settings aside */
    int waits_slot;           /* in runner_g.slot_waiters */
    unsigned gen;             /* script generation: bumped when the file changes */
    uint64_t stamp;           /* newest (httpd generation, reload) that used it */
    uint64_t stale_since;     /* a sibling of a newer configuration appeared, 0: no */
    int have_ident;
    dev_t ident_dev;
    ino_t ident_ino;
    int64_t ident_mtime_ns, ident_ctime_ns, ident_size;
    unsigned fail_streak;     /* workers in a row that died before serving */
    uint64_t backoff_until;   /* no start before this (monotonic ms) */
    uint64_t tokens_at;       /* spawn-rate bucket: full at this time */
    uint64_t last_used, created;
    uint64_t deadline;        /* nearest pool timer, 0: none */
    unsigned long spawned, served, requests;
    unsigned long slow;       /* requests longer than slow_request on their worker */
    unsigned long max_active; /* the most workers busy at once */
    unsigned long max_reached;/* times every worker was busy at max_workers */
    int at_max;               /* requests wait at max_workers (counted once until the queue empties) */
    unsigned long outcomes[CGP_O_MAX_ + 1];
    unsigned long deaths[RUNNER_END_N_];
    runner_ended ended[RUNNER_ENDS_KEPT];
    unsigned nended;
    int tidx;                 /* its entry in the direct path's table, -1: none */
    uint32_t tfirst, tslots;  /* its block of slots there */
    TAILQ_ENTRY(runner_pool) link, slink;
};

runner_pool *runner_pool_get(const char *script, size_t slen, runner_mode mode,
                             const runner_set_over *begin, uint32_t httpd_gen, int *err);
void runner_pool_submit(runner_req *r);
void runner_pool_dequeue(runner_req *r);
void runner_pool_worker_idle(runner_worker *w);
void runner_pool_dispatch(runner_pool *p);
void runner_pool_reaped(runner_worker *w);
void runner_pool_request_ok(runner_pool *p);
unsigned runner_pool_idle_count(const runner_pool *p);
void runner_pool_timer(runner_pool *p);
void runner_pool_rearm(runner_pool *p);
void runner_pool_stop(void);
void runner_pool_reload(void);
void runner_pool_declared(void);
void runner_pool_free_all(void);
void runner_pool_gc(void);
const char *runner_mode_name(runner_mode m);

/* ---- requests (runner_req.c) ---- */
typedef enum runner_rstate {
    RUNNER_R_PARAMS,  /* collecting PARAMS */
    RUNNER_R_SPOOL,   /* no CONTENT_LENGTH: spooling the body to count it */
    RUNNER_R_QUEUED,  /* in its pool's queue */
    RUNNER_R_RUNNING  /* on a worker */
} runner_rstate;

/* One request. Owned by its client until END is sent; then, if a worker still
 * runs it, by that worker (an orphan whose output is discarded). */
struct runner_req {
    runner_client *client;    /* NULL once END was sent or the client left */
    runner_pool *pool;
    runner_worker *worker;    /* NULL unless RUNNING */
    uint32_t reqid;
    runner_rstate state;
    int ended;                /* END sent (or nobody to send it to) */
    char *uri;
    runner_buf params;        /* concatenated, validated PARAMS kv lists */
    int have_cl;
    int cl_given;             /* PARAMS carried a CONTENT_LENGTH value */
    uint64_t cl;              /* exact body length given to the script */
    runner_spool body;
    int body_end;             /* STDIN END seen */
    int callouts;             /* the module answers CALLOUT frames */
    uint64_t progress_ms;     /* BEGIN progress: PROGRESS at most this often, 0: never */
    uint64_t t_sent;          /* the last frame of this request to the module */
    uint64_t t_arrive, t_start, t_progress; /* monotonic ms */
    int64_t tmo_output, tmo_noprogress; /* overrides: 0 pool's, -1 none, >0 ms */
    int no_abort;             /* Script-Control: no-abort */
    int buffer_records;       /* Script-Control: X-buffer-records */
    int hdr_done;             /* the header block was scanned */
    size_t hdr_scan;          /* hdr bytes already scanned for the blank line */
    runner_buf hdr;           /* output held until the header block ends */
    runner_buf recs;          /* output coalesced in X-buffer-records mode */
    uint64_t out_bytes;       /* response bytes sent to the module */
    int drain;                /* no request: a worker handed back mid-response, drained */
    TAILQ_ENTRY(runner_req) qlink;
};

runner_req *runner_req_new(runner_client *c, uint32_t reqid, const char *uri, size_t ulen);
int runner_req_add_params(runner_req *r, const unsigned char *pl, size_t len, const char **why);
int runner_req_add_body(runner_req *r, const unsigned char *d, size_t n);
int runner_req_body_short(const runner_req *r);
void runner_req_end(runner_req *r, int outcome, unsigned retry, uint32_t pid, uint32_t detail);
void runner_req_client_gone(runner_req *r);
/* The script made progress (output, body taken, a callout): restarts the
 * no-progress timer; tells the module (PROGRESS) if it saw nothing lately. */
void runner_req_progress(runner_req *r);
void runner_req_free(runner_req *r);
/* Records and environment the script receives (runner_record.c). */
int runner_record_build(const runner_req *r, int struct_mode, runner_buf *out);
char **runner_record_env(const runner_req *r);
void runner_env_free(char **env);
/* argv of a plain CGI run: path, then the ISINDEX words of QUERY_STRING
 * (runner_argv.c); freed with runner_env_free. */
char **runner_cgi_argv(const runner_req *r, const char *path);

/* Response header block: Script-Control (runner_hdr.c). Feeds output of the
 * request to the module, holding it until the header block is complete. */
void runner_hdr_output(runner_worker *w, const unsigned char *d, size_t len);
void runner_hdr_flush(runner_worker *w);
/* Parses "minutes" | "none" | "0" -> -1 none, 0 default, >0 ms; -2 bad. */
int64_t runner_parse_minutes(const char *p, size_t len);

/* ---- workers (runner_worker.c, runner_spawn.c, runner_callout.c) ---- */
typedef enum runner_wstate {
    RUNNER_W_IDLE,     /* waiting on CGIPLUSIN for a request */
    RUNNER_W_BUSY,     /* running w->req */
    RUNNER_W_STOPPING, /* signalled or broken: never assigned again */
    RUNNER_W_DEAD      /* reaped; freed at the end of the loop turn */
} runner_wstate;

/* One callout answer owed to the worker, in the order asked. */
typedef struct runner_ans {
    TAILQ_ENTRY(runner_ans) link;
    int ready;                /* 0: waiting for the module's CALLOUT_ANSWER */
    uint64_t due;             /* waiting: answer "503 no answer" at this time */
    char text[];
} runner_ans;
TAILQ_HEAD(runner_ans_list, runner_ans);

/* One script process (persistent worker, or one plain CGI run). Owned by its
 * pool's list and runner_g.workers; lives until reaped. */
struct runner_worker {
    runner_pool *pool;
    pid_t pid;
    runner_wstate state;
    int is_cgi;
    unsigned gen;             /* the pool generation it was started for */
    runner_ev ev_in;          /* CGIPLUSIN write end (cgiplus) */
    runner_ev ev_body;        /* stdin: socketpair end (cgiplus) or pipe (cgi) */
    runner_ev ev_out;         /* stdout read end */
    runner_ev ev_err;         /* stderr read end */
    runner_ev ev_exec;        /* exec error pipe: EOF means exec succeeded */
    int body_peer;            /* our copy of the worker's fd 0, to drain unread body */
    char eof[RUNNER_MARK_LEN + 1], esc[RUNNER_MARK_LEN + 1], eot[RUNNER_MARK_LEN + 1];
    cgp_scan scan;
    unsigned char *obuf;      /* stdout bytes held back by the scanner */
    size_t olen;
    runner_buf inq;           /* bytes pending on CGIPLUSIN */
    struct runner_ans_list answers; /* callout answers owed, oldest first */
    unsigned nanswers;        /* entries in answers */
    size_t inq_base;          /* inq bytes when the request record was queued */
    int flooded;              /* stopped for unread answers: ignore what it asks */
    uint64_t log_mtok;        /* LOG bucket, in thousandths of a line */
    uint64_t log_at;          /* when log_mtok was last refilled, 0: never (full) */
    uint64_t log_said;        /* the last drop summary, or the first drop since */
    unsigned long log_dropped;/* LOG lines dropped since that summary */
    char errline[RUNNER_LINE_MAX];
    size_t errlen;
    runner_req *req;
    int struct_mode;
    int64_t lifetime;         /* LIFETIME: 0 pool's idle timeout, -1 none, >0 ms */
    runner_wend retire;       /* stop for this once the current request is done */
    runner_wend why;          /* why the runner stopped it */
    uint64_t deadline;        /* nearest timer (monotonic ms), 0: none */
    uint64_t dl_orphan, dl_reap; /* orphan waiting for a body; closed stdout */
    uint64_t dl_orphan_max;   /* a no-abort orphan is stopped at this time */
    uint64_t t_orphan;        /* when its request ended without it */
    uint64_t t_idle, t_term;  /* became idle; SIGTERM sent */
    int killed;               /* SIGKILL sent */
    int body_blocked;         /* last body write hit EAGAIN */
    int out_paused;
    int had_output;           /* any stdout byte (cgi), any for this request (cgiplus) */
    int exited, status, exec_failed;
    size_t junk;              /* bytes written while idle */
    /* First request: only its "!" line is on CGIPLUSIN until the worker has
     * read it; the rest of the record and the body wait in held. Output
     * before that is a start-up banner (or a program that is not CGIplus). */
    int sync_wait;
    runner_buf held;
    uint64_t dl_sync;         /* next look at CGIPLUSIN while sync_wait */
    size_t banner;            /* bytes discarded before the first request */
    int synced;               /* it read the "!" line of its first request */
    int not_cgiplus;          /* exited with its first request unread */
    unsigned long served;
    uint64_t started;
    int slot;                 /* its slot in the direct path's table, -1: none */
    uint32_t sgen;            /* the slot's generation for this worker */
    int published;            /* the slot was set IDLE: a child may hold it; stdout unwatched */
    uint64_t dl_drain;        /* a drain of output nobody wants ends (killed) at this time */
    TAILQ_ENTRY(runner_worker) plink, glink;
};

int runner_worker_spawn(runner_pool *p, runner_worker **out);
int runner_worker_spawn_cgi(runner_pool *p, runner_req *r);
void runner_worker_assign(runner_worker *w, runner_req *r);
void runner_worker_event(runner_ev *ev, uint32_t events);
void runner_worker_reaped(runner_worker *w, int status);
void runner_worker_deadline(runner_worker *w);
void runner_worker_rearm(runner_worker *w);
void runner_worker_feed(runner_worker *w);
void runner_worker_update(runner_worker *w);
void runner_worker_orphaned(runner_worker *w);
int runner_worker_out_paused(const runner_worker *w);
void runner_worker_kill(runner_worker *w, int sig);
/* Stops w as broken for leaving too many callout answers unread (2082). */
void runner_worker_flooded(runner_worker *w);
/* Stops a worker for a reason: at once if idle, after its request if busy
 * (unless now), SIGTERM then SIGKILL after kill_grace. */
void runner_worker_stop(runner_worker *w, runner_wend why, int now);
void runner_worker_free(runner_worker *w);
void runner_worker_send(runner_worker *w, const unsigned char *d, size_t len);
void runner_worker_reply(runner_worker *w, const char *line);
void runner_callout_line(runner_worker *w, const unsigned char *line, size_t len, int too_long);
/* The module's answer to the oldest forwarded callout of w. */
void runner_callout_answer(runner_worker *w, const char *text, size_t len);
/* Answers every forwarded callout still waiting (request over, or due). */
void runner_callout_expire(runner_worker *w, int all);
void runner_callout_flush(runner_worker *w);
void runner_callout_free(runner_worker *w);
/* Logs how many LOG lines were dropped, if any (request over: force). */
void runner_callout_log_summary(runner_worker *w, int force);

/* fork + exec of one script process (runner_spawn.c) */
#define RUNNER_SPAWN_MAXFD 4
typedef struct runner_spawn_spec {
    const char *path;         /* script; also argv[0] */
    char **argv;              /* NULL-ended, or NULL for just { path } */
    const char *dir;          /* chdir target */
    char **envp;
    int fds[RUNNER_SPAWN_MAXFD]; /* become the child's 0..nfds-1 */
    int nfds;
    int exec_fd;              /* write end of the exec error pipe (CLOEXEC) */
    const runner_pool_set *set; /* user and rlimits */
} runner_spawn_spec;
/* Where a child failed before exec, as reported on the exec pipe. */
enum runner_stage { RUNNER_STAGE_SETSID = 1, RUNNER_STAGE_CREDS, RUNNER_STAGE_CHDIR,
                    RUNNER_STAGE_FDS, RUNNER_STAGE_EXEC, RUNNER_STAGE_RLIMIT };
pid_t runner_spawn(const runner_spawn_spec *s);
const char *runner_spawn_stage(unsigned stage);
int runner_random_hex(char *out, size_t nhex);
/* Appends the pool's configured environment to envp (NULL-ended, cap slots). */
size_t runner_spawn_env(const runner_pool_set *set, char **envp, size_t n, size_t cap);
/* Whether the pool's env sets NAME (given as "NAME" or "NAME=..."). */

/* ---- the direct path's shared table (runner_table.c, include/cgp_table.h) ---- */
int runner_table_init(void);
void runner_table_pool_add(runner_pool *p);
void runner_table_pool_del(runner_pool *p);
void runner_table_pool_sync(runner_pool *p);
void runner_table_waiters(runner_pool *p);
void runner_table_pool_used(runner_pool *p);
unsigned long runner_table_pool_served(const runner_pool *p);
void runner_table_pool_counts(const runner_pool *p, unsigned long *requests,
                              unsigned long *outcomes, unsigned nout);
runner_pool *runner_table_pool_at(uint32_t idx, uint32_t gen);
void runner_table_pool_ref(const runner_pool *p, uint32_t *idx, uint32_t *gen);
void runner_table_slot_take(runner_worker *w);
void runner_table_slot_dead(runner_worker *w);
void runner_table_kick(runner_pool *p);
void runner_table_child_gone(pid_t pid);
void runner_table_on_direct(runner_client *c, uint32_t reqid);
void runner_table_on_channel(runner_client *c, uint32_t reqid, const unsigned char *pl,
                             size_t len);
int runner_table_send_fds(runner_client *c, unsigned type, uint32_t reqid, const void *pl,
                          size_t len, const int *fds, int nfds);
void runner_worker_sync(runner_worker *w);
void runner_worker_count(runner_worker *w);
unsigned long runner_worker_served(const runner_worker *w);
void runner_worker_set_struct(runner_worker *w, int on);
void runner_worker_set_lifetime(runner_worker *w, int64_t v);
int runner_worker_claim(runner_worker *w);
int runner_worker_held(const runner_worker *w);
uint64_t runner_worker_direct_uri(const runner_worker *w, char *buf, size_t cap);
void runner_worker_publish(runner_worker *w);
void runner_worker_want_back(runner_worker *w);
void runner_worker_take_stderr(runner_worker *w);
void runner_worker_gone(runner_worker *w);
/* Takes back a worker mid-response: its output is read to the sentinel and
 * dropped, then it is idle again; killed if that takes over bound ms (a
 * no-abort one is stopped then, as a timeout: CGIPLUS2084). */
void runner_worker_adopt(runner_worker *w, uint64_t bound, int no_abort);

/* ---- client connections (runner_client.c) ---- */
typedef enum runner_cstate {
    RUNNER_C_HELLO,   /* waiting for HELLO */
    RUNNER_C_READY,   /* requests may follow */
    RUNNER_C_CLOSING  /* flush what is queued, then close */
} runner_cstate;

/* One module connection. Owned by runner_g.clients; freed at the end of the
 * loop turn in which it was closed. */
struct runner_client {
    runner_ev ev;
    runner_cstate state;
    uid_t uid;
    pid_t pid;                /* SO_PEERCRED */
    unsigned char *in;        /* RUNNER_CIN_CAP bytes of unparsed input */
    size_t in_len;
    runner_buf out;           /* frames waiting for the socket */
    runner_req *req;          /* the active request, if any */
    int peer_eof, broken, closed, kicked;
    int anchor;               /* got the table: its close means the httpd child is gone */
    int corked;               /* frames wait in out until runner_client_uncork */
    TAILQ_ENTRY(runner_client) link, klink;
};

void runner_client_accept(int lfd);
void runner_client_event(runner_client *c, uint32_t events);
void runner_client_run(runner_client *c);
void runner_client_update(runner_client *c);
int runner_client_send(runner_client *c, unsigned type, unsigned flags, uint32_t reqid,
                       const void *data, size_t len);
/* Sets c->corked first: what one read of a worker's output yields (the
 * response and its END, say) leaves in one write, so the module sees a
 * complete response as complete. */
void runner_client_uncork(runner_client *c);
int runner_client_send_end(runner_client *c, uint32_t reqid, int outcome, unsigned retry,
                           uint32_t pid, uint32_t detail);
size_t runner_client_backlog(const runner_client *c);
void runner_client_close(runner_client *c);
void runner_client_close_all(void);

/* ---- the connection key (runner_key.c) ---- */
/* Reads the key from --key-fd (fd_arg) or else the key file; 0 or -1 with err. */
int runner_key_load(const char *fd_arg, const char *file, char *err, size_t errlen);
/* 1 if key is ours (constant time). */
int runner_key_check(const unsigned char key[CGP_KEY_LEN]);

/* ---- status: runner_status.h ---- */

/* ---- the service manager: sd_notify and socket activation (runner_notify.c) ---- */
void runner_notify_init(void);          /* reads and removes $NOTIFY_SOCKET */
void runner_notify(const char *msg);    /* "READY=1" etc.; nothing without one */
/* The socket-activated listener (descriptor 3), -1 none, -2 unusable. */
int runner_listen_fd(void);
int runner_listen_fd_path(int fd, char *path, size_t len);

/* ---- the loop and the process (runner_loop.c, runner_main.c) ---- */
/* Command line settings; filled by main, read-only afterwards. */
typedef struct runner_opts {
    const char *socket_path;
    const char *pidfile;
    const char *config;       /* --config FILE, NULL: none */
    const char *key_fd;       /* --key-fd N: httpd's pipe holding the key */
    const char *user_name;
    int have_user;
    uid_t uid;                /* httpd's user: may connect; scripts' default */
    gid_t gid;
    int die_with_parent;
    int stderr_from_parent;   /* --stderr-from-parent: at SIGHUP, take httpd's log */
    pid_t parent;             /* the parent at start */
    int have_log_level;       /* --log-level given: the file's is ignored */
    unsigned max_workers;     /* --max-workers: overrides [defaults] */
    int have_max_workers;
} runner_opts;

TAILQ_HEAD(runner_client_list, runner_client);
TAILQ_HEAD(runner_pool_list, runner_pool);

typedef enum runner_stop { RUNNER_RUN, RUNNER_STOP_DRAIN, RUNNER_STOP_TERM, RUNNER_STOP_KILL } runner_stop;

/* The process-wide state: one, static, for the runner's life. */
typedef struct runner_ctx {
    runner_opts o;
    runner_conf conf;
    int is_root;
    int epfd;
    runner_ev ev_listen, ev_sig;
    int sig_w;                /* write end of the self-pipe */
    dev_t sock_dev;
    ino_t sock_ino;
    int sock_bound;
    int activated;            /* the socket-activated listener, -1: none */
    uint64_t now;             /* monotonic ms, updated each loop turn */
    uint64_t started;
    uint64_t listen_resume;   /* re-arm the listener at this time, 0: armed */
    runner_stop stop;
    uint64_t stop_deadline;
    unsigned nworkers;        /* live processes of every pool */
    uint64_t next_pool_id;
    unsigned long reloads;
    struct runner_client_list clients, kicks, dead_clients;
    struct runner_pool_list pools, slot_waiters;
    struct runner_worker_list workers, dead_workers;
} runner_ctx;

extern runner_ctx runner_g;

uint64_t runner_now_ms(void);
int runner_loop_init(int listen_fd);
int runner_loop_run(void);
void runner_loop_fini(void);
void runner_loop_kick(runner_client *c);
void runner_loop_pause_listener(void);
void runner_unlink_socket(void);
int runner_reload(void);

#endif
