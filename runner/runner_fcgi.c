/* runner_fcgi.c: FastCGI applications as pool workers (docs/PROTOCOL.md,
 * "FastCGI workers"). Started as mod_fcgid starts them: a listening UNIX
 * socket as descriptor 0, bound in the spool directory (mode 0700, the
 * runner's user alone: no script can connect to another pool's
 * application), descriptors 1 and 2 a pipe the runner logs. The runner
 * connects once and keeps the connection for the worker's life
 * (FCGI_KEEP_CONN); a request is BEGIN_REQUEST, PARAMS and STDIN on it, the
 * answer STDOUT, STDERR and END_REQUEST, read with the shared codec
 * (common/cgp_fcgi.c). A kind of worker (runner_kind_fcgi, below):
 * everything else a worker has (queue, timeouts, recycling, the table and
 * the direct path) is the worker room's, which calls this file only
 * through the kind's table; this file only speaks the protocol. */
#include "runner_fcgi.h"
#include "runner_worker.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "runner_req.h"
#include "runner_spool.h"
#include "runner_table.h"
#include "cgp_proto.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <linux/sockios.h> /* SIOCOUTQ */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* A FastCGI worker's connection and pipe (w->kdata). Owned by its
 * worker, freed with it; the socket's name is unlinked when it closes. */
typedef struct runner_fcgi {
    runner_ev ev_sock;        /* our connected end: records in, the request out (w->inq) */
    runner_ev ev_log;         /* the read end of its descriptors 1 and 2 */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* its listening socket */
    cgp_fcgi_parser parser;   /* the application's records, between requests too */
    int stdin_done;           /* the request's STDIN stream is ended (or given up) */
    int body_lost;            /* errno: its body could not be read back from the spool (2902) */
    int aborted;              /* ABORT_REQUEST sent for the request */
    int end_pending;          /* END_REQUEST read, its padding not yet: outcome + 1 */
    int eof;                  /* the application closed the connection */
    int unread;               /* it did so with our bytes unread (ECONNRESET) */
    uint16_t reqid;           /* the id of its request (runner_worker_fcgi_reqid) */
    int oneshot;              /* it closes after each request (learnt): a new one for each */
    int heard;                /* a byte came back for the request */
    int out_seen;             /* a STDOUT byte came for the request */
    int resent;               /* the request went on a new connection once already */
    int replay_off;           /* the request is past what sent keeps: never sent again */
    cgp_buf sent;             /* what the socket took of the request, while nothing came back */
    size_t sent_max;          /* what sent keeps at most (replay_cap) */
    int used;                 /* we wrote a request on this connection (the slot's FCGI_USED) */
    int carried;              /* it carried a request before the current one */
    int kept;                 /* it keeps its connections (learnt; the slot's FCGI_KEPT) */
    int first;                /* the request in flight is its first */
    int one;                  /* it answers 1 whatever it is asked (learnt; the slot's FCGI_ONE) */
    int probing;              /* the request's BEGIN_REQUEST alone is out: the rest waits in held */
    uint64_t probe_t0;        /* when it went */
    cgp_buf held;             /* the request's PARAMS, until the application took BEGIN_REQUEST */
    int wclosed;              /* a write met its close: nothing more is written, reading decides */
    int cut;                  /* its request given up: 1 our end is to shut, 2 shut (cut) */
    int back_wait;            /* cut, it closed: GET_VALUES on a new connection (await_back) */
    int per_request;          /* a new connection for each request, no FCGI_KEEP_CONN (the
                               * pool's fcgi_connection): none while idle */
    int lfd;                  /* per request: our copy of its listening socket, so that a
                               * connection it never accepted outlives it (unaccepted) */
} runner_fcgi;

/* Kept of a request to send it again (RUNNER_FCGI_QUEUE_HIGH and its
 * records' headers, more than the 64 KiB of body framed ahead). */
#define FCGI_REPLAY_MAX (RUNNER_FCGI_QUEUE_HIGH + 4096u)

static runner_fcgi *fcgi(const runner_worker *w)
{
    return w->kdata;
}

static void fcgi_watch(runner_worker *w, int paused);
static void fcgi_read(runner_worker *w, int drain);
static void fcgi_feed(runner_worker *w);
static void fcgi_log(runner_worker *w, int drain);
static int reconnect(runner_worker *w);
static int connect_new(runner_worker *w);
static void conn_gone(runner_worker *w);
static void cut(runner_worker *w);

/* Records of id 1 pass for the request in flight only from an application
 * that answers 1 whatever it is asked, learnt from how it ended its first
 * request: else a process a script left holding the kept connection (a
 * background child of a PHP script) could answer the next client's request
 * as "1" (t/59_php_leftover_inject.t). */
static int answers_one(const runner_worker *w)
{
    const runner_fcgi *f = fcgi(w);

    return f->first || f->one || (runner_worker_slot_flags(w) & CGP_TS_FCGI_ONE);
}

static unsigned long fcgi_seq; /* names the sockets: fcgi-<runner pid>-<n>.sock */

/* The application closes its connection after each request, whatever
 * FCGI_KEEP_CONN says (Mojo::Server::FastCGI, naive responders: the
 * specification lets it close when the flag is clear, and mod_fcgid never
 * sets it). Learnt when it closed one with no request on it, or with one
 * it never read; from then on each request gets a new connection, as
 * mod_fcgid connects for every request: the runner connects again after
 * each END_REQUEST, and a child hands the worker back for that (the
 * slot's CGP_TS_ONESHOT), so no request is written on a connection it is
 * about to close. */
static int oneshot(const runner_worker *w)
{
    return fcgi(w)->oneshot || runner_worker_oneshot(w);
}

/* A request went on the connection (the runner's, or a child's). One
 * that never carried one and closes is not that: libfcgi closes a
 * connection it accepted when no record comes within 2 s (one connected
 * ahead of a request, after an aborted one). */
static int connection_used(runner_worker *w)
{
    return fcgi(w)->used || (runner_worker_slot_flags(w) & CGP_TS_FCGI_USED);
}

/* Whether r's BEGIN_REQUEST goes alone first, the rest once the
 * application read it (probe). A request is sent again only when the
 * application provably read none of it, and ECONNRESET proves that only
 * of what was unread: of a whole request, it says SOME bytes were (a
 * pre-fork application's child that read BEGIN_REQUEST and PARAMS, acted,
 * and died with the body unread, its parent still listening, would run it
 * twice). The race that needs sending again is an application closing a
 * kept connection after a request (it ignores FCGI_KEEP_CONN) while the
 * next is written: so a request on a used connection of a worker not
 * known yet to keep or to close its connections sends BEGIN_REQUEST alone,
 * which names nothing to act on, and the rest once the socket says the
 * application took it (SIOCOUTQ 0, the connection still open): then it
 * keeps its connections (kept), for good. A new connection (no
 * application closes one before reading a request on it) and a worker
 * known to keep them get a request whole, with no wait, and one that fails
 * after a byte of it went is never sent again: 502. */
static int wants_probe(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    uint32_t fl = runner_worker_slot_flags(w);

    return !f->per_request && (f->used || (fl & CGP_TS_FCGI_USED)) && !f->kept &&
           !(fl & CGP_TS_FCGI_KEPT) && !oneshot(w);
}

/* Logged once per worker, whoever learnt it first: a child that met the
 * closed connection only sets the slot's flag (fcgi_closed). */
static void learn_oneshot(runner_worker *w)
{
    if (!fcgi(w)->oneshot)
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2926) "FastCGI worker pid %ld of %s closes its "
                   "connection after each request; it gets a new one for each from now on",
                   (long)w->pid, w->pool->script);
    fcgi(w)->oneshot = 1;
    runner_worker_set_oneshot(w);
}

/* The application closed the connection (end of file, or ECONNRESET: it
 * closed with bytes unread), seen without reading anything of it. */
static int closed_now(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

    return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* It closed with bytes we wrote unread (resend). */
static int closed_unread(int fd)
{
    char c;

    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == ECONNRESET;
}

/* The connection: records in (a read), our queued records out. */
static void on_sock(runner_ev *ev, uint32_t events)
{
    runner_worker *w = ev->obj;
    if (events & EPOLLOUT)
        fcgi_feed(w);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        runner_worker_read(w, 0);
    runner_worker_update(w);
}

static void on_log(runner_ev *ev, uint32_t events)
{
    fcgi_log(ev->obj, 0);
    runner_worker_update(ev->obj);
    (void)events;
}

/* As mod_fcgid starts one: a listening UNIX socket as descriptor 0, bound
 * in the spool directory, which we connect to before it runs (the
 * connection waits in the backlog until it accepts); descriptors 1 and 2
 * one pipe, ours to log. */
static int plumb_fcgi(runner_worker *w, runner_req *r, runner_plumbing *pl)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    runner_pool *p = w->pool;
    runner_fcgi *f = calloc(1, sizeof(*f));
    int fd;

    if (!(w->kdata = f)) {
        errno = ENOMEM;
        return -1;
    }
    f->lfd = -1;
    runner_ev_init(&f->ev_sock, on_sock, -1, w);
    runner_ev_init(&f->ev_log, on_log, -1, w);
    cgp_fcgi_parser_init(&f->parser, CGP_FCGI_FROM_APP);
    if (snprintf(f->path, sizeof(f->path), "%s/fcgi-%ld-%lu.sock", runner_spool_dir(),
                 (long)getpid(), ++fcgi_seq) >= (int)sizeof(f->path)) {
        f->path[0] = '\0';
        errno = ENAMETOOLONG;
        return -1;
    }
    pl->name = f->path;
    memcpy(sa.sun_path, f->path, strlen(f->path) + 1);
    unlink(f->path);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return -1;
    runner_plumb(pl, 0, fd, -1, NULL);
    f->per_request = p->set.v[CGP_S_FCGI_CONNECTION] == CGP_FCGI_CONN_PER_REQUEST;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0)
        return -1;
    /* One connection per request: none ahead, and the name writable for
     * httpd's children, which connect through the runner's O_PATH
     * descriptor of it (runner_fcgi_on_channel): the directory (0700)
     * keeps every other process out. */
    if (f->per_request &&
        (chmod(f->path, 0666) < 0 || (f->lfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0))
        return -1;
    if (!f->per_request) {
        if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
            return -1;
        runner_plumb(pl, 0, pl->child[0], fd, &f->ev_sock.fd);
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
            return -1;
    }
    if (runner_plumb_pipe(pl, 1, 0, &f->ev_log.fd) < 0 ||
        (fd = fcntl(pl->child[1], F_DUPFD_CLOEXEC, 0)) < 0)
        return -1;
    runner_plumb(pl, 2, fd, -1, NULL);
    /* php-cgi: no children of its own (one request at a time is all it
     * gets), and never past the pool's recycling: it exits by itself only
     * after more requests than the pool gives it. A pool's env wins. */
    uint64_t maxr = p->set.v[CGP_S_MAX_REQUESTS];
    snprintf(pl->ebuf[0], sizeof(pl->ebuf[0]), "PHP_FCGI_MAX_REQUESTS=%" PRIu64,
             maxr ? maxr + 1 : 0);
    char *fixed[] = { "PATH=" RUNNER_DEFAULT_PATH, "PHP_FCGI_CHILDREN=0", pl->ebuf[0] };
    memcpy(pl->envp, fixed, sizeof(fixed));
    runner_spawn_env(&p->set, pl->envp, 3, sizeof(pl->envp) / sizeof(pl->envp[0]));
    pl->spec.envp = pl->envp;
    pl->spec.nfds = 3;
    pl->spec.die_with_runner = 1; /* nothing else would end it */
    (void)r;
    return 0;
}

static int spawn_fcgi(runner_pool *p, runner_req *r, runner_worker **out)
{
    runner_worker *w;

    if (runner_worker_start(&runner_kind_fcgi, p, NULL, plumb_fcgi, &w) < 0)
        return -1;
    runner_worker_started(w);
    *out = w;
    (void)r;
    return 0;
}

static void fcgi_close(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    if (!f) /* its start failed before it had one */
        return;
    runner_ev_close(&f->ev_sock);
    runner_ev_close(&f->ev_log);
    cgp_buf_free(&f->sent);
    cgp_buf_free(&f->held);
    if (f->lfd >= 0)
        close(f->lfd);
    f->lfd = -1;
    if (f->path[0])
        unlink(f->path);
    f->path[0] = '\0';
}

static int fcgi_request(runner_worker *w, runner_req *r)
{
    runner_fcgi *f = fcgi(w);
    const char *n, *v, *why = "out of memory";
    size_t nl, vl, off = 0, np = 0, len = 0, need;
    cgp_fcgi_pair *pairs = NULL;
    char cl[24];
    int rc, unread = 0;

    /* Records it wrote with no request would pass for this one's answer:
     * it is stopped as broken and r, which it never had, goes to another
     * worker (issue 20, hole 1; the runner reads an idle worker it holds,
     * runner_table_look one a child may claim). */
    if (f->ev_sock.fd >= 0 && ioctl(f->ev_sock.fd, FIONREAD, &unread) == 0 && unread > 0) {
        runner_worker_junk(w, (size_t)unread, "with no request");
        return -1;
    }
    /* Per request: its own connection. One refused (the program exited by
     * itself: its socket is gone, or it is exiting) took nothing of r,
     * which goes to another worker, or waits for a new one. */
    if (f->per_request && connect_new(w) < 0) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(3600) "FastCGI worker pid %ld of %s no longer "
                   "listens (%s); request %u (%s) goes to another worker", (long)w->pid,
                   w->pool->script, strerror(errno), r->reqid, r->uri);
        f->eof = 0; /* so conn_gone does its work */
        conn_gone(w);
        runner_worker_send_elsewhere(w);
        return -1;
    }
    /* Closed since its last request (while a child or the runner had it):
     * a new connection before r is written. If it no longer listens, it is
     * exiting, and r fails when it is reaped. */
    if (!f->per_request && f->ev_sock.fd >= 0 && !f->eof && closed_now(f->ev_sock.fd)) {
        int used = connection_used(w);

        if (reconnect(w) == 0 && used)
            learn_oneshot(w);
    }

    while (cgp_kv_next(r->params.p, r->params.len, &off, &n, &nl, &v, &vl) == 1)
        np++;
    if (!(pairs = malloc((np + 1) * sizeof(*pairs))))
        goto fail;
    off = np = 0;
    while (cgp_kv_next(r->params.p, r->params.len, &off, &n, &nl, &v, &vl) == 1)
        if (!cgp_kv_name_is(n, nl, "CONTENT_LENGTH"))
            pairs[np++] = (cgp_fcgi_pair){ n, nl, v, vl };
    /* always exact, as for every worker (docs/PROTOCOL.md, "Body length"),
     * but none for no body where the module says the peer gives none */
    snprintf(cl, sizeof(cl), "%" PRIu64, r->cl);
    if (!(r->nocl && !r->cl_given && r->cl == 0))
        pairs[np++] = (cgp_fcgi_pair){ "CONTENT_LENGTH", 14, cl, strlen(cl) };
    need = cgp_fcgi_request_size(pairs, np);
    if (!need) {
        why = "a CGI variable is over FastCGI's caps";
        goto fail;
    }
    /* No FCGI_GET_VALUES first: mod_fcgid never sends one, and applications
     * written for it (Mojo::Server::FastCGI) drop a connection whose first
     * record is not BEGIN_REQUEST. */
    if (cgp_buf_reserve(&w->inq, need) < 0)
        goto fail;
    f->reqid = runner_worker_fcgi_reqid(w, f->reqid, 1);
    f->first = !w->took;
    w->keep_params = f->per_request; /* it may go elsewhere yet (unaccepted) */
    rc = cgp_fcgi_request_pack(w->inq.p + w->inq.len, w->inq.cap - w->inq.len, &len,
                               f->reqid, CGP_FCGI_RESPONDER,
                               f->per_request ? 0 : CGP_FCGI_KEEP_CONN, pairs, np);
    if (rc != CGP_FCGI_OK) {
        why = cgp_fcgi_strerror(rc);
        goto fail;
    }
    free(pairs);
    f->stdin_done = f->aborted = f->end_pending = f->body_lost = 0;
    f->heard = f->resent = f->replay_off = f->probing = f->out_seen = 0;
    cgp_buf_reset(&f->sent);
    cgp_buf_reset(&f->held);
    if (wants_probe(w) && cgp_buf_used(&w->inq) == 0 &&
        cgp_buf_append(&f->held, w->inq.p + w->inq.len + CGP_FCGI_BEGIN_LEN,
                       len - CGP_FCGI_BEGIN_LEN) == 0) {
        len = CGP_FCGI_BEGIN_LEN;
        f->probing = 1;
        f->probe_t0 = runner_g.now;
        w->dl_kind = runner_g.now + 1;
        runner_worker_rearm(w);
    }
    w->inq.len += len;
    f->carried = connection_used(w);
    f->used = 1;
    runner_worker_slot_flags_set(w, CGP_TS_FCGI_USED, 0);
    cgp_fcgi_parser_expect(&f->parser, f->reqid, answers_one(w));
    w->had_output = 0;
    return 0;
fail:
    free(pairs);
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2901) "cannot build the FastCGI request %u (%s) "
               "for %s: %s", r->reqid, r->uri, w->pool->script, why);
    runner_worker_unassign(w);
    runner_worker_step(w, RUNNER_WE_DONE);
    runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, ENOMEM);
    return -1;
}

/* The application closed its connection (or broke the protocol): the
 * worker cannot serve again. It should be exiting; its request, if any,
 * fails when it is reaped (502), with its exit status. */
static void conn_gone(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    if (f->eof)
        return;
    f->eof = 1;
    cgp_buf_reset(&w->inq);
    runner_ev_watch(&f->ev_sock, 0);
    runner_worker_gone(w);
}

/* The worker's process is exiting (or exited, not reaped yet). An exiting
 * process's files are released last opened first, so its connection
 * closes before its listening socket (descriptor 0) does: a connect in
 * between still succeeds, into a backlog nobody will accept, and the next
 * request on it would fail for a worker that was already dying. PF_EXITING
 * (0x4 in /proc's flags) is set before any of its files is released. */
static int exiting(pid_t pid)
{
    char path[64], buf[512], state = 0, *p;
    unsigned flags = 0;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return errno == ENOENT;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* after the name: state, ppid, pgrp, session, tty, tpgid, flags */
    if (!(p = strrchr(buf, ')')) ||
        sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
        return 0;
    return state == 'Z' || state == 'X' || (flags & 0x4u);
}

/* The connection ends, for every holder (children keep copies of it). */
static void drop_conn(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    if (f->ev_sock.fd >= 0)
        shutdown(f->ev_sock.fd, SHUT_RDWR);
    runner_ev_close(&f->ev_sock);
    cgp_buf_reset(&w->inq);
}

/* What a connection knew starts over: a new one, or (per request) none. */
static void conn_fresh(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    f->eof = 0;
    f->unread = 0;
    f->end_pending = 0;
    f->used = f->carried = f->probing = f->wclosed = f->cut = f->back_wait = 0;
    cgp_buf_reset(&f->held);
    runner_worker_slot_flags_set(w, 0, CGP_TS_FCGI_USED);
    cgp_fcgi_parser_init(&f->parser, CGP_FCGI_FROM_APP);
}

/* What sent keeps of a request on connection fd. Per request, all that
 * can wait unread in a connection nobody accepted: the kernel takes a
 * write on AF_UNIX only while the bytes queued unread at the peer (counted
 * with their overhead) are under our SO_SNDBUF, and at most half of it at
 * a time (unix_stream_sendmsg), so less than 1.5 times it can wait
 * unaccepted. A request past twice that was provably read in part (the
 * program accepted it): never one found unaccepted (fcgi_unaccepted), so
 * no copy is needed; below it, one found so goes to another worker with
 * its whole body, whatever its size. */
static size_t replay_cap(const runner_fcgi *f, int fd)
{
    int sndbuf = 0;
    socklen_t len = sizeof(sndbuf);

    if (!f->per_request || getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) < 0 ||
        sndbuf <= 0)
        return FCGI_REPLAY_MAX;
    return 2u * (size_t)sndbuf + FCGI_REPLAY_MAX;
}

/* Connected to its listening socket: fd, or -1 (errno). */
static int connect_to(const runner_fcgi *f)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    memcpy(sa.sun_path, f->path, sizeof(sa.sun_path));
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* A new connection to the worker, between requests: php-cgi and libfcgi
 * close theirs after an aborted request, and an application that ignores
 * FCGI_KEEP_CONN after each one; both then accept again. The old one is
 * shut down for every holder (children keep copies of it), and the slot
 * gets a new generation so no child uses it again. Per request: none,
 * the next request connects (connect_new). -1: the application is not
 * listening any more (it is exiting). */
static int reconnect(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    int fd = -1;

    drop_conn(w);
    if (w->exited || !f->path[0] || exiting(w->pid) ||
        (!f->per_request && (fd = connect_to(f)) < 0)) {
        f->eof = 0; /* so conn_gone does its work */
        conn_gone(w);
        return -1;
    }
    f->ev_sock.fd = fd;
    conn_fresh(w);
    if (!f->per_request) {
        runner_table_slot_renew(w);
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2910) "FastCGI worker pid %ld of %s: "
                   "connected to it again (it closed its connection)", (long)w->pid,
                   w->pool->script);
    }
    fcgi_watch(w, runner_worker_out_paused(w));
    return 0;
}

/* Per request: r's own connection, as mod_fcgid connects for each. -1:
 * it no longer listens (exiting, or its socket is gone: connect refused),
 * so nothing of r reached it. */
static int connect_new(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    int fd = -1;

    drop_conn(w);
    if (w->exited || !f->path[0] || exiting(w->pid) || (fd = connect_to(f)) < 0)
        return -1;
    f->ev_sock.fd = fd;
    if (!f->sent_max) /* each new connection has the same default buffer */
        f->sent_max = replay_cap(f, fd);
    conn_fresh(w);
    fcgi_watch(w, runner_worker_out_paused(w));
    return 0;
}

/* End of file on the connection. A request it had not ended fails (502);
 * then the worker serves on over a new connection, if it still listens. */
static void conn_eof(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;
    int outcome = f->end_pending ? f->end_pending - 1 : CGP_O_CRASHED, used = connection_used(w);
    int carried = f->carried, heard = f->heard, aborted = f->aborted;

    if (reconnect(w) < 0)
        return; /* exiting: its request ends when it is reaped */
    if (!r && used && !f->per_request) /* closed after a request, and still listens */
        learn_oneshot(w);
    /* A kept connection closed under a request it answered nothing of, and
     * it still listens: a pre-fork application's child that ends after its
     * Nth request a moment after END_REQUEST (php-cgi's
     * PHP_FCGI_MAX_REQUESTS with PHP_FCGI_CHILDREN) with this one written
     * in between (never sent again: resend). Its next child would do the
     * same: a new connection for each request from now on, so at most one
     * request per worker fails. (Not one given up: php-cgi and libfcgi
     * close after ABORT_REQUEST.) */
    if (r && carried && !heard && !aborted && outcome != CGP_O_OK && !f->per_request)
        learn_oneshot(w);
    if (r) {
        if (outcome != CGP_O_OK)
            runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2911) "FastCGI worker pid %ld of %s "
                       "closed its connection before it ended request %u (%s)", (long)w->pid,
                       w->pool->script, r->reqid, r->uri);
        f->stdin_done = 1;
        runner_worker_request_done(w, outcome, 0, outcome == CGP_O_OK ? 0 : RUNNER_END_CLOSED);
    }
}

/* Frames what the spool holds of the body as STDIN records, the stream's
 * end once the body is whole; 1 if any was queued. A body that cannot be
 * read back from the spool is lost: its stream is never ended, since an
 * application handed a short body whose CONTENT_LENGTH says more would run
 * on it (body_lost: fcgi_feed fails the request); so is one that finds
 * no memory to be framed in. */
static int frame_body(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;
    int queued = 0;

    while (r && !f->stdin_done && !f->body_lost && !f->probing && !f->wclosed &&
           cgp_buf_used(&w->inq) < RUNNER_FCGI_QUEUE_HIGH) {
        uint64_t pending = runner_spool_pending(&r->body);
        cgp_fcgi_hdr h = { .type = CGP_FCGI_STDIN, .reqid = f->reqid };
        ssize_t got = 0;

        if (!pending && !r->body_end && !(r->have_cl && r->body.total >= r->cl))
            break; /* more of the body is on its way from the module */
        size_t k = pending < CGP_FCGI_MAX_CONTENT ? (size_t)pending : CGP_FCGI_MAX_CONTENT;
        if (cgp_buf_reserve(&w->inq, CGP_FCGI_HDR_LEN + k) < 0) {
            /* No memory to frame it in: lost as one not read back (else
             * it would wait for an event that may never come). */
            f->body_lost = errno ? errno : ENOMEM;
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(3740) "cannot pass the body of request %u "
                       "(%s) to FastCGI worker pid %ld of %s: %s; answering 500, and the request "
                       "is aborted (its STDIN stream is not ended)", r->reqid, r->uri,
                       (long)w->pid, w->pool->script, strerror(f->body_lost));
            runner_spool_discard(&r->body);
            break;
        }
        if (k && (got = runner_spool_take(&r->body, w->inq.p + w->inq.len + CGP_FCGI_HDR_LEN,
                                          k)) <= 0) {
            f->body_lost = got < 0 && errno ? errno : EIO;
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2902) "cannot read the body of request %u "
                       "(%s) back from the spool for FastCGI worker pid %ld of %s: %s; answering "
                       "500, and the request is aborted (its STDIN stream is not ended)",
                       r->reqid, r->uri, (long)w->pid, w->pool->script, strerror(f->body_lost));
            runner_spool_discard(&r->body);
            break;
        }
        h.clen = (uint16_t)got;
        cgp_fcgi_hdr_pack(w->inq.p + w->inq.len, &h);
        w->inq.len += CGP_FCGI_HDR_LEN + (size_t)got;
        f->stdin_done = got == 0; /* an empty record ends the stream */
        queued = 1;
    }
    return queued;
}

/* What the socket took of a request (runner_buf_flush_tee), kept until a
 * byte of it comes back (at most sent_max: replay_cap), for resend and for
 * a request found unaccepted (unframe_body). */
static void keep_sent(void *arg, const void *p, size_t n)
{
    runner_worker *w = arg;
    runner_fcgi *f = fcgi(w);
    size_t max = f->sent_max ? f->sent_max : FCGI_REPLAY_MAX;

    if (w->req && !f->heard && !f->replay_off &&
        (cgp_buf_used(&f->sent) + n > max || cgp_buf_append(&f->sent, p, n) < 0)) {
        f->replay_off = 1;
        cgp_buf_reset(&f->sent);
    }
}


/* r's connection failed before a byte came back: EPIPE writing, or
 * ECONNRESET reading (unread: 1). On AF_UNIX the application then never
 * read r: Linux gives the writer ECONNRESET on its next read when the
 * peer closed with bytes unread in its queue (unix_release_sock), end of
 * file when it had read them all, and EPIPE to any write after either
 * (checked on 6.18 with a socketpair: 100 bytes sent, the peer closes
 * unread: ECONNRESET; reads them, then closes: end of file). An
 * application that closes after each request does so right after
 * END_REQUEST, with the next request unread if it was written meanwhile.
 * Such a request is sent again, once, on a new connection, from the copy
 * keep_sent keeps, if nothing of it was taken or its BEGIN_REQUEST alone
 * (wants_probe); one it may have read (end of file, anything came back,
 * or ECONNRESET after more of it went, which says only that SOME bytes
 * were unread) never is. 1: sent again; 0: not; -1: it no longer listens
 * (conn_gone: r fails when it is reaped). */
static int resend(runner_worker *w, int unread)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;
    cgp_buf again = { 0 };

    if (!r || f->heard || f->resent || f->replay_off || f->aborted)
        return 0; /* (given up: nobody wants it run) */
    /* Past its BEGIN_REQUEST alone (wants_probe), the application may have
     * read any part of it: never. */
    if (cgp_buf_used(&f->sent) && !f->probing)
        return 0;
    /* A write: nothing of r taken, or the read says it left bytes unread. */
    if (!unread && cgp_buf_used(&f->sent) && !closed_unread(f->ev_sock.fd))
        return 0;
    if (cgp_buf_append(&again, f->sent.p + f->sent.off, cgp_buf_used(&f->sent)) < 0 ||
        cgp_buf_append(&again, w->inq.p + w->inq.off, cgp_buf_used(&w->inq)) < 0 ||
        cgp_buf_append(&again, f->held.p + f->held.off, cgp_buf_used(&f->held)) < 0) {
        cgp_buf_free(&again);
        return 0;
    }
    f->resent = 1;
    if (reconnect(w) < 0 || (f->per_request && connect_new(w) < 0)) {
        cgp_buf_free(&again);
        return -1;
    }
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2927) "FastCGI worker pid %ld of %s closed its "
               "connection with request %u (%s) unread; it goes again on a new connection",
               (long)w->pid, w->pool->script, r->reqid, r->uri);
    if (f->carried)
        learn_oneshot(w);
    cgp_buf_free(&w->inq);
    w->inq = again;
    cgp_buf_reset(&f->sent);
    f->used = 1; /* a new connection: whole, no probe */
    runner_worker_slot_flags_set(w, CGP_TS_FCGI_USED, 0);
    cgp_fcgi_parser_expect(&f->parser, f->reqid, answers_one(w));
    fcgi_watch(w, runner_worker_out_paused(w));
    return 1;
}

/* The rest of a probed request goes out: its BEGIN_REQUEST was taken. */
static void probe_over(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    f->probing = 0;
    w->dl_kind = 0;
    if (cgp_buf_append(&w->inq, f->held.p + f->held.off, cgp_buf_used(&f->held)) < 0) {
        /* the request cannot go on: the worker is replaced after it */
        cgp_buf_reset(&w->inq);
        f->stdin_done = 1;
        w->retire = RUNNER_END_BROKEN;
    }
    cgp_buf_free(&f->held);
}

/* When the runner looks again whether the application took a probe's
 * BEGIN_REQUEST (no event says a socket's queue was read): after 1 ms,
 * then less often, at most every 20 ms. */
static uint64_t probe_next(const runner_fcgi *f)
{
    uint64_t wait = (runner_g.now - f->probe_t0) / 8 + 1;

    return runner_g.now + (wait > 20 ? 20 : wait);
}

/* A request given up (its client left, or a child handed it back so) is
 * ended as httpd ends a peer's (mod_proxy_fcgi, mod_fcgid): its connection
 * is shut, once ABORT_REQUEST went. php-cgi ignores ABORT_REQUEST: before,
 * the runner read a long script's output to its end or killed it, and the
 * script never learnt that its client left. Now its next write fails, so
 * PHP ends it as it ends one whose client left (its shutdown functions
 * run, connection_aborted() is 1; with ignore_user_abort it runs on), then
 * it reads to our end of file and goes back to accept(). What it had
 * written is read on (an END_REQUEST ends it at once); at our own end of
 * file, await_back. Not for no-abort. */
static void cut(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    if (f->ev_sock.fd < 0 || f->eof || (w->req && w->req->no_abort))
        return;
    if (!f->cut)
        f->cut = 1;
    if (f->cut == 1 && (!cgp_buf_used(&w->inq) || f->wclosed)) {
        shutdown(f->ev_sock.fd, SHUT_RDWR);
        f->cut = 2;
    }
}

/* After a cut, the worker serves again once the application is back in
 * accept(): on a new connection, GET_VALUES, which it reads only then;
 * its answer (or its close of that connection: an application that wants
 * a request first) says it is, and the worker goes idle on a fresh
 * connection. One that never comes back (a program that ignores its write
 * errors and streams on) is killed at the gone client's bound (2504,
 * 2084), as before. The GET_VALUES asks for nothing: its answer is not
 * read, and Debian 12's ruby-fcgi (pure-Ruby fcgi.rb) dies answering a
 * name (mod_fcgid never asks; t/59_fcgi_getvalues.t). */
static void await_back(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    unsigned char gv[CGP_FCGI_HDR_LEN];
    cgp_fcgi_hdr h = { .type = CGP_FCGI_GET_VALUES };

    if (reconnect(w) < 0)
        return; /* exiting: reaped */
    if (f->per_request) {
        /* no connection to ask on: the next request's waits until it
         * accepts, as under mod_fcgid */
        runner_worker_request_done(w, CGP_O_OK, 0, 0);
        return;
    }
    f->back_wait = 1;
    cgp_fcgi_hdr_pack(gv, &h);
    if (cgp_buf_append(&w->inq, gv, sizeof(gv)) == 0)
        fcgi_feed(w);
    f->probe_t0 = runner_g.now;
    w->dl_kind = probe_next(f);
    runner_worker_rearm(w);
}

/* keep: it answered the probe with one empty GET_VALUES_RESULT, nothing
 * more, and waits for a request on that connection (ruby-fcgi): the
 * next request goes there, since fcgi.rb dies of a connection closed
 * before a request ("unexpected EOF"). One that then closes anyway
 * (php-cgi) is connected to again at its end of file, as any idle
 * connection it closes. Go answers with its own values and then an empty
 * record, which would come while idle: not kept. */
static void back(runner_worker *w, int keep)
{
    runner_fcgi *f = fcgi(w);

    f->back_wait = 0;
    w->dl_kind = 0;
    if (keep || reconnect(w) == 0)
        runner_worker_request_done(w, CGP_O_OK, 0, 0); /* it answered, and is back */
}

/* b is one empty GET_VALUES_RESULT record, all it wrote. */
static int empty_values_result(const unsigned char *b, size_t n)
{
    cgp_fcgi_hdr h;

    return n == CGP_FCGI_HDR_LEN && cgp_fcgi_hdr_unpack(b, &h) == CGP_FCGI_OK &&
           h.type == CGP_FCGI_GET_VALUES_RESULT && h.reqid == 0 && h.clen == 0 && h.plen == 0;
}

/* kind->timer while it is awaited back: libfcgi reads GET_VALUES without
 * answering it (it waits for a request), so its taking the bytes (our
 * SIOCOUTQ 0) says it is back too. */
static void back_timer(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    int queued = 1, unread = 0;

    if (f->ev_sock.fd >= 0 && !cgp_buf_used(&w->inq) &&
        ioctl(f->ev_sock.fd, SIOCOUTQ, &queued) == 0 && queued == 0) {
        /* Its answer may be in already, its read event not handled yet (a
         * busy runner): read it first. Closing that connection would end
         * one that waits there for a request (ruby-fcgi dies of it: CI,
         * 2026-12-06); one still writing its answer only sees EPIPE. */
        if (ioctl(f->ev_sock.fd, FIONREAD, &unread) == 0 && unread > 0)
            fcgi_read(w, 0);
        else
            back(w, 0);
    }
    if (f->back_wait) {
        w->dl_kind = probe_next(f);
        runner_worker_rearm(w);
    }
    runner_worker_update(w);
}

/* kind->timer: has the application read the probe's BEGIN_REQUEST? Our
 * bytes in its socket's queue (SIOCOUTQ) are 0 once it read them, and
 * also once it closed (its queue is freed): then ECONNRESET says it
 * closed with them unread (sent again), an end of file that it read it
 * and closed, having BEGIN_REQUEST alone: nothing to run (sent again). */
static void fcgi_timer(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    int queued = 0;
    ssize_t n;
    char c;

    if (f->back_wait) {
        back_timer(w);
        return;
    }
    if (!f->probing || f->ev_sock.fd < 0 || f->eof)
        return;
    if (cgp_buf_used(&w->inq) || ioctl(f->ev_sock.fd, SIOCOUTQ, &queued) < 0 || queued > 0) {
        w->dl_kind = probe_next(f);
        runner_worker_rearm(w);
        return;
    }
    n = recv(f->ev_sock.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        f->kept = 1; /* it waits for PARAMS on a connection that carried a request */
        runner_worker_slot_flags_set(w, CGP_TS_FCGI_KEPT, 0);
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2953) "FastCGI worker pid %ld of %s keeps its "
                   "connection (it read a request's BEGIN_REQUEST on one that had carried a "
                   "request): its requests go whole from now on", (long)w->pid, w->pool->script);
        probe_over(w);
        fcgi_feed(w);
    }
    else if ((n < 0 && errno == ECONNRESET) || n == 0) {
        /* closed unread, or having read BEGIN_REQUEST alone (an end of
         * file: node-fastcgi ends its side after each response and reads
         * on), which names nothing to run: sent again */
        f->unread = 1;
        if (!resend(w, 1))
            conn_eof(w);
        else if (!f->eof)
            fcgi_feed(w);
    }
    else if (n < 0 && errno == EINTR) {
        w->dl_kind = probe_next(f);
        runner_worker_rearm(w);
        return;
    }
    else {
        /* a byte came (records with no request: read as such), or it read
         * BEGIN_REQUEST and closed: the rest goes, and what the connection
         * says next decides */
        probe_over(w);
        fcgi_feed(w);
    }
    runner_worker_update(w);
}

/* A write to the connection failed, and not for its close (EPIPE,
 * ECONNRESET: reading decides those). How much of the request went is
 * unknown, maybe part of a record: nothing more can go on it, not even
 * ABORT_REQUEST, and what the application got may end short. Its request
 * fails now, 500 (httpd's 3671 names the errno), and the worker is killed,
 * as a CGIplus worker whose body cannot be written (2024). Before, it was
 * taken for one exiting: the request waited for the reap, 2 s later,
 * which blamed the worker (2015) and answered 502. */
static void write_failed(runner_worker *w, int err)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;
    int live = r && !runner_req_ended(r);

    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2903) "cannot write to FastCGI worker pid %ld of "
               "%s: %s; request %u (%s) %s, and the worker is killed", (long)w->pid,
               w->pool->script, strerror(err), r ? r->reqid : 0, r ? r->uri : "-",
               live ? "is answered 500" : "was answered already");
    f->eof = 1; /* nothing more written, nor read: no ABORT_REQUEST (fcgi_abort) */
    f->stdin_done = 1;
    cgp_buf_reset(&w->inq);
    runner_ev_watch(&f->ev_sock, 0);
    if (r)
        runner_spool_discard(&r->body);
    runner_worker_break(w, RUNNER_END_BROKEN, SIGKILL);
    if (live)
        runner_req_end(r, CGP_O_BAD_REQUEST, 0, (uint32_t)w->pid, (uint32_t)err);
}

static void fcgi_feed(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;
    int rc;

    if (f->ev_sock.fd < 0 || f->eof || f->wclosed)
        return;
    frame_body(w);
    for (;;) { /* until the socket is full, or nothing more is there to send */
        size_t before = cgp_buf_used(&w->inq);
        rc = runner_buf_flush_tee(&w->inq, f->ev_sock.fd, keep_sent, w);
        if (r && cgp_buf_used(&w->inq) < before)
            runner_req_progress(r); /* the application takes its request */
        if (rc != 0 || !frame_body(w))
            break;
    }
    if (rc < 0) {
        int err = errno, again = err == EPIPE || err == ECONNRESET ? resend(w, 0) : 0;

        if (again > 0) {
            fcgi_feed(w); /* on the new connection (resent: no second time) */
            return;
        }
        if (err != EPIPE && err != ECONNRESET) {
            write_failed(w, err);
            return;
        }
        if (!again) {
            /* It closed the connection (a pre-fork application's child
             * that died in the request, its parent still listening): what
             * reading it says ends the request, its records first, then
             * the close (conn_eof: 502, and a new connection if it still
             * listens), as on the direct path. Not taken for dying: that
             * stopped the whole application 2 s later (2015). */
            f->wclosed = 1;
            cgp_buf_reset(&w->inq);
        }
    }
    if (f->body_lost && r && r == w->req && !runner_req_ended(r)) {
        /* 500 for the client; the request is then orphaned as one whose
         * client left: ABORT_REQUEST and its connection cut (fcgi_abort),
         * a new connection before the worker serves again. No-abort sends
         * none, and the application would wait for the rest: stopped. */
        if (r->no_abort)
            runner_worker_stop(w, RUNNER_END_BROKEN, 1);
        runner_req_end(r, CGP_O_BAD_REQUEST, 0, (uint32_t)w->pid, (uint32_t)f->body_lost);
    }
    if (f->cut == 1)
        cut(w); /* ABORT_REQUEST went */
    fcgi_watch(w, runner_worker_out_paused(w));
    if (r && r->client)
        runner_client_update(r->client); /* less pending body: reading may resume */
}

static void fcgi_watch(runner_worker *w, int paused)
{
    runner_fcgi *f = fcgi(w);
    uint32_t m = 0;

    if (w->state == RUNNER_W_DEAD)
        return;
    /* A published worker's connection is a child's to read and write. */
    if (!runner_worker_published(w) && !f->eof) {
        m |= paused ? 0 : EPOLLIN;
        m |= cgp_buf_used(&w->inq) && !f->wclosed ? EPOLLOUT : 0;
    }
    runner_ev_watch(&f->ev_sock, m);
    runner_ev_watch(&f->ev_log, EPOLLIN); /* always ours, published or not */
}

/* Descriptors 1 and 2: lines to the request's log while the runner relays
 * one, else to its own (as a CGIplus worker's stderr). */
static void fcgi_log(runner_worker *w, int drain)
{
    runner_fcgi *f = fcgi(w);
    char buf[8192];

    for (int i = 0; drain || i < 4; i++) {
        if (f->ev_log.fd < 0)
            return;
        ssize_t n = read(f->ev_log.fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            runner_ev_close(&f->ev_log);
            return;
        }
        runner_worker_stderr(w, buf, (size_t)n);
    }
}

static int end_outcome(runner_worker *w, const cgp_fcgi_end *e)
{
    runner_req *r = w->req;

    if (e->pstatus != CGP_FCGI_REQUEST_COMPLETE && fcgi(w)->out_seen) {
        /* Its response may have gone out already: it stands (as under
         * mod_fcgid), rather than an error whose form would depend on
         * how much of it had gone. */
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(3741) "FastCGI worker pid %ld of %s ended "
                   "request %u (%s) with protocol status %u after its output; the output "
                   "stands", (long)w->pid, w->pool->script, r ? r->reqid : 0, r ? r->uri : "-",
                   (unsigned)e->pstatus);
        return CGP_O_OK;
    }
    switch (e->pstatus) {
    case CGP_FCGI_REQUEST_COMPLETE:
        return CGP_O_OK;
    case CGP_FCGI_OVERLOADED:
    case CGP_FCGI_CANT_MPX_CONN:
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2904) "FastCGI worker pid %ld of %s refused "
                   "request %u (%s): %s; answering 503", (long)w->pid, w->pool->script,
                   r ? r->reqid : 0, r ? r->uri : "-",
                   e->pstatus == CGP_FCGI_OVERLOADED ? "overloaded" : "cannot multiplex");
        return CGP_O_OVERLOADED;
    default:
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2905) "FastCGI worker pid %ld of %s does not "
                   "take the responder role (request %u, %s); answering 502", (long)w->pid,
                   w->pool->script, r ? r->reqid : 0, r ? r->uri : "-");
        return CGP_O_CRASHED;
    }
}

/* END_REQUEST (and its padding) read: the request is over, the stream at a
 * record boundary, so the worker may serve again, here or in a child. */
static void request_over(runner_worker *w, int outcome)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;

    if (!r)
        return;
    if (f->probing) { /* it refused the request on its BEGIN_REQUEST (OVERLOADED) */
        f->probing = 0;
        w->dl_kind = 0;
        cgp_buf_reset(&f->held);
    }
    if (!f->stdin_done || cgp_buf_used(&w->inq)) {
        /* Its STDIN stream is still open, or half written: the next request
         * would start inside it. */
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2906) "FastCGI worker pid %ld of %s ended "
                   "request %u (%s) before it took all of its body; it is replaced",
                   (long)w->pid, w->pool->script, r->reqid, r->uri);
        cgp_buf_reset(&w->inq);
        f->stdin_done = 1;
        if (!w->retire)
            w->retire = RUNNER_END_RETIRED;
    }
    /* EBUSY: the application refused it (the module says so, not "queue full") */
    runner_worker_request_done(w, outcome, outcome == CGP_O_OVERLOADED ? 1 : 0,
                               outcome == CGP_O_OVERLOADED ? EBUSY : 0);
}

static void broken(runner_worker *w, int rc)
{
    const cgp_fcgi_parser *p = &fcgi(w)->parser;

    /* the ids tell a late writer (an earlier one) from an application that
     * answers every request with 1 */
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2907) "FastCGI worker pid %ld of %s broke the "
               "protocol: %s (record id %u, request %u in flight); stopping it", (long)w->pid,
               w->pool->script, cgp_fcgi_strerror(rc), (unsigned)p->cur.reqid,
               (unsigned)p->reqid);
    conn_gone(w);
    runner_worker_stop(w, RUNNER_END_BROKEN, 1);
}

static void piece(runner_worker *w, const cgp_fcgi_event *ev)
{
    switch (ev->hdr.type) {
    case CGP_FCGI_STDOUT:
        fcgi(w)->out_seen |= ev->len > 0;
        runner_worker_output(w, ev->data, ev->len);
        break;
    case CGP_FCGI_STDERR:
        runner_worker_stderr(w, (const char *)ev->data, ev->len);
        break;
    default:
        break;
    }
}

static void record(runner_worker *w, const cgp_fcgi_event *ev)
{
    runner_fcgi *f = fcgi(w);

    switch (ev->hdr.type) {
    case CGP_FCGI_END_REQUEST:
        f->end_pending = end_outcome(w, &ev->u.end) + 1;
        /* its first request ended as "1": an application that answers 1
         * whatever it is asked */
        if (f->first && ev->hdr.reqid == 1 && f->reqid != 1 && !f->one) {
            f->one = 1;
            runner_worker_slot_flags_set(w, CGP_TS_FCGI_ONE, 0);
        }
        break;
    case CGP_FCGI_UNKNOWN_TYPE:
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2909) "FastCGI worker pid %ld of %s does not "
                   "know record type %u", (long)w->pid, w->pool->script, ev->u.unknown);
        break;
    default:
        break;
    }
}

/* What one read of the connection holds. */
static void records(runner_worker *w, const unsigned char *buf, size_t n)
{
    runner_fcgi *f = fcgi(w);
    size_t pos = 0;
    int more = 0;

    for (;;) {
        if (f->end_pending && cgp_fcgi_parser_between(&f->parser)) {
            int outcome = f->end_pending - 1;
            f->end_pending = 0;
            /* After ABORT_REQUEST, php-cgi and libfcgi close the connection:
             * a new one before the worker serves again. */
            if (f->per_request)
                drop_conn(w); /* over: its close lets it accept the next */
            else if ((f->aborted || oneshot(w)) && reconnect(w) < 0)
                return;
            if (pos < n) {
                /* Records after END_REQUEST in the same read were written
                 * with no request: the answer stands, the worker never
                 * serves again, and they reach nobody (issue 20, hole 1). */
                runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2912) "FastCGI worker pid %ld of %s "
                           "wrote %zu byte%s after ending its request; discarded, and the "
                           "worker is stopped as broken", (long)w->pid, w->pool->script,
                           n - pos, CGIPLUS_S(n - pos));
                w->retire = RUNNER_END_BROKEN;
                request_over(w, outcome);
                return;
            }
            request_over(w, outcome);
            if (runner_worker_published(w) || f->eof)
                return; /* a child's from here on, or gone */
        }
        if (more)
            return;
        cgp_fcgi_event ev;
        int rc = cgp_fcgi_parse(&f->parser, buf, n, &pos, &ev);
        /* to MORE: a record whose content ends the read is complete too */
        more = rc == CGP_FCGI_MORE;
        if (rc < 0) {
            broken(w, rc);
            return;
        }
        if (rc == CGP_FCGI_PIECE || rc == CGP_FCGI_RECORD)
            w->took = 1; /* it answers: it started up */
        if (rc == CGP_FCGI_PIECE)
            piece(w, &ev);
        else if (rc == CGP_FCGI_RECORD)
            record(w, &ev);
    }
}

static void fcgi_read(runner_worker *w, int drain)
{
    runner_fcgi *f = fcgi(w);

    for (int i = 0; drain || i < 4; i++) {
        /* The read before may have ended its request and published it; a
         * dead worker without a request has nothing to deliver. */
        if (f->ev_sock.fd < 0 || f->eof || runner_worker_published(w) || (drain && !w->req))
            break;
        if (!drain && runner_worker_out_paused(w))
            break;
        ssize_t n = read(f->ev_sock.fd, w->obuf, RUNNER_READ_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (f->back_wait) { /* anything, or a close: it took GET_VALUES */
            back(w, n > 0 && empty_values_result(w->obuf, (size_t)n));
            break;
        }
        if (f->cut == 2 && w->req && (n == 0 || errno == ECONNRESET)) {
            await_back(w); /* our own end of file, or its close */
            break;
        }
        f->unread |= n < 0 && errno == ECONNRESET; /* (fcgi_took) */
        if (((n < 0 && errno == ECONNRESET) || (n == 0 && f->probing)) && resend(w, 1))
            break; /* its request on a new connection, or it is exiting */
        if (n <= 0) {
            if (n == 0 && w->req)
                w->took = 1; /* it closed having read all we sent (fcgi_took) */
            conn_eof(w);
            break;
        }
        if (w->req && !f->heard) { /* it read the request: never sent again */
            f->heard = 1;
            cgp_buf_reset(&f->sent);
        }
        records(w, w->obuf, (size_t)n);
    }
    if (drain)
        fcgi_log(w, 1);
}

static void fcgi_abort(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    runner_req *r = w->req;
    unsigned char b[CGP_FCGI_ABORT_LEN];

    if (!r || f->aborted || f->eof)
        return;
    f->aborted = 1;
    if (f->probing)
        probe_over(w); /* ABORT_REQUEST after its PARAMS, at a record boundary */
    if (!f->stdin_done) {
        /* No more of the body: php-cgi and libfcgi end the request with
         * what they have (docs/PROTOCOL.md, "What real applications do"). */
        runner_spool_discard(&r->body);
        f->stdin_done = 1;
    }
    cgp_fcgi_abort_pack(b, f->reqid);
    if (cgp_buf_append(&w->inq, b, sizeof(b)) == 0)
        fcgi_feed(w);
    cut(w);
}

/* A child handed it back with its connection over (an aborted request's,
 * or an application that closes after each): a new one. */
static void fcgi_closed(runner_worker *w)
{
    uint64_t maxr = w->pool->set.v[CGP_S_MAX_REQUESTS];

    if (w->retire || (maxr && w->served >= maxr))
        runner_worker_stop(w, w->retire ? w->retire : RUNNER_END_MAX_REQUESTS, 1);
    else if (reconnect(w) == 0) {
        /* a child learnt it (2926 is the runner's); not for one exiting */
        if (runner_worker_oneshot(w) && !fcgi(w)->per_request)
            learn_oneshot(w);
        w->pool->owner->idle(w);
    }
}

/* SIGTERM is on its way. php-cgi between requests is blocked reading the
 * connection it keeps (FCGI_KEEP_CONN) and retries that read() on EINTR:
 * its handler only sets a flag, looked at when it is back in accept(), so
 * it would sit out kill_grace and be killed (2071, and the slot held that
 * long). Ending the connection, for every holder, sends it back to
 * accept(), where the signal ends it. Never a connection a request is on,
 * or that a child may hold. */
static int fcgi_term(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    /* Per request there is none to end, but the program may still be on
     * its way back from the request just ended (libfcgi's close reads to
     * our end of file); a signal there (Perl's FCGI retries its read on
     * EINTR) would leave its handler unrun until killed: it waits too. */
    if (f && f->per_request)
        return !w->req && !runner_worker_published(w);
    if (!f || f->ev_sock.fd < 0 || f->eof || w->req || runner_worker_published(w))
        return 0;
    shutdown(f->ev_sock.fd, SHUT_RDWR);
    f->eof = 1; /* not read again, nor connected again (conn_eof) */
    cgp_buf_reset(&w->inq);
    runner_ev_watch(&f->ev_sock, 0);
    return 1;
}

/* kind->term_ready: whether a thread of the program waits in accept(),
 * where a signal interrupts it and its handler runs. Anywhere else on its
 * way back from its last request (libfcgi's close reads to our end of
 * file), Perl's FCGI may take the signal for an interrupted read, go on
 * into accept() with its $SIG{TERM} handler pending, never run, and be
 * killed after kill_grace (t/59_fcgid_term.t, on a loaded machine: the
 * 100 ms the signal waited were not enough). What /proc cannot tell (no
 * such file, not allowed) lets the signal go, as before. */
static int fcgi_term_ready(const runner_worker *w)
{
    char path[64], buf[64];
    struct dirent *e;
    DIR *d;
    int ready = 1, seen = 0;

    snprintf(path, sizeof(path), "/proc/%ld/task", (long)w->pid);
    if (!(d = opendir(path)))
        return 1;
    while ((e = readdir(d))) {
        long nr;
        ssize_t n;
        int fd;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/syscall", (long)w->pid, e->d_name);
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            continue;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        seen = 1;
        ready = 0;
        /* "NR args...": blocked in that system call; "running", "-1 ..." */
        if (sscanf(buf, "%ld", &nr) == 1 && (
#ifdef SYS_accept
                nr == SYS_accept ||
#endif
                nr == SYS_accept4)) {
            ready = 1;
            break;
        }
    }
    closedir(d);
    return ready || !seen;
}

static void fcgi_adopt(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);

    w->had_output = 0;
    /* The child left it between records, its request written whole and
     * ABORT_REQUEST sent: read on to END_REQUEST. */
    f->reqid = runner_worker_fcgi_reqid(w, f->reqid, 0); /* the child's request's */
    f->first = 0;
    cgp_fcgi_parser_init(&f->parser, CGP_FCGI_FROM_APP);
    cgp_fcgi_parser_expect(&f->parser, f->reqid, answers_one(w));
    cgp_buf_reset(&w->inq);
    f->stdin_done = f->aborted = 1;
    f->end_pending = 0;
    f->heard = 1; /* a child's request: nothing of it to send again */
    cgp_buf_reset(&f->sent);
    f->probing = 0;
    cgp_buf_reset(&f->held);
    cut(w);
}

void runner_fcgi_on_channel(runner_client *c, uint32_t reqid, const unsigned char *pl,
                            size_t len)
{
    unsigned char out[CGP_PAIR_LEN];
    cgp_pair pr, ans;
    runner_worker *w;
    int fd = -1, opath = -1;

    if (cgp_pair_unpack(pl, len, &pr) != CGP_OK) {
        c->broken = 1;
        return;
    }
    w = runner_table_slot_owner(pr.a, pr.b);
    /* Per request: its socket's name (O_PATH), which a child connects
     * through for each request (/proc/self/fd/N: the 0700 directory is
     * not walked); else the connection. */
    if (w && w->kind == &runner_kind_fcgi && !w->exited && fcgi(w)->per_request)
        fd = opath = open(fcgi(w)->path, O_PATH | O_CLOEXEC);
    else if (w && w->kind == &runner_kind_fcgi && !w->exited && !fcgi(w)->eof)
        fd = fcgi(w)->ev_sock.fd;
    ans.a = pr.a;
    ans.b = fd >= 0 ? pr.b : 0;
    cgp_pair_pack(out, &ans);
    if (runner_client_send_fds(c, CGP_T_FCGI_CHANNEL_ACK, reqid, out, sizeof(out), &fd,
                              fd >= 0 ? 1 : 0) < 0)
        c->broken = 1;
    if (opath >= 0)
        close(opath);
}

/* Asked when it died before answering: whether it read the request it
 * was handed. Not if none went (it was gone before the request could be
 * written: the connection closed, or bytes still in w->inq), if ours were
 * still queued (never accepted, or never read: SIOCOUTQ), or if it closed
 * with them unread (Linux answers ECONNRESET then, unix_release_sock: read
 * before, or pending now: POLLERR, which poll leaves for a child's read).
 * Else the reaper could see the exit before the socket told, and a program
 * that dies at start would pass for one that crashed in its request (no
 * backoff, t/59_fcgi_workers.t). */
static int fcgi_took(const runner_worker *w)
{
    const runner_fcgi *f = fcgi(w);
    struct pollfd pf = { .fd = f->ev_sock.fd, .events = POLLIN };
    int queued = 0;

    if (f->heard)
        return 1;
    return !f->unread && pf.fd >= 0 && !cgp_buf_used(&w->inq) &&
           (f->used || (runner_worker_slot_flags(w) & CGP_TS_FCGI_USED)) &&
           ioctl(pf.fd, SIOCOUTQ, &queued) == 0 && queued == 0 &&
           !(poll(&pf, 1, 0) == 1 && (pf.revents & POLLERR));
}

/* r's body as it was before any of it was framed for w: the STDIN records'
 * contents of what went (sent) and of what waits (w->inq), before what the
 * spool still holds. -1: more went than sent keeps. */
static int unframe_body(runner_worker *w, runner_req *r)
{
    runner_fcgi *f = fcgi(w);
    cgp_buf all = { 0 }, body = { 0 };
    size_t pos = 0;
    int rc = -1;

    if (f->replay_off || f->heard ||
        cgp_buf_append(&all, f->sent.p + f->sent.off, cgp_buf_used(&f->sent)) < 0 ||
        cgp_buf_append(&all, w->inq.p + w->inq.off, cgp_buf_used(&w->inq)) < 0)
        goto out;
    while (cgp_buf_used(&all) - pos >= CGP_FCGI_HDR_LEN) {
        cgp_fcgi_hdr h;
        size_t len;

        if (cgp_fcgi_hdr_unpack(all.p + all.off + pos, &h) != CGP_FCGI_OK)
            goto out;
        len = CGP_FCGI_HDR_LEN + h.clen + h.plen;
        if (cgp_buf_used(&all) - pos < len)
            goto out; /* (the queue holds whole records) */
        if (h.type == CGP_FCGI_STDIN && h.clen &&
            cgp_buf_append(&body, all.p + all.off + pos + CGP_FCGI_HDR_LEN, h.clen) < 0)
            goto out;
        pos += len;
    }
    /* the spool's memory holds its oldest bytes: these go before them */
    if (cgp_buf_append(&body, r->body.mem.p + r->body.mem.off, cgp_buf_used(&r->body.mem)) < 0)
        goto out;
    cgp_buf_free(&r->body.mem);
    r->body.mem = body;
    body = (cgp_buf){ 0 };
    cgp_buf_reset(&w->inq);
    cgp_buf_reset(&f->sent);
    rc = 0;
out:
    cgp_buf_free(&all);
    cgp_buf_free(&body);
    return rc;
}

/* kind->unaccepted, as it is reaped. Per request the runner keeps a copy of
 * its listening socket (lfd), so a connection it never accepted (one made
 * as it was exiting: between its last request and its exit it listens
 * without accepting) waits there with every byte unread, rather than being
 * reset by its exit, which would not tell it from one it read and died in.
 * Such a connection, still open at its other end and carrying the request
 * in flight's BEGIN_REQUEST, proves that request never reached it: a
 * relayed one goes to another worker (1, its body restored), a child's
 * learns it from the slot (CGP_TS_FCGI_UNTAKEN) before the connection
 * closes under it. */
static int fcgi_unaccepted(runner_worker *w)
{
    runner_fcgi *f = fcgi(w);
    int child = runner_worker_published(w), found = 0;
    struct pollfd pf = { .fd = f ? f->lfd : -1, .events = POLLIN };

    if (!f || f->lfd < 0)
        return 0;
    /* Refused from now on, first: a process the runner forked for another
     * worker and that has not exec'd yet holds a copy too, and would keep
     * it listening after our close (a connection made then would be reset
     * with nothing said). What waits is still accepted, then accept()
     * fails (EINVAL). (Not O_NONBLOCK: that would be the program's
     * descriptor 0's too.) */
    shutdown(f->lfd, SHUT_RD);
    while (poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN)) {
        unsigned char b[CGP_FCGI_BEGIN_LEN];
        struct pollfd cp = { .events = POLLIN | POLLRDHUP };
        cgp_fcgi_hdr h;
        ssize_t n;
        int c = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        uint16_t want;

        if (c < 0)
            break;
        /* read after the accept: a child numbers its request before it
         * connects */
        want = child ? runner_worker_fcgi_reqid(w, f->reqid, 0) : f->reqid;
        cp.fd = c;
        /* its other end still open (a closed one hung up), with the
         * BEGIN_REQUEST of the request in flight, or nothing yet (its
         * holder connected and writes next: none of it can reach the
         * program either) */
        n = recv(c, b, sizeof(b), MSG_PEEK);
        if (!found && (w->req || child) &&
            ((n == (ssize_t)sizeof(b) && cgp_fcgi_hdr_unpack(b, &h) == CGP_FCGI_OK &&
              h.type == CGP_FCGI_BEGIN_REQUEST && h.reqid == want) ||
             (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) &&
            !(poll(&cp, 1, 0) == 1 && (cp.revents & (POLLHUP | POLLRDHUP)))) {
            found = 1;
            if (child) /* before its close: the holder reads it */
                runner_worker_slot_mark_untaken(w);
        }
        close(c);
    }
    close(f->lfd);
    f->lfd = -1;
    if (f->path[0])
        unlink(f->path); /* connect() is refused from now on */
    return found && w->req && !child && !f->aborted && unframe_body(w, w->req) == 0;
}

static int fcgi_idle_fd(const runner_worker *w)
{
    return fcgi(w)->eof ? -1 : fcgi(w)->ev_sock.fd;
}

const runner_wkind runner_kind_fcgi = {
    .name = "FastCGI worker", .spawn = spawn_fcgi, .request = fcgi_request, .feed = fcgi_feed,
    .read = fcgi_read, .watch = fcgi_watch, .orphaned = runner_worker_orphaned,
    .abort = fcgi_abort, .adopt = fcgi_adopt, .adopt_handed_only = 1, .orphan_runs = 1,
    .closed = fcgi_closed,
    .idle_fd = fcgi_idle_fd, .close = fcgi_close, .term = fcgi_term, .took = fcgi_took,
    .unaccepted = fcgi_unaccepted, .timer = fcgi_timer, .term_ready = fcgi_term_ready,
};

/* A runner that died by a signal (kill -9, a crash) left its workers'
 * socket names behind, its workers gone with it: each such death would
 * add a batch. Only names of a process that no longer exists go (a live
 * runner sharing the spool_dir keeps its own). */
void runner_fcgi_sweep(void)
{
    const char *dir = runner_spool_dir();
    DIR *d = opendir(dir);
    struct dirent *e;
    long pid, last = 0;
    unsigned long seq;
    unsigned n = 0;
    char tail;

    if (!d)
        return;
    while ((e = readdir(d))) {
        if (sscanf(e->d_name, "fcgi-%ld-%lu.soc%c", &pid, &seq, &tail) != 3 || tail != 'k' ||
            pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
            n++;
            last = pid;
        }
    }
    closedir(d);
    if (n)
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2970) "removed %u FastCGI socket names "
                   "an earlier runner (pid %ld) left in %s", n, last, dir);
}
