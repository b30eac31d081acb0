/* runner_ws_conn.c: an upgrade on its module connection (BEGIN with mode
 * websocket, PARAMS, an empty STDIN) until a worker answers it, then the
 * accepted connection: WS_MSG frames gathered into MESSAGE records for the
 * worker, the worker's messages framed for the module (a broadcast once
 * for all), bounded queues, and the close in both directions. */
#include "runner_ws.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* ------------------------------------------------------------ BEGIN */

void runner_ws_begin(runner_client *c, uint32_t reqid, uint32_t httpd_gen, const char *script,
                     size_t slen, const runner_set_over *over, const char *uri, size_t ulen)
{
    runner_ws_open *o;
    runner_ws_pool *p;
    int err = 0;

    if (!(p = runner_ws_pool_get(script, slen, over, httpd_gen, &err))) {
        if (err == EPERM)
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2822) "WebSocket upgrade %u for %.*s names "
                       "a user the runner may not run scripts as; refused", reqid,
                       (int)(slen > 200 ? 200 : slen), script);
        runner_client_send_end(c, reqid, err == EPERM ? CGP_O_NOT_FOUND : CGP_O_SPAWN_FAILED,
                               err == EPERM ? 0 : 1, 0, (uint32_t)err);
        return;
    }
    if (!(o = calloc(1, sizeof(*o)))) {
        runner_client_send_end(c, reqid, CGP_O_SPAWN_FAILED, 1, 0, ENOMEM);
        return;
    }
    o->c = c;
    o->reqid = reqid;
    o->pool = p;
    snprintf(o->uri, sizeof(o->uri), "%.*s", (int)(ulen > 255 ? 255 : ulen), uri);
    c->ws = o;
}

static runner_ev_fn on_conn;

int runner_ws_open_step(runner_ws_open *o, runner_ws_oevent ev)
{
    unsigned to = runner_ws_onext(o->state, ev);
    if (to == 0xff)
        return 0;
    o->state = (runner_ws_ostate)to;
    return 1;
}

/* PARAMS: checked kv lists, REMOTE_ADDR kept for the per-address limit. */
static int add_params(runner_ws_open *o, const unsigned char *pl, size_t len)
{
    const char *n, *v;
    size_t nl, vl, off = 0;
    int rc;
    if (cgp_buf_used(&o->params) + len > CGP_MAX_PARAMS)
        return -1;
    while ((rc = cgp_kv_next(pl, len, &off, &n, &nl, &v, &vl)) == 1)
        if (nl == 11 && !memcmp(n, "REMOTE_ADDR", 11) && vl <= RUNNER_WS_ADDR_MAX) {
            memcpy(o->addr, v, vl);
            o->addr[vl] = '\0';
        }
    return rc == 0 ? cgp_buf_append(&o->params, pl, len) : -1;
}

void runner_ws_frame(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    runner_ws_open *o = c->ws;
    if (h->reqid != o->reqid) /* frames of a request already answered */
        return;
    switch (h->type) {
    case CGP_T_PARAMS:
        if (o->params_done || add_params(o, pl, h->len) < 0) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2821) "bad WebSocket upgrade %u from pid "
                       "%ld: %s", o->reqid, (long)c->pid, "PARAMS after the last, or malformed");
            runner_ws_open_fail(o, CGP_O_BAD_REQUEST, 0, 0, 0);
            return;
        }
        o->params_done = (h->flags & CGP_F_END) != 0;
        return;
    case CGP_T_STDIN:
        /* An upgrade has no body: one empty STDIN with END after the PARAMS. */
        if (h->len || !(h->flags & CGP_F_END) || !o->params_done ||
            o->state != RUNNER_WS_O_PARAMS) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2828) "bad WebSocket upgrade %u from pid "
                       "%ld: %s", o->reqid, (long)c->pid, "a body, or STDIN before the PARAMS");
            runner_ws_open_fail(o, CGP_O_BAD_REQUEST, 0, 0, 0);
            return;
        }
        runner_ws_pool_submit(o);
        return;
    case CGP_T_ABORT:
        runner_ws_open_fail(o, CGP_O_ABORTED, 0, 0, 0);
        return;
    default:
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2829) "bad WebSocket upgrade %u from pid %ld: "
                   "%s", o->reqid, (long)c->pid, "a frame an upgrade does not take");
        c->broken = 1;
    }
}

/* ------------------------------------------------------------ the open's answer */

void runner_ws_open_free(runner_ws_open *o)
{
    runner_ws_pool *p = o->pool;
    if (o->c)
        o->c->ws = NULL;
    if (o->state == RUNNER_WS_O_QUEUED) {
        TAILQ_REMOVE(&p->queue, o, link);
        p->qlen--;
    } else if (o->state == RUNNER_WS_O_SENT && o->w) {
        TAILQ_REMOVE(&o->w->sent, o, link);
        o->w->nsent--;
        runner_ws_worker_conn_gone(o->w);
    }
    runner_ws_addr_put(o->a);
    cgp_buf_free(&o->params);
    free(o);
}

/* A CGI response for the module to answer (the 501 of a script that does
 * not speak WebSocket, a limit's refusal): STDOUT frames, then END. */
static void answer(runner_client *c, uint32_t reqid, const char *head, const unsigned char *body,
                   size_t blen)
{
    size_t hl = strlen(head);
    c->corked = 1; /* one write: the module sees the whole answer at once */
    runner_client_send(c, CGP_T_STDOUT, 0, reqid, head, hl);
    while (blen) {
        size_t k = blen > CGP_MAX_PAYLOAD ? CGP_MAX_PAYLOAD : blen;
        runner_client_send(c, CGP_T_STDOUT, 0, reqid, body, k);
        body += k;
        blen -= k;
    }
    runner_client_send_end(c, reqid, CGP_O_OK, 0, 0, 0);
    runner_client_uncork(c);
}

void runner_ws_open_fail(runner_ws_open *o, int outcome, unsigned retry, uint32_t pid,
                         uint32_t detail)
{
    runner_client *c = o->c;
    if (c && outcome == -1) {
        static const char msg[] = "This script does not speak WebSocket.\n";
        answer(c, o->reqid, "Status: 501 Not Implemented\r\nContent-Type: text/plain\r\n\r\n",
               (const unsigned char *)msg, sizeof(msg) - 1);
        o->pool->refused++;
    } else if (c && outcome != CGP_O_ABORTED) {
        runner_client_send_end(c, o->reqid, outcome, retry, pid, detail);
        o->pool->failed++;
    } else if (c) {
        runner_client_send_end(c, o->reqid, CGP_O_ABORTED, 0, 0, 0);
    }
    runner_ws_open_free(o);
}

void runner_ws_open_limit(runner_ws_open *o, int limit, const char *why)
{
    runner_ws_pool *p = o->pool;
    p->limited[limit]++;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2823) "WebSocket upgrade %s from %s refused by %s "
               "(pool #%llu of %s: %u connections, %u waiting)", o->uri,
               o->addr[0] ? o->addr : "?", why, (unsigned long long)p->id, p->script, p->nconns,
               p->qlen);
    if (limit == RUNNER_WS_L_ADDR && o->c) {
        static const char msg[] = "Too many WebSocket connections from this address.\n";
        answer(o->c, o->reqid, "Status: 429 Too Many Requests\r\nRetry-After: 5\r\n"
               "Content-Type: text/plain\r\n\r\n", (const unsigned char *)msg, sizeof(msg) - 1);
        runner_ws_open_free(o);
        return;
    }
    static const uint32_t why_of[RUNNER_WS_L_N_] = {
        [RUNNER_WS_L_POOL] = CGP_OVL_WS_CONNS, [RUNNER_WS_L_ADDR] = CGP_OVL_WS_CONNS,
        [RUNNER_WS_L_MEMORY] = CGP_OVL_WS_MEMORY, [RUNNER_WS_L_QUEUE] = CGP_OVL_WS_QUEUE,
        [RUNNER_WS_L_WAIT] = CGP_OVL_WS_WAIT, [RUNNER_WS_L_NO_WORKER] = CGP_OVL_WS_NO_WORKER,
    };
    /* the cause in END's detail: the module's 503 line names it (1061);
     * a worker of another pool may end any moment, so no worker: 1 s */
    runner_ws_open_fail(o, CGP_O_OVERLOADED, limit == RUNNER_WS_L_NO_WORKER ? 1 : 5, 0,
                        why_of[limit]);
}

/* A fresh id: never 0, never one in use. */
static uint32_t new_id(void)
{
    for (;;) {
        uint32_t id = runner_ws_g.next_id++;
        if (id && !runner_ws_conn_find(id))
            return id;
    }
}

void runner_ws_open_send(runner_ws_open *o, runner_ws_worker *w)
{
    unsigned char st[CGP_STARTED_LEN];
    cgp_started s = { .pid = (uint32_t)w->pid };
    o->id = new_id();
    o->w = w;
    runner_ws_open_step(o, RUNNER_WS_OE_SEND);
    /* answered 504 before httpd's Timeout ends the module's wait */
    o->deadline = runner_g.now + (runner_g.conf.v[CGP_S_HTTP_TIMEOUT] > 2000
                                  ? runner_g.conf.v[CGP_S_HTTP_TIMEOUT] - 1000 : 1000);
    TAILQ_INSERT_TAIL(&w->sent, o, link);
    w->nsent++;
    cgp_started_pack(st, &s);
    runner_client_send(o->c, CGP_T_STARTED, 0, o->reqid, st, sizeof(st));
    if (runner_ws_worker_send(w, CGP_WSR_OPEN, 0, o->id, o->params.p + o->params.off,
                              cgp_buf_used(&o->params)) < 0)
        runner_ws_open_fail(o, CGP_O_CRASHED, 1, (uint32_t)w->pid, 0);
    else
        cgp_buf_free(&o->params);
}

void runner_ws_open_refused(runner_ws_open *o, const cgp_wsr_refuse *r)
{
    runner_buf head = { 0 };
    size_t off = 0, nl, vl;
    const char *n, *v;
    o->pool->refused++;
    runner_buf_printf(&head, "Status: %u\r\n", r->status);
    while (cgp_wsr_refuse_next(r, &off, &n, &nl, &v, &vl))
        runner_buf_printf(&head, "%.*s: %.*s\r\n", (int)nl, n, (int)vl, v);
    cgp_buf_append(&head, "\r\n", 3); /* with its NUL */
    if (o->c && head.p)
        answer(o->c, o->reqid, (const char *)head.p, r->body, r->blen);
    cgp_buf_free(&head);
    runner_ws_open_free(o);
}

/* ------------------------------------------------------------ accepted connections */

static unsigned bucket(uint32_t id)
{
    return (id * 2654435761u) % RUNNER_WS_HASH;
}

runner_ws_conn *runner_ws_conn_find(uint32_t id)
{
    runner_ws_conn *c;
    for (c = runner_ws_g.hash[bucket(id)]; c; c = c->hnext)
        if (c->id == id)
            return c;
    return NULL;
}

static void unhash(runner_ws_conn *c)
{
    runner_ws_conn **pp;
    for (pp = &runner_ws_g.hash[bucket(c->id)]; *pp; pp = &(*pp)->hnext)
        if (*pp == c) {
            *pp = c->hnext;
            return;
        }
}

runner_ws_blk *runner_ws_blk_message(int binary, const unsigned char *d, size_t n)
{
    /* framed for the module: WS_MSG frames of at most 64 KiB - 1 bytes of
     * message each (with the kind byte, a frame's payload cap) */
    size_t per = CGP_MAX_PAYLOAD - 1, frames = n ? (n + per - 1) / per : 1;
    size_t len = n + frames * (CGP_HDR_LEN + 1), off = 0;
    runner_ws_blk *b;

    if (runner_ws_g.mem + len > RUNNER_WS_MEMORY) {
        runner_ws_mem_note("a message was dropped");
        return NULL;
    }
    if (!(b = malloc(sizeof(*b) + len)))
        return NULL;
    b->refs = 1;
    b->len = len;
    b->msg = n;
    for (size_t i = 0; i < frames; i++) {
        size_t k = n - i * per < per ? n - i * per : per;
        cgp_hdr h = { .type = CGP_T_WS_MSG, .flags = i + 1 == frames ? CGP_F_END : 0,
                      .reqid = 0, .len = (uint32_t)(k + 1) };
        cgp_hdr_pack(b->data + off, &h);
        b->data[off + CGP_HDR_LEN] = binary ? CGP_WS_KIND_BINARY : CGP_WS_KIND_TEXT;
        if (k)
            memcpy(b->data + off + CGP_HDR_LEN + 1, d + i * per, k);
        off += CGP_HDR_LEN + 1 + k;
    }
    runner_ws_g.mem += len;
    return b;
}

void runner_ws_blk_put(runner_ws_blk *b)
{
    if (--b->refs)
        return;
    runner_ws_g.mem -= b->len;
    free(b);
    runner_ws_mem_check();
}

void runner_ws_mem_note(const char *what)
{
    if (runner_g.now - runner_ws_g.mem_said < 10000 && runner_ws_g.mem_said)
        return;
    runner_ws_g.mem_said = runner_g.now;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2824) "WebSocket buffers at ws_memory (%llu of "
               "%llu bytes): %s (said at most every 10 s)", (unsigned long long)runner_ws_g.mem,
               (unsigned long long)RUNNER_WS_MEMORY, what);
}

static void conn_flush(runner_ws_conn *c)
{
    struct iovec iov[32];
    runner_ws_ref *r;
    int n = 0;
    if (c->closed || c->ev.fd < 0)
        return;
    while (!TAILQ_EMPTY(&c->outq)) {
        n = 0;
        TAILQ_FOREACH(r, &c->outq, link) {
            iov[n].iov_base = r->b->data + r->off;
            iov[n].iov_len = r->b->len - r->off;
            if (++n == (int)(sizeof(iov) / sizeof(iov[0])))
                break;
        }
        ssize_t w = writev(c->ev.fd, iov, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                c->peer_eof = 1; /* gone: the read side finds out */
            return;
        }
        size_t left = (size_t)w;
        while (left && (r = TAILQ_FIRST(&c->outq))) {
            size_t k = r->b->len - r->off;
            if (k > left) {
                r->off += left;
                c->out_bytes -= left;
                break;
            }
            left -= k;
            c->out_bytes -= k;
            TAILQ_REMOVE(&c->outq, r, link);
            runner_ws_blk_put(r->b);
            free(r);
        }
    }
}

/* Past ws_memory nothing more is read from the modules (their clients
 * wait, TCP holds them back); reading resumes below three quarters. */
static int mem_full(void)
{
    if (runner_ws_g.mem >= RUNNER_WS_MEMORY && !runner_ws_g.mem_paused) {
        runner_ws_g.mem_paused = 1;
        runner_ws_mem_note("reading clients' messages waits");
    }
    return runner_ws_g.mem_paused;
}

void runner_ws_mem_check(void)
{
    runner_ws_pool *p;
    runner_ws_worker *w;
    runner_ws_conn *c;
    if (!runner_ws_g.mem_paused || runner_ws_g.mem > RUNNER_WS_MEMORY / 4 * 3)
        return;
    runner_ws_g.mem_paused = 0;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link)
        TAILQ_FOREACH(w, &p->workers, link)
            TAILQ_FOREACH(c, &w->conns, wlink)
                runner_ws_conn_update(c);
}

void runner_ws_conn_update(runner_ws_conn *c)
{
    if (c->ev.fd < 0)
        return;
    uint32_t m = 0;
    if (!c->peer_eof && !(c->w && c->w->paused) && !mem_full())
        m |= EPOLLIN;
    if (!TAILQ_EMPTY(&c->outq))
        m |= EPOLLOUT;
    runner_ev_watch(&c->ev, m);
}

static int queue_blk(runner_ws_conn *c, runner_ws_blk *b)
{
    runner_ws_ref *r = malloc(sizeof(*r));
    if (!r)
        return -1;
    r->b = b;
    r->off = 0;
    b->refs++;
    int was_empty = TAILQ_EMPTY(&c->outq);
    TAILQ_INSERT_TAIL(&c->outq, r, link);
    c->out_bytes += b->len;
    if (was_empty)
        conn_flush(c);
    runner_ws_conn_update(c);
    return 0;
}

/* c leaves its worker (and its pool's count). */
static void conn_detach(runner_ws_conn *c)
{
    runner_ws_worker *w = c->w;
    if (!w)
        return;
    TAILQ_REMOVE(&w->conns, c, wlink);
    w->nconns--;
    w->pool->nconns--;
    w->pool->closed++;
    w->pool->use.last_used = runner_g.now; /* a room whose last member left stays warm a while */
    c->w = NULL;
    runner_ws_worker_conn_gone(w);
}

/* Frees c once nothing refers to it: the end of the turn buries it. */
static void conn_free(runner_ws_conn *c)
{
    runner_ws_ref *r;
    if (c->closed)
        return;
    c->closed = 1;
    runner_ev_close(&c->ev);
    unhash(c);
    conn_detach(c);
    runner_ws_addr_put(c->addr);
    c->addr = NULL;
    while ((r = TAILQ_FIRST(&c->outq))) {
        TAILQ_REMOVE(&c->outq, r, link);
        runner_ws_blk_put(r->b);
        free(r);
    }
    c->out_bytes = 0;
    runner_ws_g.mem -= cgp_buf_used(&c->msg);
    cgp_buf_free(&c->msg);
    cgp_buf_free(&c->in);
    TAILQ_INSERT_TAIL(&runner_ws_g.dead_conns, c, wlink);
}

/* The connection is over: its worker hears CLOSED once, with code. */
static void conn_end(runner_ws_conn *c, unsigned code, const char *reason, size_t rlen)
{
    if (c->closed)
        return;
    if (c->w) {
        unsigned char cl[CGP_WSR_CLOSE_MAX];
        int n = cgp_wsr_close_pack(cl, code, reason, rlen, 1);
        if (n < 0)
            n = cgp_wsr_close_pack(cl, CGP_WS_ABNORMAL, "", 0, 1);
        runner_ws_worker_send(c->w, CGP_WSR_CLOSED, 0, c->id, cl, (size_t)n);
    }
    runner_ws_g.nconns--;
    conn_free(c);
}

void runner_ws_conn_close(runner_ws_conn *c, unsigned code, const char *reason, int tell_worker)
{
    unsigned char pl[CGP_WSR_CLOSE_MAX];
    runner_ws_blk *b;
    int n;
    if (c->closed)
        return;
    if (!tell_worker)
        conn_detach(c); /* the worker is gone: nobody hears its CLOSED */
    if (c->closing)
        return;
    c->closing = 1;
    if ((n = cgp_wsr_close_pack(pl, code, reason, strlen(reason), 0)) < 0)
        n = cgp_wsr_close_pack(pl, CGP_WS_INTERNAL, "", 0, 0);
    if (!(b = malloc(sizeof(*b) + CGP_HDR_LEN + (size_t)n)))
        return;
    cgp_hdr h = { .type = CGP_T_WS_CLOSE, .len = (uint32_t)n };
    cgp_hdr_pack(b->data, &h);
    memcpy(b->data + CGP_HDR_LEN, pl, (size_t)n);
    b->refs = 1;
    b->msg = 0;
    b->len = CGP_HDR_LEN + (size_t)n;
    runner_ws_g.mem += b->len;
    queue_blk(c, b);
    runner_ws_blk_put(b);
}

void runner_ws_conn_message(runner_ws_conn *c, runner_ws_blk *b)
{
    runner_ws_pool *p = c->w ? c->w->pool : NULL;
    if (c->closed || c->closing || !p)
        return;
    uint64_t queue = p->set.v[CGP_S_WS_QUEUE], ov = p->set.v[CGP_S_WS_OVERFLOW];
    if (c->out_bytes && c->out_bytes + b->len > queue) { /* one message always fits */
        /* The module does not take what it is sent (its child is stuck):
         * as its own queue does, drop the message or close. */
        p->dropped++;
        if (ov == CGP_WS_OV_DROP)
            return;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2825) "WebSocket connection %lu of %s: %zu "
                   "bytes wait for the module (ws_queue %llu); closing it with %u",
                   (unsigned long)c->id, p->script, c->out_bytes,
                   (unsigned long long)queue, ov == CGP_WS_OV_1011 ? 1011u : 1008u);
        runner_ws_conn_close(c, ov == CGP_WS_OV_1011 ? CGP_WS_INTERNAL
                             : CGP_WS_POLICY, "send queue full", 1);
        return;
    }
    if (queue_blk(c, b) == 0) {
        c->msgs_out++;
        c->w->msgs_out++;
        p->msgs_out++;
        p->bytes_out += b->msg;
    }
}

void runner_ws_open_accepted(runner_ws_open *o, const char *proto, size_t plen)
{
    runner_client *cl = o->c;
    runner_ws_worker *w = o->w;
    runner_ws_pool *p = o->pool;
    unsigned char ab[CGP_WS_ACCEPT_MAX];
    cgp_ws_accept_msg am = { .conn = o->id, .pid = (uint32_t)w->pid, .proto = proto,
                             .plen = plen };
    runner_ws_conn *c;
    int n = cgp_ws_accept_pack(ab, &am);

    if (n < 0 || !cl || !(c = calloc(1, sizeof(*c)))) {
        runner_ws_open_fail(o, CGP_O_SPAWN_FAILED, 1, (uint32_t)w->pid, 0);
        return;
    }
    runner_client_send(cl, CGP_T_WS_ACCEPT, 0, o->reqid, ab, (size_t)n);
    runner_client_send_end(cl, o->reqid, CGP_O_OK, 0, (uint32_t)w->pid, 0);
    /* The module connection is the client's no more: its socket (and
     * what it could not write yet) become the connection's. */
    c->id = o->id;
    c->w = w;
    c->addr = o->a;
    o->a = NULL;
    TAILQ_INIT(&c->outq);
    runner_ev_watch(&cl->ev, 0);
    runner_ev_init(&c->ev, on_conn, cl->ev.fd, c);
    /* The client room closes what is left of it (now broken, its socket
     * gone) once this turn's events are handled. */
    cl->broken = 1;
    runner_client_kick(cl);
    cl->ev.fd = -1;
    if (cgp_buf_used(&cl->out)) {
        runner_ws_blk *b = malloc(sizeof(*b) + cgp_buf_used(&cl->out));
        if (b) {
            b->refs = 1;
            b->msg = 0;
            b->len = cgp_buf_used(&cl->out);
            memcpy(b->data, cl->out.p + cl->out.off, b->len);
            runner_ws_g.mem += b->len;
            queue_blk(c, b);
            runner_ws_blk_put(b);
        }
    }
    if (cl->in_len)
        cgp_buf_append(&c->in, cl->in, cl->in_len);
    cl->in_len = 0;
    cgp_buf_reset(&cl->out);
    o->c = NULL;
    cl->ws = NULL;

    c->hnext = runner_ws_g.hash[bucket(c->id)];
    runner_ws_g.hash[bucket(c->id)] = c;
    TAILQ_INSERT_TAIL(&w->conns, c, wlink);
    w->nconns++;
    p->nconns++;
    p->accepted++;
    runner_ws_g.nconns++;
    runner_ws_open_free(o);
    runner_ws_conn_update(c);
    if (cgp_buf_used(&c->in))
        runner_ws_conn_event(c, EPOLLIN);
}

/* ------------------------------------------------------------ frames from the module */

static void conn_frame(runner_ws_conn *c, const cgp_hdr *h, const unsigned char *pl)
{
    runner_ws_pool *p = c->w ? c->w->pool : NULL;
    unsigned code;
    const char *reason;
    size_t rlen;

    switch (h->type) {
    case CGP_T_WS_MSG:
        if (!h->len || (pl[0] != CGP_WS_KIND_TEXT && pl[0] != CGP_WS_KIND_BINARY) ||
            (c->msg_kind && c->msg_kind != pl[0]))
            goto bad;
        if (!p || c->closing)
            return; /* nobody takes it any more */
        c->msg_kind = pl[0];
        if (cgp_buf_used(&c->msg) + h->len - 1 > p->set.v[CGP_S_WS_MAX_MESSAGE])
            goto bad; /* the module caps it first */
        if (h->len > 1) {
            if (cgp_buf_append(&c->msg, pl + 1, h->len - 1) < 0)
                goto bad; /* out of memory: the message cannot be whole */
            runner_ws_g.mem += h->len - 1;
        }
        if (!(h->flags & CGP_F_END))
            return;
        {
            size_t n = cgp_buf_used(&c->msg);
            int bin = c->msg_kind == CGP_WS_KIND_BINARY;
            if (!bin && !cgp_utf8_valid(c->msg.p + c->msg.off, n))
                goto bad; /* the module validated it */
            runner_ws_worker_send(c->w, CGP_WSR_MESSAGE, bin ? CGP_WSR_F_BINARY : 0, c->id,
                                  c->msg.p + c->msg.off, n);
            runner_ws_g.mem -= n;
            cgp_buf_free(&c->msg);
            c->msg_kind = 0;
            c->msgs_in++;
            c->w->msgs_in++;
            p->msgs_in++;
            p->bytes_in += n;
        }
        return;
    case CGP_T_WS_CLOSE:
        if (cgp_wsr_close_unpack(pl, h->len, 1, &code, &reason, &rlen) != CGP_OK)
            goto bad;
        conn_end(c, code, reason, rlen);
        return;
    default:
        break;
    }
bad:
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2826) "protocol error on WebSocket connection %lu "
               "(%s frame, %lu bytes); closing it", (unsigned long)c->id, cgp_type_name(h->type),
               (unsigned long)h->len);
    conn_end(c, CGP_WS_ABNORMAL, "", 0);
}

static void conn_read(runner_ws_conn *c)
{
    for (int turn = 0; turn < 4 && !c->closed && !c->peer_eof; turn++) {
        if ((c->w && c->w->paused) || mem_full())
            break;
        if (cgp_buf_reserve(&c->in, RUNNER_WS_READ) < 0)
            break;
        ssize_t n = read(c->ev.fd, c->in.p + c->in.len, RUNNER_WS_READ);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            c->peer_eof = 1;
            break;
        }
        c->in.len += (size_t)n;
        if ((size_t)n < RUNNER_WS_READ)
            break;
    }
}

void runner_ws_conn_event(runner_ws_conn *c, uint32_t events)
{
    if (events & EPOLLOUT)
        conn_flush(c);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        conn_read(c);
    while (!c->closed) {
        cgp_hdr h;
        size_t have = cgp_buf_used(&c->in);
        const unsigned char *d = c->in.p + c->in.off;
        if (have < CGP_HDR_LEN)
            break;
        if (cgp_hdr_unpack(d, &h) != CGP_OK) {
            /* its length is not to be trusted: not logged */
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2830) "protocol error on WebSocket "
                       "connection %lu (a %s frame whose header does not unpack: bad magic "
                       "or version); closing it", (unsigned long)c->id, cgp_type_name(d[3]));
            conn_end(c, CGP_WS_ABNORMAL, "", 0);
            return;
        }
        if (have - CGP_HDR_LEN < h.len)
            break;
        /* consumed after: consuming the last bytes may free the buffer */
        conn_frame(c, &h, d + CGP_HDR_LEN);
        if (c->closed)
            return;
        cgp_buf_consume(&c->in, CGP_HDR_LEN + h.len);
    }
    if (c->closed)
        return;
    if (!cgp_buf_used(&c->in))
        cgp_buf_free(&c->in); /* an idle connection holds no buffer */
    if (c->peer_eof) {
        /* the module went away without a WS_CLOSE: the connection dropped */
        conn_end(c, CGP_WS_ABNORMAL, "", 0);
        return;
    }
    runner_ws_conn_update(c);
}

static void on_conn(runner_ev *ev, uint32_t events)
{
    runner_ws_conn_event(ev->obj, events);
}

/* ------------------------------------------------------------ the loop's hooks */

void runner_ws_client_gone(runner_client *c)
{
    runner_ws_open *o = c->ws;
    o->c = NULL;
    c->ws = NULL;
    runner_ws_open_free(o);
}

void runner_ws_bury(void)
{
    runner_ws_conn *c;
    runner_ws_worker *w;
    while ((c = TAILQ_FIRST(&runner_ws_g.dead_conns))) {
        TAILQ_REMOVE(&runner_ws_g.dead_conns, c, wlink);
        free(c);
    }
    while ((w = TAILQ_FIRST(&runner_ws_g.dead_workers))) {
        TAILQ_REMOVE(&runner_ws_g.dead_workers, w, link);
        runner_ws_worker_free(w);
    }
    runner_ws_pool_gc();
}
