/* cgiplus_direct_chan.c: the direct path's channels (docs/DESIGN.md,
 * "Channels"): a worker's descriptors come from the runner once per worker
 * (CHANNEL, with SCM_RIGHTS) and are cached per process, reference-counted. */
#include "cgiplus_direct_private.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_log.h"
#include "apr_portable.h"

APLOG_USE_MODULE(cgiplus);

/* This child's view of the direct path: defined here, with the channels
 * it caches, so the table's code calls down to the channels, never back. */
cgiplus_direct_proc cgiplus_dp;

void cgiplus_direct_chan_close(direct_chan *ch)
{
    int *fds[] = { &ch->fd_in, &ch->fd_body, &ch->fd_out, &ch->fd_peer, &ch->fd_err };

    for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (*fds[i] >= 0) /* a FastCGI worker's channel has only fd_out */
            close(*fds[i]);
    free(ch);
}

void cgiplus_direct_chan_unref(direct_chan *ch)
{
    apr_thread_mutex_lock(cgiplus_dp.mu);
    if (--ch->refs == 0 && ch->dead)
        cgiplus_direct_chan_close(ch);
    apr_thread_mutex_unlock(cgiplus_dp.mu);
}

/* Reads one frame whose first byte may carry descriptors (SCM_RIGHTS),
 * within timeout. The descriptors arrive close-on-exec. */
apr_status_t cgiplus_direct_recv(cgiplus_conn *c, unsigned want, unsigned char *pl,
                                 apr_size_t len, int *fds, int maxfds, int *nfds)
{
    unsigned char hb[CGP_HDR_LEN];
    apr_size_t got = 0;
    apr_os_sock_t fd;
    cgp_hdr h;
    int i;

    *nfds = 0;
    if (apr_os_sock_get(&fd, c->sock) != APR_SUCCESS)
        return APR_EGENERAL;
    while (got < CGP_HDR_LEN) {
        union {
            struct cmsghdr c;
            char b[CMSG_SPACE(sizeof(int) * CGP_CHANNEL_FDS)];
        } cm;
        struct iovec iov = { hb + got, CGP_HDR_LEN - got };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
                             .msg_controllen = sizeof(cm.b) };
        struct cmsghdr *cmh;
        ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!cgiplus_conn_readable(c, apr_time_from_sec(5)))
                goto fail_rv_timeup;
            continue;
        }
        if (n <= 0)
            goto fail_eof;
        for (cmh = CMSG_FIRSTHDR(&mh); cmh; cmh = CMSG_NXTHDR(&mh, cmh)) {
            if (cmh->cmsg_level != SOL_SOCKET || cmh->cmsg_type != SCM_RIGHTS)
                continue;
            int k = (int)((cmh->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int *in = (int *)CMSG_DATA(cmh);
            for (i = 0; i < k; i++) {
                if (*nfds < maxfds)
                    fds[(*nfds)++] = in[i];
                else
                    close(in[i]);
            }
        }
        got += (apr_size_t)n;
    }
    if (cgp_hdr_unpack(hb, &h) != CGP_OK || h.type != want || h.len != len ||
        cgiplus_conn_read_exact(c, pl, len) != APR_SUCCESS)
        goto fail_eof;
    return APR_SUCCESS;

fail_rv_timeup:
    for (i = 0; i < *nfds; i++)
        close(fds[i]);
    *nfds = 0;
    return APR_TIMEUP;
fail_eof:
    for (i = 0; i < *nfds; i++)
        close(fds[i]);
    *nfds = 0;
    return APR_EGENERAL;
}

apr_status_t cgiplus_direct_send(cgiplus_conn *c, unsigned type, const unsigned char *pl,
                                 apr_size_t len)
{
    unsigned char hb[CGP_HDR_LEN];
    cgp_hdr h = { 0 };
    struct iovec iov[2];

    h.type = (uint8_t)type;
    h.len = (uint32_t)len;
    cgp_hdr_pack(hb, &h);
    iov[0].iov_base = hb;
    iov[0].iov_len = sizeof(hb);
    iov[1].iov_base = (void *)pl;
    iov[1].iov_len = len;
    return cgiplus_conn_sendv(c, iov, len ? 2 : 1);
}

direct_chan *cgiplus_direct_chan_cached(uint32_t sidx, uint32_t sgen)
{
    direct_chan *ch;

    apr_thread_mutex_lock(cgiplus_dp.mu);
    ch = cgiplus_dp.chans[sidx];
    if (ch && ch->gen == sgen)
        ch->refs++;
    else
        ch = NULL;
    apr_thread_mutex_unlock(cgiplus_dp.mu);
    return ch;
}

void cgiplus_direct_chan_keep(direct_chan *ch)
{
    apr_thread_mutex_lock(cgiplus_dp.mu);
    if (cgiplus_dp.base) {
        direct_chan *old = cgiplus_dp.chans[ch->slot];

        if (old) { /* that slot's previous worker */
            old->dead = 1;
            if (old->refs == 0)
                cgiplus_direct_chan_close(old);
        }
        cgiplus_dp.chans[ch->slot] = ch;
    }
    else {
        ch->dead = 1; /* dropped meanwhile: used once */
    }
    apr_thread_mutex_unlock(cgiplus_dp.mu);
}

apr_status_t cgiplus_direct_ask(request_rec *r, unsigned type, const unsigned char pl[CGP_PAIR_LEN],
                                unsigned want, unsigned char *ans, apr_size_t alen, int *fds,
                                int maxfds, int *nfds)
{
    cgiplus_conn *c;
    apr_status_t rv;

    *nfds = 0;
    if ((rv = cgiplus_conn_acquire(r, 0, &c)) != APR_SUCCESS)
        return rv;
    if (c->runner_pid != cgiplus_dp.runner_pid) {
        cgiplus_conn_close(c); /* another runner than the table's */
        return APR_EGENERAL;
    }
    if ((rv = cgiplus_direct_send(c, type, pl, CGP_PAIR_LEN)) != APR_SUCCESS ||
        (rv = cgiplus_direct_recv(c, want, ans, alen, fds, maxfds, nfds)) != APR_SUCCESS) {
        cgiplus_conn_close(c);
        return rv;
    }
    cgiplus_conn_release(c);
    return APR_SUCCESS;
}

direct_chan *cgiplus_direct_chan_get(request_rec *r, uint32_t sidx, uint32_t sgen)
{
    unsigned char pl[CGP_PAIR_LEN], ab[CGP_CHANNEL_LEN];
    int fds[CGP_CHANNEL_FDS], nfds = 0, i;
    cgp_pair pr = { sidx, sgen };
    cgp_channel cc;
    direct_chan *ch;

    if ((ch = cgiplus_direct_chan_cached(sidx, sgen)))
        return ch;
    cgp_pair_pack(pl, &pr);
    if (cgiplus_direct_ask(r, CGP_T_CHANNEL, pl, CGP_T_CHANNEL_ACK, ab, sizeof(ab), fds,
                           CGP_CHANNEL_FDS, &nfds) != APR_SUCCESS)
        return NULL;
    if (cgp_channel_unpack(ab, sizeof(ab), &cc) != CGP_OK || cc.slot != sidx ||
        cc.gen != sgen || nfds != CGP_CHANNEL_FDS || !(ch = calloc(1, sizeof(*ch)))) {
        for (i = 0; i < nfds; i++)
            close(fds[i]);
        return NULL;
    }
    ch->slot = sidx;
    ch->gen = sgen;
    ch->pid = cc.pid;
    ch->fd_in = fds[0];
    ch->fd_body = fds[1];
    ch->fd_out = fds[2];
    ch->fd_peer = fds[3];
    ch->fd_err = fds[4];
    memcpy(ch->eof, cc.eof, sizeof(ch->eof));
    memcpy(ch->esc, cc.esc, sizeof(ch->esc));
    memcpy(ch->eot, cc.eot, sizeof(ch->eot));
    ch->ready_len = cgp_ready_line(ch->ready, ch->eof);
    ch->refs = 1;
    cgiplus_direct_chan_keep(ch);
    return ch;
}
