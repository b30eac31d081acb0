/* runner_spool.c: a request body on its way to the script. Memory up to a
 * cap, then an unlinked temp file in the spool directory (spool_dir, made
 * 0700 at start), itself capped (spool_max); the bytes leave in the order
 * they came (memory always holds the oldest ones). */
#include "runner_spool.h"
#include "runner_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPOOL_READ (64u * 1024u)

/* The spool directory, set once at start. */
static char spool_dir[4096];

int runner_spool_setup(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (strlen(dir) >= sizeof(spool_dir) || dir[0] != '/') {
        snprintf(err, errlen, "spool_dir %s: an absolute path, shorter than %zu bytes", dir,
                 sizeof(spool_dir));
        return -1;
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "spool_dir %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Ours alone: bodies of every pool pass through it. */
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077)) {
        snprintf(err, errlen, "spool_dir %s must be a directory of the runner's user that "
                 "nobody else may use (mode 0700); it is made so when it does not exist", dir);
        return -1;
    }
    memcpy(spool_dir, dir, strlen(dir) + 1);
    return 0;
}

void runner_spool_init(runner_spool *s)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}

void runner_spool_remove_dir(void)
{
    if (spool_dir[0])
        rmdir(spool_dir);
}

static int spool_open(void)
{
    const char *dir = spool_dir;
    char path[4096 + 32];
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    /* A runner stopping beside us removed it (runner_spool_remove_dir):
     * made again as at start. */
    if (fd < 0 && errno == ENOENT && mkdir(dir, 0700) == 0)
        fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    /* Some file systems have no O_TMPFILE: create, then unlink at once. */
    if (snprintf(path, sizeof(path), "%s/cgiplus-body-XXXXXX", dir) >= (int)sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -1;
    unlink(path);
    return fd;
}

int runner_spool_append(runner_spool *s, const void *d, size_t n, size_t mem_cap,
                        uint64_t file_cap)
{
    if (n == 0)
        return 0;
    int file_busy = s->file_wr > s->file_rd;
    if (!file_busy && cgp_buf_used(&s->mem) + n <= mem_cap) {
        if (cgp_buf_append(&s->mem, d, n) < 0)
            return -1;
        s->total += n;
        return 0;
    }
    if (s->fd < 0 && (s->fd = spool_open()) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2001) "cannot create a body spool file: %s",
                   strerror(errno));
        return -1;
    }
    if (!file_busy)
        s->file_rd = s->file_wr = 0;
    if (s->file_wr + n > file_cap) {
        errno = EFBIG;
        return -1;
    }
    const unsigned char *p = d;
    size_t left = n;
    while (left) {
        ssize_t w = pwrite(s->fd, p, left, (off_t)s->file_wr);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2002) "cannot write the body spool file: %s",
                       strerror(errno));
            return -1;
        }
        p += w;
        left -= (size_t)w;
        s->file_wr += (uint64_t)w;
    }
    s->total += n;
    return 0;
}

uint64_t runner_spool_pending(const runner_spool *s)
{
    return cgp_buf_used(&s->mem) + (s->file_wr - s->file_rd);
}

int runner_spool_flush(runner_spool *s, int fd)
{
    for (;;) {
        if (!cgp_buf_used(&s->mem)) {
            if (s->file_rd == s->file_wr)
                return 0;
            uint64_t left = s->file_wr - s->file_rd;
            size_t want = left < SPOOL_READ ? (size_t)left : SPOOL_READ;
            if (cgp_buf_reserve(&s->mem, want) < 0)
                return -1;
            ssize_t n = pread(s->fd, s->mem.p + s->mem.len, want, (off_t)s->file_rd);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (n == 0)
                    errno = EIO;
                s->rd_err = errno;
                return -1;
            }
            s->mem.len += (size_t)n;
            s->file_rd += (uint64_t)n;
        }
        int rc = runner_buf_flush(&s->mem, fd);
        if (rc != 0)
            return rc;
    }
}

ssize_t runner_spool_take(runner_spool *s, void *out, size_t n)
{
    size_t got = 0;
    while (got < n) {
        size_t m = cgp_buf_used(&s->mem);
        if (m) {
            size_t k = m < n - got ? m : n - got;
            memcpy((unsigned char *)out + got, s->mem.p + s->mem.off, k);
            cgp_buf_consume(&s->mem, k);
            got += k;
            continue;
        }
        if (s->file_rd == s->file_wr)
            break;
        uint64_t left = s->file_wr - s->file_rd;
        size_t want = left < n - got ? (size_t)left : n - got;
        ssize_t r = pread(s->fd, (unsigned char *)out + got, want, (off_t)s->file_rd);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            s->rd_err = errno;
            return -1;
        }
        s->file_rd += (uint64_t)r;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

const char *runner_spool_dir(void)
{
    return spool_dir;
}

void runner_spool_discard(runner_spool *s)
{
    cgp_buf_reset(&s->mem);
    s->file_rd = s->file_wr = 0;
}

void runner_spool_free(runner_spool *s)
{
    cgp_buf_free(&s->mem);
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    s->file_rd = s->file_wr = 0;
}
