/* runner_notify.c: the service manager's two conventions, without
 * libsystemd: readiness and reload/stop notices as datagrams to
 * $NOTIFY_SOCKET (sd_notify(3), Type=notify), and a listening socket
 * handed over as descriptor 3 with $LISTEN_FDS/$LISTEN_PID
 * (sd_listen_fds(3), socket activation). Both variables are read once at
 * start and removed, so no worker ever sees them. */
#include "runner_notify.h"
#include "runner_log.h"
#include "cgp_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define LISTEN_FDS_START 3

/* $NOTIFY_SOCKET as read at start; empty: no service manager listens. */
static struct sockaddr_un notify_addr;
static socklen_t notify_len;

void runner_notify_init(void)
{
    const char *p = getenv("NOTIFY_SOCKET");
    size_t n = p ? strlen(p) : 0;

    /* a path, or '@' for the abstract namespace */
    if (n > 1 && n < sizeof(notify_addr.sun_path) && (p[0] == '/' || p[0] == '@')) {
        memset(&notify_addr, 0, sizeof(notify_addr));
        notify_addr.sun_family = AF_UNIX;
        memcpy(notify_addr.sun_path, p, n);
        if (p[0] == '@')
            notify_addr.sun_path[0] = '\0';
        notify_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    }
    unsetenv("NOTIFY_SOCKET");
}

void runner_notify(const char *msg)
{
    int fd;

    if (!notify_len)
        return;
    if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
        goto fail;
    if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&notify_addr,
               notify_len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        goto fail;
    }
    close(fd);
    return;
fail:
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2402) "cannot tell the service manager "
               "\"%s\" over NOTIFY_SOCKET: %s", msg, strerror(errno));
}

int runner_listen_fd(void)
{
    const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
    int fd = -1, type = 0, acc = 0;
    socklen_t tl = sizeof(type), al = sizeof(acc);
    struct sockaddr_un sa;
    socklen_t sl = sizeof(sa);
    uint64_t v;

    if (!pid || !fds || cgp_parse_u64(pid, strlen(pid), &v) < 0 || v != (uint64_t)getpid())
        goto out; /* not for us (inherited from a parent's activation) */
    if (cgp_parse_u64(fds, strlen(fds), &v) < 0 || v != 1) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2403) "socket activation: LISTEN_FDS=%s; "
                   "the runner takes exactly one socket", fds);
        fd = -2;
        goto out;
    }
    if (getsockopt(LISTEN_FDS_START, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
        getsockopt(LISTEN_FDS_START, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0 ||
        getsockname(LISTEN_FDS_START, (struct sockaddr *)&sa, &sl) < 0 ||
        sa.sun_family != AF_UNIX || type != SOCK_STREAM || !acc) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2404) "socket activation: descriptor 3 "
                   "is not a listening UNIX stream socket (ListenStream=/path)");
        fd = -2;
        goto out;
    }
    fd = LISTEN_FDS_START;
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2405) "socket activation: %s",
                   strerror(errno));
        fd = -2;
    }
out:
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    return fd;
}

int runner_listen_fd_path(int fd, char *path, size_t len)
{
    struct sockaddr_un sa;
    socklen_t sl = sizeof(sa);

    memset(&sa, 0, sizeof(sa));
    if (getsockname(fd, (struct sockaddr *)&sa, &sl) < 0 || sa.sun_path[0] != '/' ||
        strlen(sa.sun_path) >= len)
        return -1;
    memcpy(path, sa.sun_path, strlen(sa.sun_path) + 1);
    return 0;
}
