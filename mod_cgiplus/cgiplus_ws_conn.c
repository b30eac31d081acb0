/* cgiplus_ws_conn.c: one accepted WebSocket connection: the client's frames
 * parsed by the codec (cgp_ws.h) and passed on whole-message-wise as WS_MSG
 * frames, pings answered and sent, the close handshake, the worker's
 * messages framed for the client behind a bounded queue, the timers. Every
 * step does what it can without blocking; the event MPM's driver
 * (cgiplus_ws_async.c) and the thread of cgiplus_ws_run_sync call them. */
#include "cgiplus_ws.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpd.h"
#include "http_connection.h"
#include "http_core.h"
#include "http_log.h"
#include "util_filter.h"
#include "apr_portable.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

#define WS_READ          16384u              /* one read of either side */
#define WS_PASS          65536u              /* handed to the client's filters at once */
#define WS_RUNNER_HIGH   (256u * 1024u)      /* the runner takes no more: stop reading the client */

/* ------------------------------------------------------------ byte FIFO */

/* An idle connection holds no buffer: one emptied is freed. */
static void buf_eat(cgp_buf *b, apr_size_t n)
{
    cgp_buf_consume(b, n);
    if (!cgp_buf_used(b))
        cgp_buf_free(b);
}

/* ------------------------------------------------------------ life */

cgiplus_ws *cgiplus_ws_new(request_rec *r, int rfd, const cgiplus_ws_limits *lim,
                           apr_uint32_t id)
{
    conn_rec *c = r->connection;
    cgiplus_ws *w = calloc(1, sizeof(*w));
    apr_socket_t *cs = c->master ? NULL : ap_get_conn_socket(c);
    apr_os_sock_t os;

    if (!w)
        return NULL;
    pthread_mutex_init(&w->mtx, NULL);
    w->c = c;
    w->s = r->server;
    apr_cpystrn(w->script, r->filename, sizeof(w->script));
    apr_cpystrn(w->addr, r->useragent_ip ? r->useragent_ip : "?", sizeof(w->addr));
    w->lim = *lim;
    w->h2 = c->master != NULL;
    w->rfd = rfd;
    w->cfd = cs && apr_os_sock_get(&os, cs) == APR_SUCCESS ? os : -1;
    w->id = id;
    w->bb = apr_brigade_create(c->pool, c->bucket_alloc);
    cgp_ws_parser_init(&w->parser, lim->max_message);
    w->state = CGIPLUS_WS_OPEN;
    w->last_in = w->last_msg = apr_time_now();
    return w;
}

void cgiplus_ws_free(cgiplus_ws *w)
{
    if (w->rfd >= 0)
        close(w->rfd);
    cgp_buf_free(&w->to_runner);
    cgp_buf_free(&w->to_client);
    pthread_mutex_destroy(&w->mtx);
    free(w);
}

/* ------------------------------------------------------------ to the runner */

void cgiplus_ws_runner_flush(cgiplus_ws *w)
{
    while (w->rfd >= 0 && cgp_buf_used(&w->to_runner)) {
        ssize_t n = write(w->rfd, w->to_runner.p + w->to_runner.off, cgp_buf_used(&w->to_runner));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                w->runner_gone = 1;
            return;
        }
        buf_eat(&w->to_runner, (apr_size_t)n);
    }
}

static void runner_frame(cgiplus_ws *w, unsigned type, unsigned flags, const void *a,
                         apr_size_t alen, const void *b, apr_size_t blen)
{
    unsigned char h[CGP_HDR_LEN];
    cgp_hdr hdr = { .type = (uint8_t)type, .flags = (uint16_t)flags,
                    .len = (uint32_t)(alen + blen) };
    if (w->rfd < 0 || w->runner_gone || cgp_hdr_pack(h, &hdr) != CGP_OK)
        return;
    if (cgp_buf_append(&w->to_runner, h, sizeof(h)) < 0 || cgp_buf_append(&w->to_runner, a, alen) < 0 ||
        cgp_buf_append(&w->to_runner, b, blen) < 0)
        w->runner_gone = 1; /* out of memory half-way: the stream is out of step */
}

/* The runner learns the connection's end once (its worker hears CLOSED). */
static void tell_runner(cgiplus_ws *w, unsigned code, const char *reason)
{
    unsigned char pl[CGP_WSR_CLOSE_MAX];
    int n;
    if (w->runner_told)
        return;
    w->runner_told = 1;
    if ((n = cgp_wsr_close_pack(pl, code, reason, strlen(reason), 1)) < 0)
        n = cgp_wsr_close_pack(pl, CGP_WS_ABNORMAL, "", 0, 1);
    runner_frame(w, CGP_T_WS_CLOSE, CGP_F_END, pl, (apr_size_t)n, NULL, 0);
    cgiplus_ws_runner_flush(w);
}

/* ------------------------------------------------------------ to the client */

static int client_frame(cgiplus_ws *w, int fin, unsigned op, const void *d, apr_size_t n)
{
    unsigned char h[CGP_WS_HDR_MAX];
    size_t hl = cgp_ws_frame_hdr(h, fin, op, n, NULL);
    if (!hl || cgp_buf_append(&w->to_client, h, hl) < 0 || cgp_buf_append(&w->to_client, d, n) < 0)
        return -1;
    if (!w->q_t0)
        w->q_t0 = apr_time_now();
    return 0;
}

/* Our close frame; then we wait close_wait for the client's. */
static void send_close(cgiplus_ws *w, unsigned code, const char *reason)
{
    unsigned char f[CGP_WS_CLOSE_MAX];
    size_t n;
    if (w->close_sent)
        return;
    w->close_sent = 1;
    w->close_code = code;
    w->close_at = apr_time_now();
    w->state = CGIPLUS_WS_CLOSING;
    n = cgp_ws_close_frame(f, code == CGP_WS_NO_STATUS ? 0 : code, reason, strlen(reason));
    if (!n)
        n = cgp_ws_close_frame(f, code == CGP_WS_NO_STATUS ? 0 : code, "", 0);
    if (cgp_buf_append(&w->to_client, f, n) == 0 && !w->q_t0)
        w->q_t0 = apr_time_now();
}

/* Fails the connection (RFC 6455 7.1.7): our close frame with code, the
 * runner told, and the TCP connection closed once that is out. */
static void ws_fail(cgiplus_ws *w, unsigned code, const char *why)
{
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, w->s, CGIPLUS_LOGNO(1806)
                 "closing WebSocket %lu of %s (client %s) with %u: %s", (unsigned long)w->id,
                 w->script, w->addr, code, why);
    send_close(w, code, code == CGP_WS_POLICY || code == CGP_WS_TOO_BIG ? why : "");
    w->close_rcvd = 1; /* no answer awaited */
    tell_runner(w, code, "");
}

static void client_gone(cgiplus_ws *w)
{
    w->client_gone = 1;
    tell_runner(w, w->close_sent ? w->close_code : CGP_WS_ABNORMAL, "");
    w->state = CGIPLUS_WS_DONE;
}

int cgiplus_ws_client_blocked(const cgiplus_ws *w)
{
    return w->c && !w->client_gone && (cgp_buf_used(&w->to_client) || w->c->data_in_output_filters);
}

/* The core output filter alone, with no new data: sends what it holds
 * without blocking (as the event MPM's write completion does). */
static apr_status_t core_flush(conn_rec *c)
{
    ap_filter_t *f = c->output_filters;
    while (f->next)
        f = f->next;
    return f->frec->filter_func.out_func(f, NULL);
}

void cgiplus_ws_client_flush(cgiplus_ws *w)
{
    conn_rec *c = w->c;
    apr_status_t rv = APR_SUCCESS;
    apr_size_t before;
    int pending;

    if (!c || w->client_gone || w->mpm_busy)
        return;
    before = cgp_buf_used(&w->to_client);
    pending = c->data_in_output_filters;
    if (w->h2) {
        /* An HTTP/2 stream: its thread is ours; mod_http2 takes what fits
         * its window, waiting if it must. */
        if (cgp_buf_used(&w->to_client)) {
            apr_bucket *b = apr_bucket_transient_create((const char *)w->to_client.p +
                                                        w->to_client.off,
                                                        cgp_buf_used(&w->to_client), c->bucket_alloc);
            APR_BRIGADE_INSERT_TAIL(w->bb, b);
            APR_BRIGADE_INSERT_TAIL(w->bb, apr_bucket_flush_create(c->bucket_alloc));
            rv = ap_pass_brigade(c->output_filters, w->bb);
            apr_brigade_cleanup(w->bb);
            buf_eat(&w->to_client, cgp_buf_used(&w->to_client));
        }
    } else {
        if (c->data_in_output_filters)
            rv = core_flush(c);
        while (rv == APR_SUCCESS && !c->aborted && !c->data_in_output_filters &&
               cgp_buf_used(&w->to_client)) {
            apr_size_t k = cgp_buf_used(&w->to_client) > WS_PASS ? WS_PASS : cgp_buf_used(&w->to_client);
            /* no FLUSH bucket: the core would block on it */
            APR_BRIGADE_INSERT_TAIL(w->bb, apr_bucket_transient_create(
                (const char *)w->to_client.p + w->to_client.off, k, c->bucket_alloc));
            rv = ap_pass_brigade(c->output_filters, w->bb);
            apr_brigade_cleanup(w->bb);
            buf_eat(&w->to_client, k);
            if (rv == APR_SUCCESS)
                rv = core_flush(c);
        }
    }
    if (rv != APR_SUCCESS || c->aborted) {
        client_gone(w);
        return;
    }
    if (!cgp_buf_used(&w->to_client) && !c->data_in_output_filters)
        w->q_t0 = 0;
    else if (cgp_buf_used(&w->to_client) < before || c->data_in_output_filters != pending)
        w->q_t0 = apr_time_now(); /* progress restarts the message timeout */
    /* Our close is out and theirs came (or none is awaited): done. */
    if (w->close_sent && w->close_rcvd && !cgp_buf_used(&w->to_client) &&
        !c->data_in_output_filters)
        w->state = CGIPLUS_WS_DONE;
}

/* ------------------------------------------------------------ from the client */

/* GCRA over the message rate: a burst of rate messages, then rate a second. */
static int rate_ok(cgiplus_ws *w, apr_time_t now)
{
    apr_uint64_t iv, burst;
    if (!w->lim.rate)
        return 1;
    iv = 1000000u / w->lim.rate;
    burst = (apr_uint64_t)(w->lim.rate - 1) * iv;
    if (w->rate_at > (apr_uint64_t)now + burst)
        return 0;
    w->rate_at = (w->rate_at > (apr_uint64_t)now ? w->rate_at : (apr_uint64_t)now) + iv;
    return 1;
}

static void on_client_close(cgiplus_ws *w, const cgp_ws_event *ev)
{
    char reason[CGP_WSR_REASON_MAX + 1];
    apr_size_t n = ev->rlen > CGP_WSR_REASON_MAX ? CGP_WSR_REASON_MAX : ev->rlen;
    if (n) /* a close with no reason has none to copy (NULL: UBSan's report) */
        memcpy(reason, ev->reason, n);
    reason[n] = '\0';
    w->close_rcvd = 1;
    /* Answered with its own code (none if it sent none), as RFC 6455 5.5.1. */
    send_close(w, ev->code, "");
    tell_runner(w, ev->code, reason);
}

static void on_event(cgiplus_ws *w, int rc, const cgp_ws_event *ev, apr_time_t now)
{
    if (rc == CGP_WS_DATA) {
        unsigned char kind = ev->opcode == CGP_WS_BINARY ? CGP_WS_KIND_BINARY : CGP_WS_KIND_TEXT;
        if (!w->msg_open) {
            if (!rate_ok(w, now)) {
                ws_fail(w, CGP_WS_POLICY, "message rate over CGIplusWebSocketMaxRate");
                return;
            }
            w->msg_open = 1;
            w->msg_t0 = now;
        }
        if (!w->close_sent) /* after our close its data goes nowhere */
            runner_frame(w, CGP_T_WS_MSG, ev->fin ? CGP_F_END : 0, &kind, 1, ev->data, ev->len);
        if (ev->fin) {
            w->msg_open = 0;
            w->last_msg = now;
        }
        return;
    }
    switch (ev->opcode) {
    case CGP_WS_PING:
        /* A client that pings and does not read grows no queue: past the
         * send queue its pings go unanswered (RFC 6455 5.5.3 lets an
         * endpoint answer only the latest). */
        if (!w->close_sent && cgp_buf_used(&w->to_client) < w->lim.send_queue)
            client_frame(w, 1, CGP_WS_PONG, ev->data, ev->len);
        break;
    case CGP_WS_PONG:
        w->ping_out = 0;
        break;
    case CGP_WS_CLOSE:
        on_client_close(w, ev);
        break;
    }
}

void cgiplus_ws_client_read(cgiplus_ws *w)
{
    unsigned char buf[WS_READ];

    while (w->c && !w->client_gone && w->state != CGIPLUS_WS_DONE && !w->close_rcvd) {
        apr_size_t len = sizeof(buf), pos = 0;
        apr_time_t now;
        apr_status_t rv;
        cgp_ws_event ev;
        int rc;

        if (cgp_buf_used(&w->to_runner) > WS_RUNNER_HIGH) {
            w->read_paused = 1;
            return;
        }
        w->read_paused = 0;
        apr_brigade_cleanup(w->bb);
        rv = ap_get_brigade(w->c->input_filters, w->bb, AP_MODE_READBYTES, APR_NONBLOCK_READ,
                            sizeof(buf));
        if (APR_STATUS_IS_EAGAIN(rv))
            return;
        if (rv == APR_SUCCESS && APR_BRIGADE_EMPTY(w->bb))
            return;
        if (rv == APR_SUCCESS)
            rv = apr_brigade_flatten(w->bb, (char *)buf, &len);
        if (rv != APR_SUCCESS || (len == 0 && !APR_BRIGADE_EMPTY(w->bb) &&
                                  APR_BUCKET_IS_EOS(APR_BRIGADE_LAST(w->bb)))) {
            apr_brigade_cleanup(w->bb);
            client_gone(w);
            return;
        }
        apr_brigade_cleanup(w->bb);
        now = apr_time_now();
        w->last_in = now;
        w->ping_out = 0; /* anything from it shows it is there */
        while ((rc = cgp_ws_parse(&w->parser, buf, len, &pos, &ev)) != CGP_WS_MORE) {
            if (rc == CGP_WS_ERROR) {
                ws_fail(w, ev.code, ev.why);
                return;
            }
            on_event(w, rc, &ev, now);
            if (w->close_rcvd)
                break;
        }
        cgiplus_ws_runner_flush(w);
    }
}

/* ------------------------------------------------------------ from the runner */

static void runner_proto(cgiplus_ws *w, const char *what)
{
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, w->s, CGIPLUS_LOGNO(1807)
                 "protocol error from cgiplus-runner on WebSocket %lu of %s: %s; closing it",
                 (unsigned long)w->id, w->script, what);
    close(w->rfd);
    w->rfd = -1;
    w->runner_told = 1;
    ws_fail(w, CGP_WS_INTERNAL, "runner protocol error");
}

/* A WS_MSG frame begins: the drop of the message when the queue is full
 * and CGIplusWebSocketOverflow says so. No frame header yet: to_client
 * must only ever hold whole frames, since a pong, a ping or our close may
 * be appended to it between two reads of the runner (a header for the
 * whole runner frame, its payload still to come, would put them inside
 * the payload). */
static void msg_begin(cgiplus_ws *w, unsigned kind)
{
    if (!w->rmsg_open) {
        w->rdrop = w->close_sent; /* nothing after our close frame */
        if (!w->rdrop && cgp_buf_used(&w->to_client) + w->rleft > w->lim.send_queue) {
            if (w->lim.overflow == CGP_WS_OV_DROP) {
                w->rdrop = 1;
                ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, w->s, CGIPLUS_LOGNO(1808)
                             "WebSocket %lu of %s: client %s does not read; a message is "
                             "dropped (CGIplusWebSocketOverflow drop)", (unsigned long)w->id,
                             w->script, w->addr);
            } else {
                ws_fail(w, w->lim.overflow == CGP_WS_OV_1011 ? CGP_WS_INTERNAL : CGP_WS_POLICY,
                        "send queue full: the client does not read");
                w->rdrop = 1;
            }
        }
        w->rmsg_open = 1;
        w->rstarted = 0;
        w->rkind = kind;
    }
}

/* Payload of the current WS_MSG frame, k bytes of it (w->rleft counts them
 * still): one whole WebSocket frame, final if it ends the message. */
static void msg_chunk(cgiplus_ws *w, const unsigned char *d, apr_size_t k)
{
    int fin = (w->rflags & CGP_F_END) && w->rleft == k;
    unsigned op = w->rstarted ? CGP_WS_CONT
                              : w->rkind == CGP_WS_KIND_BINARY ? CGP_WS_BINARY : CGP_WS_TEXT;
    unsigned char h[CGP_WS_HDR_MAX];
    size_t hl;

    if (w->close_sent)
        w->rdrop = 1; /* our close went out mid-message: no data frame after it */
    if (w->rdrop || (!k && !fin))
        return;
    hl = cgp_ws_frame_hdr(h, fin, op, k, NULL);
    if (cgp_buf_append(&w->to_client, h, hl) < 0 || (k && cgp_buf_append(&w->to_client, d, k) < 0)) {
        ws_fail(w, CGP_WS_INTERNAL, "out of memory");
        w->rdrop = 1;
        return;
    }
    w->rstarted = 1;
    if (!w->q_t0)
        w->q_t0 = apr_time_now();
}

static void frame_done(cgiplus_ws *w)
{
    if (w->rtype == CGP_T_WS_MSG && (w->rflags & CGP_F_END)) {
        if (!w->rdrop)
            w->last_msg = apr_time_now();
        w->rmsg_open = w->rdrop = w->rstarted = 0;
    } else if (w->rtype == CGP_T_WS_CLOSE) {
        unsigned code;
        const char *reason;
        size_t rlen;
        char rb[CGP_WSR_REASON_MAX + 1];
        if (cgp_wsr_close_unpack(w->rctl, w->rctl_len, 1, &code, &reason, &rlen) != CGP_OK) {
            runner_proto(w, "a WS_CLOSE that does not parse");
            return;
        }
        memcpy(rb, reason, rlen);
        rb[rlen] = '\0';
        /* The worker closes it (or died: 1011, or drains: 1001); the runner
         * hears the client's answer. */
        if (code == CGP_WS_NO_STATUS || code == CGP_WS_ABNORMAL)
            code = CGP_WS_INTERNAL;
        send_close(w, code, rb);
    }
    w->rhlen = 0;
}

void cgiplus_ws_runner_read(cgiplus_ws *w)
{
    unsigned char buf[WS_READ];

    while (w->rfd >= 0 && !w->runner_gone) {
        ssize_t n = read(w->rfd, buf, sizeof(buf));
        apr_size_t i = 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            /* The runner went away (a restart): nobody serves it any more.
             * Once told of the end (the client went), its close is the
             * answer, not a failure. */
            int told = w->runner_told;
            w->runner_gone = w->runner_told = 1;
            close(w->rfd);
            w->rfd = -1;
            if (!w->close_sent && !told)
                ws_fail(w, CGP_WS_INTERNAL, "the runner went away");
            break;
        }
        while (i < (apr_size_t)n && w->rfd >= 0) {
            if (w->rhlen < CGP_HDR_LEN) {
                apr_size_t k = CGP_HDR_LEN - w->rhlen;
                cgp_hdr h;
                if (k > (apr_size_t)n - i)
                    k = (apr_size_t)n - i;
                memcpy(w->rhdr + w->rhlen, buf + i, k);
                w->rhlen += k;
                i += k;
                if (w->rhlen < CGP_HDR_LEN)
                    break;
                if (cgp_hdr_unpack(w->rhdr, &h) != CGP_OK ||
                    (h.type != CGP_T_WS_MSG && h.type != CGP_T_WS_CLOSE) ||
                    (h.type == CGP_T_WS_MSG && h.len == 0)) {
                    runner_proto(w, "an unexpected frame");
                    return;
                }
                if (h.type == CGP_T_WS_CLOSE && h.len > CGP_WSR_CLOSE_MAX) {
                    runner_proto(w, "a WS_CLOSE that is too long");
                    return;
                }
                w->rtype = h.type;
                w->rflags = h.flags;
                w->rleft = h.len;
                w->rkind_due = h.type == CGP_T_WS_MSG;
                w->rctl_len = 0;
                if (!w->rleft)
                    frame_done(w);
                continue;
            }
            if (w->rkind_due) {
                unsigned kind = buf[i++];
                w->rleft--;
                w->rkind_due = 0;
                if (kind != CGP_WS_KIND_TEXT && kind != CGP_WS_KIND_BINARY) {
                    runner_proto(w, "a WS_MSG of an unknown kind");
                    return;
                }
                msg_begin(w, kind);
                if (!w->rleft) {
                    msg_chunk(w, NULL, 0); /* an empty message */
                    frame_done(w);
                }
                continue;
            }
            apr_size_t k = w->rleft < (apr_size_t)n - i ? w->rleft : (apr_size_t)n - i;
            if (w->rtype == CGP_T_WS_MSG) {
                msg_chunk(w, buf + i, k);
            } else {
                memcpy(w->rctl + w->rctl_len, buf + i, k);
                w->rctl_len += k;
            }
            i += k;
            w->rleft -= (apr_uint32_t)k;
            if (!w->rleft)
                frame_done(w);
        }
    }
    cgiplus_ws_client_flush(w);
}

/* ------------------------------------------------------------ timers */

void cgiplus_ws_tick(cgiplus_ws *w, apr_time_t now)
{
    if (w->state == CGIPLUS_WS_DONE)
        return;
    if (w->close_sent) {
        if (now - w->close_at >= w->lim.close_wait) {
            tell_runner(w, w->close_code, "");
            w->state = CGIPLUS_WS_DONE; /* it never answered: close anyway */
        }
        return;
    }
    if (w->lim.msg_timeout && w->msg_open && now - w->msg_t0 >= w->lim.msg_timeout) {
        ws_fail(w, CGP_WS_POLICY, "a message took longer than CGIplusWebSocketMessageTimeout");
        return;
    }
    if (w->lim.msg_timeout && w->q_t0 && now - w->q_t0 >= w->lim.msg_timeout) {
        ws_fail(w, CGP_WS_POLICY, "the client read nothing for CGIplusWebSocketMessageTimeout");
        return;
    }
    if (w->lim.idle && now - w->last_msg >= w->lim.idle) {
        ws_fail(w, CGP_WS_GOING_AWAY, "idle for CGIplusWebSocketIdleTimeout");
        return;
    }
    if (w->lim.ping && w->ping_out && now - w->ping_at >= w->lim.ping) {
        /* no pong, nor anything else, for a whole interval: it is gone */
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, w->s, CGIPLUS_LOGNO(1809)
                     "WebSocket %lu of %s: client %s answered no ping; closing it",
                     (unsigned long)w->id, w->script, w->addr);
        tell_runner(w, CGP_WS_ABNORMAL, "");
        w->state = CGIPLUS_WS_DONE;
        return;
    }
    if (w->lim.ping && !w->ping_out && now - w->last_in >= w->lim.ping) {
        unsigned char t[8];
        for (int i = 0; i < 8; i++)
            t[i] = (unsigned char)((apr_uint64_t)now >> (56 - 8 * i));
        client_frame(w, 1, CGP_WS_PING, t, sizeof(t));
        w->ping_out = 1;
        w->ping_at = now;
        cgiplus_ws_client_flush(w);
    }
}

/* The earliest time tick has something to do. */
static apr_time_t next_due(const cgiplus_ws *w)
{
    apr_time_t due = 0, t;
#define MIN_DUE(x) do { t = (x); if (!due || t < due) due = t; } while (0)
    if (w->close_sent) {
        MIN_DUE(w->close_at + w->lim.close_wait);
        return due;
    }
    if (w->lim.msg_timeout && w->msg_open)
        MIN_DUE(w->msg_t0 + w->lim.msg_timeout);
    if (w->lim.msg_timeout && w->q_t0)
        MIN_DUE(w->q_t0 + w->lim.msg_timeout);
    if (w->lim.idle)
        MIN_DUE(w->last_msg + w->lim.idle);
    if (w->lim.ping)
        MIN_DUE(w->ping_out ? w->ping_at + w->lim.ping : w->last_in + w->lim.ping);
#undef MIN_DUE
    return due;
}

void cgiplus_ws_pump(cgiplus_ws *w)
{
    cgiplus_ws_client_read(w);
    cgiplus_ws_runner_read(w);
    cgiplus_ws_runner_flush(w);
    cgiplus_ws_client_flush(w);
    cgiplus_ws_tick(w, apr_time_now());
}

void cgiplus_ws_detach(cgiplus_ws *w)
{
    if (!w->runner_told && w->rfd >= 0)
        tell_runner(w, w->close_sent ? w->close_code : CGP_WS_ABNORMAL, "");
    if (w->rfd >= 0) {
        close(w->rfd);
        w->rfd = -1;
    }
    w->c = NULL;
    w->cfd = -1;
    w->state = CGIPLUS_WS_DONE;
}

/* ------------------------------------------------------------ one thread per connection */

void cgiplus_ws_run_sync(cgiplus_ws *w)
{
    int pipe_fd = -1;

    if (w->h2) {
        apr_pollfd_t pfd = { 0 };
        apr_interval_time_t tmo;
        apr_os_file_t f;
        if (ap_get_pollfd_from_conn(w->c, &pfd, &tmo) == APR_SUCCESS &&
            pfd.desc_type == APR_POLL_FILE && apr_os_file_get(&f, pfd.desc.f) == APR_SUCCESS)
            pipe_fd = f;
    }
    cgiplus_ws_pump(w);
    while (w->state != CGIPLUS_WS_DONE) {
        struct pollfd p[2];
        apr_time_t due = next_due(w), now = apr_time_now();
        int tmo = due ? (int)((due > now ? due - now : 0) / 1000) + 1 : 1000;
        if (tmo > 1000)
            tmo = 1000; /* h2 without a pipe to poll is read once a second too */
        p[0].fd = w->h2 ? pipe_fd : w->cfd;
        p[0].events = (short)((w->read_paused ? 0 : POLLIN) |
                              (!w->h2 && cgiplus_ws_client_blocked(w) ? POLLOUT : 0));
        p[1].fd = w->rfd;
        p[1].events = (short)(POLLIN | (cgp_buf_used(&w->to_runner) ? POLLOUT : 0));
        if (poll(p, 2, tmo) < 0 && errno != EINTR)
            break;
        cgiplus_ws_pump(w);
    }
    cgiplus_ws_client_flush(w);
    cgiplus_ws_detach(w);
}
