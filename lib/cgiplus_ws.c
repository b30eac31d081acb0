/* cgiplus_ws.c: the WebSocket calls of the C script library
 * (include/cgiplus.h): the worker's channel records (docs/PROTOCOL.md
 * part 2, "WebSocket workers"), packed and checked with libcgp's codec. */
#define _GNU_SOURCE
#include "cgiplus.h"
#include "cgiplus_logno.h"
#include "cgp_proto.h"
#include "cgp_wsr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The channel's state: one per process, lives for the process. */
static struct {
    int init;
    int fd;                   /* CGIPLUSWS, -1: not in a WebSocket pool */
    uint32_t max_message;
    unsigned char *buf;       /* bytes read, not yet a whole record */
    size_t off, len, cap;
    char **env;               /* the OPEN's variables, NULL-ended (in envbuf) */
    char *envbuf;
    size_t nenv;
    char reason[CGP_WSR_REASON_MAX + 1];
} ws = { .fd = -1 };

/* All of iov[0..n) in as few writes as the socket takes: one, usually. */
static int write_all(struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(ws.fd, iov, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

static int record(unsigned type, unsigned flags, unsigned long conn, const void *a, size_t alen,
                  const void *b, size_t blen)
{
    unsigned char h[CGP_WSR_HDR_LEN];
    cgp_wsr_hdr hdr = { .type = (uint8_t)type, .flags = (uint8_t)flags, .conn = (uint32_t)conn,
                        .len = (uint32_t)(alen + blen) };
    if (ws.fd < 0) {
        errno = ENOTSUP;
        return -1;
    }
    if (alen + blen > UINT32_MAX || conn > UINT32_MAX ||
        cgp_wsr_hdr_pack(h, &hdr, ws.max_message) != CGP_OK) {
        errno = EMSGSIZE;
        return -1;
    }
    struct iovec iov[3] = { { h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen } };
    return write_all(iov, 3);
}

static void ws_init(void)
{
    const char *fd = getenv("CGIPLUSWS"), *mm = getenv("CGIPLUSWS_MAX_MESSAGE");
    unsigned char hello[CGP_WSR_HELLO_LEN];

    if (ws.init)
        return;
    ws.init = 1;
    ws.max_message = CGP_WSR_MSG_MAX;
    if (mm && *mm >= '0' && *mm <= '9' && strtoul(mm, NULL, 10) < CGP_WSR_MSG_MAX)
        ws.max_message = (uint32_t)strtoul(mm, NULL, 10);
    if (!fd || strcmp(fd, "3"))
        return;
    ws.fd = 3;
    cgp_wsr_hello_pack(hello);
    if (record(CGP_WSR_HELLO, 0, 0, hello, sizeof(hello), NULL, 0) < 0)
        ws.fd = -1;
}

int cgiplus_ws_enabled(void)
{
    ws_init();
    return ws.fd >= 0;
}

/* Reads until buf holds n bytes from off; 0 at end of file. */
static int fill(size_t n)
{
    while (ws.len - ws.off < n) {
        if (ws.off) {
            memmove(ws.buf, ws.buf + ws.off, ws.len - ws.off);
            ws.len -= ws.off;
            ws.off = 0;
        }
        if (ws.cap < n || ws.cap == ws.len) {
            size_t cap = ws.cap ? ws.cap : 65536;
            while (cap < n || cap == ws.len)
                cap *= 2;
            unsigned char *p = realloc(ws.buf, cap);
            if (!p)
                return -1;
            ws.buf = p;
            ws.cap = cap;
        }
        ssize_t r = read(ws.fd, ws.buf + ws.len, ws.cap - ws.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -1 : 0;
        ws.len += (size_t)r;
    }
    return 1;
}

/* The OPEN's kv list as NAME=value strings. */
static int take_env(const unsigned char *pl, size_t len)
{
    size_t off = 0, nl, vl, n = 0, bytes = 0;
    const char *name, *val;
    int rc;

    while ((rc = cgp_kv_next(pl, len, &off, &name, &nl, &val, &vl)) == 1) {
        n++;
        bytes += nl + vl + 2;
    }
    if (rc < 0) {
        errno = EPROTO;
        return -1;
    }
    free(ws.env);
    free(ws.envbuf);
    ws.env = malloc((n + 1) * sizeof(char *));
    ws.envbuf = malloc(bytes ? bytes : 1);
    if (!ws.env || !ws.envbuf)
        return -1;
    char *p = ws.envbuf;
    off = 0;
    ws.nenv = 0;
    while (cgp_kv_next(pl, len, &off, &name, &nl, &val, &vl) == 1) {
        ws.env[ws.nenv++] = p;
        memcpy(p, name, nl);
        p[nl] = '=';
        memcpy(p + nl + 1, val, vl);
        p[nl + 1 + vl] = '\0';
        p += nl + vl + 2;
    }
    ws.env[ws.nenv] = NULL;
    return 0;
}

/* Outside a WebSocket pool: each plain request is answered 426. */
static int serve_426(void)
{
    while (cgiplus_accept() > 0) {
        fputs("Status: 426 Upgrade Required\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Content-Type: text/plain\r\n\r\nThis script speaks WebSocket only.\n", stdout);
        cgiplus_finish();
    }
    return 0;
}

int cgiplus_ws_next(cgiplus_ws_event *ev)
{
    ws_init();
    if (ws.fd < 0)
        return serve_426();
    for (;;) {
        cgp_wsr_hdr h;
        int rc;
        if (ws.off == ws.len)
            ws.off = ws.len = 0;
        if ((rc = fill(CGP_WSR_HDR_LEN)) <= 0)
            return rc;
        if (cgp_wsr_hdr_unpack(ws.buf + ws.off, &h, CGP_WSR_FROM_RUNNER, ws.max_message) != CGP_OK) {
            fprintf(stderr, CGIPLUS_LOGNO(3400) "cgiplus_ws: a malformed record from the runner "
                    "(type %u, %u bytes)\n", ws.buf[ws.off], (unsigned)cgp_get32(ws.buf + ws.off + 8));
            errno = EPROTO;
            return -1;
        }
        if ((rc = fill(CGP_WSR_HDR_LEN + h.len)) <= 0)
            return rc < 0 ? -1 : 0;
        const unsigned char *pl = ws.buf + ws.off + CGP_WSR_HDR_LEN;
        ws.off += CGP_WSR_HDR_LEN + h.len;
        memset(ev, 0, sizeof(*ev));
        ev->conn = h.conn;
        switch (h.type) {
        case CGP_WSR_OPEN:
            if (take_env(pl, h.len) < 0)
                return -1;
            ev->type = CGIPLUS_WS_OPEN;
            return 1;
        case CGP_WSR_MESSAGE:
            ev->type = CGIPLUS_WS_MESSAGE;
            ev->binary = (h.flags & CGP_WSR_F_BINARY) != 0;
            ev->data = pl; /* valid until the next call */
            ev->len = h.len;
            return 1;
        case CGP_WSR_CLOSED: {
            const char *r;
            size_t rl;
            unsigned code;
            if (cgp_wsr_close_unpack(pl, h.len, 1, &code, &r, &rl) != CGP_OK) {
                code = 1006;
                rl = 0;
            }
            memcpy(ws.reason, r, rl);
            ws.reason[rl] = '\0';
            ev->type = CGIPLUS_WS_CLOSE;
            ev->code = code;
            ev->reason = ws.reason;
            return 1;
        }
        default:
            break; /* a newer runner's: ignored */
        }
    }
}

const char *cgiplus_ws_getenv(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; ws.env && i < ws.nenv; i++)
        if (!strncmp(ws.env[i], name, n) && ws.env[i][n] == '=')
            return ws.env[i] + n + 1;
    return NULL;
}

int cgiplus_ws_accept(unsigned long conn, const char *protocol)
{
    return record(CGP_WSR_ACCEPT, 0, conn, protocol, protocol ? strlen(protocol) : 0, NULL, 0);
}

int cgiplus_ws_refuse(unsigned long conn, int status, const char *const *headers,
                      unsigned nheaders, const void *body, size_t len)
{
    size_t cap = 4 + len;
    for (unsigned i = 0; i < 2 * nheaders; i++)
        cap += strlen(headers[i]) + 2;
    unsigned char *p = malloc(cap);
    int n, rc;
    if (!p)
        return -1;
    n = cgp_wsr_refuse_pack(p, cap, (unsigned)status, headers, nheaders, body, len);
    if (n < 0) {
        free(p);
        errno = EINVAL;
        return -1;
    }
    rc = record(CGP_WSR_REFUSE, 0, conn, p, (size_t)n, NULL, 0);
    free(p);
    return rc;
}

int cgiplus_ws_send(unsigned long conn, int binary, const void *data, size_t len)
{
    return record(CGP_WSR_SEND, binary ? CGP_WSR_F_BINARY : 0, conn, data, len, NULL, 0);
}

int cgiplus_ws_broadcast(unsigned long except, int binary, const void *data, size_t len)
{
    return record(CGP_WSR_BROADCAST, binary ? CGP_WSR_F_BINARY : 0, except, data, len, NULL, 0);
}

int cgiplus_ws_close(unsigned long conn, unsigned code, const char *reason)
{
    unsigned char pl[CGP_WSR_CLOSE_MAX];
    int n = cgp_wsr_close_pack(pl, code, reason ? reason : "", reason ? strlen(reason) : 0, 0);
    if (n < 0) {
        errno = EINVAL;
        return -1;
    }
    return record(CGP_WSR_CLOSE, 0, conn, pl, (size_t)n, NULL, 0);
}
