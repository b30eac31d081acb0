/* runner_ws.h: WebSocket pools (runner_ws_*.c; docs/DESIGN.md, "WebSocket
 * scripts"). A WebSocket pool is its own kind of pool: its workers get no
 * CGI requests, only the records of their channel (descriptor 3): an OPEN
 * per upgrade, which they accept or refuse, then the messages of every
 * connection they accepted, tagged with its id. Each accepted connection
 * keeps the module connection its upgrade came on; the runner relays between
 * those and the workers' channels, and fans a BROADCAST out to every
 * connection of the pool. The rest of the runner sees four hooks: BEGIN with
 * mode websocket (runner_client.c), the loop's events, timers and reaping
 * (runner_loop.c), and the status page's sections. */
#ifndef RUNNER_WS_H
#define RUNNER_WS_H

#include "runner_types.h"
#include "runner_buf.h"
#include "runner_conf.h"
#include "runner_loop.h"
#include "runner_stamp.h"
#include "runner_watch.h"
#include "cgp_proto.h"
#include "cgp_wsr.h"
#include "cgp_ws.h"

#define RUNNER_WS_HELLO_MS      10000u  /* a new worker says HELLO within this, or it is not one */
#define RUNNER_WS_CHAN_HIGH     (4u << 20) /* unwritten records to a worker: its connections wait */
#define RUNNER_WS_CHAN_LOW      (1u << 20)
#define RUNNER_WS_READ          65536u  /* one read of a worker's channel or a module socket */
#define RUNNER_WS_LINE_MAX      4096u   /* a worker's stderr line */
#define RUNNER_WS_HASH          4096u   /* buckets of the connection ids */
#define RUNNER_WS_ADDR_MAX      64u     /* a client address, as REMOTE_ADDR */

typedef struct runner_ws_pool runner_ws_pool;
typedef struct runner_ws_worker runner_ws_worker;
typedef struct runner_ws_conn runner_ws_conn;
typedef struct runner_ws_open runner_ws_open;
typedef struct runner_ws_addr runner_ws_addr;
TAILQ_HEAD(runner_ws_pool_list, runner_ws_pool);
TAILQ_HEAD(runner_ws_worker_list, runner_ws_worker);
TAILQ_HEAD(runner_ws_conn_list, runner_ws_conn);
TAILQ_HEAD(runner_ws_open_list, runner_ws_open);

/* Why an open was refused before any worker saw it; counted per pool. */
enum runner_ws_limit { RUNNER_WS_L_POOL, RUNNER_WS_L_ADDR, RUNNER_WS_L_MEMORY,
                       RUNNER_WS_L_QUEUE, RUNNER_WS_L_WAIT, RUNNER_WS_L_NO_WORKER,
                       RUNNER_WS_L_N_ };

/* One WebSocket pool: a (script, settings) key; its settings are a pool's
 * (set.v[CGP_S_*]), the ws_* rows included. Owned by the list in
 * runner_ws_pool.c; freed once retired with no worker, open or connection. */
struct runner_ws_pool {
    char *script, *dir;
    runner_pool_set set;
    uint64_t id;              /* numbered with the other pools */
    unsigned gen;             /* bumped when the script file changes */
    struct runner_ws_worker_list workers;
    unsigned nworkers;        /* live processes, stopping ones included */
    struct runner_ws_open_list queue; /* opens waiting for a worker that said HELLO */
    unsigned qlen;
    unsigned nconns;
    int retired;
    int waits_slot;           /* upgrades and no worker at max_workers_total: a request
                               * worker was stopped for it (runner_pool_make_room); in
                               * runner_ws_g.slot_waiters */
    int not_ws;               /* its script does not speak WebSocket (until it changes) */
    runner_pwatch watch;      /* the deploy watch, and the last look */
    struct runner_domain *domain; /* its workers' Landlock domain (runner_domain.c) */
    runner_ident ident;
    unsigned fail_streak;
    int exec_err;             /* the last start failed for good (cgp_exec_err_permanent): its
                               * errno, what opens get while the backoff lasts (500); 0: none */
    unsigned sx_refused;      /* suEXEC refused its last start: the cgp_suexec_why, 0: no */
    uint64_t backoff_until, tokens_at, created;
    uint64_t due;             /* the deadline last given to the loop (ws_deadline) */
    runner_stamp use;         /* which configuration used it last, and when */
    unsigned long spawned, opens, accepted, refused, failed;
    unsigned long limited[RUNNER_WS_L_N_];
    unsigned long msgs_in, msgs_out, bytes_in, bytes_out, broadcasts, dropped, closed;
    TAILQ_ENTRY(runner_ws_pool) link;
    TAILQ_ENTRY(runner_ws_pool) slink; /* runner_ws_g.slot_waiters */
};

typedef enum runner_ws_wstate {
    RUNNER_WS_W_STARTING,     /* no HELLO yet: takes no open */
    RUNNER_WS_W_READY,        /* takes opens */
    RUNNER_WS_W_DRAINING,     /* old (deploy, retired pool): keeps its connections, takes none */
    RUNNER_WS_W_STOPPING,     /* signalled */
    RUNNER_WS_W_DEAD,         /* reaped; freed at the end of the turn */
    RUNNER_WS_W_N_
} runner_ws_wstate;

/* What happens to a WebSocket worker. */
typedef enum runner_ws_wevent {
    RUNNER_WS_WE_HELLO,       /* it said HELLO: it takes opens */
    RUNNER_WS_WE_DRAIN,       /* old: it keeps its connections, takes no more */
    RUNNER_WS_WE_STOP,        /* signalled */
    RUNNER_WS_WE_REAP,        /* its process is gone */
    RUNNER_WS_WE_N_
} runner_ws_wevent;

/* The WebSocket worker's state machine (calloc'd: STARTING), in the shape
 * of cgp_tnext(): [state][event] -> new state, 0xff where the event
 * changes nothing. Applied by runner_ws_worker_step() alone. */
static inline unsigned runner_ws_wnext(unsigned state, unsigned ev)
{
    enum { S = RUNNER_WS_W_STARTING, R = RUNNER_WS_W_READY, G = RUNNER_WS_W_DRAINING,
           T = RUNNER_WS_W_STOPPING, D = RUNNER_WS_W_DEAD, X = 0xff };
    static const unsigned char t[RUNNER_WS_W_N_][RUNNER_WS_WE_N_] = {
        /*              HELLO DRAIN STOP REAP */
        /* STARTING */ { R,    X,    T,   D },
        /* READY */    { X,    G,    T,   D },
        /* DRAINING */ { X,    X,    T,   D },
        /* STOPPING */ { X,    X,    X,   D },
        /* DEAD */     { X,    X,    X,   X },
    };
    return state < RUNNER_WS_W_N_ && ev < RUNNER_WS_WE_N_ ? t[state][ev] : 0xff;
}

/* One worker process of a WebSocket pool. Owned by its pool's list; lives
 * until reaped (its connections are closed with 1011 then). */
struct runner_ws_worker {
    runner_ws_pool *pool;
    pid_t pid;
    unsigned gen;
    runner_ws_wstate state;
    runner_ev ev_chan, ev_out, ev_err;
    runner_buf in;            /* channel bytes read, not yet a whole record */
    runner_buf out;           /* records for the worker, not yet written */
    int paused;               /* out above RUNNER_WS_CHAN_HIGH: its connections are not read */
    struct runner_ws_conn_list conns;
    unsigned nconns;
    struct runner_ws_open_list sent; /* OPENs sent, not answered */
    unsigned nsent;
    char errline[RUNNER_WS_LINE_MAX];
    size_t errlen;
    uint64_t junk;            /* stdout bytes (a WebSocket worker writes none) */
    uint64_t started, t_idle, drain_until;
    uint64_t deadline;
    int exec_fd;              /* the exec pipe: (stage, errno) and the script's first bytes
                               * there at its death if it never ran */
    int killed, status, said_hello;
    int drain_closed;         /* drain time over: its connections were told to go */
    int why;                  /* runner_wend: why the runner stopped it */
    unsigned long msgs_in, msgs_out;
    TAILQ_ENTRY(runner_ws_worker) link;
};

typedef enum runner_ws_ostate {
    RUNNER_WS_O_PARAMS,       /* its PARAMS arrive (calloc'd) */
    RUNNER_WS_O_QUEUED,       /* admitted, waits for a worker that said HELLO */
    RUNNER_WS_O_SENT,         /* OPEN sent to a worker, not answered */
    RUNNER_WS_O_N_
} runner_ws_ostate;
typedef enum runner_ws_oevent {
    RUNNER_WS_OE_QUEUE, RUNNER_WS_OE_SEND, RUNNER_WS_OE_N_
} runner_ws_oevent;

/* An upgrade's state machine: PARAMS -QUEUE-> QUEUED -SEND-> SENT; it ends
 * by being freed (answered, or its module gone). Applied by
 * runner_ws_open_step() alone. */
static inline unsigned runner_ws_onext(unsigned state, unsigned ev)
{
    static const unsigned char t[RUNNER_WS_O_N_][RUNNER_WS_OE_N_] = {
        /*            QUEUE              SEND */
        /* PARAMS */ { RUNNER_WS_O_QUEUED, 0xff },
        /* QUEUED */ { 0xff,              RUNNER_WS_O_SENT },
        /* SENT */   { 0xff,              0xff },
    };
    return state < RUNNER_WS_O_N_ && ev < RUNNER_WS_OE_N_ ? t[state][ev] : 0xff;
}

/* One upgrade waiting for its answer, on the module connection it came on
 * (runner_client.ws). Owned by that client; freed when answered or when
 * the client goes. */
struct runner_ws_open {
    runner_client *c;
    uint32_t reqid;
    runner_ws_pool *pool;
    runner_ws_ostate state;
    runner_buf params;        /* the PARAMS kv lists, checked */
    int params_done;
    uint32_t id;              /* the connection id, once a worker has it */
    runner_ws_worker *w;
    uint64_t t_arrive, deadline;
    char addr[RUNNER_WS_ADDR_MAX + 1];
    runner_ws_addr *a;        /* its count there, once admitted */
    char uri[256];
    TAILQ_ENTRY(runner_ws_open) link;
};

/* A block of framed bytes for one or many connections (a broadcast is
 * framed once): freed by the last reference. */
typedef struct runner_ws_blk {
    unsigned refs;
    size_t len;
    size_t msg;               /* the message's own bytes (0: a close) */
    unsigned char data[];
} runner_ws_blk;

/* One connection's place in a block: in its queue, freed once written. */
typedef struct runner_ws_ref {
    runner_ws_blk *b;
    size_t off;
    TAILQ_ENTRY(runner_ws_ref) link;
} runner_ws_ref;
TAILQ_HEAD(runner_ws_ref_list, runner_ws_ref);

/* One accepted connection: the module connection its upgrade came on, now
 * carrying WS_MSG and WS_CLOSE frames. Owned by its worker's list (and the
 * id hash); freed at the end of the turn it closed in. */
struct runner_ws_conn {
    runner_ev ev;
    uint32_t id;
    runner_ws_worker *w;
    runner_ws_addr *addr;
    runner_buf in;            /* frames read, not yet whole */
    runner_buf msg;           /* the client's message being gathered */
    int msg_kind;             /* 0: none open */
    struct runner_ws_ref_list outq; /* frames for the module, in order */
    size_t out_bytes;
    int closing;              /* WS_CLOSE sent: only that is written now */
    int closed, peer_eof;
    unsigned long msgs_in, msgs_out;
    TAILQ_ENTRY(runner_ws_conn) wlink;
    runner_ws_conn *hnext;
};

/* Connections of one client address in one pool (the per-address limit):
 * in the runner's table while one open or connection counts on it. */
struct runner_ws_addr {
    runner_ws_pool *pool;
    unsigned n;
    char addr[RUNNER_WS_ADDR_MAX + 1];
    runner_ws_addr *next;
};

/* The WebSocket side of the runner: one, static, for its life. */
typedef struct runner_ws_ctx {
    struct runner_ws_pool_list pools;
    runner_ws_conn *hash[RUNNER_WS_HASH];
    uint32_t next_id;
    uint64_t mem;             /* bytes queued for connections and workers */
    uint64_t mem_said;        /* the last log line about it */
    int mem_paused;           /* past it: the modules' sockets are not read */
    unsigned nconns;
    struct runner_ws_pool_list slot_waiters; /* pools with waits_slot set, the oldest first */
    runner_ws_addr *addrs;
    struct runner_ws_conn_list dead_conns;
    struct runner_ws_worker_list dead_workers;
} runner_ws_ctx;

extern runner_ws_ctx runner_ws_g;
/* ws_memory (CGIplusWebSocketMemory, runner-wide): past it, opens are
 * refused and messages dropped. */
#define RUNNER_WS_MEMORY (runner_g.conf.v[CGP_S_WS_MEMORY])

/* Apply ev to w's (o's) state: 1 if it moved, 0 if the table refuses it
 * (the state is unchanged). The only writers of those states. */
int runner_ws_worker_step(runner_ws_worker *w, runner_ws_wevent ev);
int runner_ws_open_step(runner_ws_open *o, runner_ws_oevent ev);

/* ---- hooks for the rest of the runner ---- */
/* BEGIN with mode websocket (the pool settings, the ws_* rows too, parsed
 * into over). */
void runner_ws_begin(runner_client *c, uint32_t reqid, uint32_t httpd_gen, const char *script,
                     size_t slen, const runner_set_over *over, const char *uri, size_t ulen);
/* A frame on a connection whose open is in progress (c->ws set). */
void runner_ws_frame(runner_client *c, const cgp_hdr *h, const unsigned char *pl);
void runner_ws_client_gone(runner_client *c);
int runner_ws_reaped(pid_t pid, int status);
/* The deploy watch's listener: pools whose names changed look at their
 * script (all: every pool). */
void runner_ws_watched(int all);
/* The WebSocket pools' room (runner_main.c registers it after the request
 * pools'). */
extern const runner_room runner_ws_room;
void runner_ws_bury(void);
void runner_ws_init(void);

/* ---- between the runner_ws files ---- */
/* pools (runner_ws_pool.c) */
runner_ws_pool *runner_ws_pool_get(const char *script, size_t slen, const runner_set_over *over,
                                   uint32_t httpd_gen, int *err);
void runner_ws_pool_submit(runner_ws_open *o);
/* w lost its last connection (runner_pool_peer_idle). */
void runner_ws_pool_worker_idle(runner_ws_worker *w);
void runner_ws_pool_dispatch(runner_ws_pool *p);
unsigned runner_ws_pool_counted(const runner_ws_pool *p);
void runner_ws_pool_reaped(runner_ws_worker *w);
uint64_t runner_ws_pool_deadline(runner_ws_pool *p);
void runner_ws_pool_timer(runner_ws_pool *p);
void runner_ws_pool_gc(void);
/* The count of (pool, client address); create: make it if missing. put
 * takes one off and frees the entry at 0. */
runner_ws_addr *runner_ws_addr_get(runner_ws_pool *p, const char *a, int create);
void runner_ws_addr_put(runner_ws_addr *e);
/* Refuses o before a worker saw it: limit (counted and logged) or -1. */
void runner_ws_open_limit(runner_ws_open *o, int limit, const char *why);
/* workers (runner_ws_worker.c) */
int runner_ws_worker_spawn(runner_ws_pool *p, runner_ws_worker **out);
void runner_ws_worker_stop(runner_ws_worker *w, int why);
void runner_ws_worker_drain(runner_ws_worker *w);
void runner_ws_worker_timer(runner_ws_worker *w);
/* One of w's connections (or opens) ended: a draining worker left with
 * none stops. */
void runner_ws_worker_conn_gone(runner_ws_worker *w);
void runner_ws_worker_reaped(runner_ws_worker *w, int status);
void runner_ws_worker_free(runner_ws_worker *w);
/* Queues a record for w (header and payload); -1 if w is gone or full. */
int runner_ws_worker_send(runner_ws_worker *w, unsigned type, unsigned flags, uint32_t conn,
                          const void *pl, size_t len);
void runner_ws_worker_update(runner_ws_worker *w);
/* opens and connections (runner_ws_conn.c) */
void runner_ws_open_send(runner_ws_open *o, runner_ws_worker *w);
void runner_ws_open_fail(runner_ws_open *o, int outcome, unsigned retry, uint32_t pid,
                         uint32_t detail);
/* An answer for o: refusal (the response's bytes as CGI output) or accept. */
void runner_ws_open_refused(runner_ws_open *o, const cgp_wsr_refuse *r);
void runner_ws_open_accepted(runner_ws_open *o, const char *proto, size_t plen);
void runner_ws_open_free(runner_ws_open *o);
runner_ws_conn *runner_ws_conn_find(uint32_t id);
void runner_ws_conn_event(runner_ws_conn *c, uint32_t events);
/* Queues a whole message for c (framed for the module), or refs blk. */
void runner_ws_conn_message(runner_ws_conn *c, runner_ws_blk *b);
runner_ws_blk *runner_ws_blk_message(int binary, const unsigned char *d, size_t n);
void runner_ws_blk_put(runner_ws_blk *b);
/* Closes c towards the module with code and reason (WS_CLOSE), then the socket. */
void runner_ws_conn_close(runner_ws_conn *c, unsigned code, const char *reason, int tell_worker);
void runner_ws_conn_update(runner_ws_conn *c);
/* logs a line about the memory cap at most every 10 s */
void runner_ws_mem_note(const char *what);
/* Memory was given back: connections paused for ws_memory read again. */
void runner_ws_mem_check(void);

#endif
