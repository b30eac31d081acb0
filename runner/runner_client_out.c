/* runner_client_out.c: what a module connection sends (frames, END,
 * descriptors), when it is written, and the connection's interest. The
 * request path (requests, workers, callouts, pools) writes here; it calls
 * nothing above it, so the connection's input side (runner_client.c) may
 * drive the request path without a cycle. */
#include "runner_client.h"
#include "runner_ctx.h"
#include "runner_log.h"
#include "runner_req.h"
#include "runner_worker.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

void runner_client_kick(runner_client *c)
{
    runner_ev_defer(&c->ev);
}

size_t runner_client_backlog(const runner_client *c)
{
    return cgp_buf_used(&c->out);
}

void runner_client_flush(runner_client *c)
{
    if (c->closed || c->broken || !cgp_buf_used(&c->out))
        return;
    if (runner_buf_flush(&c->out, c->ev.fd) < 0) {
        if (errno != EPIPE && errno != ECONNRESET)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2039) "write to pid %ld: %s", (long)c->pid,
                       strerror(errno));
        c->broken = 1;
        cgp_buf_reset(&c->out);
        runner_client_kick(c);
    }
}

int runner_client_send(runner_client *c, unsigned type, unsigned flags, uint32_t reqid,
                       const void *data, size_t len)
{
    unsigned char h[CGP_HDR_LEN];
    cgp_hdr hdr = { .type = (uint8_t)type, .flags = (uint16_t)flags, .reqid = reqid,
                    .len = (uint32_t)len };
    if (c->closed || c->broken)
        return -1;
    if (cgp_hdr_pack(h, &hdr) != CGP_OK) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2040) "cannot frame %s of %zu bytes",
                   cgp_type_name(type), len);
        return -1;
    }
    int was_empty = cgp_buf_used(&c->out) == 0;
    if (cgp_buf_reserve(&c->out, CGP_HDR_LEN + len) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2092) "out of memory for a connection");
        c->broken = 1;
        runner_client_kick(c);
        return -1;
    }
    cgp_buf_append(&c->out, h, CGP_HDR_LEN);
    if (len)
        cgp_buf_append(&c->out, data, len);
    if (c->req && c->req->reqid == reqid)
        c->req->t_sent = runner_g.now;
    if (was_empty && !c->corked) /* else EPOLLOUT is armed already */
        runner_client_flush(c);
    uint32_t m = c->ev.mask & ~(uint32_t)EPOLLOUT;
    runner_ev_watch(&c->ev, cgp_buf_used(&c->out) ? m | EPOLLOUT : m);
    return c->broken ? -1 : 0;
}

void runner_client_uncork(runner_client *c)
{
    c->corked = 0;
    runner_client_flush(c);
    uint32_t m = c->ev.mask & ~(uint32_t)EPOLLOUT;
    if (!c->closed)
        runner_ev_watch(&c->ev, cgp_buf_used(&c->out) ? m | EPOLLOUT : m);
}

/* Sends frame type with payload pl and fds attached: one sendmsg, before
 * anything else queued on the connection (there is nothing between
 * requests). -1 if it cannot go whole now. */
int runner_client_send_fds(runner_client *c, unsigned type, uint32_t reqid, const void *pl,
                           size_t len, const int *fds, int nfds)
{
    unsigned char hb[CGP_HDR_LEN];
    cgp_hdr h = { .type = (uint8_t)type, .reqid = reqid, .len = (uint32_t)len };
    union {
        struct cmsghdr c;
        char b[CMSG_SPACE(sizeof(int) * CGP_CHANNEL_FDS)];
    } cm;
    struct iovec iov[2] = { { hb, sizeof(hb) }, { (void *)pl, len } };
    struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

    if (c->closed || c->broken || cgp_buf_used(&c->out) || nfds > CGP_CHANNEL_FDS ||
        cgp_hdr_pack(hb, &h) != CGP_OK)
        return -1;
    memset(&cm, 0, sizeof(cm));
    if (nfds > 0) {
        mh.msg_control = cm.b;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        cm.c.cmsg_level = SOL_SOCKET;
        cm.c.cmsg_type = SCM_RIGHTS;
        cm.c.cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(&cm.c), fds, sizeof(int) * (size_t)nfds);
    }
    ssize_t n;
    do
        n = sendmsg(c->ev.fd, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    /* The descriptors went with the first byte; the rest is queued. */
    size_t done = (size_t)n;
    if (done < sizeof(hb) && cgp_buf_append(&c->out, hb + done, sizeof(hb) - done) < 0)
        return -1;
    if (done < sizeof(hb) + len) {
        size_t from = done > sizeof(hb) ? done - sizeof(hb) : 0;
        if (cgp_buf_append(&c->out, (const unsigned char *)pl + from, len - from) < 0)
            return -1;
        runner_client_update(c);
    }
    return 0;
}

int runner_client_send_end(runner_client *c, uint32_t reqid, int outcome, unsigned retry,
                           uint32_t pid, uint32_t detail)
{
    unsigned char pl[CGP_END_LEN];
    cgp_end e = { .outcome = (uint8_t)outcome, .retry_after = (uint16_t)retry, .pid = pid,
                  .detail = detail };
    cgp_end_pack(pl, &e);
    return runner_client_send(c, CGP_T_END, CGP_F_END, reqid, pl, sizeof(pl));
}

/* Body back-pressure: stop reading while too much body waits for the
 * script, unless the script itself waits for us to take its output (then
 * the body spills to the spool file instead, so nobody deadlocks). */
int runner_client_paused(const runner_client *c)
{
    const runner_req *r = c->req;
    if (!r || r->state == RUNNER_R_PARAMS || r->state == RUNNER_R_SPOOL)
        return 0;
    if (runner_spool_pending(&r->body) <= RUNNER_BODY_HIGH)
        return 0;
    /* unless the script's output waits for this connection: the module
     * then reads that first (runner_worker_out_paused) */
    return !(r->worker && cgp_buf_used(&c->out) > RUNNER_OUT_HIGH);
}

static int frame_ready(const runner_client *c)
{
    if (c->in_len < CGP_HDR_LEN)
        return 0;
    uint32_t len = cgp_get32(c->in + 12);
    return len > CGP_MAX_PAYLOAD || c->in_len - CGP_HDR_LEN >= len; /* bad length: ready to fail */
}

/* The most input held: a HELLO until the key is proven, then two frames. */
size_t runner_client_in_limit(const runner_client *c)
{
    return c->authed ? RUNNER_CIN_CAP : sizeof(c->hello);
}

void runner_client_update(runner_client *c)
{
    if (c->closed)
        return;
    uint32_t m = 0;
    int paused = runner_client_paused(c);
    if (c->state != RUNNER_C_CLOSING && !c->peer_eof && !c->broken &&
        c->in_len < runner_client_in_limit(c) && !paused)
        m |= EPOLLIN;
    if (cgp_buf_used(&c->out))
        m |= EPOLLOUT;
    runner_ev_watch(&c->ev, m);
    if (!paused && c->state != RUNNER_C_CLOSING && frame_ready(c))
        runner_client_kick(c);
}

int runner_client_anchored(pid_t pid)
{
    const runner_client *c;
    TAILQ_FOREACH(c, &runner_g.clients, link)
        if (c->anchor && !c->closed && c->pid == pid)
            return 1;
    return 0;
}
