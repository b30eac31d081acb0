/* cgiplus.h: the C script library of mod_cgiplus (libcgiplus).
 *
 * A script written against this API runs unchanged as a persistent CGIplus
 * worker (under cgiplus-runner) and as a plain CGI program:
 *
 *     #include <cgiplus.h>
 *     int main(void)
 *     {
 *         while (cgiplus_accept() > 0) {
 *             printf("Content-Type: text/plain\r\n\r\n");
 *             printf("Hello from %s\n", getenv("SCRIPT_NAME"));
 *             cgiplus_finish();
 *         }
 *         return 0;
 *     }
 *
 * Build: cc script.c $(pkg-config --cflags --libs cgiplus)
 * The protocol is docs/PROTOCOL.md, part 2. The library is not thread-safe:
 * call it from one thread only.
 *
 * Environment: while a request is being served, getenv() sees that request's
 * CGI variables plus the worker's own environment as it was at the first
 * cgiplus_accept() (CGIPLUS*, PATH, pool variables). The library owns the
 * request's strings: a pointer returned by getenv() for a request variable is
 * valid until the next cgiplus_accept(). Variables the script itself sets with
 * setenv()/putenv() during a request are dropped at the next cgiplus_accept(),
 * as every CGI request starts from a fresh environment. (The library installs
 * its own `environ` array instead of calling setenv(), whose strings glibc
 * never frees and would leak a little on every request.)
 *
 * Request body: in persistent mode, descriptor 0 carries every request's
 * body back to back and never reaches end of file. cgiplus_accept() points
 * the stdio stream `stdin` at a stream that ends after CONTENT_LENGTH bytes
 * (purged per request), so fread()/getchar() to EOF is safe and never reads
 * into the next request. A script that uses read(0, ...) instead must read
 * at most CONTENT_LENGTH bytes (past it blocks) and must not mix it with
 * stdio reads. Reading less is fine: the runner discards the rest.
 *
 * Log lines the library writes on stderr carry CGIPLUS3xxx ids, listed in
 * docs/errors.md.
 */
#ifndef CGIPLUS_H
#define CGIPLUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Waits for the next request and makes it current.
 * Persistent mode (CGIPLUSEOF is set): finishes the previous request if the
 * script has not called cgiplus_finish() yet, flushes stdout, writes the
 * ready line (docs/PROTOCOL.md: nothing more comes before the next record),
 * then blocks on CGIPLUSIN until the runner sends a request, and installs
 * its variables in the environment.
 * Plain CGI: returns 1 on the first call (the process environment and stdin
 * already are the request's) and 0 afterwards.
 * Returns 1 when a request is ready, 0 when there are no more requests (plain
 * CGI: after the first; persistent: clean end of CGIPLUSIN, the runner wants
 * the worker to exit), -1 with errno on failure: EPROTO for a malformed
 * request, EMSGSIZE for one over the size caps, or the errno of a failed
 * read/open/malloc. After -1 the worker should exit. */
int cgiplus_accept(void);

/* Ends the current response: flushes stdout and writes the CGIPLUSEOF
 * sentinel and a newline directly after the last byte written (no newline is
 * added before it). Plain CGI: only flushes stdout. Calling it twice for one
 * request writes the sentinel once. */
void cgiplus_finish(void);

/* 1 when running as a persistent CGIplus worker (CGIPLUSEOF is set), else 0.
 * Valid before the first cgiplus_accept(). */
int cgiplus_is_persistent(void);

/* Sends one callout during a request (docs/PROTOCOL.md "Callouts"):
 * e.g. cgiplus_callout("LIFETIME: 10"), cgiplus_callout("MAP-PATH: /x") or
 * cgiplus_callout("AUTH-FILE: /srv/f").
 * Writes the CGIPLUSESC line, `request` and a newline, the CGIPLUSEOT line on
 * stdout, flushes, and reads the runner's one answer line from CGIPLUSIN.
 * Returns the answer without its newline ("200 ...", "4xx ...", "5xx ...")
 * in a static buffer overwritten by the next call; "" for a request starting
 * with '!' or '#' (no answer is sent for those). Returns NULL with errno
 * ENOTSUP when not persistent, EINVAL for an empty request or one containing
 * a newline, EPROTO if the channel ended, EMSGSIZE for an answer over 8 KiB
 * (consumed and dropped), or the errno of a failed write/read. */
const char *cgiplus_callout(const char *request);

/* Asks the runner to send later requests in struct mode (the callout
 * "CGIPLUS: struct"): variables then arrive verbatim, CR/LF included, instead
 * of one line each. Call it during a request; it takes effect from the next.
 * Returns 0 on success (and in plain CGI, where it does nothing), -1 with
 * errno otherwise (EPROTO if the runner did not answer 200). */
int cgiplus_struct_mode(void);

/* ---- WebSocket workers (docs/PROTOCOL.md part 2, "WebSocket workers") ----
 *
 * An upgrade to a persistent script in a WebSocket scope starts it in the
 * script's WebSocket pool: there it serves no CGI requests, only events of
 * its WebSocket connections, many at once:
 *
 *     cgiplus_ws_event ev;
 *     while (cgiplus_ws_next(&ev) > 0) {
 *         if (ev.type == CGIPLUS_WS_OPEN)
 *             cgiplus_ws_accept(ev.conn, NULL);
 *         else if (ev.type == CGIPLUS_WS_MESSAGE)
 *             cgiplus_ws_send(ev.conn, ev.binary, ev.data, ev.len);
 *     }
 *
 * Every accepted connection ends with exactly one CGIPLUS_WS_CLOSE event.
 * Outside a WebSocket pool (a plain GET to the script) cgiplus_ws_next
 * answers each request 426 Upgrade Required and returns 0 at the end. */
enum { CGIPLUS_WS_OPEN = 1, CGIPLUS_WS_MESSAGE = 2, CGIPLUS_WS_CLOSE = 3 };
typedef struct cgiplus_ws_event {
    int type;                  /* CGIPLUS_WS_OPEN, _MESSAGE or _CLOSE */
    unsigned long conn;        /* the connection's id (never 0) */
    int binary;                /* MESSAGE: 1 binary, 0 text (valid UTF-8) */
    const unsigned char *data; /* MESSAGE: the whole message, valid until the next call */
    size_t len;
    unsigned code;             /* CLOSE: the close code (1005: none, 1006: dropped) */
    const char *reason;        /* CLOSE: its reason, NUL-ended */
} cgiplus_ws_event;

/* 1 in a WebSocket pool (the first call says HELLO to the runner). */
int cgiplus_ws_enabled(void);
/* Waits for the next event: 1, 0 when the runner closed the channel (exit),
 * -1 with errno (EPROTO: a malformed record). */
int cgiplus_ws_next(cgiplus_ws_event *ev);
/* A CGI variable of the last OPEN (REMOTE_ADDR, QUERY_STRING,
 * HTTP_SEC_WEBSOCKET_PROTOCOL...), valid until the next OPEN; NULL if unset. */
const char *cgiplus_ws_getenv(const char *name);
/* Takes the connection of an OPEN; protocol: one the client offered, or NULL. */
int cgiplus_ws_accept(unsigned long conn, const char *protocol);
/* Answers an OPEN with an HTTP response instead: status 200-599, headers as
 * nheaders (name, value) pairs in headers[0..2*nheaders), the body. */
int cgiplus_ws_refuse(unsigned long conn, int status, const char *const *headers,
                      unsigned nheaders, const void *body, size_t len);
/* A message to one connection (text must be UTF-8), to every connection of
 * the pool but except (0: none), and a close (code 1000-4999, reason of at
 * most 123 bytes). -1 with errno: ENOTSUP outside a WebSocket pool,
 * EMSGSIZE over CGIplusWebSocketMaxMessage, EINVAL, or a write's. */
int cgiplus_ws_send(unsigned long conn, int binary, const void *data, size_t len);
int cgiplus_ws_broadcast(unsigned long except, int binary, const void *data, size_t len);
int cgiplus_ws_close(unsigned long conn, unsigned code, const char *reason);

#ifdef __cplusplus
}
#endif

#endif
