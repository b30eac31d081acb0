/* runner_client.h: one connection from an httpd child (runner_client.c). */
#ifndef RUNNER_CLIENT_H
#define RUNNER_CLIENT_H

#include "runner_types.h"
#include "runner_buf.h"
#include "runner_loop.h"
#include "cgp_proto.h"

#define RUNNER_BODY_HIGH        (256u * 1024u) /* pause client reads above this unsent body */
#define RUNNER_CIN_CAP          (2u * (CGP_HDR_LEN + CGP_MAX_PAYLOAD))

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
/* 1 if httpd child pid holds the table (an anchor connection is open). */
int runner_client_anchored(pid_t pid);
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

#endif
