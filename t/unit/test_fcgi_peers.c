/* test_fcgi_peers.c: the FastCGI codec (common/cgp_fcgi.c) against real
 * FastCGI applications (TAP): a libfcgi program (t/src/fcgi_hello) and
 * Debian's php-cgi, each started as mod_fcgid starts them: a listening UNIX
 * socket on descriptor 0, PHP_FCGI_CHILDREN=0. Requests are packed, sent
 * (writev of the codec's iovecs) and answers parsed with the codec alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgp_fcgi.h"
#include "tap.h"

#define TIMEOUT_MS 15000

static char dir[200];  /* short: a socket path must fit sun_path */

/* One application process and its socket. */
struct peer {
    pid_t pid;
    char sock[PATH_MAX];
};

static int spawn(struct peer *pe, const char *name, char *const argv[], char *const envp[])
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    char errlog[PATH_MAX];
    int ls, rc = -1;

    snprintf(pe->sock, sizeof pe->sock, "%s/%s.sock", dir, name);
    snprintf(errlog, sizeof errlog, "%s/%s.err", dir, name);
    if (strlen(pe->sock) >= sizeof sa.sun_path)
        return -1;
    strcpy(sa.sun_path, pe->sock);
    ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 16) < 0)
        goto out;
    pe->pid = fork();
    if (pe->pid == 0) {
        int null = open("/dev/null", O_RDWR), err = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (dup2(ls, 0) < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    rc = pe->pid > 0 ? 0 : -1;
out:
    if (ls >= 0)
        close(ls);
    return rc;
}

static int connect_to(const struct peer *pe)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    strcpy(sa.sun_path, pe->sock);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* What came back. */
struct resp {
    char *out;             /* STDOUT bytes */
    size_t olen, ocap;
    char err[8192];        /* STDERR bytes (truncated) */
    size_t elen;
    int out_eof, ended, closed, perr;
    cgp_fcgi_end end;
    cgp_fcgi_values vals;
    int got_values, unknown;  /* GET_VALUES_RESULT seen; UNKNOWN_TYPE's type + 1 */
};

static void resp_free(struct resp *r)
{
    free(r->out);
    memset(r, 0, sizeof *r);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Writes the iovecs and reads the answer until END_REQUEST (reqid set) or a
 * management answer (reqid 0), then, with wait_close, until the peer closes.
 * 0, or -1 on a timeout or an I/O error. */
static int xfer(int fd, cgp_fcgi_parser *p, uint16_t reqid, struct iovec *iov, int cnt,
                struct resp *r, int wait_close)
{
    static unsigned char in[65536 + 100], nvbuf[CGP_FCGI_NV_BUF];
    cgp_fcgi_nv nv;
    long deadline = now_ms() + TIMEOUT_MS;
    int i = 0;

    cgp_fcgi_nv_init(&nv, nvbuf, sizeof nvbuf);
    if (reqid)
        cgp_fcgi_parser_expect(p, reqid, 1);
    for (;;) {
        int done = reqid ? r->ended : (r->got_values || r->unknown);
        if (done && (!wait_close || r->closed))
            return 0;
        if (r->closed || r->perr)
            return -1;
        struct pollfd pf = { .fd = fd, .events = POLLIN | (i < cnt ? POLLOUT : 0) };
        long left = deadline - now_ms();
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
            return -1;
        if ((pf.revents & POLLOUT) && i < cnt) {
            ssize_t w = writev(fd, iov + i, cnt - i);
            if (w < 0 && errno != EAGAIN)
                return -1;
            for (size_t k = w > 0 ? (size_t)w : 0; k > 0 && i < cnt;) {
                size_t t = k < iov[i].iov_len ? k : iov[i].iov_len;
                iov[i].iov_base = (char *)iov[i].iov_base + t;
                iov[i].iov_len -= t;
                k -= t;
                if (iov[i].iov_len == 0)
                    i++;
            }
            while (i < cnt && iov[i].iov_len == 0)
                i++;
        }
        if (!(pf.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(fd, in, sizeof in);
        if (n < 0 && errno == EAGAIN)
            continue;
        if (n <= 0) {
            r->closed = 1;
            continue;
        }
        size_t pos = 0;
        cgp_fcgi_event ev;
        int rc;
        while ((rc = cgp_fcgi_parse(p, in, (size_t)n, &pos, &ev)) != CGP_FCGI_MORE) {
            if (rc < 0) {
                printf("# parse error: %s\n", cgp_fcgi_strerror(rc));
                r->perr = 1;
                break;
            }
            if (rc == CGP_FCGI_PIECE && ev.hdr.type == CGP_FCGI_STDOUT) {
                if (r->olen + ev.len > r->ocap) {
                    r->ocap = (r->olen + ev.len) * 2;
                    r->out = realloc(r->out, r->ocap + 1);
                }
                memcpy(r->out + r->olen, ev.data, ev.len);
                r->olen += ev.len;
                r->out[r->olen] = '\0';
            } else if (rc == CGP_FCGI_PIECE && ev.hdr.type == CGP_FCGI_STDERR) {
                size_t k = sizeof r->err - 1 - r->elen;
                k = ev.len < k ? ev.len : k;
                memcpy(r->err + r->elen, ev.data, k);
                r->elen += k;
                r->err[r->elen] = '\0';
            } else if (rc == CGP_FCGI_PIECE && ev.hdr.type == CGP_FCGI_GET_VALUES_RESULT) {
                const char *nm, *v;
                size_t nl, vl, q = 0;
                while (cgp_fcgi_nv_next(&nv, ev.data, ev.len, &q, &nm, &nl, &v, &vl) == 1)
                    if (cgp_fcgi_values_add(&r->vals, nm, nl, v, vl) != CGP_FCGI_OK)
                        r->perr = 1;
            } else if (rc == CGP_FCGI_RECORD) {
                if (ev.hdr.type == CGP_FCGI_END_REQUEST) {
                    r->ended = 1;
                    r->end = ev.u.end;
                } else if (ev.hdr.type == CGP_FCGI_STDOUT && ev.hdr.clen == 0) {
                    r->out_eof = 1;
                } else if (ev.hdr.type == CGP_FCGI_GET_VALUES_RESULT) {
                    r->got_values = cgp_fcgi_nv_finish(&nv) == CGP_FCGI_OK;
                } else if (ev.hdr.type == CGP_FCGI_UNKNOWN_TYPE) {
                    r->unknown = ev.u.unknown + 1;
                }
            }
        }
    }
}

/* Extras of a request: a record sent before it; ABORT_REQUEST in place of
 * the end of STDIN. */
struct extra {
    const unsigned char *pre;
    size_t prelen;
    int abort;
};

/* One whole request: BEGIN + PARAMS + STDIN (the body, then its end) as the
 * codec frames them, sent on fd; the answer in r. */
static int request_x(int fd, uint16_t reqid, uint16_t role, uint8_t flags, const cgp_fcgi_pair *pairs,
                     size_t n, const void *body, size_t blen, struct resp *r, int wait_close,
                     const struct extra *x)
{
    size_t need = cgp_fcgi_request_size(pairs, n), len, taken;
    size_t nrec = blen / CGP_FCGI_MAX_CONTENT + 2;
    unsigned char *head = malloc(need), (*hdrs)[CGP_FCGI_HDR_LEN] = malloc(nrec * CGP_FCGI_HDR_LEN);
    unsigned char abort_rec[CGP_FCGI_ABORT_LEN];
    struct iovec *iov = malloc((2 * nrec + 3) * sizeof *iov);
    cgp_fcgi_parser p;
    int rc = -1, cnt = 0;

    memset(r, 0, sizeof *r);
    if (!head || !hdrs || !iov ||
        cgp_fcgi_request_pack(head, need, &len, reqid, role, flags, pairs, n) != CGP_FCGI_OK)
        goto out;
    if (x && x->pre)
        iov[cnt++] = (struct iovec){ (void *)x->pre, x->prelen };
    iov[cnt++] = (struct iovec){ head, len };
    if (blen) {
        cnt += (int)cgp_fcgi_stream_iov(CGP_FCGI_STDIN, reqid, body, blen, hdrs, nrec - 1,
                                        iov + cnt, &taken);
        if (taken != blen)
            goto out;
    }
    if (x && x->abort) {
        cgp_fcgi_abort_pack(abort_rec, reqid);
        iov[cnt++] = (struct iovec){ abort_rec, sizeof abort_rec };
    } else {
        cnt += (int)cgp_fcgi_stream_iov(CGP_FCGI_STDIN, reqid, NULL, 0, hdrs + nrec - 1, 1,
                                        iov + cnt, &taken);
    }
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
    rc = xfer(fd, &p, reqid, iov, cnt, r, wait_close);
out:
    free(head);
    free(hdrs);
    free(iov);
    return rc;
}

static int request(int fd, uint16_t reqid, uint16_t role, uint8_t flags, const cgp_fcgi_pair *pairs,
                   size_t n, const void *body, size_t blen, struct resp *r, int wait_close)
{
    return request_x(fd, reqid, role, flags, pairs, n, body, blen, r, wait_close, NULL);
}

static int mgmt(const struct peer *pe, const unsigned char *rec, size_t len, struct resp *r)
{
    struct iovec iov = { (void *)rec, len };
    cgp_fcgi_parser p;
    int fd = connect_to(pe), rc;

    memset(r, 0, sizeof *r);
    if (fd < 0)
        return -1;
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_APP);
    rc = xfer(fd, &p, 0, &iov, 1, r, 0);
    close(fd);
    return rc;
}

static const char *field(const char *out, const char *name, char *buf, size_t cap)
{
    const char *p = out ? strstr(out, name) : NULL;
    size_t k = 0;

    buf[0] = '\0';
    if (!p)
        return buf;
    p += strlen(name);
    while (*p && *p != '\n' && *p != '\r' && k + 1 < cap)
        buf[k++] = *p++;
    buf[k] = '\0';
    return buf;
}

#define P(n, v) { n, sizeof n - 1, v, strlen(v) }

static unsigned long body_sum(const unsigned char *b, size_t n)
{
    unsigned long s = 0;
    for (size_t i = 0; i < n; i++)
        s = (s * 31 + b[i]) & 0xffffffffUL;
    return s;
}

/* ------------------------------------------------------------ libfcgi */

static void t_libfcgi(const char *prog)
{
    static unsigned char body[150000];
    static char big[70000];
    struct peer pe;
    struct resp r;
    char *argv[] = { (char *)prog, NULL }, *envp[] = { "PATH=/usr/bin:/bin", NULL };
    char f[128], want[64];
    unsigned char rec[64];
    size_t off = 0;
    int fd;

    if (access(prog, X_OK) != 0) {
        ok(0, "libfcgi program %s built (libfcgi-dev installed?)", prog);
        return;
    }
    ok(spawn(&pe, "libfcgi", argv, envp) == 0, "libfcgi program started with its socket on fd 0");

    /* libfcgi reads a GET_VALUES record's pairs past the record's end: it
     * answers once the next record comes, not before (so a server must not
     * wait for the answer alone) */
    unsigned char gv[CGP_FCGI_GET_VALUES_LEN];
    cgp_fcgi_get_values_pack(gv);
    struct extra pre = { gv, sizeof gv, 0 };
    cgp_fcgi_pair one[] = { P("SCRIPT_NAME", "/fcgi/hello") };
    fd = connect_to(&pe);
    ok(fd >= 0 && request_x(fd, 1, CGP_FCGI_RESPONDER, 0, one, 1, NULL, 0, &r, 1, &pre) == 0 &&
       r.got_values && r.ended, "libfcgi: GET_VALUES before a request: both answered");
    if (fd >= 0)
        close(fd);
    ok(r.vals.have == 7 && r.vals.mpxs_conns == 0 && r.vals.max_reqs >= 1,
       "libfcgi: FCGI_MAX_CONNS %u, FCGI_MAX_REQS %u, FCGI_MPXS_CONNS %u",
       r.vals.max_conns, r.vals.max_reqs, r.vals.mpxs_conns);
    resp_free(&r);
    cgp_fcgi_record_pack(rec, sizeof rec, &off, 99, 0, "", 0, 0);
    ok(mgmt(&pe, rec, off, &r) == 0 && r.unknown == 99 + 1,
       "libfcgi: a management record of type 99 gets UNKNOWN_TYPE(99)");
    resp_free(&r);

    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (unsigned char)(i * 7 + 3);
    memset(big, 'x', sizeof big);
    snprintf(want, sizeof want, "%zu", sizeof body);
    cgp_fcgi_pair pairs[] = {
        P("SCRIPT_NAME", "/fcgi/hello"), P("REQUEST_METHOD", "POST"), P("QUERY_STRING", ""),
        P("CONTENT_LENGTH", want), { "HTTP_X_BIG", 10, big, 65536 },
    };
    fd = connect_to(&pe);
    ok(fd >= 0 && request(fd, 1, CGP_FCGI_RESPONDER, 0, pairs, 5, body, sizeof body, &r, 1) == 0,
       "libfcgi: a POST of %zu bytes (3 STDIN records), no KEEP_CONN", sizeof body);
    if (fd >= 0)
        close(fd);
    ok(r.ended && r.end.pstatus == CGP_FCGI_REQUEST_COMPLETE && r.end.app_status == 0,
       "... END_REQUEST: REQUEST_COMPLETE, appStatus 0");
    ok(r.out_eof && r.closed, "... STDOUT ended by an empty record; the application closed the connection");
    ok(r.out && strstr(r.out, "Content-Type: text/plain\r\n\r\n") == r.out, "... the CGI header first");
    snprintf(want, sizeof want, "%lu", body_sum(body, sizeof body));
    ok(!strcmp(field(r.out, "body_len=", f, sizeof f), "150000") &&
       !strcmp(field(r.out, "body_sum=", f, sizeof f), want), "... the body arrived whole");
    is_int(atol(field(r.out, "X_BIG_len=", f, sizeof f)), 65536,
           "... a 64 KiB variable spanning two PARAMS records arrived whole");
    ok(!strcmp(field(r.out, "SCRIPT_NAME=", f, sizeof f), "/fcgi/hello"), "... SCRIPT_NAME");
    ok(strstr(r.err, "fcgi_hello: request 2\n") != NULL, "... its stderr line came as STDERR");
    char pid1[32];
    snprintf(pid1, sizeof pid1, "%s", field(r.out, "pid=", f, sizeof f));
    ok(atol(pid1) == pe.pid, "... from the process started (pid %s)", pid1);
    resp_free(&r);

    /* persistent: the next request, on a new connection, same process */
    cgp_fcgi_pair get[] = { P("SCRIPT_NAME", "/fcgi/hello"), P("REQUEST_METHOD", "GET"),
                            P("QUERY_STRING", "out=200000") };
    fd = connect_to(&pe);
    ok(fd >= 0 && request(fd, 1, CGP_FCGI_RESPONDER, 0, get, 3, NULL, 0, &r, 1) == 0 && r.ended,
       "libfcgi: a second request on a new connection");
    if (fd >= 0)
        close(fd);
    ok(!strcmp(field(r.out, "pid=", f, sizeof f), pid1) &&
       !strcmp(field(r.out, "request=", f, sizeof f), "3"), "... the same process, its request 3");
    const char *tail = r.out ? strstr(r.out, "body_sum=0\n") : NULL;
    ok(tail && strlen(tail + 11) == 200000 && tail[11] == 'a' && tail[11 + 199999] == 'a' + 199999 % 26,
       "... 200000 bytes of output over several STDOUT records");
    resp_free(&r);

    /* KEEP_CONN: two requests on one connection, then the third without */
    fd = connect_to(&pe);
    int kept = fd >= 0;
    for (uint16_t id = 1; kept && id <= 3; id++) {
        kept = request(fd, id, CGP_FCGI_RESPONDER, id < 3 ? CGP_FCGI_KEEP_CONN : 0, get + 0, 2,
                       NULL, 0, &r, id == 3) == 0 && r.ended && (id < 3 ? !r.closed : r.closed);
        kept = kept && atol(field(r.out, "request=", f, sizeof f)) == 3 + id;
        resp_free(&r);
    }
    ok(kept, "libfcgi: KEEP_CONN keeps the connection for requests 1 and 2; without it, closed after 3");
    if (fd >= 0)
        close(fd);

    /* ABORT_REQUEST while the body is still coming */
    struct extra ab = { NULL, 0, 1 };
    pairs[3] = (cgp_fcgi_pair)P("CONTENT_LENGTH", "1000");
    fd = connect_to(&pe);
    ok(fd >= 0 && request_x(fd, 1, CGP_FCGI_RESPONDER, CGP_FCGI_KEEP_CONN, pairs, 4, "abc", 3, &r, 0,
                            &ab) == 0 && r.ended && r.end.pstatus == CGP_FCGI_REQUEST_COMPLETE,
       "libfcgi: ABORT_REQUEST mid-body: the application ends the request (END_REQUEST)");
    ok(!strcmp(field(r.out, "body_len=", f, sizeof f), "3"), "... having read the 3 bytes sent");
    resp_free(&r);
    if (fd >= 0)
        close(fd);

    /* an unknown role: libfcgi drops the connection, no UNKNOWN_ROLE */
    fd = connect_to(&pe);
    ok(fd >= 0 && request(fd, 1, 99, 0, get, 2, NULL, 0, &r, 0) == -1 && r.closed && !r.ended,
       "libfcgi: role 99: the connection closes without END_REQUEST");
    resp_free(&r);
    if (fd >= 0)
        close(fd);

    kill(pe.pid, SIGTERM);
    int st;
    waitpid(pe.pid, &st, 0);
}

/* ------------------------------------------------------------ php-cgi */

static void t_php(const char *php)
{
    struct peer pe;
    struct resp r;
    char script[PATH_MAX], f[256], pid1[32];
    char *argv[] = { (char *)php, NULL };
    char *envp[] = { "PATH=/usr/bin:/bin", "PHP_FCGI_CHILDREN=0", "PHP_FCGI_MAX_REQUESTS=5", NULL };
    int fd;

    if (access(php, X_OK) != 0) {
        ok(0, "%s installed (Debian php-cgi)", php);
        return;
    }
    snprintf(script, sizeof script, "%s/hello.php", dir);
    FILE *sf = fopen(script, "w");
    if (!sf) {
        ok(0, "wrote %s", script);
        return;
    }
    fputs("<?php\nheader('X-Codec: php');\n"
          "echo 'pid=', getmypid(), \"\\n\", 'method=', $_SERVER['REQUEST_METHOD'], \"\\n\",\n"
          "  'q=', $_GET['q'] ?? '', \"\\n\", 'post=', file_get_contents('php://input'), \"\\n\",\n"
          "  'script=', $_SERVER['SCRIPT_NAME'], \"\\n\";\n"
          "error_log('hello.php to stderr');\n", sf);
    fclose(sf);
    ok(spawn(&pe, "php", argv, envp) == 0, "php-cgi started with its socket on fd 0, PHP_FCGI_CHILDREN=0");

    unsigned char gv[CGP_FCGI_GET_VALUES_LEN];
    cgp_fcgi_get_values_pack(gv);
    ok(mgmt(&pe, gv, sizeof gv, &r) == 0 && r.got_values && (r.vals.have & CGP_FCGI_V_MPXS_CONNS) &&
       r.vals.mpxs_conns == 0, "php-cgi: GET_VALUES answered, FCGI_MPXS_CONNS=0");
    resp_free(&r);

    cgp_fcgi_pair pairs[] = {
        P("SCRIPT_FILENAME", script), P("SCRIPT_NAME", "/hello.php"), P("REQUEST_METHOD", "POST"),
        P("QUERY_STRING", "q=codec"), P("CONTENT_TYPE", "text/plain"), P("CONTENT_LENGTH", "11"),
        P("REDIRECT_STATUS", "200"), P("SERVER_PROTOCOL", "HTTP/1.1"), P("GATEWAY_INTERFACE", "CGI/1.1"),
    };
    fd = connect_to(&pe);
    ok(fd >= 0 && request(fd, 1, CGP_FCGI_RESPONDER, 0, pairs, 9, "hello world", 11, &r, 1) == 0,
       "php-cgi: a POST request");
    if (fd >= 0)
        close(fd);
    ok(r.ended && r.end.pstatus == CGP_FCGI_REQUEST_COMPLETE, "... END_REQUEST: REQUEST_COMPLETE");
    ok(r.out && strstr(r.out, "X-Codec: php\r\n"), "... the header the script set");
    ok(!strcmp(field(r.out, "method=", f, sizeof f), "POST") &&
       !strcmp(field(r.out, "q=", f, sizeof f), "codec") &&
       !strcmp(field(r.out, "post=", f, sizeof f), "hello world") &&
       !strcmp(field(r.out, "script=", f, sizeof f), "/hello.php"),
       "... the variables and the body reached PHP");
    ok(strstr(r.err, "hello.php to stderr") != NULL, "... error_log() came as STDERR");
    snprintf(pid1, sizeof pid1, "%s", field(r.out, "pid=", f, sizeof f));
    ok(atol(pid1) == pe.pid, "... from the php-cgi process started (pid %s)", pid1);
    resp_free(&r);

    /* persistent, and KEEP_CONN: requests 2 and 3 on one connection */
    pairs[2] = (cgp_fcgi_pair)P("REQUEST_METHOD", "GET");
    fd = connect_to(&pe);
    int same = fd >= 0;
    for (uint16_t id = 1; same && id <= 2; id++) {
        same = request(fd, id, CGP_FCGI_RESPONDER, CGP_FCGI_KEEP_CONN, pairs, 4, NULL, 0, &r, 0) == 0 &&
               r.ended && !r.closed && !strcmp(field(r.out, "pid=", f, sizeof f), pid1);
        resp_free(&r);
    }
    ok(same, "php-cgi: two more requests on one KEEP_CONN connection, same process");
    if (fd >= 0)
        close(fd);

    /* an unknown role: php-cgi drops the connection too, no request counted */
    fd = connect_to(&pe);
    ok(fd >= 0 && request(fd, 1, 99, 0, pairs, 4, NULL, 0, &r, 0) == -1 && r.closed && !r.ended,
       "php-cgi: role 99: the connection closes without END_REQUEST");
    resp_free(&r);
    if (fd >= 0)
        close(fd);

    /* ABORT_REQUEST while the body is still coming: PHP runs the script
     * with what it got */
    struct extra ab = { NULL, 0, 1 };
    pairs[2] = (cgp_fcgi_pair)P("REQUEST_METHOD", "POST");
    pairs[5] = (cgp_fcgi_pair)P("CONTENT_LENGTH", "1000");
    fd = connect_to(&pe);
    ok(fd >= 0 && request_x(fd, 1, CGP_FCGI_RESPONDER, 0, pairs, 9, "abc", 3, &r, 0, &ab) == 0 &&
       r.ended && r.end.pstatus == CGP_FCGI_REQUEST_COMPLETE,
       "php-cgi: ABORT_REQUEST mid-body: the application ends the request (END_REQUEST)");
    ok(!strcmp(field(r.out, "pid=", f, sizeof f), pid1), "... in the same process (request 4)");
    resp_free(&r);
    if (fd >= 0)
        close(fd);

    /* PHP_FCGI_MAX_REQUESTS=5: the fifth request is its last */
    fd = connect_to(&pe);
    ok(fd >= 0 && request(fd, 1, CGP_FCGI_RESPONDER, 0, pairs, 4, NULL, 0, &r, 1) == 0 && r.ended,
       "php-cgi: request 5");
    resp_free(&r);
    if (fd >= 0)
        close(fd);
    int st = 0;
    pid_t w = 0;
    for (int i = 0; i < 200 && w == 0; i++) {  /* 10 s */
        w = waitpid(pe.pid, &st, WNOHANG);
        if (w == 0)
            usleep(50000);
    }
    ok(w == pe.pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
       "php-cgi exits by itself (status 0) after PHP_FCGI_MAX_REQUESTS requests");
    if (w != pe.pid) {
        kill(pe.pid, SIGKILL);
        waitpid(pe.pid, &st, 0);
    }
}

static void cleanup(void)
{
    char cmd[PATH_MAX + 16];

    if (dir[0] && !getenv("CGP_KEEP_TMP")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            printf("# could not remove %s\n", dir);
    }
}

int main(void)
{
    char self[PATH_MAX], prog[PATH_MAX + 32];
    const char *tmp = getenv("TMPDIR");
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "%s/cgp-fcgi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (n <= 0 || !mkdtemp(dir)) {
        ok(0, "temporary directory");
        return tap_done();
    }
    self[n] = '\0';
    *strrchr(self, '/') = '\0';  /* t/unit */
    snprintf(prog, sizeof prog, "%s/../src/fcgi_hello", self);
    t_libfcgi(prog);
    t_php(getenv("CGP_PHP_CGI") ? getenv("CGP_PHP_CGI") : "/usr/bin/php-cgi");
    cleanup();
    return tap_done();
}
