/* cgiplus_ws_async.c: WebSocket connections under the event MPM, without a
 * thread while idle. httpd 2.4 has no poll callbacks for modules (those are
 * in trunk only), but since 2.4.63 a process_connection hook may leave a
 * connection in CONN_STATE_ASYNC_WAITIO: the MPM polls the client socket
 * and calls the hook again when it is readable (mod_http2 keeps its h2
 * connections so). So: the client side is the MPM's (our hook reads it on
 * one of its threads), and one thread per child, the reactor, polls the
 * runner sockets (messages from workers), the client sockets that cannot
 * take more yet, and the timers (pings, timeouts). A mutex per connection
 * lets the two take turns; nothing here blocks but a client that sends
 * faster than its worker reads, which holds its MPM thread meanwhile.
 *
 * Lifetime: a connection is the handler's until the MPM suspends it (our
 * suspend_connection hook), then the MPM's and the reactor's. The MPM ends
 * it (our pre_close hook, or its pool's cleanup): the runner is told, the
 * descriptors leave the reactor, and the reactor frees it after its current
 * turn. The reactor ends a connection itself by shutting the client
 * socket's read side: the MPM then finds it readable, our hook answers
 * LINGER, and the MPM closes it as any other. */
#include "cgiplus_ws.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_log.h"
#include "ap_mpm.h"
#include "mpm_common.h"


APLOG_USE_MODULE(cgiplus);

#define RX_EVENTS  64
#define RX_TICK_MS 500   /* timers are looked at this often */

/* The reactor of this child: set up at its first connection, for the
 * child's life. */
static struct {
    int ok;                   /* the MPM can keep connections without a thread */
    int epfd, evfd;
    int started;
    pthread_t thr;
    pthread_mutex_t lock;     /* live and dead */
    cgiplus_ws *live, *dead;
    volatile int stop;
    server_rec *s;
} rx = { .epfd = -1, .evfd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

int cgiplus_ws_async_ok(void)
{
    return rx.ok;
}

static void arm_one(int fd, unsigned *armed, unsigned want, uint64_t tag)
{
    struct epoll_event e = { .events = want, .data.u64 = tag };
    if (fd < 0 || want == *armed)
        return;
    if (epoll_ctl(rx.epfd, !*armed ? EPOLL_CTL_ADD : !want ? EPOLL_CTL_DEL : EPOLL_CTL_MOD, fd,
                  &e) == 0)
        *armed = want;
}

/* What the reactor watches of w (w locked). */
static void arm(cgiplus_ws *w)
{
    unsigned r = 0, c = 0;
    if (w->rfd >= 0 && w->c)
        r = EPOLLIN | (w->to_runner.len > w->to_runner.off ? EPOLLOUT : 0);
    if (w->cfd >= 0 && w->c && !w->mpm_busy && cgiplus_ws_client_blocked(w))
        c = EPOLLOUT;
    arm_one(w->rfd, &w->armed_r, r, (uint64_t)(uintptr_t)w);
    arm_one(w->cfd, &w->armed_c, c, (uint64_t)(uintptr_t)w | 1u);
}

/* Done from the reactor: make the MPM look (its hook answers LINGER). */
static void finish(cgiplus_ws *w)
{
    if (w->state == CGIPLUS_WS_DONE && !w->shut && w->cfd >= 0 && w->c && !w->mpm_busy) {
        w->shut = 1;
        shutdown(w->cfd, SHUT_RD);
    }
}

static void *reactor(void *unused)
{
    struct epoll_event ev[RX_EVENTS];
    apr_time_t next_tick = apr_time_now() + apr_time_from_msec(RX_TICK_MS);
    (void)unused;

    while (!rx.stop) {
        apr_time_t now = apr_time_now();
        int tmo = next_tick > now ? (int)((next_tick - now) / 1000) + 1 : 0;
        int n = epoll_wait(rx.epfd, ev, RX_EVENTS, tmo);
        cgiplus_ws *w, *dead;

        for (int i = 0; i < n; i++) {
            if (ev[i].data.u64 == 0) {
                uint64_t x;
                if (read(rx.evfd, &x, sizeof(x)) < 0) { /* nothing to drain */ }
                continue;
            }
            w = (cgiplus_ws *)(uintptr_t)(ev[i].data.u64 & ~(uint64_t)1);
            pthread_mutex_lock(&w->mtx);
            if (w->c) {
                if (!(ev[i].data.u64 & 1)) {
                    cgiplus_ws_runner_read(w);
                    cgiplus_ws_runner_flush(w);
                } else if (!w->mpm_busy) {
                    cgiplus_ws_client_flush(w);
                }
                finish(w);
                arm(w);
            }
            pthread_mutex_unlock(&w->mtx);
        }
        now = apr_time_now();
        if (now >= next_tick) {
            next_tick = now + apr_time_from_msec(RX_TICK_MS);
            pthread_mutex_lock(&rx.lock);
            for (w = rx.live; w; w = w->next) {
                pthread_mutex_lock(&w->mtx);
                if (w->c && !w->mpm_busy) {
                    cgiplus_ws_tick(w, now);
                    cgiplus_ws_client_flush(w);
                    finish(w);
                    arm(w);
                }
                pthread_mutex_unlock(&w->mtx);
            }
            pthread_mutex_unlock(&rx.lock);
        }
        /* Freed only now: no event of this turn can name them any more. */
        pthread_mutex_lock(&rx.lock);
        dead = rx.dead;
        rx.dead = NULL;
        pthread_mutex_unlock(&rx.lock);
        while ((w = dead)) {
            dead = w->next;
            cgiplus_ws_free(w);
        }
    }
    return NULL;
}

static apr_status_t rx_child_exit(void *unused)
{
    (void)unused;
    if (rx.started) {
        uint64_t one = 1;
        rx.stop = 1;
        if (write(rx.evfd, &one, sizeof(one)) < 0) { /* the join waits for the tick */ }
        pthread_join(rx.thr, NULL);
        rx.started = 0;
    }
    return APR_SUCCESS;
}

void cgiplus_ws_child_init(apr_pool_t *pchild, server_rec *s)
{
    int async = 0, waitio = 0;

    rx.s = s;
    if (ap_mpm_query(AP_MPMQ_IS_ASYNC, &async) != APR_SUCCESS)
        async = 0;
#ifdef AP_MPMQ_CAN_WAITIO
    if (!async || ap_mpm_query(AP_MPMQ_CAN_WAITIO, &waitio) != APR_SUCCESS)
        waitio = 0;
#endif
    /* Without ASYNC_WAITIO (httpd before 2.4.63, or another MPM) a
     * connection holds its thread (cgiplus_ws_run_sync). */
    rx.ok = async && waitio;
    apr_pool_cleanup_register(pchild, NULL, rx_child_exit, apr_pool_cleanup_null);
}

/* The reactor, at the first connection of this child. */
static int rx_start(void)
{
    struct epoll_event e = { .events = EPOLLIN, .data.u64 = 0 };
    if (rx.started)
        return 0;
    if ((rx.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        (rx.evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 ||
        epoll_ctl(rx.epfd, EPOLL_CTL_ADD, rx.evfd, &e) < 0 ||
        pthread_create(&rx.thr, NULL, reactor, NULL) != 0) {
        ap_log_error(APLOG_MARK, APLOG_ERR, errno, rx.s, CGIPLUS_LOGNO(1810)
                     "cannot start the WebSocket thread of this child; its WebSocket "
                     "connections hold a thread each");
        rx.ok = 0;
        return -1;
    }
    rx.started = 1;
    return 0;
}

static void wake(void)
{
    uint64_t one = 1;
    if (rx.evfd >= 0 && write(rx.evfd, &one, sizeof(one)) < 0) { /* already awake */ }
}

/* The MPM is done with the connection (or its pool goes): w leaves. */
static apr_status_t release(cgiplus_ws *w)
{
    conn_rec *c;
    pthread_mutex_lock(&w->mtx);
    c = w->c;
    if (c) {
        arm_one(w->cfd, &w->armed_c, 0, 0);
        arm_one(w->rfd, &w->armed_r, 0, 0);
        cgiplus_ws_detach(w);
        ap_set_module_config(c->conn_config, &cgiplus_module, NULL);
        /* the pool goes back to the MPM's recycling as it came */
        apr_allocator_max_free_set(apr_pool_allocator_get(c->pool), ap_max_mem_free);
    }
    pthread_mutex_unlock(&w->mtx);
    if (!c)
        return APR_SUCCESS;
    pthread_mutex_lock(&rx.lock);
    if (w->prev)
        w->prev->next = w->next;
    else
        rx.live = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->next = rx.dead;
    rx.dead = w;
    pthread_mutex_unlock(&rx.lock);
    wake();
    return APR_SUCCESS;
}

static apr_status_t conn_cleanup(void *data)
{
    return release(data);
}

void cgiplus_ws_async_start(cgiplus_ws *w, request_rec *r)
{
    conn_rec *c = r->connection;

    pthread_mutex_lock(&rx.lock);
    if (rx_start() < 0) {
        pthread_mutex_unlock(&rx.lock);
        cgiplus_ws_run_sync(w);
        cgiplus_ws_free(w);
        return;
    }
    w->mpm_busy = 1; /* until the MPM has put the request away (suspend hook) */
    w->next = rx.live;
    if (rx.live)
        rx.live->prev = w;
    rx.live = w;
    pthread_mutex_unlock(&rx.lock);

    ap_set_module_config(c->conn_config, &cgiplus_module, w);
    apr_pool_cleanup_register(c->pool, w, conn_cleanup, apr_pool_cleanup_null);
    /* What the upgrade request used goes back to the system rather than
     * stay with the connection for its life (restored in release). */
    apr_allocator_max_free_set(apr_pool_allocator_get(c->pool), 1);
    /* As mod_http2 does for h2: after the request, wait for the client to
     * be readable with Timeout, then come back to process_connection (us)
     * whatever the state. */
    c->cs->sense = CONN_SENSE_WANT_READ;
    c->clogging_input_filters = 1;
    pthread_mutex_lock(&w->mtx);
    /* Frames the client sent right behind its handshake may already sit in
     * the input filters, where no readable socket would announce them. */
    cgiplus_ws_client_read(w);
    cgiplus_ws_runner_flush(w);
    arm(w);
    pthread_mutex_unlock(&w->mtx);
}

void cgiplus_ws_suspended(conn_rec *c, request_rec *r)
{
    cgiplus_ws *w = ap_get_module_config(c->conn_config, &cgiplus_module);
    (void)r;
    if (!w)
        return;
    pthread_mutex_lock(&w->mtx);
    if (w->mpm_busy && w->c) {
        /* The request is put away; the connection waits in the MPM: what
         * the worker sent meanwhile may go out now. */
        w->mpm_busy = 0;
        cgiplus_ws_client_flush(w);
        finish(w);
        arm(w);
    }
    pthread_mutex_unlock(&w->mtx);
}

int cgiplus_ws_process_connection(conn_rec *c)
{
    cgiplus_ws *w = ap_get_module_config(c->conn_config, &cgiplus_module);
    apr_time_t stuck = 0;
    int done;

    if (!w || c->master)
        return DECLINED;
    c->clogging_input_filters = 0;
    pthread_mutex_lock(&w->mtx);
    w->mpm_busy = 0;
    if (w->c && w->state != CGIPLUS_WS_DONE) {
        cgiplus_ws_client_read(w);
        cgiplus_ws_runner_flush(w);
        cgiplus_ws_client_flush(w);
        /* The runner takes no more (a worker slower than its client): this
         * thread waits for it rather than have the MPM wake us at once for
         * the data we leave unread. */
        while (w->read_paused && w->c && w->state != CGIPLUS_WS_DONE && !w->runner_gone) {
            struct pollfd p = { .fd = w->rfd, .events = POLLOUT };
            if (!stuck)
                stuck = apr_time_now();
            else if (apr_time_now() - stuck > c->base_server->timeout) {
                ap_log_error(APLOG_MARK, APLOG_INFO, 0, w->s, CGIPLUS_LOGNO(1811)
                             "WebSocket %lu of %s: the worker took none of the client's "
                             "messages for Timeout; closing it", (unsigned long)w->id, w->script);
                w->state = CGIPLUS_WS_DONE;
                break;
            }
            pthread_mutex_unlock(&w->mtx);
            poll(&p, 1, 200);
            pthread_mutex_lock(&w->mtx);
            cgiplus_ws_runner_flush(w);
            cgiplus_ws_client_read(w);
        }
        arm(w);
    }
    done = !w->c || w->state == CGIPLUS_WS_DONE;
    pthread_mutex_unlock(&w->mtx);
    if (done) {
        c->cs->state = CONN_STATE_LINGER;
    } else {
        c->cs->sense = CONN_SENSE_WANT_READ;
#ifdef AP_MPMQ_CAN_WAITIO
        c->cs->state = CONN_STATE_ASYNC_WAITIO;
#endif
    }
    return OK;
}

int cgiplus_ws_pre_close(conn_rec *c)
{
    cgiplus_ws *w = ap_get_module_config(c->conn_config, &cgiplus_module);
    if (w) {
        apr_pool_cleanup_kill(c->pool, w, conn_cleanup);
        release(w);
    }
    return OK;
}
