/* runner_oom.c: when memory runs out the kernel kills the process with the
 * highest OOM score. Scripts are untrusted and the ones that grow: a worker
 * (and every child it forks, which inherit the value) scores above the
 * runner and httpd's processes, so a script that exhausts memory loses
 * itself, not the runner every pool depends on nor an httpd child. Written
 * as root, before the user switch, the value is also the floor the script
 * may not go below (lowering needs CAP_SYS_RESOURCE). */
#include "runner_types.h" /* _GNU_SOURCE */
#include "runner_oom.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void runner_oom_prefer(void)
{
    char buf[16];
    int fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    if (n > 0) {
        buf[n] = '\0';
        /* the admin may have made the runner itself likelier to go */
        if (atoi(buf) < RUNNER_OOM_ADJ) {
            int len = snprintf(buf, sizeof(buf), "%d\n", RUNNER_OOM_ADJ);
            if (lseek(fd, 0, SEEK_SET) == 0)
                n = write(fd, buf, (size_t)len);
        }
    }
    (void)n;
    close(fd);
}
