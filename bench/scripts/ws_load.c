/* ws_load.c: the WebSocket load generator of bench/ws (docs/BENCH.md,
 * "WebSocket"). One thread, epoll, masked client frames, no library.
 *   ws_load echo  HOST PORT PATH CONNS SECONDS [SIZE]   closed loop: each
 *       connection sends SIZE bytes of text and waits for its echo; prints
 *       messages/s and latency percentiles as JSON
 *   ws_load idle  HOST PORT PATH CONNS                  opens CONNS, prints
 *       {"open": N}, holds them until stdin ends
 *   ws_load bcast HOST PORT PATH CONNS ROUNDS           CONNS members of a
 *       chat (examples/c/ws_chat); per round the first sends a token and the
 *       time until the last member has it is taken; prints them as JSON */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct conn {
    int fd;
    int state;              /* 0 handshake, 1 open */
    unsigned char in[1 << 17];
    size_t inlen;
    uint64_t t_sent;        /* echo: when the message went */
    int waiting;            /* bcast: still waiting for this round's token */
} conn;

static conn **cs;
static int ncs, epfd;
static const char *host, *path;
static int port;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void die(const char *what)
{
    fprintf(stderr, "ws_load: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void write_all(int fd, const void *d, size_t n)
{
    const unsigned char *p = d;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
            struct pollfd pf = { .fd = fd, .events = POLLOUT };
            poll(&pf, 1, 1000);
            continue;
        }
        if (w < 0)
            die("write");
        p += w;
        n -= (size_t)w;
    }
}

/* A masked client frame. */
static void send_frame(conn *c, int op, const void *d, size_t n)
{
    unsigned char h[14 + 65536];
    size_t hl = 2;
    static const unsigned char mask[4] = { 1, 2, 3, 4 };
    h[0] = (unsigned char)(0x80 | op);
    if (n < 126) {
        h[1] = (unsigned char)(0x80 | n);
    } else {
        h[1] = 0x80 | 126;
        h[2] = (unsigned char)(n >> 8);
        h[3] = (unsigned char)n;
        hl = 4;
    }
    memcpy(h + hl, mask, 4);
    hl += 4;
    for (size_t i = 0; i < n; i++)
        h[hl + i] = ((const unsigned char *)d)[i] ^ mask[i & 3];
    write_all(c->fd, h, hl + n);
}

static conn *open_conn(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    conn *c = calloc(1, sizeof(*c));
    char req[1024];
    int one = 1;
    if (!c)
        die("calloc");
    inet_pton(AF_INET, host, &sa.sin_addr);
    if ((c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        die("socket");
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        die("connect");
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n", path, host, port);
    write_all(c->fd, req, (size_t)n);
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
    epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &e);
    return c;
}

/* Reads what is there; for each whole server frame calls on_frame. */
static int pump(conn *c, void (*on_frame)(conn *, int op, const unsigned char *, size_t))
{
    for (;;) {
        ssize_t r = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
        if (r < 0 && errno == EAGAIN)
            break;
        if (r <= 0)
            return -1;
        c->inlen += (size_t)r;
        size_t off = 0;
        if (c->state == 0) {
            unsigned char *e = memmem(c->in, c->inlen, "\r\n\r\n", 4);
            if (!e)
                continue;
            if (memcmp(c->in, "HTTP/1.1 101", 12)) {
                fprintf(stderr, "ws_load: upgrade refused: %.40s\n", c->in);
                exit(1);
            }
            c->state = 1;
            off = (size_t)(e + 4 - c->in);
        }
        while (c->inlen - off >= 2) {
            unsigned char *f = c->in + off;
            size_t n = f[1] & 0x7f, hl = 2;
            if (n == 126) {
                if (c->inlen - off < 4)
                    break;
                n = (size_t)f[2] << 8 | f[3];
                hl = 4;
            } else if (n == 127) {
                if (c->inlen - off < 10)
                    break;
                n = 0;
                for (int i = 0; i < 8; i++)
                    n = n << 8 | f[2 + i];
                hl = 10;
            }
            if (c->inlen - off < hl + n)
                break;
            if (on_frame)
                on_frame(c, f[0] & 0x0f, f + hl, n);
            off += hl + n;
        }
        memmove(c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
    }
    return 0;
}

static void open_all(int n)
{
    struct epoll_event ev[256];
    int up = 0;
    cs = calloc((size_t)n, sizeof(*cs));
    for (int i = 0; i < n; i++) {
        cs[ncs++] = open_conn();
        if (i % 200 == 199 || i == n - 1) { /* waves: the listen backlog is finite */
            while (up <= i) {
                int k = epoll_wait(epfd, ev, 256, 30000);
                if (k <= 0) {
                    fprintf(stderr, "ws_load: %d of %d open after 30 s\n", up, n);
                    exit(1);
                }
                for (int j = 0; j < k; j++) {
                    conn *c = ev[j].data.ptr;
                    int was = c->state;
                    if (pump(c, NULL) < 0) {
                        fprintf(stderr, "ws_load: a connection closed during the upgrade\n");
                        exit(1);
                    }
                    up += !was && c->state;
                }
            }
        }
    }
}

/* ---- echo */
static uint64_t *lat;
static size_t nlat, caplat;
static char *payload;
static size_t psize;

static void echo_frame(conn *c, int op, const unsigned char *d, size_t n)
{
    (void)d;
    if (op != 1 || n != psize)
        return;
    if (nlat == caplat) {
        caplat = caplat ? caplat * 2 : 1 << 20;
        lat = realloc(lat, caplat * sizeof(*lat));
    }
    uint64_t t = now_us();
    lat[nlat++] = t - c->t_sent;
    c->t_sent = t;
    send_frame(c, 1, payload, psize);
}

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void run_echo(int n, int secs)
{
    struct epoll_event ev[256];
    open_all(n);
    uint64_t t0 = now_us(), end = t0 + (uint64_t)secs * 1000000u, warm = t0 + 1000000u;
    for (int i = 0; i < ncs; i++) {
        cs[i]->t_sent = now_us();
        send_frame(cs[i], 1, payload, psize);
    }
    size_t mark = 0;
    uint64_t tmark = 0;
    while (now_us() < end) {
        int k = epoll_wait(epfd, ev, 256, 100);
        for (int j = 0; j < k; j++)
            if (pump(ev[j].data.ptr, echo_frame) < 0) {
                fprintf(stderr, "ws_load: a connection closed\n");
                exit(1);
            }
        if (!tmark && now_us() >= warm) { /* the first second is warm-up */
            mark = nlat;
            tmark = now_us();
        }
    }
    uint64_t t1 = now_us();
    size_t cnt = nlat - mark;
    if (!cnt) {
        fprintf(stderr, "ws_load: no echo came back\n");
        exit(1);
    }
    qsort(lat + mark, cnt, sizeof(*lat), cmp64);
    printf("{\"connections\": %d, \"size\": %zu, \"seconds\": %.2f, \"messages\": %zu, "
           "\"rate\": %.0f, \"p50_us\": %llu, \"p99_us\": %llu, \"max_us\": %llu}\n", n, psize,
           (double)(t1 - tmark) / 1e6, cnt, cnt / ((double)(t1 - tmark) / 1e6),
           (unsigned long long)lat[mark + cnt / 2], (unsigned long long)lat[mark + cnt * 99 / 100],
           (unsigned long long)lat[mark + cnt - 1]);
}

/* ---- bcast */
static char token[32];
static int waiting;

static void bcast_frame(conn *c, int op, const unsigned char *d, size_t n)
{
    if (op == 1 && c->waiting && memmem(d, n, token, strlen(token))) {
        c->waiting = 0;
        waiting--;
    }
}

static void run_bcast(int n, int rounds)
{
    struct epoll_event ev[256];
    open_all(n);
    /* let the joins settle */
    uint64_t quiet = now_us() + 2000000u;
    while (now_us() < quiet) {
        int k = epoll_wait(epfd, ev, 256, 100);
        for (int j = 0; j < k; j++)
            pump(ev[j].data.ptr, NULL);
    }
    printf("{\"connections\": %d, \"rounds_us\": [", n);
    for (int r = 0; r < rounds; r++) {
        snprintf(token, sizeof(token), "tok%dx%d", r, getpid());
        for (int i = 0; i < ncs; i++)
            cs[i]->waiting = 1;
        waiting = ncs;
        uint64_t t0 = now_us();
        send_frame(cs[0], 1, token, strlen(token));
        while (waiting) {
            int k = epoll_wait(epfd, ev, 256, 10000);
            if (k <= 0) {
                fprintf(stderr, "ws_load: %d members never got the broadcast\n", waiting);
                exit(1);
            }
            for (int j = 0; j < k; j++)
                pump(ev[j].data.ptr, bcast_frame);
        }
        printf("%s%llu", r ? ", " : "", (unsigned long long)(now_us() - t0));
        fflush(stdout);
        usleep(200000);
    }
    printf("]}\n");
}

int main(int argc, char **argv)
{
    struct rlimit rl;
    if (argc < 6) {
        fprintf(stderr, "usage: ws_load echo|idle|bcast HOST PORT PATH CONNS [SECONDS|ROUNDS] [SIZE]\n");
        return 2;
    }
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    host = argv[2];
    port = atoi(argv[3]);
    path = argv[4];
    int n = atoi(argv[5]);
    if ((epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
        die("epoll");
    if (!strcmp(argv[1], "echo")) {
        psize = argc > 7 ? (size_t)atoi(argv[7]) : 32;
        payload = malloc(psize);
        memset(payload, 'e', psize);
        run_echo(n, argc > 6 ? atoi(argv[6]) : 10);
    } else if (!strcmp(argv[1], "idle")) {
        open_all(n);
        printf("{\"open\": %d}\n", ncs);
        fflush(stdout);
        char b[16];
        while (read(0, b, sizeof(b)) > 0)
            ;
    } else if (!strcmp(argv[1], "bcast")) {
        run_bcast(n, argc > 6 ? atoi(argv[6]) : 5);
    } else {
        return 2;
    }
    return 0;
}
