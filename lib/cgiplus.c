/* cgiplus.c: the public C script API (include/cgiplus.h): process state,
 * stdio handling, the sentinel and callouts. Parsing is in cgp_records.c. */
#define _GNU_SOURCE
#include "cgiplus.h"
#include "cgiplus_logno.h"
#include "cgp_records.h"
#include "cgp_ready.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CGIPLUS_IN_FD    3
#define CGIPLUS_MAX_ANSWER 8192u
#define CGIPLUS_OUT_BUFFER (128 * 1024) /* stdout's buffer: the runner's stdout pipe size */

extern char **environ;

/* The library's whole state: one per process, lives for the process. */
static struct {
    int init;              /* cgiplus_accept() ran once */
    int persistent;        /* CGIPLUSEOF was set at the first accept */
    int chan;              /* the channel is set up (fd, base, sentinels) */
    int in_request;        /* persistent: the sentinel is still owed */
    int fd;                /* CGIPLUSIN */
    char *eofline;         /* CGIPLUSEOF "\n" */
    size_t eoflen;
    char ready[CGP_READY_MAX]; /* the ready line: CGIPLUSEOF "+\n" */
    size_t readylen;
    int had_record;        /* a record was read: the next read is announced */
    char *esc, *eot;       /* callout markers */
    char **base;           /* the worker's own environment, NULL-ended */
    cgp_vars vars[2];      /* [cur] backs environ now; the other is spare */
    int cur;
    cgp_buf answer;        /* last callout answer, NUL-ended */
    cgp_rd rd;             /* buffered reader over fd */
    FILE *body;            /* persistent: the stream stdin points to */
    unsigned long long body_left; /* bytes of this request's body not yet read */
} st = { .fd = -1 };

/* The body stream's read function: at most the bytes left of this
 * request's body, then end of file, never into the next request's. */
static ssize_t body_read(void *cookie, char *buf, size_t n)
{
    ssize_t r;

    (void)cookie;
    if (n > st.body_left)
        n = (size_t)st.body_left;
    if (n == 0)
        return 0;
    do
        r = read(STDIN_FILENO, buf, n);
    while (r < 0 && errno == EINTR);
    if (r > 0)
        st.body_left -= (unsigned long long)r;
    else if (r == 0)
        st.body_left = 0;
    return r;
}

/* CONTENT_LENGTH of the current request; 0 when absent or malformed. */
static unsigned long long body_length(void)
{
    const char *s = getenv("CONTENT_LENGTH");
    char *end;
    unsigned long long n;

    if (!s || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    n = strtoull(s, &end, 10);
    return (errno || *end) ? 0 : n;
}

static ssize_t fd_read(void *ctx, void *buf, size_t n)
{
    return read(*(int *)ctx, buf, n);
}

/* Cached at the first accept: a request's variables cannot change it. */
int cgiplus_is_persistent(void)
{
    const char *e;

    if (st.init)
        return st.persistent;
    e = getenv("CGIPLUSEOF");
    return e && *e;
}

/* Opens CGIPLUSIN: descriptor 3 as the runner passes it, or a path. */
static int open_channel(void)
{
    const char *path = getenv("CGIPLUSIN");
    int fd = CGIPLUS_IN_FD;

    if (path && *path && strcmp(path, "/dev/fd/3") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            fprintf(stderr, CGIPLUS_LOGNO(3007)
                    "libcgiplus: cannot open CGIPLUSIN %s: %s\n",
                    path, strerror(e));
            errno = e;
            return -1;
        }
    } else if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
        int e = errno;
        fprintf(stderr, CGIPLUS_LOGNO(3009)
                "libcgiplus: CGIPLUSIN descriptor 3 unusable: %s\n",
                strerror(e));
        errno = e;
        return -1;
    }
    return fd;
}

/* Sets up persistent mode once: channel, sentinels, the base environment. */
static int setup_channel(void)
{
    const char *eof = getenv("CGIPLUSEOF");
    const char *esc = getenv("CGIPLUSESC");
    const char *eot = getenv("CGIPLUSEOT");
    size_t nb = 0;
    int fd = -1, e;

    if (st.chan)
        return 0;
    while (environ && environ[nb])
        nb++;
    st.eoflen = strlen(eof) + 1;
    st.eofline = malloc(st.eoflen + 1);
    st.esc = strdup(esc ? esc : "");
    st.eot = strdup(eot ? eot : "");
    st.base = malloc((nb + 1) * sizeof *st.base);
    if (!st.eofline || !st.esc || !st.eot || !st.base)
        goto fail;
    snprintf(st.eofline, st.eoflen + 1, "%s\n", eof);
    st.readylen = cgp_ready_line(st.ready, eof);
    /* The strings stay: they belong to the initial environment or to
     * setenv(), and neither is ever freed. */
    memcpy(st.base, environ, nb * sizeof *st.base);
    st.base[nb] = NULL;
    fd = open_channel();
    if (fd < 0)
        goto fail;
    st.fd = fd;
    st.rd.fn = fd_read;
    st.rd.ctx = &st.fd;
    st.chan = 1;
    return 0;
fail:
    e = errno;
    if (e == ENOMEM)
        fprintf(stderr, CGIPLUS_LOGNO(3010) "libcgiplus: out of memory\n");
    free(st.eofline);
    free(st.esc);
    free(st.eot);
    free(st.base);
    st.eofline = st.esc = st.eot = NULL;
    st.base = NULL;
    errno = e;
    return -1;
}

static void log_request_error(int why, int e)
{
    static const char *const what[] = {
        "?", "bad sync record (neither \"!\" nor \"!!N\")",
        "malformed variable record", "request channel ended inside a request",
        "request over the size caps", "read from CGIPLUSIN failed",
        "out of memory"
    };
    /* The ids are 3000 + why; the literal ids keep them greppable. */
    switch (why) {
    case CGP_RQ_SYNC:   fprintf(stderr, CGIPLUS_LOGNO(3001)); break;
    case CGP_RQ_RECORD: fprintf(stderr, CGIPLUS_LOGNO(3002)); break;
    case CGP_RQ_TRUNC:  fprintf(stderr, CGIPLUS_LOGNO(3003)); break;
    case CGP_RQ_SIZE:   fprintf(stderr, CGIPLUS_LOGNO(3004)); break;
    case CGP_RQ_READ:   fprintf(stderr, CGIPLUS_LOGNO(3005)); break;
    default:            fprintf(stderr, CGIPLUS_LOGNO(3006)); why = CGP_RQ_NOMEM;
    }
    fprintf(stderr, "libcgiplus: %s: %s\n", what[why], strerror(e));
}

int cgiplus_accept(void)
{
    int rc, why = 0, next;

    if (!st.init) {
        st.persistent = cgiplus_is_persistent();
        st.init = 1;
        if (!st.persistent)
            return 1;           /* plain CGI: this process is the request */
        /* fd 0 carries every request's body back to back and never ends:
         * stdin becomes a stream that ends after CONTENT_LENGTH bytes. */
        st.body = fopencookie(NULL, "r", (cookie_io_functions_t){ .read = body_read });
        if (!st.body) {
            log_request_error(CGP_RQ_NOMEM, ENOMEM);
            errno = ENOMEM;
            return -1;
        }
        stdin = st.body;
        /* A response of up to this size reaches the pipe in one write, with
         * its sentinel: the server wakes once for it (the runner makes the
         * pipe as large). A script that streams flushes as before. */
        {
            static char outbuf[CGIPLUS_OUT_BUFFER]; /* glibc ignores a size without one */
            setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
        }
    } else if (!st.persistent) {
        fflush(stdout);
        return 0;
    }
    if (setup_channel() < 0)
        return -1;
    if (st.in_request) {
        st.in_request = 0;
        fwrite(st.eofline, 1, st.eoflen, stdout);
        /* the ready line in the same write when that write is atomic */
        if (__fpending(stdout) + st.readylen <= PIPE_BUF &&
            __fbufsize(stdout) - __fpending(stdout) >= st.readylen &&
            fwrite(st.ready, 1, st.readylen, stdout) == st.readylen)
            st.had_record = 0;
    }
    fflush(stdout);
    if (st.had_record) {
        /* Nothing more of ours comes before the next record: the server may
         * send it whole (docs/PROTOCOL.md, "The ready line"). A failure
         * means the runner is gone: the read sees EOF. */
        ssize_t n;

        do
            n = write(STDOUT_FILENO, st.ready, st.readylen);
        while (n < 0 && errno == EINTR);
    }
    st.had_record = 0;
    /* What the last request left of its body is not the next one's. */
    st.body_left = 0;
    __fpurge(st.body);
    clearerr(st.body);

    next = !st.cur;
    rc = cgp_req_read(&st.rd, &st.vars[next], &why);
    if (rc <= 0) {
        if (rc < 0) {
            int e = errno;
            log_request_error(why, e);
            errno = e;
        }
        return rc;
    }
    if (cgp_vars_merge(&st.vars[next], st.base) < 0) {
        log_request_error(CGP_RQ_NOMEM, ENOMEM);
        errno = ENOMEM;
        return -1;
    }
    /* Switch first, then the old array may be reused by the next request. */
    environ = st.vars[next].vec;
    st.cur = next;
    st.in_request = 1;
    st.had_record = 1;
    st.body_left = body_length();
    return 1;
}

void cgiplus_finish(void)
{
    if (!st.in_request) {
        fflush(stdout);
        return;
    }
    st.in_request = 0;
    /* The sentinel goes out with what is buffered, in one write when it
     * fits; the reader's scanner takes it split as well. If the runner is
     * gone, accept sees EOF. */
    fwrite(st.eofline, 1, st.eoflen, stdout);
    fflush(stdout);
}

const char *cgiplus_callout(const char *request)
{
    int rc;

    if (!cgiplus_is_persistent()) {
        errno = ENOTSUP;
        return NULL;
    }
    if (!request || !*request || strchr(request, '\n')) {
        errno = EINVAL;
        return NULL;
    }
    if (setup_channel() < 0)
        return NULL;
    if (fprintf(stdout, "%s\n%s\n%s\n", st.esc, request, st.eot) < 0 ||
        fflush(stdout) == EOF)
        return NULL;
    st.answer.len = 0;
    if (cgp_buf_reserve(&st.answer, 1) < 0)
        return NULL;
    if (request[0] != '!' && request[0] != '#') {
        rc = cgp_rd_line(&st.rd, &st.answer, CGIPLUS_MAX_ANSWER);
        if (rc == 0)
            errno = EPROTO;
        if (rc <= 0)
            return NULL;
        if (st.answer.len && st.answer.p[st.answer.len - 1] == '\r')
            st.answer.len--;
    }
    st.answer.p[st.answer.len] = '\0';
    return (const char *)st.answer.p;
}

int cgiplus_struct_mode(void)
{
    const char *ans;

    if (!cgiplus_is_persistent())
        return 0;
    ans = cgiplus_callout("CGIPLUS: struct");
    if (!ans)
        return -1;
    if (strncmp(ans, "200", 3) != 0) {
        fprintf(stderr, CGIPLUS_LOGNO(3008)
                "libcgiplus: runner refused struct mode: %s\n", ans);
        errno = EPROTO;
        return -1;
    }
    return 0;
}
