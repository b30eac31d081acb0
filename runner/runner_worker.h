/* runner_worker.h: script processes, persistent workers and plain CGI
 * runs. One room in four files: runner_worker.c (its states, lifecycle and
 * timers), runner_worker_spawn.c (a new process), runner_worker_in.c (the
 * request record, the body, callout answers in), runner_worker_out.c
 * (stdout to the request, stderr lines, the request's end); callouts in
 * runner_callout.c; the slot in the direct path's table in runner_table.c.
 * What differs between kinds of worker is behind runner_wkind; what a
 * worker tells its pool goes through runner_wowner (docs/ARCHITECTURE.md). */
#ifndef RUNNER_WORKER_H
#define RUNNER_WORKER_H

#include "runner_types.h"
#include "runner_heap.h"
#include "runner_buf.h"
#include "runner_end.h"
#include "runner_conf.h"
#include "runner_loop.h"
#include "runner_spawn.h"
#include "cgp_proto.h"
#include "cgp_ready.h"
#include "cgp_scan.h"

#define RUNNER_OUT_HIGH         (256u * 1024u) /* pause worker reads above this client backlog */
#define RUNNER_READ_CHUNK       61440u  /* one worker stdout read */
#define RUNNER_LINE_MAX         4096u   /* stderr and callout lines */
#define RUNNER_OBUF_CAP         (RUNNER_READ_CHUNK + RUNNER_LINE_MAX + 64u)
#define RUNNER_MARK_PREFIX_LEN  12u     /* "CGIPLUS-EOF-" */
#define RUNNER_MARK_LEN         (RUNNER_MARK_PREFIX_LEN + 32u)
#define RUNNER_ORPHAN_GRACE_MS  5000u   /* orphan waiting for a body that never comes */
#define RUNNER_ORPHAN_TAKEN_MS  300u    /* the same, once it took every byte it was given */
#define RUNNER_EOF_REAP_MS      2000u   /* closed stdout but did not exit */
#define RUNNER_DRAIN_MS         60000u  /* drain bound when neither an output timeout nor httpd's Timeout is known */
#define RUNNER_GONE_DRAIN_MS    5000u   /* a worker whose client left: to its sentinel, or stopped */
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

/* A worker's states, as the runner sees it (what the direct path's
 * children do with it is its slot's state, include/cgp_table.h). */
typedef enum runner_wstate {
    RUNNER_W_IDLE,     /* waiting on CGIPLUSIN for a request (a new one too) */
    RUNNER_W_BUSY,     /* running w->req (or draining output nobody wants) */
    RUNNER_W_STOPPING, /* signalled or broken: never assigned again */
    RUNNER_W_DEAD,     /* reaped; freed at the end of the loop turn */
    RUNNER_W_N_
} runner_wstate;

/* What happens to a worker. */
typedef enum runner_wevent {
    RUNNER_WE_ASSIGN,  /* a request is its (or a drain of a child's) */
    RUNNER_WE_DONE,    /* its request is over, or never reached it */
    RUNNER_WE_BREAK,   /* no use any more: signalled, broken, its exec failed, its stdout closed */
    RUNNER_WE_REAP,    /* its process is gone */
    RUNNER_WE_N_
} runner_wevent;

/* The worker's state machine, in the shape of the slot's cgp_tnext():
 * [state][event] -> new state, 0xff where the event changes nothing (a
 * stopping worker is not assigned, nor broken again). Applied by
 * runner_worker_step() alone. */
static inline unsigned runner_wnext(unsigned state, unsigned ev)
{
    enum { I = RUNNER_W_IDLE, B = RUNNER_W_BUSY, S = RUNNER_W_STOPPING, D = RUNNER_W_DEAD,
           X = 0xff };
    static const unsigned char t[RUNNER_W_N_][RUNNER_WE_N_] = {
        /*              ASSIGN DONE BREAK REAP */
        /* IDLE */     { B,    X,   S,    D },
        /* BUSY */     { X,    I,   S,    D },
        /* STOPPING */ { X,    X,   X,    D },
        /* DEAD */     { X,    X,   X,    X },
    };
    return state < RUNNER_W_N_ && ev < RUNNER_WE_N_ ? t[state][ev] : 0xff;
}

/* One callout answer owed to the worker, in the order asked. */
typedef struct runner_ans {
    TAILQ_ENTRY(runner_ans) link;
    int ready;                /* 0: waiting for the module's CALLOUT_ANSWER */
    uint64_t due;             /* waiting: answer "503 no answer" at this time */
    char text[];
} runner_ans;
TAILQ_HEAD(runner_ans_list, runner_ans);

/* A kind of worker: what it does its own way. One static table per kind
 * (runner_kind_cgiplus, runner_kind_cgi in runner_worker_spawn.c,
 * runner_kind_fcgi in runner_fcgi.c); a worker points at its kind's for
 * life. The rest of the runner calls a worker's kind only through these,
 * so a new kind is a new table and its own files (docs/ARCHITECTURE.md,
 * "A new kind of worker"). */
struct runner_wkind {
    const char *name;         /* in log lines: "worker", "cgi", "fastcgi worker" */
    int per_request;          /* a process per request: its response ends at EOF */
    /* A new process of p (r: the request of a per-request kind, whose
     * variables are its environment); -1 with errno, logged. */
    int (*spawn)(runner_pool *p, runner_req *r, runner_worker **out);
    /* What r puts on w, before its body (runner_worker_assign): a record,
     * a FastCGI BEGIN_REQUEST and PARAMS; NULL: nothing (a plain CGI run
     * has its request in its environment). -1: r was answered or went
     * back to the queue instead. */
    int (*request)(runner_worker *w, runner_req *r);
    void (*feed)(runner_worker *w);             /* more of the body, as w takes it */
    void (*read)(runner_worker *w, int drain);  /* its output (drain: it died, take all) */
    void (*watch)(runner_worker *w, int paused);/* its descriptors' interest */
    void (*orphaned)(runner_worker *w);         /* its request was answered or lost its client */
    /* Its request is given up (a timeout, an orphan) before it is stopped:
     * FastCGI's ABORT_REQUEST. NULL: nothing to tell it. */
    void (*abort)(runner_worker *w);
    /* Taken back mid-response (its output is then read to its end and
     * dropped): its reading starts afresh. NULL: it cannot be, it is stopped. */
    void (*adopt)(runner_worker *w);
    /* Only where a child handed it back (between records): one a dead
     * child held, read to an unknown point, is stopped. */
    int adopt_handed_only;
    /* Its script learns that its client left (FastCGI: its writes fail)
     * and may run on by design (PHP's ignore_user_abort): such an orphan
     * is bounded by its request's output and no-progress deadlines, as it
     * was running, not by RUNNER_GONE_DRAIN_MS. */
    int orphan_runs;
    /* A child handed it back with its output closed. NULL: it is dying in
     * that request (a crash-loop death too); FastCGI: its connection is
     * over, not its process. */
    void (*closed)(runner_worker *w);
    /* The descriptor that must stay empty while w is published and idle
     * (output then was written with no request: the idle look), -1. */
    int (*idle_fd)(const runner_worker *w);
    /* Closes what it holds besides the worker's own descriptors (its
     * w->kdata stays until the worker is freed); NULL: nothing. */
    void (*close)(runner_worker *w);
    /* SIGTERM is about to be sent (runner_worker_break): what else an idle
     * worker needs to see it. 1: it ended a connection the worker reads,
     * so the signal waits RUNNER_TERM_AFTER_CLOSE_MS for the worker to be
     * back in accept(). NULL: nothing. */
    int (*term)(runner_worker *w);
    /* That SIGTERM is due: 1 if it may go now (the worker is back in
     * accept()), 0 if it waits RUNNER_TERM_LOOK_MS more (at most
     * RUNNER_TERM_WAIT_MAX_MS in all). NULL: it goes. */
    int (*term_ready)(const runner_worker *w);
    /* It died with a request on it (relayed, or a child's): 1 if it had
     * read that request, so its death is the request's, not a failed
     * start-up. NULL: the CGIplus look at its "!" line decides. */
    int (*took)(const runner_worker *w);
    /* It died (reaped, before its slot is): 1 if its request, relayed,
     * provably never reached it and may go to another worker (FastCGI per
     * request: its connection waited unaccepted); a child's it tells
     * through the slot. NULL: never. */
    int (*unaccepted)(runner_worker *w);
    /* Its own timer (w->dl_kind) is due. NULL: it sets none. */
    void (*timer)(runner_worker *w);
};

/* What a worker tells the pool that started it. The pool (runner_pool.c)
 * sits above the worker files, which reach it only through these (held by
 * the pool, p->owner). */
struct runner_wowner {
    void (*idle)(runner_worker *w);       /* done with a request: the queue, publishing */
    void (*served)(runner_worker *w);     /* a request answered: the crash-loop streak ends */
    void (*requeue)(runner_req *r);       /* r never reached its worker: it waits again, first */
    /* w is gone; rerun: its first request, which never reached it, from
     * a program that does not speak CGIplus (run it as plain CGI). */
    void (*reaped)(runner_worker *w, runner_req *rerun);
    void (*busy)(runner_worker *w, int delta); /* took (+1) or left (-1) a relayed request */
    /* w, idle and clean, its slot the runner's: to the oldest waiting
     * request, else free for the children (IDLE). */
    void (*pass)(runner_worker *w);
};

/* One script process (persistent worker, or one plain CGI run). Owned by its
 * pool's list and runner_g.workers; lives until reaped. */
struct runner_worker {
    runner_pool *pool;
    const runner_wkind *kind;
    pid_t pid;
    runner_wstate state;
    unsigned gen;             /* the pool generation it was started for */
    runner_ev ev_in;          /* CGIPLUSIN write end (cgiplus) */
    runner_ev ev_body;        /* stdin: socketpair end (cgiplus) or pipe (cgi) */
    runner_ev ev_out;         /* stdout read end */
    runner_ev ev_err;         /* stderr read end */
    runner_ev ev_exec;        /* exec error pipe: EOF means exec succeeded */
    int body_peer;            /* our copy of the worker's fd 0, to drain unread body */
    char eof[RUNNER_MARK_LEN + 1], esc[RUNNER_MARK_LEN + 1], eot[RUNNER_MARK_LEN + 1];
    char ready[CGP_READY_MAX]; /* its ready line (cgp_ready.h) */
    size_t ready_len;
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
    runner_hnode tn;          /* in the workers' timer heap, at deadline */
    uint64_t dl_orphan, dl_reap; /* orphan waiting for a body; closed stdout */
    uint64_t dl_orphan_max;   /* a no-abort orphan is stopped at this time */
    uint64_t t_orphan;        /* when its request ended without it */
    int orphan_timed;         /* dl_orphan_max is what was left of its request's
                               * timeouts (a FastCGI orphan: it runs on by design) */
    uint64_t t_idle, t_term;  /* became idle; SIGTERM sent */
    int killed;               /* SIGKILL sent */
    int body_blocked;         /* last body write hit EAGAIN */
    int out_paused;
    int had_output;           /* any stdout byte (cgi), any for this request (cgiplus) */
    int exited, status, exec_failed;
    size_t junk;              /* bytes written while idle */
    /* The last byte of the request record waits here until the worker has
     * read the rest (CGIPLUSIN, one page, is writable again) and its stdout
     * was found empty after that: output before it is not this request's
     * (issue 20, hole 1). Its body waits too. */
    int rec_held;
    unsigned char rec_last;
    int keep_params;          /* its request's variables are kept while it runs (the kind
                               * may send it elsewhere: unaccepted) */
    /* First request: only its "!" line is on CGIPLUSIN until the worker has
     * read it; the rest of the record and the body wait in held. Output
     * before that is a start-up banner (or a program that is not CGIplus). */
    int sync_wait;
    runner_buf held;
    uint64_t dl_sync;         /* next look at CGIPLUSIN while sync_wait */
    size_t in_lost;           /* of the "!" line, what CGIPLUSIN refused (no reader) */
    size_t banner;            /* bytes discarded before the first request */
    int synced;               /* it read the "!" line of its first request */
    int not_cgiplus;          /* exited with its first request unread */
    int took;                 /* it read its first request (CGIplus) or answered us (FastCGI):
                               * past its start-up, its death is a request's, no crash loop */
    unsigned long served;
    uint64_t started;
    int slot;                 /* its slot in the direct path's table, -1: none */
    uint32_t sgen;            /* the slot's generation for this worker */
    uint64_t dl_drain;        /* a drain of output nobody wants ends (killed) at this time */
    uint64_t dl_kind;         /* its kind's timer (kind->timer), 0: none */
    uint64_t dl_sigterm;      /* its SIGTERM is due (kind->term said wait), 0: none */
    uint64_t t_term_due;      /* when it was first due (kind->term_ready said wait) */
    void *kdata;              /* its kind's own (a FastCGI connection), freed with it */
    TAILQ_ENTRY(runner_worker) plink, glink;
};

/* ---- lifecycle and timers (runner_worker.c) ---- */
/* Applies ev to w's state (runner_wnext): 1 if it moved, 0 if the table
 * refuses it (the state is unchanged). The only writer of w->state. */
int runner_worker_step(runner_worker *w, runner_wevent ev);
/* w lets its request go (done, dead, or it never had it): 1 if the request
 * still waits for its answer, 0 if it had one and is freed. */
int runner_worker_unassign(runner_worker *w);
/* w never had its request (it never read a byte of it): the request goes
 * back to its pool's queue for another worker, or ends if its client left. */
void runner_worker_send_elsewhere(runner_worker *w);
/* w takes r (the request's and the worker's link; the pool's busy count). */
void runner_worker_link(runner_worker *w, runner_req *r);
/* The workers' room (the loop's hooks): their timers, their reaping, the
 * stop's signals, the frees. */
extern const runner_room runner_worker_room;
void runner_worker_reaped(runner_worker *w, int status);
void runner_worker_deadline(runner_worker *w);
void runner_worker_rearm(runner_worker *w);
/* The interest of w's descriptors, after anything that may change it. */
void runner_worker_update(runner_worker *w);
void runner_worker_orphaned(runner_worker *w);
void runner_worker_kill(runner_worker *w, int sig);
/* The worker is no use any more: never assigned again, signalled (why
 * kept if one is set). */
void runner_worker_break(runner_worker *w, runner_wend why, int sig);
/* Stops a worker for a reason: at once if idle, after its request if busy
 * (unless now), SIGTERM then SIGKILL after kill_grace. */
void runner_worker_stop(runner_worker *w, runner_wend why, int now);
void runner_worker_free(runner_worker *w);
/* Room in the workers' timer heap for one more worker: before it is made
 * (0, or -1 ENOMEM), so that its timers never fail later. */
int runner_worker_heap_reserve(void);
/* A child saw its stdout close mid-request: it should be exiting. */
void runner_worker_gone(runner_worker *w);
/* Takes back a worker mid-response: its output is read to the sentinel and
 * dropped, then it is idle again; killed if that takes over bound ms (a
 * no-abort one is stopped then, as a timeout: CGIPLUS2084). */
void runner_worker_adopt(runner_worker *w, uint64_t bound, int no_abort);
/* An idle worker the runner holds (and that served one request here)
 * becomes free for the children: RUNNER -> IDLE. */
void runner_worker_publish(runner_worker *w);
/* Its slot came back RETURNED: what the flags say (stop, drain, reap). */
void runner_worker_returned(runner_worker *w);
/* httpd child pid is gone (its anchor closed): the workers it held are
 * taken back and drained to their sentinel. */
void runner_worker_child_gone(pid_t pid);
/* w can take a request of p now (or will once free): its generation, not
 * retiring, not failed. idle_only: and idle, held by nobody. */
int runner_worker_usable(const runner_pool *p, const runner_worker *w);
unsigned runner_worker_count_usable(const runner_pool *p, int idle_only);

/* ---- a new process (runner_worker_spawn.c) ---- */
extern const runner_wkind runner_kind_cgiplus, runner_kind_cgi;
extern const runner_wkind runner_kind_fcgi; /* runner_fcgi.c */

/* What one start needs until the exec: the child's descriptors (its
 * 0..nfds-1), ours and where each goes in the worker, what the
 * environment points into. A kind's plumbing fills it (runner_plumb for
 * each descriptor); on the stack of runner_worker_start, which closes and
 * frees it at its one failure path. */
typedef struct runner_plumbing {
    runner_spawn_spec spec;         /* fds, nfds, envp, argv: the plumbing's */
    int child[RUNNER_SPAWN_MAXFD];  /* the child's ends, closed once it runs */
    int ours[RUNNER_SPAWN_MAXFD];   /* our ends... */
    int *to[RUNNER_SPAWN_MAXFD];    /* ...and where each goes (an event's fd) */
    const char *name;               /* what it made (a socket's path), for 2009 */
    int px[2];                      /* the exec error pipe */
    char ebuf[3][16 + RUNNER_MARK_LEN]; /* environment strings it builds */
    char *envp[7 + RUNNER_ENV_MAX];
    char **env, **argv;             /* malloc'd ones (a plain CGI run's) */
} runner_plumbing;
typedef int runner_plumb_fn(runner_worker *w, runner_req *r, runner_plumbing *pl);
/* The child's descriptor i is child, ours is ours and goes to *to. */
void runner_plumb(runner_plumbing *pl, int i, int child, int ours, int *to);
/* A pipe for the child's descriptor i (it reads it if in, else writes
 * it); our end non-blocking (each end is its own open file description),
 * for *to. */
int runner_plumb_pipe(runner_plumbing *pl, int i, int in, int *to);
/* A new process of kind for p (r: a per-request kind's request), its
 * descriptors made by plumb: fork and exec, the worker in its pool's and
 * the runner's lists, its exec pipe watched; everything made is closed
 * and freed at one failure path (logged: 2009). A kind's spawn builds on
 * it, then takes a slot and logs its start. */
int runner_worker_start(const runner_wkind *kind, runner_pool *p, runner_req *r,
                        runner_plumb_fn *plumb, runner_worker **out);
/* A persistent worker's start, once its process runs: its slot, its
 * interest, the log line (2013), its timers. */
void runner_worker_started(runner_worker *w);

/* ---- the descriptors' handlers (exec: runner_worker.c; in, body:
 * runner_worker_in.c; out, err: runner_worker_out.c) ---- */
runner_ev_fn runner_worker_on_exec, runner_worker_on_in, runner_worker_on_body,
             runner_worker_on_out, runner_worker_on_err;

/* ---- input (runner_worker_in.c) ---- */
/* r goes to w, an idle one (or the one spawned for it): what its kind
 * puts on it first (request), then its body as it comes (feed). */
void runner_worker_assign(runner_worker *w, runner_req *r);
/* The CGIplus kind's request: the record (its last byte held). */
int runner_worker_record(runner_worker *w, runner_req *r);
/* The body on a CGIplus worker's or a CGI run's stdin (their kind's feed). */
void runner_worker_feed(runner_worker *w);
/* CGIPLUSIN's interest (bytes wait, or a record's last byte). */
uint32_t runner_worker_in_mask(const runner_worker *w);
void runner_worker_flush_in(runner_worker *w);
/* The first record's "!" line was read: the rest of it goes out. */
void runner_worker_sync_check(runner_worker *w);
/* Bytes of the first record the worker has not read (-1: unknown). */
int runner_worker_unread_in(const runner_worker *w);
/* Bytes the last request left unread on the script's stdin: taken out. */
void runner_worker_drain_body(runner_worker *w);
void runner_worker_reply(runner_worker *w, const char *line);
/* Stops w as broken for leaving too many callout answers unread (2082). */
void runner_worker_flooded(runner_worker *w);

/* ---- output (runner_worker_out.c) ---- */
/* Its output, through its kind's reader (drain: it died, take all), the
 * frames to its client corked meanwhile. */
void runner_worker_read(runner_worker *w, int drain);
/* The stdout reader of CGIplus workers and CGI runs (their kind's read). */
void runner_worker_read_stdout(runner_worker *w, int drain);
/* What a worker's request yields, whatever carries it: response bytes
 * (through the header scanner), stderr bytes (whole lines to the
 * request's log), its end (outcome, retry, detail for END; the worker is
 * then idle for its pool, or stopped). */
void runner_worker_output(runner_worker *w, const unsigned char *d, size_t len);
void runner_worker_stderr(runner_worker *w, const char *p, size_t n);
void runner_worker_request_done(runner_worker *w, int outcome, unsigned retry, uint32_t detail);
/* END's detail for a worker that closed its output without exiting (the
 * module says so, as for its own direct path). */
#define RUNNER_END_CLOSED 0xffffffffu
/* A new response's reading state (a new request, or a drain). */
void runner_worker_out_reset(runner_worker *w);
int runner_worker_out_paused(const runner_worker *w);
/* w wrote n bytes of output no request was there for (when says when): it
 * is logged, killed at once and given nothing more; a request it had not
 * yet wholly received goes back to the queue. */
void runner_worker_junk(runner_worker *w, size_t n, const char *when);
/* What w wrote with no request (have, n, then its stdout): its ready line
 * alone is taken (the slot says READY if no record is out), anything else
 * stopped as junk.
 * CGP_READY_*. */
int runner_worker_ready(runner_worker *w, const unsigned char *have, size_t n, const char *when);
void runner_worker_send(runner_worker *w, const unsigned char *d, size_t len);
/* Reads stderr to its end and passes on a partial line (before a child
 * reads it, or at the end of a request). */
void runner_worker_take_stderr(runner_worker *w);

/* ---- callouts (runner_callout.c) ---- */
void runner_callout_line(runner_worker *w, const unsigned char *line, size_t len, int too_long);
/* The module's answer to the oldest forwarded callout of w. */
void runner_callout_answer(runner_worker *w, const char *text, size_t len);
/* Answers every forwarded callout still waiting (request over, or due). */
void runner_callout_expire(runner_worker *w, int all);
void runner_callout_flush(runner_worker *w);
void runner_callout_free(runner_worker *w);
/* Logs how many LOG lines were dropped, if any (request over: force). */
void runner_callout_log_summary(runner_worker *w, int force);

/* ---- the worker's slot in the direct path's table (runner_table.c) ---- */
void runner_worker_sync(runner_worker *w);
void runner_worker_count(runner_worker *w);
unsigned long runner_worker_served(const runner_worker *w);
/* When the worker was last released by either path (for its idle time). */
uint64_t runner_worker_idle_since(const runner_worker *w);
void runner_worker_set_struct(runner_worker *w, int on);
void runner_worker_set_ready(runner_worker *w, int on);     /* the slot's CGP_TS_READY */
/* A child's request its worker died with unaccepted (CGP_TS_FCGI_UNTAKEN):
 * the slot waits for the child to read that before it serves another. */
void runner_worker_slot_mark_untaken(runner_worker *w);
void runner_worker_set_oneshot(runner_worker *w);          /* the slot's CGP_TS_ONESHOT */
int runner_worker_oneshot(const runner_worker *w);
uint32_t runner_worker_slot_flags(const runner_worker *w);   /* CGP_TS_*, 0: no slot */
void runner_worker_slot_flags_set(runner_worker *w, uint32_t set, uint32_t clear);
void runner_worker_set_lifetime(runner_worker *w, int64_t v);
/* A FastCGI worker's request id, kept in its slot (cgp_tslot_fcgi_next):
 * next, the new request's; else the last one written (by a child or the
 * runner). cur: the runner's own, for a worker without a slot. */
uint16_t runner_worker_fcgi_reqid(runner_worker *w, uint16_t cur, int next);
int runner_worker_claim(runner_worker *w);
int runner_worker_held(const runner_worker *w);
/* 1 while w's slot is the children's: the runner set it IDLE and has not
 * taken it back (IDLE, or a child holds it, or handed it back). Read from
 * the slot's state: the runner keeps no copy of it. */
int runner_worker_published(const runner_worker *w);
uint64_t runner_worker_direct_uri(const runner_worker *w, char *buf, size_t cap);
void runner_worker_want_back(runner_worker *w);

#endif
