/* runner_client.h: one connection from an httpd child: its input, frames
 * and room (runner_client.c), its output and interest (runner_client_out.c). */
#ifndef RUNNER_CLIENT_H
#define RUNNER_CLIENT_H

#include "runner_types.h"
#include "runner_buf.h"
#include "runner_loop.h"
#include "cgp_proto.h"

#define RUNNER_BODY_HIGH        (256u * 1024u) /* pause client reads above this unsent body */
#define RUNNER_CIN_CAP          (2u * (CGP_HDR_LEN + CGP_MAX_PAYLOAD))
#define RUNNER_CIN_SMALL        4096u   /* the input buffer until a frame needs more */
#define RUNNER_LISTEN_PAUSE_MS  200u    /* accept's pause after EMFILE */
/* Until a connection proves the key (docs/RUNNER.md, "Unauthenticated
 * connections"): it has this long, at most this many others do too, and it
 * never makes the runner hold more than a HELLO. */
#define RUNNER_HELLO_MS         2000u
#define RUNNER_UNAUTH_MAX       256u    /* at once, fewer with few descriptors */
#define RUNNER_UNAUTH_PER_PEER  32u     /* at once from one process */

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
    int authed;               /* proved the key; until then in runner_g.unauth */
    uint64_t t_accept;        /* an unauthenticated one is closed at + RUNNER_HELLO_MS */
    unsigned char hello[CGP_HDR_LEN + CGP_HELLO_LEN]; /* the input until authed */
    unsigned char *in;        /* unparsed input: hello, then a malloc'd buffer (or NULL) */
    size_t in_len, in_cap;
    runner_buf out;           /* frames waiting for the socket */
    runner_req *req;          /* the active request, if any */
    struct runner_ws_open *ws;/* a WebSocket upgrade waiting for its answer (runner_ws.h) */
    int peer_eof, broken, closed;
    int anchor;               /* got the table: its close means the httpd child is gone */
    int corked;               /* frames wait in out until runner_client_uncork */
    uint32_t last_reqid;      /* the request that ended last here (its END sent), 0: none */
    uint64_t last_pool;       /* ...and its pool's id: a later ABORT may count a cause for it */
    unsigned last_as;         /* ...and what it was counted under (> CGP_C_MAX_: nothing) */
    TAILQ_ENTRY(runner_client) link, ulink;
};

/* The connections' room (the loop's hooks): the listener's pause, the
 * unauthenticated connections' deadline, the stop, the frees. */
extern const runner_room runner_client_room;
/* Accepts connections on fd (listening) from now on. */
void runner_client_listen(int fd);
/* Reads c's next frames once this turn's events are handled (its request
 * ended: the frames behind it may be read now). */
void runner_client_kick(runner_client *c);
void runner_client_event(runner_client *c, uint32_t events);
void runner_client_update(runner_client *c);
/* 1 if httpd child pid holds the table (an anchor connection is open). */
int runner_client_anchored(pid_t pid);
int runner_client_send(runner_client *c, unsigned type, unsigned flags, uint32_t reqid,
                       const void *data, size_t len);
/* Sets c->corked first: what one read of a worker's output yields (the
 * response and its END, say) leaves in one write, so the module sees a
 * complete response as complete. */
void runner_client_uncork(runner_client *c);
/* Sends frame type with payload pl and fds attached (SCM_RIGHTS), before
 * anything else queued on c; -1 if it cannot go whole now. */
int runner_client_send_fds(runner_client *c, unsigned type, uint32_t reqid, const void *pl,
                           size_t len, const int *fds, int nfds);
int runner_client_send_end(runner_client *c, uint32_t reqid, int outcome, unsigned retry,
                           uint32_t pid, uint32_t detail);
size_t runner_client_backlog(const runner_client *c);
/* Writes what the socket takes (broken on failure). */
void runner_client_flush(runner_client *c);
/* Its request's body is past RUNNER_BODY_HIGH in the spool: reading waits. */
int runner_client_paused(const runner_client *c);
/* The most input held: a HELLO until the key is proven, then two frames. */
size_t runner_client_in_limit(const runner_client *c);
void runner_client_close(runner_client *c);

#endif
