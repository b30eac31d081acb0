/* cgiplus_ws.h: WebSocket scripts in the module (cgiplus_ws_*.c; docs/
 * DESIGN.md, "WebSocket scripts"). An upgrade to a persistent script goes
 * to a WebSocket pool over a runner connection of its own; once a worker
 * accepts it, that connection carries the messages (WS_MSG, WS_CLOSE) and
 * the module speaks RFC 6455 to the client with the shared codec
 * (cgp_ws.h). Under the event MPM an idle connection holds no thread: the
 * MPM polls the client (CONN_STATE_ASYNC_WAITIO, our process_connection
 * hook) and one thread per child (the reactor) polls the runner sockets and
 * the timers. Elsewhere (HTTP/2 streams, prefork, worker) the handler's
 * thread serves the connection until it ends. */
#ifndef CGIPLUS_WS_H
#define CGIPLUS_WS_H

#include "cgp_buf.h"
#include "cgiplus_conf.h"
#include "cgiplus_req.h"
#include "cgp_ws.h"
#include "cgp_wsr.h"

#include <pthread.h>

/* Effective values (the table's CGIplusWebSocket* rows, defaults applied);
 * times in apr_time_t, 0: none. Filled from the request's directory, then
 * copied into its connection. */
typedef struct cgiplus_ws_limits {
    apr_size_t max_message, send_queue;
    int overflow;             /* CGP_WS_OV_* */
    apr_interval_time_t ping, idle, msg_timeout, close_wait;
    apr_uint32_t rate;
} cgiplus_ws_limits;

/* ---- the upgrade (cgiplus_ws_open.c) ---- */
/* 1 if q's request asks for a WebSocket (any Upgrade: websocket) in a
 * scope that serves them (CGIplusWebSocket, persistent workers, no
 * engine): the handler gives it to cgiplus_ws_serve. */
int cgiplus_ws_wanted(const cgiplus_req *q, const cgiplus_dir_conf *dc);
/* Checks the handshake, then runs q's table with the handler's actions
 * (acts) and this room's wait and upgrade: hands it to a worker through
 * the relay, answers 101 (200 on HTTP/2) or the worker's refusal, and
 * serves the connection (or hands it to the reactor). Returns what the
 * handler returns (DONE once upgraded). */
int cgiplus_ws_serve(cgiplus_req *q, cgiplus_dir_conf *dc, const cgiplus_ractions *acts);

/* ---- one connection (cgiplus_ws_conn.c) ---- */

typedef enum { CGIPLUS_WS_OPEN, CGIPLUS_WS_CLOSING, CGIPLUS_WS_DONE } cgiplus_ws_state;

/* One accepted connection. malloc'd when the upgrade is accepted; owned by
 * the thread serving it (sync), or by the reactor once the client's
 * connection is closed (async: freed there). Its client side, c, is the
 * MPM's: NULL once the MPM closes it. */
typedef struct cgiplus_ws {
    pthread_mutex_t mtx;      /* async: the MPM's thread and the reactor take turns */
    conn_rec *c;
    server_rec *s;            /* the request's (for log lines) */
    char script[256];         /* for log lines */
    char addr[64];
    cgiplus_ws_limits lim;
    int h2;                   /* an HTTP/2 stream: written with FLUSH, by its own thread */
    int rfd;                  /* the runner connection, non-blocking; -1: closed */
    int cfd;                  /* the client socket (HTTP/1.x), for POLLOUT */
    apr_uint32_t id;          /* the runner's, for log lines */
    apr_bucket_brigade *bb;   /* scratch for the client's filters, in c->pool */
    cgp_ws_parser parser;
    cgiplus_ws_state state;
    /* client -> runner */
    cgp_buf to_runner;        /* freed whenever it empties (buf_eat) */
    int msg_open;             /* a client message is half passed on */
    apr_time_t msg_t0;        /* when it began */
    apr_uint64_t rate_at;     /* message rate (GCRA, in us) */
    int read_paused;          /* the runner takes no more: the client is not read */
    /* runner -> client */
    unsigned char rhdr[CGP_HDR_LEN];
    apr_size_t rhlen;         /* header bytes read */
    apr_uint32_t rleft;       /* payload bytes of the current frame still due */
    int rtype, rfirst, rmsg_open, rdrop, rkind_due;
    int rstarted;             /* a frame of the current message went to to_client */
    unsigned rkind;           /* its kind (CGP_WS_KIND_*) */
    apr_uint32_t rflags;
    unsigned char rctl[CGP_WSR_CLOSE_MAX];
    apr_size_t rctl_len;
    cgp_buf to_client;        /* freed whenever it empties (buf_eat) */
    apr_time_t q_t0;          /* since when to_client has not emptied */
    /* the close handshake and timers */
    int close_sent, close_rcvd, runner_told, client_gone, runner_gone;
    unsigned close_code;      /* what we sent */
    apr_time_t last_in;       /* anything from the client (pings are due after it) */
    apr_time_t last_msg;      /* a message either way (the idle timeout) */
    apr_time_t ping_at, close_at;
    int ping_out;
    /* the reactor's (cgiplus_ws_async.c) */
    unsigned armed_r, armed_c;/* what epoll watches of rfd and cfd */
    int mpm_busy;             /* async: the handler or the MPM has the client, not us */
    int shut;                 /* async: the read side is shut so that the MPM ends it */
    struct cgiplus_ws *next, *prev; /* the reactor's live or dead list */
} cgiplus_ws;

/* A fresh connection: runner socket rfd (taken), the request's settings. */
cgiplus_ws *cgiplus_ws_new(request_rec *r, int rfd, const cgiplus_ws_limits *lim,
                           apr_uint32_t id);
void cgiplus_ws_free(cgiplus_ws *w);
/* Steps, with w's mutex held (async); each does what it can without
 * blocking. */
void cgiplus_ws_client_read(cgiplus_ws *w);
void cgiplus_ws_client_flush(cgiplus_ws *w);
void cgiplus_ws_runner_read(cgiplus_ws *w);
void cgiplus_ws_runner_flush(cgiplus_ws *w);
/* Timers: pings, idle, message and close timeouts. */
void cgiplus_ws_tick(cgiplus_ws *w, apr_time_t now);
/* All of the above that is due. */
void cgiplus_ws_pump(cgiplus_ws *w);
/* The client's connection is being closed by the MPM (or the handler is
 * done): the runner is told and its socket closed; c is not touched again. */
void cgiplus_ws_detach(cgiplus_ws *w);
/* 1 when the output to the client waits for the socket. */
int cgiplus_ws_client_blocked(const cgiplus_ws *w);
/* Serves w in this thread until it ends (HTTP/2, prefork, worker). */
void cgiplus_ws_run_sync(cgiplus_ws *w);

/* ---- the event MPM (cgiplus_ws_async.c) ---- */
void cgiplus_ws_child_init(apr_pool_t *pchild, server_rec *s);
/* 1 if this child can hold connections without a thread (event MPM). */
int cgiplus_ws_async_ok(void);
/* Hands w to the reactor; the handler then returns and the MPM polls the
 * client (our process_connection hook reads it). */
void cgiplus_ws_async_start(cgiplus_ws *w, request_rec *r);
int cgiplus_ws_process_connection(conn_rec *c);
int cgiplus_ws_pre_close(conn_rec *c);
void cgiplus_ws_suspended(conn_rec *c, request_rec *r);

#endif
