/* runner_notify.h: the service manager: sd_notify and socket activation
 * (runner_notify.c). */
#ifndef RUNNER_NOTIFY_H
#define RUNNER_NOTIFY_H

#include "runner_types.h"

void runner_notify_init(void);          /* reads and removes $NOTIFY_SOCKET */
void runner_notify(const char *msg);    /* "READY=1" etc.; nothing without one */
/* The socket-activated listener (descriptor 3), -1 none, -2 unusable. */
int runner_listen_fd(void);
int runner_listen_fd_path(int fd, char *path, size_t len);

#endif
