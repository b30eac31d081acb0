/* runner_landlock.c: the Landlock domain each worker (and plain CGI
 * process) of a root runner starts in. Landlock lets a process ptrace (and
 * so read the memory, /proc/PID/environ or take the descriptors of) only
 * processes of its own domain or of one nested in it: no script reaches
 * another worker, of its pool or another, nor an httpd child, even under
 * its own uid. From ABI 6 the domain also scopes signals: a script signals
 * its own processes only. No file access is restricted: the ruleset
 * handles making block devices, which no script may do anyway, and moving
 * files between directories, which its one rule allows everywhere (every
 * domain refuses a link or rename across directories, EXDEV, unless a rule
 * allows it: git's receive-pack, an upload moved into place). */
#include "runner_types.h" /* _GNU_SOURCE */
#include "runner_landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct landlock_ruleset_attr as of ABI 6 (Linux 6.12):
 * Debian 12's headers know only its first field. Older kernels take the
 * larger struct too, its fields unknown to them being zero. */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};
#define LL_SCOPE_SIGNAL  (1ull << 1)
#define LL_ABI_SCOPES    6

static int ll_abi; /* read once at start (runner_landlock_probe) */

int runner_landlock_probe(void)
{
#if defined(SYS_landlock_create_ruleset)
    ll_abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    /* ABI 1 cannot allow moves between directories: no domain there */
    if (ll_abi == 1) {
        ll_abi = -1;
        errno = EOPNOTSUPP;
    }
    return ll_abi;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int runner_landlock_scopes_signals(void)
{
    return ll_abi >= LL_ABI_SCOPES;
}

int runner_landlock_enter(void)
{
#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_restrict_self) \
    && defined(SYS_landlock_add_rule)
    struct ll_ruleset_attr attr = {
        .handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_REFER,
        .scoped = ll_abi >= LL_ABI_SCOPES ? LL_SCOPE_SIGNAL : 0,
    };
    struct landlock_path_beneath_attr everywhere = { .allowed_access = LANDLOCK_ACCESS_FS_REFER,
                                                     .parent_fd = -1 };
    int rc = -1, fd = -1;

    if (ll_abi < 2) {
        errno = EOPNOTSUPP;
        goto out;
    }
    fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
    everywhere.parent_fd = open("/", O_PATH | O_CLOEXEC);
    if (fd < 0 || everywhere.parent_fd < 0 ||
        syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &everywhere, 0) < 0)
        goto out;
    rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
out:
    if (everywhere.parent_fd >= 0)
        close(everywhere.parent_fd);
    if (fd >= 0)
        close(fd);
    return rc;
#else
    errno = ENOSYS;
    return -1;
#endif
}
