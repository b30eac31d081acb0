/* runner_landlock.c: the Landlock domain each worker (and plain CGI
 * process) of a root runner starts in. Landlock lets a process ptrace (and
 * so read the memory, /proc/PID/environ or take the descriptors of) only
 * processes of its own domain or of one nested in it: no script reaches
 * another worker, of its pool or another, nor an httpd child, even under
 * its own uid. From ABI 6 signals are scoped too: a script signals its
 * pool's processes only (the pool's domain around each: runner_domain.c).
 * Writing another process's files under /proc is refused: oom_score_adj
 * and autogroup (the OOM killer's choice, a CPU share) take no ptrace
 * access, only the file's owner, and every worker of a uid owns those of
 * the others; its own /proc/PID stays writable. No other file access is
 * restricted: the ruleset also handles making block devices, which no
 * script may do anyway, and moving files between directories, which a
 * rule allows everywhere (every domain refuses a link or rename across
 * directories, EXDEV, unless a rule allows it: git's receive-pack, an
 * upload moved into place). */
#include "runner_types.h" /* _GNU_SOURCE */
#include "runner_landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <linux/landlock.h>
#include <linux/magic.h>
#include <sys/statfs.h>
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

#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_restrict_self) \
    && defined(SYS_landlock_add_rule)
static int allow(int rs, int fd, uint64_t access)
{
    struct landlock_path_beneath_attr pb = { .allowed_access = access, .parent_fd = fd };
    return (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

/* Writes beneath every entry of / but a procfs (/proc), and beneath the
 * child's own /proc/PID (its threads' too): the rest of /proc is another
 * process's. Entries are read with getdents64, no malloc after fork. A
 * rule a file system refuses leaves that entry unwritable: -1, and the
 * caller makes a domain without the write rules instead. 0, or -1. */
static int allow_writes(int rs)
{
    const uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE;
    _Alignas(8) char buf[4096];
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1, fd;
    long n;

    if (root < 0)
        return -1;
    while ((n = syscall(SYS_getdents64, root, buf, sizeof(buf))) > 0)
        for (long at = 0; at < n;) {
            /* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name */
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof(reclen));
            const char *name = buf + at + 19;
            struct statfs sf;
            at += reclen;
            if (!strcmp(name, ".") || !strcmp(name, ".."))
                continue;
            if ((fd = openat(root, name, O_PATH | O_CLOEXEC)) < 0)
                continue; /* a dangling symbolic link: nothing to write there */
            if (fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC) {
                close(fd);
                continue;
            }
            int r = allow(rs, fd, w);
            close(fd);
            if (r < 0)
                goto out;
        }
    if (n < 0 || (fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        goto out;
    rc = allow(rs, fd, w);
    close(fd);
out:
    close(root);
    return rc;
}

/* The calling thread enters a domain handling handled and REFER (allowed
 * beneath /), and WRITE_FILE where allow_writes allows it if handled
 * names it (when a rule is refused, a domain without it), scoping
 * scoped. 0, or -1 with errno. */
static int enter(uint64_t handled, uint64_t scoped)
{
    struct ll_ruleset_attr attr = { .handled_access_fs = handled | LANDLOCK_ACCESS_FS_REFER,
                                    .scoped = scoped };
    int rc = -1, fd = -1, top = -1;

    if ((top = open("/", O_PATH | O_CLOEXEC)) < 0)
        goto out;
    for (int writes = !!(handled & LANDLOCK_ACCESS_FS_WRITE_FILE); writes >= 0 && rc < 0;
         writes--) {
        if (!writes) /* a rule refused: the domain as before, writes unhandled */
            attr.handled_access_fs &= ~(uint64_t)LANDLOCK_ACCESS_FS_WRITE_FILE;
        if (fd >= 0)
            close(fd);
        fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
        if (fd < 0 || allow(fd, top, LANDLOCK_ACCESS_FS_REFER) < 0)
            goto out;
        if (!writes || allow_writes(fd) == 0)
            rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
    }
out:
    if (top >= 0)
        close(top);
    if (fd >= 0)
        close(fd);
    return rc;
}
#endif

int runner_landlock_enter(int scope_signals)
{
#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_restrict_self) \
    && defined(SYS_landlock_add_rule)
    if (ll_abi < 2) {
        errno = EOPNOTSUPP;
        return -1;
    }
    return enter(LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_WRITE_FILE,
                 scope_signals && ll_abi >= LL_ABI_SCOPES ? LL_SCOPE_SIGNAL : 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int runner_landlock_enter_signals(void)
{
#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_restrict_self) \
    && defined(SYS_landlock_add_rule)
    if (ll_abi < LL_ABI_SCOPES) {
        errno = EOPNOTSUPP;
        return -1;
    }
    return enter(0, LL_SCOPE_SIGNAL);
#else
    errno = ENOSYS;
    return -1;
#endif
}
