/* runner_worker.h: script processes, persistent workers and plain CGI
 * runs (runner_worker.c; callouts in runner_callout.c; the direct path's
 * side of a worker in runner_table.c). */
#ifndef RUNNER_WORKER_H
#define RUNNER_WORKER_H

#include "runner_types.h"
#include "runner_buf.h"
#include "runner_end.h"
#include "runner_loop.h"
#include "cgp_proto.h"
#include "cgp_scan.h"

#define RUNNER_OUT_HIGH         (256u * 1024u) /* pause worker reads above this client backlog */
#define RUNNER_READ_CHUNK       61440u  /* one worker stdout read */
#define RUNNER_LINE_MAX         4096u   /* stderr and callout lines */
#define RUNNER_OBUF_CAP         (RUNNER_READ_CHUNK + RUNNER_LINE_MAX + 64u)
#define RUNNER_MARK_PREFIX_LEN  12u     /* "CGIPLUS-EOF-" */
#define RUNNER_MARK_LEN         (RUNNER_MARK_PREFIX_LEN + 32u)
#define RUNNER_ORPHAN_GRACE_MS  5000u   /* orphan waiting for a body that never comes */
#define RUNNER_EOF_REAP_MS      2000u   /* closed stdout but did not exit */
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

/* The worker's side of the direct path's table (runner_table.c). */
void runner_worker_sync(runner_worker *w);
void runner_worker_count(runner_worker *w);
unsigned long runner_worker_served(const runner_worker *w);
void runner_worker_set_struct(runner_worker *w, int on);
void runner_worker_set_lifetime(runner_worker *w, int64_t v);
int runner_worker_claim(runner_worker *w);
/* A queued request's published idle worker goes to its httpd child: IDLE ->
 * CHILD(pid) by CAS, GRANT sent, the request freed. 0: the CAS lost. */
int runner_worker_grant(runner_worker *w, runner_req *r);
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

#endif
