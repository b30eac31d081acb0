/* cgiplus_fcgi_direct.c: the direct path to a FastCGI worker, a kind of
 * worker of its own (cgiplus_fcgi_xport; docs/DESIGN.md, "FastCGI
 * workers"). The httpd child claims the worker in the runner's table as it
 * claims a CGIplus one (cgiplus_direct_take, cgiplus_direct_table.c),
 * gets its connection from the runner once (FCGI_CHANNEL), writes
 * BEGIN_REQUEST, PARAMS and STDIN itself and reads STDOUT, STDERR and
 * END_REQUEST with the shared codec, into the same q->out the rest of the
 * module reads. It hands the worker back at a record boundary: a request
 * it leaves unfinished gets ABORT_REQUEST, and the runner reads on to its
 * END_REQUEST. */
#include "cgiplus_direct_private.h"
#include "cgiplus_scriptlog.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <linux/sockios.h> /* SIOCOUTQ */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cgp_fcgi.h"
#include "http_log.h"
#include "apr_portable.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

#define FCGI_READ       (64 * 1024)  /* one read of the connection */
#define FCGI_ALIGN_MS   200          /* the rest of a record a request is left in */
#define FCGI_ERR_LINE   4096         /* a longer stderr line is logged in pieces */

/* One request's FastCGI exchange on the direct path: q->xd while this
 * kind has the request, the claim's state first. From r->pool, for the
 * handler call; the connection is the worker's channel's. Changed by this
 * file, x by the direct path's files. */
typedef struct cgiplus_fcgi_dx {
    cgiplus_direct x;         /* first: the direct path's view of it */
    int fd;
    uint16_t reqid;           /* this request's id (cgp_tslot_fcgi_next) */
    cgp_fcgi_parser parser;
    char *out;                /* the request's records, written from out_off */
    apr_size_t out_off, out_len;
    int end_req;              /* END_REQUEST read: its outcome + 1 */
    int ready;                /* the connection is known readable */
    int closed;               /* the application closed the connection */
    int heard;                /* a byte of the answer came */
    int out_seen;             /* a STDOUT byte came */
    int carried;              /* the connection carried a request before this one */
    int probing;              /* BEGIN_REQUEST alone goes first (out_len), the rest after */
    apr_size_t full_len;      /* while probing: the request's whole length */
    apr_uint64_t probe_t0;    /* when the probe went */
    int own_fd;               /* fd is this request's own connection (per request) */
} cgiplus_fcgi_dx;

static cgiplus_fcgi_dx *fcgi_x(cgiplus_req *q)
{
    return q->xd;
}

static int fcgi_start(cgiplus_req *q, cgiplus_direct *x, const char *body, apr_size_t blen);
static apr_status_t fcgi_step(cgiplus_req *q, apr_interval_time_t wait, apr_os_sock_t cs,
                              int cs_eof, int *client_rd);
static direct_chan *fcgi_chan_get(request_rec *r, uint32_t sidx, uint32_t sgen);

/* A FastCGI worker: its connection, records on it. */
static const direct_proto fcgi_proto = {
    .xp = &cgiplus_fcgi_xport,
    .xsize = sizeof(cgiplus_fcgi_dx),
    .chan_get = fcgi_chan_get,
    .start = fcgi_start,
    .step = fcgi_step,
};

/* The worker's connection: cached, or asked of the runner once. */
static direct_chan *fcgi_chan_get(request_rec *r, uint32_t sidx, uint32_t sgen)
{
    unsigned char pl[CGP_PAIR_LEN];
    cgp_pair pr = { sidx, sgen }, ack;
    direct_chan *ch;
    int fd = -1, nfds = 0;
    void *base = cgiplus_dp.base; /* the mapping outlives a drop; the pointer may not */

    if ((ch = cgiplus_direct_chan_cached(sidx, sgen)))
        return ch;
    if (!base)
        return NULL;
    cgp_pair_pack(pl, &pr);
    if (cgiplus_direct_ask(r, CGP_T_FCGI_CHANNEL, pl, CGP_T_FCGI_CHANNEL_ACK, pl, sizeof(pl),
                           &fd, 1, &nfds) != APR_SUCCESS)
        return NULL;
    if (cgp_pair_unpack(pl, sizeof(pl), &ack) != CGP_OK || ack.a != sidx || ack.b != sgen ||
        nfds != 1 || !(ch = calloc(1, sizeof(*ch)))) {
        if (nfds)
            close(fd);
        return NULL;
    }
    ch->slot = sidx;
    ch->gen = sgen;
    ch->pid = atomic_load(&cgp_table_slot(base, sidx)->worker_pid);
    ch->fd_in = ch->fd_body = ch->fd_peer = ch->fd_err = -1;
    ch->fd_out = fd;
    /* the pool connects per request: the runner sent its socket's name */
    ch->per_request = (fcntl(fd, F_GETFL) & O_PATH) != 0;
    ch->refs = 1;
    cgiplus_direct_chan_keep(ch);
    return ch;
}

/* BEGIN_REQUEST, PARAMS and the body as STDIN records, in one buffer. */
static apr_status_t fcgi_pack(cgiplus_req *q, cgiplus_fcgi_dx *fx, const char *body,
                              apr_size_t blen)
{
    cgp_fcgi_pair *pairs = apr_palloc(q->r->pool, sizeof(*pairs) * (apr_size_t)(q->nparams + 1));
    char *cl = apr_psprintf(q->r->pool, "%" APR_SIZE_T_FMT, blen);
    apr_size_t np = 0, len = 0, off, rsize, nrec = blen / CGP_FCGI_MAX_CONTENT + 2;
    int i;

    for (i = 0; i < q->nparams; i++)
        if (!cgp_kv_name_is(q->params[i].name, q->params[i].nlen, "CONTENT_LENGTH"))
            pairs[np++] = (cgp_fcgi_pair){ q->params[i].name, q->params[i].nlen,
                                           q->params[i].val, q->params[i].vlen };
    if (blen || !q->cl_cgi) /* php-fpm's peer gives a GET none */
        pairs[np++] = (cgp_fcgi_pair){ "CONTENT_LENGTH", 14, cl, strlen(cl) };
    if (!(rsize = cgp_fcgi_request_size(pairs, np)))
        return APR_EINVAL;
    fx->out = apr_palloc(q->r->pool, rsize + blen + nrec * CGP_FCGI_HDR_LEN);
    if (cgp_fcgi_request_pack((unsigned char *)fx->out, rsize, &len, fx->reqid,
                              CGP_FCGI_RESPONDER, fx->own_fd ? 0 : CGP_FCGI_KEEP_CONN, pairs,
                              np) != CGP_FCGI_OK)
        return APR_EINVAL;
    for (off = 0;;) {
        apr_size_t k = blen - off > CGP_FCGI_MAX_CONTENT ? CGP_FCGI_MAX_CONTENT : blen - off;
        cgp_fcgi_hdr h = { CGP_FCGI_STDIN, fx->reqid, (uint16_t)k, 0 };

        cgp_fcgi_hdr_pack((unsigned char *)fx->out + len, &h);
        if (k)
            memcpy(fx->out + len + CGP_FCGI_HDR_LEN, body + off, k); /* body may be NULL */
        len += CGP_FCGI_HDR_LEN + k;
        off += k;
        if (k == 0)
            break; /* the empty record that ends the stream */
    }
    fx->out_len = len;
    return APR_SUCCESS;
}

/* Writes what the connection takes of the request: 0, or an errno once it
 * failed (the application closed the connection). */
static int fcgi_write(cgiplus_req *q)
{
    cgiplus_fcgi_dx *fx = fcgi_x(q);

    while (fx->out_off < fx->out_len) {
        ssize_t n = send(fx->fd, fx->out + fx->out_off, fx->out_len - fx->out_off,
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n > 0) {
            fx->out_off += (apr_size_t)n;
            fx->x.t_progress = cgiplus_direct_now_ms();
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return n < 0 ? errno : EPIPE;
    }
    return 0;
}

/* An application that closes its connection after each request
 * (runner_fcgi.c, learn_oneshot): learnt here too, when the connection a
 * request is written on is found closed (EPIPE before a byte of it), or
 * closed with the request unread (ECONNRESET). */
static void fcgi_learn_oneshot(cgiplus_direct *x)
{
    atomic_fetch_or(&x->slot->flags, CGP_TS_ONESHOT);
}

/* It closed the connection with bytes of a request unread, of which only
 * BEGIN_REQUEST had gone (fcgi_probe): it never read the request. It
 * goes to the runner, which connects again, as a request whose worker
 * ended before it read it does (cgiplus_direct_wait_first, 1131). */
static void fcgi_unread(cgiplus_fcgi_dx *fx)
{
    fx->closed = 1;
    fx->probing = 0;
    fx->x.eof = 1;
    fx->x.unfit = 1;
    if (!fx->own_fd)
        fcgi_learn_oneshot(&fx->x);
}

/* Whether q's BEGIN_REQUEST goes alone first (runner_fcgi.c, wants_probe):
 * only on a used connection of a worker known neither to keep its
 * connections nor to close them. Else the request goes whole, at no cost
 * beyond a look at the slot's flags, and is never sent again once a byte
 * of it went. Returns whether the connection carried a request before. */
static int fcgi_probe_start(cgiplus_fcgi_dx *fx)
{
    uint32_t fl = atomic_load(&fx->x.slot->flags);

    if ((fl & CGP_TS_FCGI_USED) && !(fl & (CGP_TS_FCGI_KEPT | CGP_TS_ONESHOT)) &&
        fx->out_len > CGP_FCGI_BEGIN_LEN) {
        fx->full_len = fx->out_len;
        fx->out_len = CGP_FCGI_BEGIN_LEN;
        fx->probing = 1;
        fx->probe_t0 = cgiplus_direct_now_ms();
    }
    if (!(fl & CGP_TS_FCGI_USED))
        atomic_fetch_or(&fx->x.slot->flags, CGP_TS_FCGI_USED);
    return (fl & CGP_TS_FCGI_USED) != 0;
}

/* How long the next wait for the probe's answer is: 1 ms, then longer,
 * at most 20 (no event says a socket's queue was read). */
static apr_int64_t fcgi_probe_ms(const cgiplus_fcgi_dx *fx)
{
    apr_uint64_t wait = (cgiplus_direct_now_ms() - fx->probe_t0) / 8 + 1;

    return wait > 20 ? 20 : (apr_int64_t)wait;
}

/* Did the application read the probe's BEGIN_REQUEST? Our bytes in its
 * queue (SIOCOUTQ) are 0 once it read them, and once it closed (its queue
 * freed): ECONNRESET then says it closed with them unread, an end of file
 * that it read BEGIN_REQUEST alone at most; either way it has nothing to
 * run (fcgi_unread). Taken, the connection open: it keeps its
 * connections (CGP_TS_FCGI_KEPT), and the rest goes. */
static void fcgi_probe(cgiplus_req *q)
{
    cgiplus_fcgi_dx *fx = fcgi_x(q);
    int queued = 0;
    ssize_t n;
    char c;

    if (!fx->probing || fx->closed || fx->out_off < fx->out_len ||
        ioctl(fx->fd, SIOCOUTQ, &queued) < 0 || queued > 0)
        return;
    n = recv(fx->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    /* An end of file: it closed (or ended its side, as node-fastcgi after
     * each response) having read BEGIN_REQUEST alone, which names nothing
     * to run: the request goes on a new connection, as if unread. */
    if (((n < 0 && errno == ECONNRESET) || n == 0) && !fx->heard) {
        fcgi_unread(fx);
        return;
    }
    if (n < 0 && errno == EINTR)
        return;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        atomic_fetch_or(&fx->x.slot->flags, CGP_TS_FCGI_KEPT);
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, q->r, CGIPLUS_LOGNO(1351)
                      "FastCGI worker pid %lu of %s keeps its connection (it read a "
                      "request's BEGIN_REQUEST on one that had carried a request): its "
                      "requests go whole from now on", (unsigned long)fx->x.ch->pid,
                      q->r->filename);
    }
    fx->probing = 0;
    fx->out_len = fx->full_len;
    if (fcgi_write(q)) {
        fx->out_off = fx->out_len; /* it closed: what it says on reading ends it */
        fx->x.eof = 1;
    }
}

/* Whether the application closed its connection, or its side of it:
 * an end of file (or ECONNRESET) is there before a byte was written. */
static int fcgi_ended(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

    return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* r->pool's cleanup of a request's own connection: it runs before the
 * handler's (registered later), whose abandon then finds fd -1, never a
 * number another request's connection may have by then. */
static apr_status_t fcgi_close_fd(void *data)
{
    cgiplus_fcgi_dx *fx = data;

    if (fx->fd >= 0)
        close(fx->fd);
    fx->fd = -1;
    return APR_SUCCESS;
}

/* Per request: q's own connection to the worker's listening socket,
 * through the name the runner sent (O_PATH: the runner's 0700 directory
 * is not walked), as mod_fcgid connects for each request. 0, or errno:
 * refused, the program exited by itself (its socket is gone), so nothing
 * of q reached it. */
static int fcgi_connect(cgiplus_req *q, cgiplus_fcgi_dx *fx)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd, rc;

    snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", fx->x.ch->fd_out);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return errno;
    do
        rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        int err = errno;

        close(fd);
        return err;
    }
    fx->fd = fd;
    apr_pool_cleanup_register(q->r->pool, fx, fcgi_close_fd, apr_pool_cleanup_null);
    return 0;
}

/* The claimed (or granted) worker x takes q: its records are written. */
static int fcgi_start(cgiplus_req *q, cgiplus_direct *x, const char *body, apr_size_t blen)
{
    request_rec *r = q->r;
    cgiplus_fcgi_dx *fx = (cgiplus_fcgi_dx *)x;
    apr_status_t rv;
    int err = 0, unread = 0, used;

    fx->own_fd = x->ch->per_request;
    fx->fd = fx->own_fd ? -1 : x->ch->fd_out;
    x->err_eof = 1; /* no stderr pipe: STDERR records come on the connection */
    /* a new id: nothing written for an earlier request passes for this one's */
    fx->reqid = cgp_tslot_fcgi_next(x->slot);
    cgp_fcgi_parser_init(&fx->parser, CGP_FCGI_FROM_APP);
    /* records of id 1 pass only from an application the runner saw answer
     * so (its first request is always the runner's) */
    cgp_fcgi_parser_expect(&fx->parser, fx->reqid,
                           (atomic_load(&x->slot->flags) & CGP_TS_FCGI_ONE) != 0);
    if ((rv = fcgi_pack(q, fx, body, blen)) != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1900)
                      "cannot build the FastCGI request for %s (a CGI variable over "
                      "FastCGI's caps)", r->filename);
        /* nothing was written: the worker goes back as it came */
        cgiplus_direct_unclaim(r, x);
        cgiplus_direct_chan_unref(x->ch);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    cgiplus_direct_started(q, &fcgi_proto, x, body, blen);
    x->orphan_runs = 1;
    if (fx->own_fd) {
        /* A new connection: nothing on it yet, no probe. Refused, or
         * closed before it took a byte (its listening socket closed with
         * the connection unaccepted): q never reached it, and goes to the
         * runner, which sends it to another worker. */
        if ((err = fcgi_connect(q, fx)) == 0 && ((err = fcgi_write(q)) == 0 || fx->out_off))
            goto written;
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, err, r, CGIPLUS_LOGNO(3601)
                      "FastCGI worker pid %lu of %s no longer listens (it exited by "
                      "itself); handing it back and sending the request through the runner",
                      (unsigned long)x->ch->pid, r->filename);
        goto refused;
    }
    /* Records it wrote with no request would pass for this one's answer:
     * unfit, it goes back to be stopped and the request, which never
     * reached it, to the runner (cgiplus_direct_wait_first; issue 20,
     * hole 1). */
    if (ioctl(fx->fd, FIONREAD, &unread) == 0 && unread > 0) {
        x->unfit = 1;
        return OK;
    }
    used = fx->carried = fcgi_probe_start(fx);
    /* An end of file already there: it ended its side after its last
     * request (node-fastcgi's socket.end(), a shutdown(SHUT_WR)) and may
     * still read, so a request written now would run in an application
     * that can no longer answer it (502). Nothing of it goes. Only a
     * connection that carried a request can be so (one peek a request). */
    if ((used && fcgi_ended(fx->fd)) || ((err = fcgi_write(q)) && fx->out_off == 0)) {
        /* It closed the connection before taking a byte (an aborted
         * request's, or an application that keeps none): the request never
         * reached it. The runner connects again; the request goes there. */
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, err, r, CGIPLUS_LOGNO(1901)
                      "FastCGI worker pid %lu of %s had closed its connection; handing it "
                      "back and sending the request through the runner",
                      (unsigned long)x->ch->pid, r->filename);
        if (used) /* (a fresh one closed unused: libfcgi's 2 s, runner_fcgi.c) */
            fcgi_learn_oneshot(x);
    refused:
        cgiplus_direct_hand_back(q, CGP_TS_EOF); /* counted where it runs */
        /* the whole body again: a granted request's went to the runner once */
        cgiplus_body_reset(&q->in, body, blen, r->connection->bucket_alloc);
        cgiplus_req_detach(q);
        q->worker_pid = 0;
        return DECLINED;
    }
written:
    if (err) {
        fx->closed = 1;
        x->eof = 1;
    }
    return OK;
}

/* Script stderr from STDERR records: whole lines to the request's log. */
static void fcgi_stderr(cgiplus_req *q, const unsigned char *d, apr_size_t n, int flush)
{
    cgiplus_direct *x = &fcgi_x(q)->x;

    if (!x->errbuf)
        x->errbuf = apr_palloc(q->r->pool, FCGI_ERR_LINE);
    while (n) {
        apr_size_t room = FCGI_ERR_LINE - x->err_len, k = n < room ? n : room;
        const unsigned char *nl = memchr(d, '\n', k);

        if (nl)
            k = (apr_size_t)(nl - d) + 1;
        memcpy(x->errbuf + x->err_len, d, k);
        x->err_len += k;
        d += k;
        n -= k;
        if (nl || x->err_len == FCGI_ERR_LINE) {
            cgiplus_script_stderr(q, x->errbuf, x->err_len);
            x->err_len = 0;
        }
    }
    if (flush && x->err_len) {
        cgiplus_script_stderr(q, x->errbuf, x->err_len);
        x->err_len = 0;
    }
}

/* The end of q's output (detail: cgp_end's), with the rest of its stderr. */
static void fcgi_end(cgiplus_req *q, int outcome, apr_uint32_t detail)
{
    cgp_end e = { 0 };

    fcgi_stderr(q, NULL, 0, 1);
    e.outcome = (uint8_t)outcome;
    e.pid = fcgi_x(q)->x.ch->pid;
    e.detail = detail;
    e.retry_after = outcome == CGP_O_OVERLOADED ? 1 : 0;
    cgiplus_req_end(q, &e);
}

static int fcgi_outcome(cgiplus_req *q, const cgp_fcgi_end *e)
{
    if (e->pstatus == CGP_FCGI_REQUEST_COMPLETE)
        return CGP_O_OK;
    if (fcgi_x(q)->out_seen) {
        /* Its response may have gone out already: it stands (as under
         * mod_fcgid), rather than an error whose form would depend on
         * how much of it had gone. */
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(3742)
                      "FastCGI worker pid %lu of %s ended the request with protocol status %u "
                      "after its output; the output stands", (unsigned long)fcgi_x(q)->x.ch->pid,
                      q->r->filename, (unsigned)e->pstatus);
        return CGP_O_OK;
    }
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1902)
                  "FastCGI worker pid %lu of %s ended the request with protocol status %u "
                  "(%s); answering %d", (unsigned long)fcgi_x(q)->x.ch->pid, q->r->filename,
                  (unsigned)e->pstatus, e->pstatus == CGP_FCGI_OVERLOADED ? "overloaded"
                  : e->pstatus == CGP_FCGI_CANT_MPX_CONN ? "cannot multiplex" : "unknown role",
                  e->pstatus == CGP_FCGI_UNKNOWN_ROLE ? HTTP_BAD_GATEWAY
                                                      : HTTP_SERVICE_UNAVAILABLE);
    return e->pstatus == CGP_FCGI_UNKNOWN_ROLE ? CGP_O_CRASHED : CGP_O_OVERLOADED;
}

/* Reads what the connection has, straight into bucket memory: STDOUT
 * pieces become buckets over it in q->out; STDERR is logged; END_REQUEST
 * (with its padding) ends the request. keep: bytes are dropped, not
 * delivered (a request left unfinished, read to a record boundary). */
static apr_status_t fcgi_read(cgiplus_req *q, int keep)
{
    cgiplus_fcgi_dx *fx = fcgi_x(q);
    cgiplus_direct *x = &fx->x;
    apr_bucket_alloc_t *ba = q->r->connection->bucket_alloc;
    apr_size_t pos = 0, len;
    apr_bucket *heap;
    char *buf;
    ssize_t n;

    buf = apr_bucket_alloc(FCGI_READ, ba);
    if (!buf)
        return APR_ENOMEM;
    do
        n = read(fx->fd, buf, FCGI_READ);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        fx->ready = 0;
        apr_bucket_free(buf);
        return APR_SUCCESS;
    }
    if (((n < 0 && errno == ECONNRESET) || n == 0) && keep && !fx->heard && !q->ended &&
        (fx->probing || (fx->own_fd && (atomic_fetch_and(&x->slot->flags, ~CGP_TS_FCGI_UNTAKEN) &
                                         CGP_TS_FCGI_UNTAKEN)))) {
        /* It closed the connection with bytes unread, of which only the
         * probe's BEGIN_REQUEST had gone (on AF_UNIX, ECONNRESET:
         * runner_fcgi.c, resend), as an application that closes after each
         * request does when the request is written just before its close:
         * it never read it. Of a request that went further, ECONNRESET says
         * only that some bytes were unread (a pre-fork application's child
         * that died in it, having acted on its PARAMS): that, and an end of
         * file, is a 502, never sent again. An end of file while only the
         * probe went says it read BEGIN_REQUEST alone at most (node-fastcgi
         * ends its side after each response and reads on): nothing to run,
         * sent again as unread. Per request: the runner found this
         * connection unaccepted as the program exited (runner_fcgi.c,
         * fcgi_unaccepted), and said so before closing it. */
        apr_bucket_free(buf);
        fcgi_unread(fx);
        return APR_SUCCESS;
    }
    if (n <= 0) {
        apr_bucket_free(buf);
        fx->closed = 1;
        /* per request, its close after END_REQUEST is the rule: the worker
         * serves on */
        x->eof = !(fx->own_fd && fx->end_req && cgp_fcgi_parser_between(&fx->parser));
        if (fx->end_req && !q->ended)
            fcgi_end(q, fx->end_req - 1, 0); /* its padding is all that is missing */
        else if (!q->ended && keep) { /* closed before END_REQUEST: this request fails (502) */
            /* On a kept connection with nothing of an answer: a pre-fork
             * application's child that ends a moment after its last
             * END_REQUEST, this request written in between (runner_fcgi.c,
             * conn_eof). The runner learns it (2926) if it still listens. */
            if (fx->carried && !fx->heard)
                fcgi_learn_oneshot(x);
            fcgi_end(q, CGP_O_CRASHED, cgiplus_direct_exit_status(x));
        }
        return APR_SUCCESS;
    }
    fx->ready = n == FCGI_READ;
    fx->heard = 1;
    len = (apr_size_t)n;
    heap = apr_bucket_heap_create(buf, len, apr_bucket_free, ba);
    x->t_progress = cgiplus_direct_now_ms();
    for (;;) { /* to MORE: a record whose content ends the read is complete too */
        cgp_fcgi_event ev;
        int rc = cgp_fcgi_parse(&fx->parser, (unsigned char *)buf, len, &pos, &ev);

        if (rc == CGP_FCGI_MORE)
            break;
        if (rc < 0) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1903)
                          "FastCGI worker pid %lu of %s broke the protocol: %s (record id %u, "
                          "request %u in flight)", (unsigned long)x->ch->pid, q->r->filename,
                          cgp_fcgi_strerror(rc), (unsigned)fx->parser.cur.reqid,
                          (unsigned)fx->parser.reqid);
            x->broken = 1;
            /* after its END_REQUEST: the answer stands, what follows is
             * nobody's (the worker is handed back broken) */
            if (!q->ended && keep)
                fcgi_end(q, fx->end_req ? fx->end_req - 1 : CGP_O_CRASHED, 0);
            break;
        }
        if (rc == CGP_FCGI_PIECE && ev.hdr.type == CGP_FCGI_STDOUT && keep) {
            apr_bucket *b;

            fx->out_seen |= ev.len > 0;
            apr_bucket_copy(heap, &b);
            b->start = (apr_off_t)((const char *)ev.data - buf);
            b->length = ev.len;
            cgiplus_req_out(q, b);
        }
        else if (rc == CGP_FCGI_PIECE && ev.hdr.type == CGP_FCGI_STDERR) {
            fcgi_stderr(q, ev.data, ev.len, 0);
        }
        else if (rc == CGP_FCGI_RECORD && ev.hdr.type == CGP_FCGI_END_REQUEST) {
            fx->end_req = fcgi_outcome(q, &ev.u.end) + 1;
        }
    }
    if (fx->end_req && cgp_fcgi_parser_between(&fx->parser)) {
        if (!q->ended && keep)
            fcgi_end(q, fx->end_req - 1, 0);
    }
    apr_bucket_destroy(heap); /* buf lives on in the output buckets */
    return APR_SUCCESS;
}

/* One round (direct_proto's step): the connection, and the client's. */
static apr_status_t fcgi_step(cgiplus_req *q, apr_interval_time_t wait, apr_os_sock_t cs,
                              int cs_eof, int *client_rd)
{
    cgiplus_fcgi_dx *fx = fcgi_x(q);
    cgiplus_direct *x = &fx->x;
    struct pollfd pf[2];
    int n = 1, rc, by_deadline, capped = 0;
    apr_int64_t ms = cgiplus_direct_wait_ms(q, wait, &by_deadline);

    if (client_rd)
        *client_rd = 0;
    if (fx->probing && fx->out_off == fx->out_len) { /* look at its queue again soon */
        apr_int64_t p = fcgi_probe_ms(fx);

        if (ms < 0 || ms > p) {
            ms = p;
            capped = 1;
        }
    }
    pf[0].fd = fx->fd;
    pf[0].events = POLLIN | (fx->out_off < fx->out_len ? POLLOUT : 0);
    if (cs >= 0) {
        pf[1].fd = cs;
        pf[1].events = cs_eof ? 0 : POLLIN; /* after its EOF: hang-up or error only */
        n = 2;
    }
    do
        rc = poll(pf, (nfds_t)n, (int)ms);
    while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return APR_FROM_OS_ERROR(errno);
    if (rc == 0 && capped) {
        fcgi_probe(q);
        return APR_SUCCESS;
    }
    if (rc == 0) {
        if (wait >= 0 && !by_deadline)
            return APR_TIMEUP;
        cgiplus_direct_timeout(q, by_deadline); /* 1706; ABORT_REQUEST as it goes back */
        fcgi_stderr(q, NULL, 0, 1);
        return APR_SUCCESS;
    }
    if (n == 2 && pf[1].revents && client_rd)
        *client_rd = cs_eof ? 2 : 1;
    if ((pf[0].revents & POLLOUT) && fcgi_write(q)) {
        fx->out_off = fx->out_len; /* it closed: what it says on reading ends it */
        x->eof = 1;
    }
    if (pf[0].revents & (POLLIN | POLLHUP | POLLERR))
        return fcgi_read(q, 1);
    fcgi_probe(q);
    return APR_SUCCESS;
}

/* Reads until something arrives: output, the end, a failure. */
static apr_status_t fcgi_read_op(cgiplus_req *q)
{
    apr_status_t rv = APR_SUCCESS;
    apr_off_t had = q->out_len;

    while (rv == APR_SUCCESS && !q->ended && q->out_len == had) {
        cgiplus_fcgi_dx *fx = fcgi_x(q);

        if (fx->ready && fx->out_off == fx->out_len)
            rv = fcgi_read(q, 1); /* readable already: a poll would only say so */
        else
            rv = fcgi_step(q, -1, -1, 0, NULL);
    }
    return rv;
}

static int fcgi_readable(cgiplus_req *q, apr_interval_time_t wait)
{
    cgiplus_fcgi_dx *fx = fcgi_x(q);
    struct pollfd pf = { .fd = fx->fd, .events = POLLIN };
    int rc;

    if (fx->ready || fx->out_off < fx->out_len || fx->probing)
        return 1; /* the next step has work to do */
    do
        rc = poll(&pf, 1, (int)apr_time_as_msec(wait));
    while (rc < 0 && errno == EINTR);
    fx->ready = rc > 0;
    return rc != 0;
}

static int fcgi_out_fd(cgiplus_req *q)
{
    return fcgi_x(q)->fd;
}

/* Before the worker goes back: ABORT_REQUEST and a record boundary if the
 * request is not over, or what the runner must do with the connection. */
static void fcgi_leave(cgiplus_req *q)
{
    cgiplus_fcgi_dx *fx = fcgi_x(q);
    cgiplus_direct *x = &fx->x;
    unsigned char ab[CGP_FCGI_ABORT_LEN];
    apr_uint64_t until;

    if (!x->released && !x->eof && !x->broken && fx->end_req &&
        cgp_fcgi_parser_between(&fx->parser)) {
        /* Ended cleanly. An application known to close after each request:
         * back to the runner, which connects again, so no request is
         * written on a connection it is closing. */
        if (!fx->own_fd && (atomic_load(&x->slot->flags) & CGP_TS_ONESHOT))
            x->eof = 1;
        return;
    }
    if (x->released || x->eof || x->broken)
        return; /* gone, broken */
    cgp_fcgi_abort_pack(ab, fx->reqid);
    if (q->ended && q->end.outcome == CGP_O_TIMEOUT && !x->no_abort) {
        /* timed out: told, and stopped by the runner (KILL) */
        if (fx->out_off == fx->out_len)
            (void)send(fx->fd, ab, sizeof(ab), MSG_DONTWAIT | MSG_NOSIGNAL);
        return;
    }
    if (fx->own_fd) {
        /* Per request the runner has no connection to read on: as
         * mod_fcgid, ABORT_REQUEST (its request whole), then the connection
         * is cut (fcgi_hang_up): the program's writes fail, it ends the
         * request (PHP as for a client that left) and goes back to
         * accept(), where the next request's connection waits for it. The
         * worker goes back through the runner (eof), idle. */
        if (fx->out_off == fx->out_len && !fx->probing && !x->no_abort)
            (void)send(fx->fd, ab, sizeof(ab), MSG_DONTWAIT | MSG_NOSIGNAL);
        x->eof = 1;
        return;
    }
    /* Unfinished: it may go on only from a record boundary, with its
     * request written whole, told to stop unless no-abort (the runner reads
     * on to its END_REQUEST). */
    if (!fx->end_req && (fx->out_off < fx->out_len || fx->probing ||
                     (!x->no_abort && send(fx->fd, ab, sizeof(ab), MSG_DONTWAIT | MSG_NOSIGNAL)
                                      != (ssize_t)sizeof(ab)))) {
        x->broken = 1;
        return;
    }
    until = cgiplus_direct_now_ms() + FCGI_ALIGN_MS;
    while (!cgp_fcgi_parser_between(&fx->parser) && !x->broken && !fx->closed) {
        struct pollfd pf = { .fd = fx->fd, .events = POLLIN };
        apr_uint64_t now = cgiplus_direct_now_ms();

        if (now >= until || poll(&pf, 1, (int)(until - now)) <= 0)
            x->broken = 1;
        else
            fcgi_read(q, 0);
    }
    if (fx->end_req && !x->broken)
        x->eof = 1; /* ended meanwhile (php-cgi and libfcgi close after ABORT): the
                       runner takes it on over a new connection */
}

/* Per request: the connection ends with the request (the program's
 * close waits for ours: libfcgi's OS_Close reads to our end of file), before
 * the worker goes back, once (finish may be followed by abandon). */
static void fcgi_hang_up(cgiplus_req *q, cgiplus_fcgi_dx *fx)
{
    if (!fx->own_fd || fx->fd < 0)
        return;
    shutdown(fx->fd, SHUT_RDWR);
    apr_pool_cleanup_run(q->r->pool, fx, fcgi_close_fd);
}

/* The worker goes back (after ABORT_REQUEST if q is not over): idle, or
 * to the runner. */
static void fcgi_finish(cgiplus_req *q)
{
    fcgi_leave(q);
    fcgi_hang_up(q, fcgi_x(q));
    cgiplus_direct_release(q, 0);
}

/* The client left. */
static void fcgi_abort(cgiplus_req *q)
{
    fcgi_leave(q);
    fcgi_hang_up(q, fcgi_x(q));
    cgiplus_direct_release(q, 1);
}

static unsigned fcgi_run(cgiplus_req *q)
{
    return cgiplus_direct_take(q, &fcgi_proto);
}

static int fcgi_grant(cgiplus_req *q, const cgp_grant *g, int take)
{
    return cgiplus_direct_take_granted(q, g, take, &fcgi_proto);
}

static apr_status_t fcgi_read_watch(cgiplus_req *q, cgiplus_client_watch *w, int *gone)
{
    return cgiplus_direct_read_watch(q, &fcgi_proto, w, gone);
}

static unsigned fcgi_wait_first(cgiplus_req *q)
{
    return cgiplus_direct_wait_first(q, &fcgi_proto);
}

const cgiplus_xport cgiplus_fcgi_xport = {
    .name = "fastcgi",
    .start = fcgi_run,
    .report = cgiplus_direct_report,
    .grant = fcgi_grant,
    .learn = cgiplus_direct_learn,
    .wait_first = fcgi_wait_first,
    .read = fcgi_read_op,
    .read_watch = fcgi_read_watch,
    .readable = fcgi_readable,
    .out_fd = fcgi_out_fd,
    .header = cgiplus_direct_script_control,
    .finish = fcgi_finish,
    .abort = fcgi_abort,
    .abandon = fcgi_finish,
};
