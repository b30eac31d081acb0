/* runner_client.c: one module connection: HELLO, then requests one after
 * another (BEGIN, PARAMS..., STDIN...), answers framed with the codec. */
#include "runner.h"
#include "runner_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

void runner_client_accept(int lfd)
{
    for (int i = 0; i < 64; i++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2034) "accept on %s: %s",
                       runner_g.o.socket_path, strerror(errno));
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                runner_loop_pause_listener();
            return;
        }
        struct ucred cr;
        socklen_t cl = sizeof(cr);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2035) "SO_PEERCRED: %s", strerror(errno));
            close(fd);
            continue;
        }
        if (cr.uid != geteuid() && !(runner_g.o.have_user && cr.uid == runner_g.o.uid)) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2036) "refused a connection from uid %ld "
                       "(pid %ld): only uid %ld%s may connect", (long)cr.uid, (long)cr.pid,
                       (long)(runner_g.o.have_user ? runner_g.o.uid : geteuid()),
                       runner_g.o.have_user ? " and our own" : "");
            close(fd);
            continue;
        }
        runner_client *c = calloc(1, sizeof(*c));
        if (!c || !(c->in = malloc(RUNNER_CIN_CAP))) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2037) "out of memory for a connection");
            free(c);
            close(fd);
            return;
        }
        runner_ev_init(&c->ev, RUNNER_EV_CLIENT, fd, c);
        c->uid = cr.uid;
        c->pid = cr.pid;
        c->state = RUNNER_C_HELLO;
        TAILQ_INSERT_TAIL(&runner_g.clients, c, link);
        runner_ev_watch(&c->ev, EPOLLIN);
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2038) "connection from pid %ld uid %ld",
                   (long)cr.pid, (long)cr.uid);
    }
}

size_t runner_client_backlog(const runner_client *c)
{
    return runner_buf_used(&c->out);
}

static void client_flush(runner_client *c)
{
    if (c->closed || c->broken || !runner_buf_used(&c->out))
        return;
    if (runner_buf_flush(&c->out, c->ev.fd) < 0) {
        if (errno != EPIPE && errno != ECONNRESET)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2039) "write to pid %ld: %s", (long)c->pid,
                       strerror(errno));
        c->broken = 1;
        runner_buf_reset(&c->out);
        runner_loop_kick(c);
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
    int was_empty = runner_buf_used(&c->out) == 0;
    if (runner_buf_reserve(&c->out, CGP_HDR_LEN + len) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2037) "out of memory for a connection");
        c->broken = 1;
        runner_loop_kick(c);
        return -1;
    }
    runner_buf_append(&c->out, h, CGP_HDR_LEN);
    if (len)
        runner_buf_append(&c->out, data, len);
    if (c->req && c->req->reqid == reqid)
        c->req->t_sent = runner_g.now;
    if (was_empty && !c->corked) /* else EPOLLOUT is armed already */
        client_flush(c);
    uint32_t m = c->ev.mask & ~(uint32_t)EPOLLOUT;
    runner_ev_watch(&c->ev, runner_buf_used(&c->out) ? m | EPOLLOUT : m);
    return c->broken ? -1 : 0;
}

void runner_client_uncork(runner_client *c)
{
    c->corked = 0;
    client_flush(c);
    uint32_t m = c->ev.mask & ~(uint32_t)EPOLLOUT;
    if (!c->closed)
        runner_ev_watch(&c->ev, runner_buf_used(&c->out) ? m | EPOLLOUT : m);
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
static int client_paused(const runner_client *c)
{
    const runner_req *r = c->req;
    if (!r || r->state == RUNNER_R_PARAMS || r->state == RUNNER_R_SPOOL)
        return 0;
    if (runner_spool_pending(&r->body) <= RUNNER_BODY_HIGH)
        return 0;
    return !(r->worker && runner_worker_out_paused(r->worker));
}

static int frame_ready(const runner_client *c)
{
    if (c->in_len < CGP_HDR_LEN)
        return 0;
    uint32_t len = cgp_get32(c->in + 12);
    return len > CGP_MAX_PAYLOAD || c->in_len - CGP_HDR_LEN >= len; /* bad length: ready to fail */
}

void runner_client_update(runner_client *c)
{
    if (c->closed)
        return;
    uint32_t m = 0;
    int paused = client_paused(c);
    if (c->state != RUNNER_C_CLOSING && !c->peer_eof && !c->broken && c->in_len < RUNNER_CIN_CAP &&
        !paused)
        m |= EPOLLIN;
    if (runner_buf_used(&c->out))
        m |= EPOLLOUT;
    runner_ev_watch(&c->ev, m);
    if (!paused && c->state != RUNNER_C_CLOSING && frame_ready(c))
        runner_loop_kick(c);
}

static void protocol_error(runner_client *c, const char *what)
{
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2041) "protocol error from pid %ld: %s; closing "
               "the connection", (long)c->pid, what);
    c->broken = 1;
}

static void bad_request(runner_req *r, const char *why)
{
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2042) "bad request %u from pid %ld: %s", r->reqid,
               r->client ? (long)r->client->pid : 0L, why);
    runner_req_end(r, CGP_O_BAD_REQUEST, 0, 0, 0);
}

static void end_now(runner_client *c, uint32_t reqid, int outcome, const char *why)
{
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2042) "bad request %u from pid %ld: %s", reqid,
               (long)c->pid, why);
    runner_client_send_end(c, reqid, outcome, outcome == CGP_O_BAD_REQUEST ? 0 : 1, 0, 0);
}

static void on_hello(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    cgp_hello in, out = { .version = CGP_VERSION, .pid = (uint32_t)getpid() };
    unsigned char b[CGP_HELLO_ACK_LEN];
    /* Only httpd's processes hold the key; anyone else of its uid (a
     * script, say) is dropped before it can send anything else. */
    if (h->type != CGP_T_HELLO || cgp_hello_unpack(pl, h->len, &in) != CGP_OK ||
        !runner_key_check(in.key)) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2200) "refused a connection from pid %ld "
                   "uid %ld: its first frame (%s, %u bytes) is not a HELLO with httpd's key",
                   (long)c->pid, (long)c->uid, cgp_type_name(h->type), (unsigned)h->len);
        c->broken = 1;
        return;
    }
    cgp_hello_ack_pack(b, &out);
    runner_client_send(c, CGP_T_HELLO_ACK, 0, h->reqid, b, sizeof(b));
    if (in.version != CGP_VERSION) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2043) "pid %ld speaks protocol version %u, we "
                   "speak %u; closing", (long)c->pid, in.version, CGP_VERSION);
        c->state = RUNNER_C_CLOSING;
        return;
    }
    c->state = RUNNER_C_READY;
}

static void on_begin(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    const char *n, *v, *script = NULL, *uri = "", *why = NULL;
    size_t nl, vl, off = 0, slen = 0, ulen = 0;
    runner_set_over over;
    runner_mode mode = RUNNER_MODE_CGIPLUS;
    int rc, callouts = 0, err = 0, direct = 0, grant = 0;
    uint64_t progress = 0;
    uint32_t httpd_gen = 0;

    if (c->req) {
        protocol_error(c, "BEGIN while a request is active");
        return;
    }
    memset(&over, 0, sizeof(over));
    while ((rc = cgp_kv_next(pl, h->len, &off, &n, &nl, &v, &vl)) == 1) {
        if (nl == 6 && memcmp(n, "script", 6) == 0) {
            script = v;
            slen = vl;
        } else if (nl == 4 && memcmp(n, "mode", 4) == 0) {
            if (vl == 3 && memcmp(v, "cgi", 3) == 0)
                mode = RUNNER_MODE_CGI;
            else if (vl == 7 && memcmp(v, "cgiplus", 7) == 0)
                mode = RUNNER_MODE_CGIPLUS;
            else {
                why = "mode is not cgi or cgiplus";
                break;
            }
        } else if (nl == 3 && memcmp(n, "uri", 3) == 0) {
            uri = v;
            ulen = vl;
        } else if (nl == 8 && memcmp(n, "callouts", 8) == 0) {
            callouts = vl == 1 && v[0] == '1';
        } else if (nl == 6 && memcmp(n, "direct", 6) == 0) {
            direct = vl == 1 && v[0] == '1';
        } else if (nl == 5 && memcmp(n, "grant", 5) == 0) {
            grant = vl == 1 && v[0] == '1';
        } else if (nl == 8 && memcmp(n, "progress", 8) == 0) {
            if (runner_parse_u64(v, vl, &progress) < 0) {
                why = "progress is not a number of ms";
                break;
            }
        } else if (nl == 10 && memcmp(n, "generation", 10) == 0) {
            uint64_t g = 0;
            for (size_t i = 0; i < vl && i < 10 && v[i] >= '0' && v[i] <= '9'; i++)
                g = g * 10 + (uint64_t)(v[i] - '0');
            httpd_gen = g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
        } else if (runner_set_parse(&over, n, nl, v, vl, &why) < 0) {
            break; /* a pool setting with a bad value */
        } /* else: unknown keys are ignored (a newer module) */
    }
    if (!why && rc < 0)
        why = "BEGIN is not a valid kv list";
    if (!why && (!script || slen == 0 || slen >= 4096 || script[0] != '/' ||
                 memchr(script, '\0', slen)))
        why = "script is not an absolute path";
    if (why) {
        runner_set_over_free(&over);
        end_now(c, h->reqid, CGP_O_BAD_REQUEST, why);
        return;
    }

    runner_pool *p = runner_pool_get(script, slen, mode, &over, httpd_gen, &err);
    runner_set_over_free(&over);
    if (!p && err == EPERM) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2077) "request %u for %.*s names a user "
                   "the runner may not run scripts as (not allowed by allow_user); refused",
                   h->reqid, (int)(slen > 200 ? 200 : slen), script);
        runner_client_send_end(c, h->reqid, CGP_O_NOT_FOUND, 0, 0, EPERM);
        return;
    }
    runner_req *r = p ? runner_req_new(c, h->reqid, uri, ulen) : NULL;
    if (!r) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2037) "out of memory for a connection");
        runner_client_send_end(c, h->reqid, CGP_O_SPAWN_FAILED, 1, 0, ENOMEM);
        return;
    }
    r->pool = p;
    r->callouts = callouts;
    r->grant = grant && direct;
    r->progress_ms = progress;
    c->req = r;
    if (direct && p->tidx >= 0) {
        /* The child may serve the pool's next requests itself. */
        unsigned char b[CGP_PAIR_LEN];
        cgp_pair pr;
        runner_table_pool_ref(p, &pr.a, &pr.b);
        cgp_pair_pack(b, &pr);
        runner_client_send(c, CGP_T_POOL, 0, h->reqid, b, sizeof(b));
    }
}

static void on_status(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    runner_buf b = { 0 };
    runner_st_query q;
    if (c->req) {
        protocol_error(c, "STATUS while a request is active");
        return;
    }
    if (runner_status_parse(pl, h->len, &q) < 0) {
        protocol_error(c, "STATUS is not a valid kv list (format=json|html|metrics, pool=ID)");
        return;
    }
    if (runner_status_render(&q, &b) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2037) "out of memory for a connection");
        runner_buf_free(&b);
        c->broken = 1;
        return;
    }
    size_t left = runner_buf_used(&b);
    const unsigned char *d = b.p + b.off;
    do {
        size_t k = left > CGP_MAX_PAYLOAD ? CGP_MAX_PAYLOAD : left;
        runner_client_send(c, CGP_T_STATUS_REPLY, k == left ? CGP_F_END : 0, h->reqid, d, k);
        d += k;
        left -= k;
    } while (left);
    runner_buf_free(&b);
}

static void on_params(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    runner_req *r = c->req;
    const char *why = NULL;
    if (r->state != RUNNER_R_PARAMS)
        { bad_request(r, "PARAMS after the last PARAMS"); return; }
    if (runner_req_add_params(r, pl, h->len, &why) < 0)
        { bad_request(r, why); return; }
    if (!(h->flags & CGP_F_END))
        return;
    if (r->have_cl) {
        runner_pool_submit(r); /* the body follows it to the worker */
    } else {
        r->state = RUNNER_R_SPOOL; /* count the body first */
    }
}

static void on_stdin(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    runner_req *r = c->req;
    if (r->state == RUNNER_R_PARAMS)
        { bad_request(r, "STDIN before the last PARAMS"); return; }
    if (runner_req_add_body(r, pl, h->len) < 0) {
        int e = errno;
        if (e == EFBIG)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2201) "request %u (%s): its body needs "
                       "more than spool_max (%llu bytes) in the spool file; answering 413",
                       r->reqid, r->uri, (unsigned long long)runner_g.conf.spool_max);
        runner_req_end(r, e == ENOSPC || e == EFBIG ? CGP_O_TOO_LARGE : CGP_O_OVERLOADED,
                       e == ENOSPC || e == EFBIG ? 0 : 1, 0, (uint32_t)e);
        return;
    }
    if (h->flags & CGP_F_END) {
        r->body_end = 1;
        if (r->state == RUNNER_R_SPOOL) {
            r->cl = r->body.total;
            r->have_cl = 1;
            runner_pool_submit(r);
            return;
        }
        if (runner_req_body_short(r))
            { bad_request(r, "body shorter than CONTENT_LENGTH"); return; }
    }
    if (r->worker)
        runner_worker_feed(r->worker);
}

static void on_frame(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    if (c->state == RUNNER_C_HELLO) {
        on_hello(c, h, pl);
        return;
    }
    switch (h->type) {
    case CGP_T_BEGIN:
        on_begin(c, h, pl);
        break;
    case CGP_T_STATUS:
        on_status(c, h, pl);
        break;
    case CGP_T_DIRECT:
    case CGP_T_CHANNEL:
    case CGP_T_KICK:
        if (c->req) {
            protocol_error(c, "a direct path frame while a request is active");
            break;
        }
        if (h->type == CGP_T_DIRECT) {
            runner_table_on_direct(c, h->reqid);
        } else if (h->type == CGP_T_CHANNEL) {
            runner_table_on_channel(c, h->reqid, pl, h->len);
        } else {
            cgp_pair pr;
            runner_pool *p;
            if (cgp_pair_unpack(pl, h->len, &pr) != CGP_OK)
                protocol_error(c, "KICK of the wrong length");
            else if ((p = runner_table_pool_at(pr.a, pr.b)))
                runner_table_kick(p);
        }
        break;
    case CGP_T_CALLOUT_ANSWER:
        /* For a request still on its worker; late answers are dropped. */
        if (c->req && c->req->reqid == h->reqid && c->req->worker)
            runner_callout_answer(c->req->worker, (const char *)pl, h->len);
        break;
    case CGP_T_PARAMS:
    case CGP_T_STDIN:
    case CGP_T_ABORT:
        /* Frames of a request already answered (or never begun) are dropped:
         * the module may still be sending a body nobody reads. */
        if (!c->req || c->req->reqid != h->reqid)
            break;
        if (h->type == CGP_T_PARAMS)
            on_params(c, h, pl);
        else if (h->type == CGP_T_STDIN)
            on_stdin(c, h, pl);
        else
            runner_req_end(c->req, CGP_O_ABORTED, 0,
                           c->req->worker ? (uint32_t)c->req->worker->pid : 0, 0);
        break;
    default:
        protocol_error(c, "a frame type the module does not send");
    }
}

static void client_read(runner_client *c)
{
    if (c->in_len >= RUNNER_CIN_CAP || c->peer_eof || c->broken)
        return;
    ssize_t n = read(c->ev.fd, c->in + c->in_len, RUNNER_CIN_CAP - c->in_len);
    if (n > 0)
        c->in_len += (size_t)n;
    else if (n == 0)
        c->peer_eof = 1;
    else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        c->broken = 1;
}

void runner_client_run(runner_client *c)
{
    size_t off = 0;
    if (c->closed)
        return;
    while (!c->broken && c->state != RUNNER_C_CLOSING && !client_paused(c) &&
           c->in_len - off >= CGP_HDR_LEN) {
        cgp_hdr h;
        const unsigned char *f = c->in + off;
        int rc = cgp_hdr_unpack(f, &h);
        if (rc != CGP_OK) {
            if (c->state == RUNNER_C_HELLO && rc == CGP_E_VERSION && f[3] == CGP_T_HELLO) {
                /* Another protocol version: tell it ours, then part. */
                cgp_hello out = { .version = CGP_VERSION, .pid = (uint32_t)getpid() };
                unsigned char b[CGP_HELLO_ACK_LEN];
                cgp_hello_ack_pack(b, &out);
                runner_client_send(c, CGP_T_HELLO_ACK, 0, cgp_get32(f + 8), b, sizeof(b));
                runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2043) "pid %ld speaks protocol version "
                           "%u, we speak %u; closing", (long)c->pid, f[2], CGP_VERSION);
                c->state = RUNNER_C_CLOSING;
            } else {
                protocol_error(c, cgp_strerror(rc));
            }
            break;
        }
        if (c->in_len - off - CGP_HDR_LEN < h.len)
            break;
        off += CGP_HDR_LEN + h.len;
        on_frame(c, &h, f + CGP_HDR_LEN);
    }
    if (off) {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
    if (c->broken || (c->peer_eof && c->state != RUNNER_C_CLOSING) ||
        (c->state == RUNNER_C_CLOSING && !runner_buf_used(&c->out))) {
        runner_client_close(c);
        return;
    }
    runner_client_update(c);
}

void runner_client_event(runner_client *c, uint32_t events)
{
    if (events & EPOLLOUT) {
        client_flush(c);
        if (c->req && c->req->worker)
            runner_worker_update(c->req->worker); /* backlog shrank: read the script again */
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        client_read(c);
    if ((events & (EPOLLHUP | EPOLLERR)) && !(c->ev.mask & EPOLLIN) && !c->peer_eof)
        c->broken = 1; /* gone while we were not reading */
    runner_client_run(c);
}

int runner_client_anchored(pid_t pid)
{
    const runner_client *c;
    TAILQ_FOREACH(c, &runner_g.clients, link)
        if (c->anchor && !c->closed && c->pid == pid)
            return 1;
    return 0;
}

void runner_client_close(runner_client *c)
{
    if (c->closed)
        return;
    c->closed = 1;
    if (c->anchor)
        runner_table_child_gone(c->pid);
    if (c->req) {
        runner_req *r = c->req;
        c->req = NULL;
        runner_req_client_gone(r);
    }
    if (c->kicked) {
        TAILQ_REMOVE(&runner_g.kicks, c, klink);
        c->kicked = 0;
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2044) "connection from pid %ld closed",
               (long)c->pid);
    runner_ev_close(&c->ev);
    TAILQ_REMOVE(&runner_g.clients, c, link);
    TAILQ_INSERT_TAIL(&runner_g.dead_clients, c, link);
}

void runner_client_close_all(void)
{
    runner_client *c;
    while ((c = TAILQ_FIRST(&runner_g.clients))) {
        if (!c->broken && runner_buf_used(&c->out))
            runner_buf_flush(&c->out, c->ev.fd); /* last ENDs, best effort */
        runner_client_close(c);
    }
}
