/* runner_loop.h: the one epoll loop and the process (runner_loop.c,
 * runner_main.c): descriptor registration, the process-wide state, the
 * stop sequence. */
#ifndef RUNNER_LOOP_H
#define RUNNER_LOOP_H

#include "runner_types.h"
#include "runner_conf.h"

#define RUNNER_STOP_GRACE_MS    5000u   /* busy workers finish their request */
#define RUNNER_KILL_WAIT_MS     1000u   /* SIGKILL, then exit anyway */
#define RUNNER_LISTEN_PAUSE_MS  200u    /* after EMFILE on accept */

typedef enum runner_evkind {
    RUNNER_EV_LISTEN, RUNNER_EV_SIGNAL, RUNNER_EV_CLIENT, RUNNER_EV_WATCH,
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
