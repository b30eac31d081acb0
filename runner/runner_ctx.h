/* runner_ctx.h: the process-wide state (runner_g): command-line settings,
 * the configuration in force, the clock of the loop turn, the stop state,
 * and the lists of the core objects (each list is walked only by the room
 * that owns it: runner_client.c, runner_pool.c and the worker files).
 * Defined in runner_loop.c; set up by runner_main.c. */
#ifndef RUNNER_CTX_H
#define RUNNER_CTX_H

#include "runner_types.h"
#include "runner_conf.h"

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

typedef enum runner_stop { RUNNER_RUN, RUNNER_STOP_DRAIN, RUNNER_STOP_TERM, RUNNER_STOP_KILL } runner_stop;

/* The process-wide state: one, static, for the runner's life. */
typedef struct runner_ctx {
    runner_opts o;
    runner_conf conf;
    int is_root;
    dev_t sock_dev;
    ino_t sock_ino;
    int sock_bound;
    int activated;            /* the socket-activated listener, -1: none */
    uint64_t now;             /* monotonic ms, updated each loop turn */
    uint64_t started;
    runner_stop stop;         /* moved on by the loop (runner_loop.c) alone */
    uint64_t stop_deadline;
    unsigned nworkers;        /* live processes of every pool */
    uint64_t next_pool_id;
    unsigned long reloads;
    struct runner_client_list clients, dead_clients;
    struct runner_client_list unauth; /* not authenticated yet, oldest first */
    unsigned nunauth, unauth_max;
    unsigned long refused;    /* connections closed before they proved the key */
    long fd_limit;            /* RLIMIT_NOFILE (raised to the hard limit at start) */
    uint64_t held;            /* PARAMS bytes of requests not on a worker (queue_memory) */
    int trim_owed;            /* held grew large: give the heap back once it is 0 */
    struct runner_pool_list pools, slot_waiters;
    struct runner_pool_list owed; /* pools whose pass_owed is set (runner_twait.c), by olink */
    struct runner_worker_list workers, dead_workers;
} runner_ctx;

extern runner_ctx runner_g;

uint64_t runner_now_ms(void);

#endif
