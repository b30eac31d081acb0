/* cgiplus_conn.h: connections to the runner (cgiplus_conn.c): a per-process
 * stack of idle ones, each authenticated with the key once (HELLO). */
#ifndef CGIPLUS_CONN_H
#define CGIPLUS_CONN_H

#include "cgiplus_module.h"

#include <sys/uio.h>

#include "apr_network_io.h"

/* How long a request waits for the runner to accept a connection (it may be
 * restarting) before it is answered 503. */
#define CGIPLUS_CONNECT_WAIT apr_time_from_sec(5)
/* ...and the Retry-After it is answered with. */
#define CGIPLUS_RETRY_AFTER  5

/* One connection to the runner. Owned by whoever took it from the idle
 * stack (one request at a time); its pool lives until the connection is
 * closed. */
typedef struct cgiplus_conn {
    apr_pool_t *pool;       /* unmanaged: private to this connection */
    apr_socket_t *sock;
    apr_uint32_t runner_pid;
} cgiplus_conn;

void cgiplus_conn_child_init(apr_pool_t *pchild, server_rec *s);
/* Takes an idle connection or opens a new one (retrying for up to
 * CGIPLUS_CONNECT_WAIT). fresh: never reuse an idle one. */
apr_status_t cgiplus_conn_acquire(request_rec *r, int fresh, cgiplus_conn **out);
/* Puts a connection whose last request ended cleanly (END read) back. */
void cgiplus_conn_release(cgiplus_conn *c);
void cgiplus_conn_close(cgiplus_conn *c);
/* Sends all of iov, looping over partial writes; iov is consumed. */
apr_status_t cgiplus_conn_sendv(cgiplus_conn *c, struct iovec *iov, int n);
/* One write of what the socket takes; advances *iov and *n past it. */
apr_status_t cgiplus_conn_send_part(cgiplus_conn *c, struct iovec **iov, int *n);
apr_status_t cgiplus_conn_read_exact(cgiplus_conn *c, void *buf, apr_size_t len);
/* Nonzero if a byte (or EOF) can be read without waiting. */
int cgiplus_conn_readable(cgiplus_conn *c, apr_interval_time_t wait);
/* Waits for events (APR_POLLIN / APR_POLLOUT); sets *rd / *wr. */
apr_status_t cgiplus_conn_wait(cgiplus_conn *c, apr_int16_t events,
                               apr_interval_time_t timeout, int *rd, int *wr);
/* The pid of the runner the last connection opened says it is (0: none
 * yet): whoever keeps something of a runner (the direct path's table)
 * drops it when another answers. */
apr_uint32_t cgiplus_conn_last_runner(void);
/* Error codes that mean the runner closed the connection. */
int cgiplus_conn_is_dead(apr_status_t rv);

#endif
