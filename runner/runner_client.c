/* runner_client.c: one module connection: HELLO, then requests one after
 * another (BEGIN, PARAMS..., STDIN...), answers framed with the codec. */
#include "runner_client.h"
#include "runner_fcgi.h"
#include "runner_ctx.h"
#include "runner_loop.h"
#include "runner_key.h"
#include "runner_log.h"
#include "cgp_parse.h"
#include "runner_pool.h"
#include "runner_req.h"
#include "runner_status.h"
#include "runner_table.h"
#include "runner_worker.h"
#include "runner_ws.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* The descriptors kept for authenticated connections and workers: an
 * unauthenticated connection whose descriptor lands among the last ones
 * is not kept (descriptors are handed out lowest first, so a number that
 * high means that many are in use). */
static long fd_reserve(void)
{
    return runner_g.fd_limit / 8 > 32 ? runner_g.fd_limit / 8 : 32;
}

static int fds_low(int fd)
{
    return runner_g.fd_limit > 0 && fd >= runner_g.fd_limit - fd_reserve();
}

static unsigned unauth_of(pid_t pid)
{
    const runner_client *c;
    unsigned n = 0;
    TAILQ_FOREACH(c, &runner_g.unauth, ulink)
        n += c->pid == pid;
    return n;
}

/* A new connection that did not prove the key at once (its HELLO was not
 * in yet): kept only while descriptors, the process's share and the total
 * allow; past the total the oldest goes, so a flood cannot keep httpd's
 * new connections out, only make them hurry. */
static void unauth_admit(runner_client *c)
{
    static runner_log_limit lim_fds, lim_peer, lim_total;
    unsigned long dropped;
    if (fds_low(c->ev.fd)) {
        if (runner_log_limit_ok(&lim_fds, &dropped))
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2100) "refused a connection from pid %ld "
                       "before its HELLO: descriptor %d is among the last %ld of %ld, kept for "
                       "httpd's connections and workers%s", (long)c->pid, c->ev.fd,
                       fd_reserve(), runner_g.fd_limit, runner_log_dropped(dropped));
        runner_g.refused++;
        runner_client_close(c);
        return;
    }
    if (unauth_of(c->pid) > RUNNER_UNAUTH_PER_PEER) {
        if (runner_log_limit_ok(&lim_peer, &dropped))
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2101) "refused a connection from pid %ld "
                       "uid %ld: it already has %u connections that sent no HELLO%s",
                       (long)c->pid, (long)c->uid, RUNNER_UNAUTH_PER_PEER,
                       runner_log_dropped(dropped));
        runner_g.refused++;
        runner_client_close(c);
        return;
    }
    if (runner_g.nunauth > runner_g.unauth_max) {
        runner_client *old = TAILQ_FIRST(&runner_g.unauth);
        if (runner_log_limit_ok(&lim_total, &dropped))
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2102) "%u connections sent no HELLO yet; "
                       "closed the oldest (pid %ld uid %ld, %llu ms old)%s", runner_g.nunauth - 1,
                       (long)old->pid, (long)old->uid,
                       (unsigned long long)(runner_g.now - old->t_accept),
                       runner_log_dropped(dropped));
        runner_g.refused++;
        runner_client_close(old);
    }
}

/* The listening socket and its pause after EMFILE (level-triggered: an
 * accept failing for lack of descriptors would spin); for the runner's
 * life. */
static runner_ev ev_listen = { .fd = -1 };
static uint64_t listen_resume; /* re-arm the listener at this time, 0: armed */

static void on_client(runner_ev *ev, uint32_t events)
{
    runner_client_event(ev->obj, events);
}

static void accept_all(int lfd)
{
    static runner_log_limit lim_uid;
    unsigned long dropped;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2034) "accept on %s: %s",
                       runner_g.o.socket_path, strerror(errno));
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                runner_ev_watch(&ev_listen, 0);
                listen_resume = runner_g.now + RUNNER_LISTEN_PAUSE_MS;
            }
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
            if (runner_log_limit_ok(&lim_uid, &dropped))
                runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2036) "refused a connection from uid "
                           "%ld (pid %ld): only uid %ld%s may connect%s", (long)cr.uid,
                           (long)cr.pid,
                           (long)(runner_g.o.have_user ? runner_g.o.uid : geteuid()),
                           runner_g.o.have_user ? " and our own" : "",
                           runner_log_dropped(dropped));
            close(fd);
            continue;
        }
        runner_client *c = calloc(1, sizeof(*c));
        if (!c) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2037) "out of memory for a connection");
            close(fd);
            return;
        }
        runner_ev_init(&c->ev, on_client, fd, c);
        c->uid = cr.uid;
        c->pid = cr.pid;
        c->state = RUNNER_C_HELLO;
        c->in = c->hello;
        c->in_cap = sizeof(c->hello);
        c->t_accept = runner_g.now;
        TAILQ_INSERT_TAIL(&runner_g.clients, c, link);
        TAILQ_INSERT_TAIL(&runner_g.unauth, c, ulink);
        runner_g.nunauth++;
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2038) "connection from pid %ld uid %ld",
                   (long)cr.pid, (long)cr.uid);
        /* httpd's children send HELLO with the connect: usually it is here
         * already, and the connection never counts as unauthenticated. */
        runner_client_event(c, EPOLLIN);
        if (!c->closed && !c->authed)
            unauth_admit(c);
    }
}

static void on_listen(runner_ev *ev, uint32_t events)
{
    accept_all(ev->fd);
}

void runner_client_listen(int fd)
{
    runner_ev_init(&ev_listen, on_listen, fd, NULL);
    runner_ev_watch(&ev_listen, EPOLLIN);
}

/* Closes the unauthenticated connections older than RUNNER_HELLO_MS. */
static void hello_deadlines(void)
{
    static runner_log_limit lim;
    unsigned long dropped;
    runner_client *c;
    while ((c = TAILQ_FIRST(&runner_g.unauth))) {
        if (runner_g.now < c->t_accept + RUNNER_HELLO_MS)
            return;
        if (runner_log_limit_ok(&lim, &dropped))
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2103) "closed a connection from pid %ld "
                       "uid %ld: no HELLO within %u ms (%zu bytes of it came)%s", (long)c->pid,
                       (long)c->uid, RUNNER_HELLO_MS, c->in_len, runner_log_dropped(dropped));
        runner_g.refused++;
        runner_client_close(c);
    }
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
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2093) "bad request %u from pid %ld: %s", reqid,
               (long)c->pid, why);
    runner_client_send_end(c, reqid, outcome, outcome == CGP_O_BAD_REQUEST ? 0 : 1, 0, 0);
}

/* One call site for 2200 (a flood of strangers logs ten lines a second):
 * the first frame h, or the bytes that are no frame (bad). */
static void hello_refused(runner_client *c, const cgp_hdr *h, const char *bad)
{
    static runner_log_limit lim;
    unsigned long dropped;
    char what[64];
    if (!bad)
        snprintf(what, sizeof(what), "%s, %u byte%s", cgp_type_name(h->type), (unsigned)h->len,
                 CGIPLUS_S(h->len));
    if (runner_log_limit_ok(&lim, &dropped))
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2200) "refused a connection from pid %ld "
                   "uid %ld: its first frame (%s) is not a HELLO with httpd's key%s",
                   (long)c->pid, (long)c->uid, bad ? bad : what, runner_log_dropped(dropped));
    runner_g.refused++;
    c->broken = 1;
}

static void on_hello(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    cgp_hello in, out = { .version = CGP_VERSION, .pid = (uint32_t)getpid() };
    unsigned char b[CGP_HELLO_ACK_LEN];
    /* Only httpd's processes hold the key; anyone else of its uid (a
     * script, say) is dropped before it can send anything else. */
    if (h->type != CGP_T_HELLO || cgp_hello_unpack(pl, h->len, &in) != CGP_OK ||
        !runner_key_check(in.key)) {
        hello_refused(c, h, NULL);
        return;
    }
    c->authed = 1;
    TAILQ_REMOVE(&runner_g.unauth, c, ulink);
    runner_g.nunauth--;
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
    const char *n, *v, *script = NULL, *uri = "", *why = NULL, *site = NULL;
    size_t nl, vl, off = 0, slen = 0, ulen = 0, sitelen = 0;
    runner_set_over over;
    runner_mode mode = RUNNER_MODE_CGIPLUS;
    int rc, callouts = 0, err = 0, direct = 0, grant = 0, nocl = 0, struct_rec = 0;
    uint64_t progress = 0;
    uint32_t httpd_gen = 0;

    if (c->req || c->ws) {
        protocol_error(c, "BEGIN while a request is active");
        return;
    }
    memset(&over, 0, sizeof(over));
    while ((rc = cgp_kv_next(pl, h->len, &off, &n, &nl, &v, &vl)) == 1) {
        if (nl == 6 && memcmp(n, "script", 6) == 0) {
            script = v;
            slen = vl;
        } else if (nl == 4 && memcmp(n, "mode", 4) == 0) {
            if (runner_mode_parse(v, vl, 1, &mode, &why) < 0)
                break;
        } else if (nl == 4 && memcmp(n, "site", 4) == 0) {
            site = v;
            sitelen = vl;
        } else if (nl == 3 && memcmp(n, "uri", 3) == 0) {
            uri = v;
            ulen = vl;
        } else if (nl == 8 && memcmp(n, "callouts", 8) == 0) {
            callouts = vl == 1 && v[0] == '1';
        } else if (nl == 6 && memcmp(n, "direct", 6) == 0) {
            direct = vl == 1 && v[0] == '1';
        } else if (nl == 4 && memcmp(n, "nocl", 4) == 0) {
            nocl = vl == 1 && v[0] == '1';
        } else if (nl == 6 && memcmp(n, "struct", 6) == 0) {
            struct_rec = vl == 1 && v[0] == '1';
        } else if (nl == 5 && memcmp(n, "grant", 5) == 0) {
            grant = vl == 1 && v[0] == '1';
        } else if (nl == 8 && memcmp(n, "progress", 8) == 0) {
            if (cgp_parse_u64(v, vl, &progress) < 0) {
                why = "progress is not a number of ms";
                break;
            }
        } else if (nl == 10 && memcmp(n, "generation", 10) == 0) {
            uint64_t g = 0;
            for (size_t i = 0; i < vl && i < 10 && v[i] >= '0' && v[i] <= '9'; i++)
                g = g * 10 + (uint64_t)(v[i] - '0');
            httpd_gen = g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
        } else if (nl == 6 && memcmp(n, "suexec", 6) == 0) {
            if (runner_suexec_parse(&over, v, vl, &why) < 0)
                break;
        } else if (nl == 3 && memcmp(n, "arg", 3) == 0) {
            if (runner_arg_parse(&over, v, vl, &why) < 0)
                break;
        } else if (runner_set_parse(&over, n, nl, v, vl, &why) < 0) {
            break; /* a pool setting with a bad value */
        } /* else: unknown keys are ignored (a newer module) */
    }
    if (!why && rc < 0)
        why = "BEGIN is not a valid kv list";
    if (!why && (!script || slen == 0 || slen >= 4096 || script[0] != '/' ||
                 memchr(script, '\0', slen)))
        why = "script is not an absolute path";
    if (!why && site && (sitelen >= 4096 || memchr(site, '\0', sitelen)))
        why = "site is not a virtual host's name";
    if (why) {
        runner_set_over_free(&over);
        end_now(c, h->reqid, CGP_O_BAD_REQUEST, why);
        return;
    }
    if (mode == RUNNER_MODE_WEBSOCKET) { /* an upgrade: a WebSocket pool's (runner_ws_conn.c) */
        runner_ws_begin(c, h->reqid, httpd_gen, script, slen, &over, uri, ulen);
        runner_set_over_free(&over);
        return;
    }

    runner_pool *p = runner_pool_get(script, slen, mode, &over, site, sitelen, httpd_gen, &err);
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
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2089) "out of memory for a connection");
        runner_client_send_end(c, h->reqid, CGP_O_SPAWN_FAILED, 1, 0, ENOMEM);
        return;
    }
    r->pool = p;
    r->callouts = callouts;
    r->grant = grant && direct;
    r->nocl = nocl;
    r->struct_rec = struct_rec;
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
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2090) "out of memory for a connection");
        cgp_buf_free(&b);
        c->broken = 1;
        return;
    }
    size_t left = cgp_buf_used(&b);
    const unsigned char *d = b.p + b.off;
    do {
        size_t k = left > CGP_MAX_PAYLOAD ? CGP_MAX_PAYLOAD : left;
        runner_client_send(c, CGP_T_STATUS_REPLY, k == left ? CGP_F_END : 0, h->reqid, d, k);
        d += k;
        left -= k;
    } while (left);
    cgp_buf_free(&b);
}

static void on_params(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    runner_req *r = c->req;
    const char *why = NULL;
    static runner_log_limit lim;
    unsigned long dropped;
    int rc;
    if (r->state != RUNNER_R_PARAMS)
        { bad_request(r, "PARAMS after the last PARAMS"); return; }
    if ((rc = runner_req_add_params(r, pl, h->len, &why)) < 0)
        { bad_request(r, why); return; }
    if (rc > 0) {
        if (runner_log_limit_ok(&lim, &dropped))
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2104) "request %u (%s) for %s: requests "
                       "not yet on a worker hold %llu bytes of variables for this pool and "
                       "%llu in all (queue_memory_pool %llu, queue_memory %llu); answering "
                       "overloaded at once%s", r->reqid, r->uri, r->pool->script,
                       (unsigned long long)r->pool->held, (unsigned long long)runner_g.held,
                       (unsigned long long)runner_g.conf.v[CGP_S_QUEUE_MEMORY_POOL],
                       (unsigned long long)runner_g.conf.v[CGP_S_QUEUE_MEMORY],
                       runner_log_dropped(dropped));
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, ENOBUFS);
        return;
    }
    if (!(h->flags & CGP_F_END))
        return;
    if (r->have_cl) {
        runner_pool_submit(r); /* the body follows it to the worker */
    } else {
        runner_req_step(r, RUNNER_RE_COUNT); /* count the body first */
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
                       "more than spool_max (%llu byte%s) in the spool file; answering 413",
                       r->reqid, r->uri, (unsigned long long)runner_g.conf.v[CGP_S_SPOOL_MAX],
                       CGIPLUS_S(runner_g.conf.v[CGP_S_SPOOL_MAX]));
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
        r->worker->kind->feed(r->worker);
}

/* DIRECT: the table, and this connection becomes the child's anchor. */
static void on_direct(runner_client *c, uint32_t reqid)
{
    unsigned char pl[CGP_PAIR_LEN];
    int fd = runner_table_fd();
    cgp_pair pr = { fd >= 0 ? (uint32_t)CGP_TABLE_SIZE : 0, CGP_TABLE_VERSION };

    cgp_pair_pack(pl, &pr);
    if (runner_client_send_fds(c, CGP_T_DIRECT_ACK, reqid, pl, sizeof(pl), &fd,
                               fd >= 0 ? 1 : 0) < 0) {
        c->broken = 1;
        return;
    }
    c->anchor = fd >= 0;
}

/* CHANNEL: a worker's descriptors for the child that will talk to it. */
static void on_channel(runner_client *c, uint32_t reqid, const unsigned char *pl, size_t len)
{
    unsigned char out[CGP_CHANNEL_LEN];
    cgp_channel ch;
    cgp_pair pr;
    runner_worker *w = NULL;
    int fds[CGP_CHANNEL_FDS], n = 0;

    memset(&ch, 0, sizeof(ch));
    if (cgp_pair_unpack(pl, len, &pr) != CGP_OK) {
        c->broken = 1;
        return;
    }
    ch.slot = pr.a;
    if ((w = runner_table_slot_owner(pr.a, pr.b)) &&
        !w->exited && w->ev_in.fd >= 0 && w->ev_body.fd >= 0 && w->ev_out.fd >= 0 &&
        w->body_peer >= 0 && w->ev_err.fd >= 0) {
        ch.gen = w->sgen;
        ch.pid = (uint32_t)w->pid;
        memcpy(ch.eof, w->eof, CGP_MARK_LEN + 1);
        memcpy(ch.esc, w->esc, CGP_MARK_LEN + 1);
        memcpy(ch.eot, w->eot, CGP_MARK_LEN + 1);
        fds[0] = w->ev_in.fd;
        fds[1] = w->ev_body.fd;
        fds[2] = w->ev_out.fd;
        fds[3] = w->body_peer;
        fds[4] = w->ev_err.fd;
        n = CGP_CHANNEL_FDS;
    }
    if (cgp_channel_pack(out, &ch) != CGP_OK)
        n = 0, ch.gen = 0, cgp_channel_pack(out, &ch);
    if (runner_client_send_fds(c, CGP_T_CHANNEL_ACK, reqid, out, sizeof(out), fds, n) < 0)
        c->broken = 1;
}

/* ABORT: the client went away (no payload), or httpd failed the request
 * for a cause (1 byte): the request ends, counted under that cause. For
 * the request that ended last here (its END was ok: httpd found its
 * output bad, say) the cause replaces what its END was counted under. */
static void on_abort(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    unsigned cause;
    runner_req *r = c->req;

    if (cgp_abort_unpack(pl, h->len, &cause) != CGP_OK) {
        protocol_error(c, "ABORT with a payload that is not one cause byte");
        return;
    }
    if (r && r->reqid == h->reqid) {
        if (h->len)
            r->cause = cause;
        r->client_left = 1;
        runner_req_end(r, CGP_O_ABORTED, 0, r->worker ? (uint32_t)r->worker->pid : 0, 0);
    } else if (h->len && c->last_reqid && h->reqid == c->last_reqid) {
        c->last_reqid = 0; /* once */
        runner_pool_recount(c->last_pool, c->last_as, cause);
    }
}

static void on_frame(runner_client *c, const cgp_hdr *h, const unsigned char *pl)
{
    if (c->state == RUNNER_C_HELLO) {
        on_hello(c, h, pl);
        return;
    }
    if (c->ws) {
        runner_ws_frame(c, h, pl);
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
    case CGP_T_FCGI_CHANNEL:
    case CGP_T_KICK:
        if (c->req) {
            protocol_error(c, "a direct path frame while a request is active");
            break;
        }
        if (h->type == CGP_T_DIRECT) {
            on_direct(c, h->reqid);
        } else if (h->type == CGP_T_CHANNEL) {
            on_channel(c, h->reqid, pl, h->len);
        } else if (h->type == CGP_T_FCGI_CHANNEL) {
            runner_fcgi_on_channel(c, h->reqid, pl, h->len);
        } else {
            cgp_pair pr;
            runner_pool *p;
            if (cgp_pair_unpack(pl, h->len, &pr) != CGP_OK)
                protocol_error(c, "KICK of the wrong length");
            else if ((p = runner_table_pool_at(pr.a, pr.b)))
                runner_pool_kick(p);
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
         * the module may still be sending a body nobody reads. An ABORT
         * with a cause for the request that ended last counts it. */
        if (!c->req || c->req->reqid != h->reqid) {
            if (h->type == CGP_T_ABORT)
                on_abort(c, h, pl);
            break;
        }
        if (h->type == CGP_T_PARAMS)
            on_params(c, h, pl);
        else if (h->type == CGP_T_STDIN)
            on_stdin(c, h, pl);
        else
            on_abort(c, h, pl);
        break;
    default:
        protocol_error(c, "a frame type the module does not send");
    }
}

/* Room to read into once authenticated: 4 KiB, the whole buffer when a
 * frame needs it (or 4 KiB are full), back to none when idle
 * (client_run). */
static int in_room(runner_client *c)
{
    if (!c->authed) /* the HELLO buffer, never more */
        return 0;
    size_t want = c->in_len < RUNNER_CIN_SMALL ? RUNNER_CIN_SMALL : RUNNER_CIN_CAP;
    if (c->in_len >= CGP_HDR_LEN && CGP_HDR_LEN + (size_t)cgp_get32(c->in + 12) > want)
        want = RUNNER_CIN_CAP; /* a bad length fails in client_run */
    if (want <= c->in_cap)
        return 0;
    unsigned char *p = malloc(want);
    if (!p)
        return -1;
    if (c->in_len)
        memcpy(p, c->in, c->in_len);
    if (c->in != c->hello)
        free(c->in);
    c->in = p;
    c->in_cap = want;
    return 0;
}

static void client_read(runner_client *c)
{
    if (c->in_len >= runner_client_in_limit(c) || c->peer_eof || c->broken)
        return;
    if (in_room(c) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2091) "out of memory for a connection");
        c->broken = 1;
        return;
    }
    ssize_t n = read(c->ev.fd, c->in + c->in_len, c->in_cap - c->in_len);
    if (n > 0)
        c->in_len += (size_t)n;
    else if (n == 0)
        c->peer_eof = 1;
    else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        c->broken = 1;
}

static void client_run(runner_client *c)
{
    size_t off = 0;
    if (c->closed)
        return;
    while (!c->broken && c->state != RUNNER_C_CLOSING && !runner_client_paused(c) &&
           c->in_len - off >= CGP_HDR_LEN) {
        cgp_hdr h;
        const unsigned char *f = c->in + off;
        int rc = cgp_hdr_unpack(f, &h);
        if (rc != CGP_OK) {
            if (c->state == RUNNER_C_HELLO && rc == CGP_E_VERSION && f[3] == CGP_T_HELLO) {
                /* Another protocol version: tell it ours, then part. No
                 * key proved yet: any process of httpd's group gets here,
                 * so its lines are limited as 2200's. */
                static runner_log_limit lim;
                unsigned long dropped;
                cgp_hello out = { .version = CGP_VERSION, .pid = (uint32_t)getpid() };
                unsigned char b[CGP_HELLO_ACK_LEN];
                cgp_hello_ack_pack(b, &out);
                runner_client_send(c, CGP_T_HELLO_ACK, 0, cgp_get32(f + 8), b, sizeof(b));
                if (runner_log_limit_ok(&lim, &dropped))
                    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2094) "pid %ld speaks protocol "
                               "version %u, we speak %u; closing%s", (long)c->pid, f[2],
                               CGP_VERSION, runner_log_dropped(dropped));
                c->state = RUNNER_C_CLOSING;
            } else if (c->state == RUNNER_C_HELLO) {
                hello_refused(c, &h, cgp_strerror(rc));
            } else {
                protocol_error(c, cgp_strerror(rc));
            }
            break;
        }
        if (c->state == RUNNER_C_HELLO && (h.type != CGP_T_HELLO || h.len != CGP_HELLO_LEN)) {
            hello_refused(c, &h, NULL); /* never wait for (or hold) more than a HELLO */
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
    if (!c->req && !c->in_len && c->in_cap > RUNNER_CIN_SMALL) {
        /* Idle: httpd keeps many connections; none keeps a large buffer. */
        free(c->in);
        c->in = NULL;
        c->in_cap = 0;
    }
    if (c->broken || (c->peer_eof && c->state != RUNNER_C_CLOSING) ||
        (c->state == RUNNER_C_CLOSING && !cgp_buf_used(&c->out))) {
        runner_client_close(c);
        return;
    }
    runner_client_update(c);
}

void runner_client_event(runner_client *c, uint32_t events)
{
    if (events & EPOLLOUT) {
        runner_client_flush(c);
        if (c->req && c->req->worker)
            runner_worker_update(c->req->worker); /* backlog shrank: read the script again */
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        client_read(c);
    if ((events & (EPOLLHUP | EPOLLERR)) && !(c->ev.mask & EPOLLIN) && !c->peer_eof)
        c->broken = 1; /* gone while we were not reading */
    client_run(c);
}

void runner_client_close(runner_client *c)
{
    if (c->closed)
        return;
    c->closed = 1;
    if (!c->authed) {
        TAILQ_REMOVE(&runner_g.unauth, c, ulink);
        runner_g.nunauth--;
    }
    if (c->anchor)
        runner_pool_child_gone(c->pid);
    if (c->ws)
        runner_ws_client_gone(c);
    if (c->req) {
        runner_req *r = c->req;
        c->req = NULL;
        runner_req_client_gone(r);
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2044) "connection from pid %ld closed",
               (long)c->pid);
    runner_ev_close(&c->ev);
    TAILQ_REMOVE(&runner_g.clients, c, link);
    TAILQ_INSERT_TAIL(&runner_g.dead_clients, c, link);
}


static uint64_t clients_deadline(void)
{
    uint64_t dl = listen_resume;
    if (!TAILQ_EMPTY(&runner_g.unauth)) {
        uint64_t hello = TAILQ_FIRST(&runner_g.unauth)->t_accept + RUNNER_HELLO_MS;
        if (!dl || hello < dl)
            dl = hello;
    }
    return dl;
}

static void clients_timers(void)
{
    if (listen_resume && runner_g.now >= listen_resume) {
        listen_resume = 0;
        runner_ev_watch(&ev_listen, EPOLLIN);
    }
    hello_deadlines();
}

/* No new connections; those open still get their requests' ENDs. */
static void clients_stop(void)
{
    runner_ev_close(&ev_listen);
}

static void clients_bury(void)
{
    runner_client *c;
    while ((c = TAILQ_FIRST(&runner_g.dead_clients))) {
        TAILQ_REMOVE(&runner_g.dead_clients, c, link);
        cgp_buf_free(&c->out);
        if (c->in != c->hello)
            free(c->in);
        free(c);
    }
}

static void clients_fini(void)
{
    runner_client *c;
    while ((c = TAILQ_FIRST(&runner_g.clients))) {
        if (!c->broken && cgp_buf_used(&c->out))
            runner_buf_flush(&c->out, c->ev.fd); /* last ENDs, best effort */
        runner_client_close(c);
    }
    clients_bury();
    runner_ev_close(&ev_listen);
}

const runner_room runner_client_room = {
    .name = "clients", .deadline = clients_deadline, .timers = clients_timers,
    .stop = clients_stop, .turn_end = clients_bury, .fini = clients_fini,
};
