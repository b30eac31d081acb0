/* cgiplus_conn.c: connections from one httpd child to the runner: opening
 * (connect + HELLO/HELLO_ACK), a mutex-protected stack of idle connections
 * for reuse (safe under prefork, worker and event), and the socket I/O
 * primitives the request code uses. */
#include "cgiplus_conn.h"
#include "cgiplus_runner.h"
#include "cgp_proto.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "ap_mpm.h"
#include "apr_atomic.h"
#include "apr_poll.h"
#include "apr_portable.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"


APLOG_USE_MODULE(cgiplus);

/* The idle connections of this httpd child. Set up in child_init from
 * pchild; lives until the child exits. */
static struct {
    apr_thread_mutex_t *mutex; /* NULL: no reuse (setup failed) */
    cgiplus_conn **idle;
    int nidle;
    int cap;
} cp;

/* The pid of the runner this process last opened a connection to (0:
 * none yet): a new one means the runner restarted. */
static apr_uint32_t conn_last_runner;

static apr_status_t conn_child_exit(void *unused)
{
    while (cp.nidle > 0)
        cgiplus_conn_close(cp.idle[--cp.nidle]);
    cp.mutex = NULL;
    return APR_SUCCESS;
}

void cgiplus_conn_child_init(apr_pool_t *pchild, server_rec *s)
{
    int threads = 1;
    apr_status_t rv;

    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS || threads < 1)
        threads = 1;
    cp.cap = threads > 1024 ? 1024 : threads; /* one idle per thread at most */
    cp.idle = apr_pcalloc(pchild, sizeof(*cp.idle) * (apr_size_t)cp.cap);
    cp.nidle = 0;
    rv = apr_thread_mutex_create(&cp.mutex, APR_THREAD_MUTEX_DEFAULT, pchild);
    if (rv != APR_SUCCESS) {
        cp.mutex = NULL;
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, CGIPLUS_LOGNO(1020)
                     "cannot create the connection mutex; connections to the "
                     "runner will not be reused in this process");
        return;
    }
    apr_pool_cleanup_register(pchild, NULL, conn_child_exit, apr_pool_cleanup_null);
}

int cgiplus_conn_is_dead(apr_status_t rv)
{
    return APR_STATUS_IS_EOF(rv) || APR_STATUS_IS_ECONNRESET(rv) ||
           APR_STATUS_IS_EPIPE(rv) || rv == APR_FROM_OS_ERROR(ENOTCONN);
}

void cgiplus_conn_close(cgiplus_conn *c)
{
    if (!c)
        return;
    apr_socket_close(c->sock);
    apr_pool_destroy(c->pool); /* c lives in its own pool */
}

void cgiplus_conn_release(cgiplus_conn *c)
{
    if (cp.mutex && apr_thread_mutex_lock(cp.mutex) == APR_SUCCESS) {
        if (cp.nidle < cp.cap) {
            cp.idle[cp.nidle++] = c;
            c = NULL;
        }
        apr_thread_mutex_unlock(cp.mutex);
    }
    cgiplus_conn_close(c); /* no-op if it went on the stack */
}

static cgiplus_conn *conn_pop(void)
{
    cgiplus_conn *c = NULL;

    if (cp.mutex && apr_thread_mutex_lock(cp.mutex) == APR_SUCCESS) {
        if (cp.nidle > 0)
            c = cp.idle[--cp.nidle];
        apr_thread_mutex_unlock(cp.mutex);
    }
    return c;
}

apr_status_t cgiplus_conn_read_exact(cgiplus_conn *c, void *buf, apr_size_t len)
{
    char *p = buf;

    while (len > 0) {
        apr_size_t got = len;
        apr_status_t rv = apr_socket_recv(c->sock, p, &got);

        if (got == 0 && rv == APR_SUCCESS)
            rv = APR_EOF;
        p += got;
        len -= got;
        if (rv != APR_SUCCESS && len > 0)
            return rv;
    }
    return APR_SUCCESS;
}

/* Drops the first len bytes of an iovec array. */
static void iov_advance(struct iovec **iov, int *n, apr_size_t len)
{
    while (*n > 0 && len >= (*iov)->iov_len) {
        len -= (*iov)->iov_len;
        (*iov)++;
        (*n)--;
    }
    if (*n > 0 && len > 0) {
        (*iov)->iov_base = (char *)(*iov)->iov_base + len;
        (*iov)->iov_len -= len;
    }
    while (*n > 0 && (*iov)->iov_len == 0) {
        (*iov)++;
        (*n)--;
    }
}

apr_status_t cgiplus_conn_send_part(cgiplus_conn *c, struct iovec **iov, int *n)
{
    apr_size_t sent = 0;
    apr_status_t rv;

    iov_advance(iov, n, 0);
    if (*n == 0)
        return APR_SUCCESS;
    rv = apr_socket_sendv(c->sock, *iov, *n > 64 ? 64 : *n, &sent);
    if (rv != APR_SUCCESS && sent == 0)
        return rv;
    iov_advance(iov, n, sent);
    return APR_SUCCESS;
}

apr_status_t cgiplus_conn_sendv(cgiplus_conn *c, struct iovec *iov, int n)
{
    apr_status_t rv = APR_SUCCESS;

    iov_advance(&iov, &n, 0);
    while (n > 0 && rv == APR_SUCCESS)
        rv = cgiplus_conn_send_part(c, &iov, &n);
    return rv;
}

int cgiplus_conn_readable(cgiplus_conn *c, apr_interval_time_t wait)
{
    int rd = 0, wr = 0;

    return cgiplus_conn_wait(c, APR_POLLIN, wait, &rd, &wr) == APR_SUCCESS && rd;
}

apr_status_t cgiplus_conn_wait(cgiplus_conn *c, apr_int16_t events,
                               apr_interval_time_t timeout, int *rd, int *wr)
{
    apr_pollfd_t pfd;
    apr_int32_t nready = 0;
    apr_status_t rv;

    memset(&pfd, 0, sizeof(pfd));
    pfd.p = c->pool;
    pfd.desc_type = APR_POLL_SOCKET;
    pfd.desc.s = c->sock;
    pfd.reqevents = events;
    *rd = *wr = 0;
    do {
        rv = apr_poll(&pfd, 1, &nready, timeout);
    } while (APR_STATUS_IS_EINTR(rv));
    if (rv != APR_SUCCESS)
        return rv; /* APR_TIMEUP when nothing happened */
    /* A hang-up or error counts as both: the next read or write reports it. */
    *rd = (pfd.rtnevents & (APR_POLLIN | APR_POLLHUP | APR_POLLERR)) != 0;
    *wr = (pfd.rtnevents & (APR_POLLOUT | APR_POLLHUP | APR_POLLERR)) != 0;
    return APR_SUCCESS;
}

/* HELLO out, HELLO_ACK back, versions compared. */
static apr_status_t conn_hello(request_rec *r, cgiplus_conn *c)
{
    unsigned char out[CGP_HDR_LEN + CGP_HELLO_LEN], in[CGP_HDR_LEN + CGP_HELLO_ACK_LEN];
    struct iovec iov;
    cgp_hdr h = { 0 };
    cgp_hello hello = { CGP_VERSION, (uint32_t)getpid(), { 0 } };
    apr_status_t rv;
    int crc;

    if (!cgiplus_key())
        return APR_EINIT;
    /* The runner proves itself first: a socket someone else put in its
     * place gets nothing (issue 20, hole 5). */
    if ((rv = cgiplus_runner_peer_check(r, c->sock)) != APR_SUCCESS)
        return rv;
    memcpy(hello.key, cgiplus_key(), CGP_KEY_LEN); /* proves we are httpd */
    h.type = CGP_T_HELLO;
    h.len = CGP_HELLO_LEN;
    cgp_hdr_pack(out, &h);
    cgp_hello_pack(out + CGP_HDR_LEN, &hello);
    iov.iov_base = out;
    iov.iov_len = sizeof(out);
    rv = cgiplus_conn_sendv(c, &iov, 1);
    memset(out, 0, sizeof(out));
    if (rv != APR_SUCCESS)
        return rv;
    if ((rv = cgiplus_conn_read_exact(c, in, CGP_HDR_LEN)) != APR_SUCCESS)
        return rv;
    if ((crc = cgp_hdr_unpack(in, &h)) != CGP_OK || h.type != CGP_T_HELLO_ACK ||
        h.len != CGP_HELLO_ACK_LEN) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1021)
                      "the runner answered HELLO with %s (%s); is the socket "
                      "%s really a cgiplus-runner of protocol version %u?",
                      crc == CGP_OK ? cgp_type_name(h.type) : "a bad frame",
                      cgp_strerror(crc), cgiplus_runner_socket_path(), CGP_VERSION);
        return APR_EGENERAL;
    }
    if ((rv = cgiplus_conn_read_exact(c, in + CGP_HDR_LEN, CGP_HELLO_ACK_LEN)) != APR_SUCCESS)
        return rv;
    cgp_hello_ack_unpack(in + CGP_HDR_LEN, CGP_HELLO_ACK_LEN, &hello);
    if (hello.version != CGP_VERSION) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1022)
                      "the runner (pid %lu) speaks protocol version %u, this "
                      "module %u: install matching versions",
                      (unsigned long)hello.pid, hello.version, CGP_VERSION);
        return APR_EGENERAL;
    }
    c->runner_pid = hello.pid;
    apr_atomic_set32(&conn_last_runner, hello.pid);
    return APR_SUCCESS;
}

apr_uint32_t cgiplus_conn_last_runner(void)
{
    return apr_atomic_read32(&conn_last_runner);
}

/* A blocking connect bounded by SO_SNDTIMEO: with the runner's backlog
 * full (a script flooding its socket), the kernel queues us with the other
 * blocked connectors and wakes them in turn, where a non-blocking connect
 * would only see EAGAIN and lose every race to them. */
static apr_status_t conn_connect(apr_socket_t *sock, apr_sockaddr_t *sa,
                                 apr_interval_time_t timeout)
{
    struct timeval tv = { (time_t)apr_time_sec(timeout), (suseconds_t)apr_time_usec(timeout) };
    apr_os_sock_t fd;
    apr_status_t rv;

    apr_socket_timeout_set(sock, -1);
    if ((rv = apr_os_sock_get(&fd, sock)) != APR_SUCCESS)
        return rv;
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
        return APR_FROM_OS_ERROR(errno);
    rv = apr_socket_connect(sock, sa);
    tv.tv_sec = tv.tv_usec = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 && rv == APR_SUCCESS)
        rv = APR_FROM_OS_ERROR(errno);
    apr_socket_timeout_set(sock, timeout);
    return rv;
}

static apr_status_t conn_open(request_rec *r, const char *path,
                              apr_interval_time_t timeout, cgiplus_conn **out)
{
    apr_pool_t *pool = NULL;
    apr_sockaddr_t *sa;
    cgiplus_conn *c = NULL;
    apr_status_t rv;

    /* Unmanaged: a connection outlives requests and is used by one thread
     * at a time, so it gets a pool of its own with no shared parent. */
    if ((rv = apr_pool_create_unmanaged_ex(&pool, NULL, NULL)) != APR_SUCCESS)
        return rv;
    c = apr_pcalloc(pool, sizeof(*c));
    c->pool = pool;
    if ((rv = apr_sockaddr_info_get(&sa, path, APR_UNIX, 0, 0, pool)) != APR_SUCCESS ||
        (rv = apr_socket_create(&c->sock, APR_UNIX, SOCK_STREAM, 0, pool)) != APR_SUCCESS)
        goto fail;
    if ((rv = conn_connect(c->sock, sa, timeout)) != APR_SUCCESS ||
        (rv = conn_hello(r, c)) != APR_SUCCESS)
        goto fail;
    *out = c;
    return APR_SUCCESS;

fail:
    if (c && c->sock)
        apr_socket_close(c->sock);
    apr_pool_destroy(pool);
    return rv;
}

/* Errors that mean the runner is not (yet) there: worth waiting for. */
static int conn_retryable(apr_status_t rv)
{
    return APR_STATUS_IS_ENOENT(rv) || APR_STATUS_IS_ECONNREFUSED(rv) ||
           APR_STATUS_IS_EAGAIN(rv) || APR_STATUS_IS_TIMEUP(rv) ||
           cgiplus_conn_is_dead(rv);
}

apr_status_t cgiplus_conn_acquire(request_rec *r, int fresh, cgiplus_conn **out)
{
    const char *path = cgiplus_runner_socket_path();
    apr_time_t deadline = apr_time_now() + CGIPLUS_CONNECT_WAIT;
    apr_interval_time_t delay = apr_time_from_msec(10);
    cgiplus_conn *c;
    apr_status_t rv;
    int tries = 0;

    while (!fresh && (c = conn_pop()) != NULL) {
        /* An idle connection has nothing to read; if it has, the runner
         * closed it (it restarted, say) and it is of no use. */
        if (!cgiplus_conn_readable(c, 0)) {
            *out = c;
            return APR_SUCCESS;
        }
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1023)
                      "dropping an idle runner connection the runner closed");
        cgiplus_conn_close(c);
    }
    if (!path) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1024)
                      "no runner socket is configured in this process");
        return APR_EINIT;
    }
    for (;;) {
        apr_time_t now = apr_time_now();
        apr_interval_time_t left = deadline - now;

        tries++;
        if (left < apr_time_from_msec(100))
            left = apr_time_from_msec(100);
        rv = conn_open(r, path, left, &c);
        if (rv == APR_SUCCESS) {
            ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1026)
                          "opened a connection to the runner (pid %lu)",
                          (unsigned long)c->runner_pid);
            *out = c;
            return APR_SUCCESS;
        }
        now = apr_time_now();
        if (!conn_retryable(rv) || now + delay > deadline)
            break;
        apr_sleep(delay);
        delay = delay * 2 > apr_time_from_msec(500) ? apr_time_from_msec(500)
                                                    : delay * 2;
    }
    ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1025)
                  "cannot reach cgiplus-runner at %s (%d attempt%s over %" APR_TIME_T_FMT
                  " ms); is it running, and does it hold the key httpd holds?", path, tries,
                  CGIPLUS_S(tries),
                  apr_time_as_msec(apr_time_now() - deadline + CGIPLUS_CONNECT_WAIT));
    return rv;
}
