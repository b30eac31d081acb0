/* runner_key.c: the connection key (docs/RUNNER.md, "Who may drive the
 * runner"). Read once at start, from the descriptor httpd hands over
 * (--key-fd) or from a key file; every connection must prove it in its
 * HELLO. The runner is made not dumpable so that a script running as the
 * runner's own user cannot read it from memory. */
#include "runner_key.h"
#include "runner_log.h"
#include "cgp_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The key; static for the runner's life. */
static unsigned char runner_key[CGP_KEY_LEN];

/* Reads up to cap bytes (to end of file); -1 on error. */
static ssize_t read_all(int fd, unsigned char *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static int key_from_fd(const char *arg, char *err, size_t errlen)
{
    uint64_t v;
    unsigned char extra;
    if (cgp_parse_u64(arg, strlen(arg), &v) < 0 || v < 3 || v > 65535) {
        snprintf(err, errlen, "--key-fd wants a descriptor number (3 or more)");
        return -1;
    }
    int fd = (int)v;
    ssize_t n = read_all(fd, runner_key, CGP_KEY_LEN);
    int e = errno;
    ssize_t more = n == (ssize_t)CGP_KEY_LEN ? read_all(fd, &extra, 1) : 0;
    close(fd);
    if (n != (ssize_t)CGP_KEY_LEN || more != 0) {
        snprintf(err, errlen, "--key-fd %d: %s", fd, n < 0 ? strerror(e)
                 : "the descriptor must hold exactly the 32 key bytes");
        return -1;
    }
    return 0;
}

static int key_from_file(const char *path, char *err, size_t errlen)
{
    char text[CGP_KEY_HEX_MAX + 1];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "key_file %s: %s", path, strerror(errno));
        return -1;
    }
    /* Only its owner (root, or the runner's own user) may read it. */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077) ||
        (st.st_uid != 0 && st.st_uid != geteuid())) {
        snprintf(err, errlen, "key_file %s must be a regular file of root or the runner's "
                 "user that nobody else may read or write (chmod 0600)", path);
        close(fd);
        return -1;
    }
    ssize_t n = read_all(fd, (unsigned char *)text, sizeof(text));
    close(fd);
    int rc = n < 0 ? CGP_E_LEN : cgp_key_parse(text, (size_t)n, runner_key);
    memset(text, 0, sizeof(text));
    if (rc != CGP_OK) {
        snprintf(err, errlen, "key_file %s must hold exactly 64 hex digits (32 random "
                 "bytes), e.g. from 'openssl rand -hex 32'", path);
        return -1;
    }
    return 0;
}

int runner_key_load(const char *fd_arg, const char *file, char *err, size_t errlen)
{
    /* Before the key is in memory: nobody of our uid may read it there. */
    if (prctl(PR_SET_DUMPABLE, 0) < 0) {
        snprintf(err, errlen, "prctl(PR_SET_DUMPABLE): %s", strerror(errno));
        return -1;
    }
    if (fd_arg)
        return key_from_fd(fd_arg, err, errlen);
    if (file)
        return key_from_file(file, err, errlen);
    snprintf(err, errlen, "no connection key: httpd hands one with --key-fd; a runner "
             "started on its own needs key_file in its configuration (docs/RUNNER.md)");
    return -1;
}

int runner_key_check(const unsigned char key[CGP_KEY_LEN])
{
    return cgp_key_equal(key, runner_key);
}
