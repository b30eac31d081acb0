/* cgiplus_ws_open.c: the upgrade, a room of its own on the request's
 * state machine (docs/ARCHITECTURE.md). Checks the RFC 6455 handshake (an
 * HTTP/2 extended CONNECT arrives here rewritten by mod_http2 into the
 * same GET), then runs the request's table with the relay alone, on a
 * runner connection of its own, to a worker of the script's WebSocket
 * pool; the relay hands it the WS_ACCEPT frame. An accepted upgrade takes
 * one more row (WAIT x accepted -> UPGRADED): 101 with Sec-WebSocket-Accept
 * (mod_http2 turns it into 200), the connection taken over and served
 * (cgiplus_ws_conn.c); a refusal is an ordinary CGI response. */
#include "cgiplus_relay.h"
#include "cgiplus_ws.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_portable.h"
#include "apr_strings.h"
#include "util_filter.h"


APLOG_USE_MODULE(cgiplus);

/* The upgrade's own state: q->ws while the request is one. From r->pool,
 * for the handler call; changed by this file only. */
typedef struct ws_upgrade {
    const char *key;          /* Sec-WebSocket-Key */
    cgiplus_ws_limits lim;
    int accepted;             /* WS_ACCEPT read: the fields below hold */
    apr_uint32_t id, pid;
    char proto[CGP_WSR_PROTO_MAX + 1];
    int fd;                   /* the runner connection, taken over; -1: not yet */
} ws_upgrade;

int cgiplus_ws_wanted(const cgiplus_req *q, const cgiplus_dir_conf *dc)
{
    request_rec *r = q->r;
    const char *up = apr_table_get(r->headers_in, "Upgrade");

    /* An engine's program is no WebSocket script: its scope's upgrades
     * are ordinary requests, as under CGIplusWebSocket off. */
    return cgiplus_conf_geti(dc, CGP_S_WEBSOCKET) && !q->engine &&
           !strcmp(q->mode_name, "cgiplus") && up &&
           cgp_ws_token_has(up, strlen(up), "websocket") && !r->main;
}

/* The CGIplusWebSocket* rows of r's directory, defaults applied. */
static void ws_limits(request_rec *r, const cgiplus_dir_conf *dc, cgiplus_ws_limits *l)
{
    apr_interval_time_t half = r->server->timeout / 2;

    l->max_message = (apr_size_t)cgiplus_conf_geti(dc, CGP_S_WS_MAX_MESSAGE);
    l->send_queue = (apr_size_t)cgiplus_conf_geti(dc, CGP_S_WS_QUEUE);
    if (l->send_queue < l->max_message + CGP_WS_HDR_MAX)
        l->send_queue = l->max_message + CGP_WS_HDR_MAX; /* a whole message always fits */
    l->overflow = (int)cgiplus_conf_geti(dc, CGP_S_WS_OVERFLOW);
    l->ping = apr_time_from_msec(cgiplus_conf_geti(dc, CGP_S_WS_PING));
    /* The event MPM closes a connection silent for Timeout: a ping within
     * half of it makes a live client answer first. */
    if (l->ping > half && half > 0)
        l->ping = half;
    l->idle = apr_time_from_msec(cgiplus_conf_geti(dc, CGP_S_WS_IDLE_TIMEOUT));
    l->msg_timeout = apr_time_from_msec(cgiplus_conf_geti(dc, CGP_S_WS_MESSAGE_TIMEOUT));
    l->close_wait = apr_time_from_sec(5); /* the client's answer to our close */
    l->rate = (apr_uint32_t)cgiplus_conf_geti(dc, CGP_S_WS_MAX_RATE);
}

/* A frame the relay does not know (q->on_frame): the upgrade's answer,
 * WS_ACCEPT, read and kept; anything else is a protocol error (the relay
 * gives the connection up and the upgrade gets 502). */
static apr_status_t ws_frame(cgiplus_req *q, unsigned type, apr_size_t len)
{
    ws_upgrade *u = q->ws;
    unsigned char b[CGP_WS_ACCEPT_MAX];
    cgp_ws_accept_msg m;
    const char *why = NULL;
    apr_status_t rv;

    if (type != CGP_T_WS_ACCEPT)
        why = apr_psprintf(q->r->pool, "an unexpected %s frame", cgp_type_name(type));
    else if (len > sizeof(b))
        why = "a WS_ACCEPT frame too long";
    else if ((rv = cgiplus_relay_payload(q, b, len)) != APR_SUCCESS)
        return rv;
    else if (u->accepted || cgp_ws_accept_unpack(b, len, &m) != CGP_OK)
        why = "a WS_ACCEPT frame that does not parse, or a second one";
    if (why) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, q->r, CGIPLUS_LOGNO(1800)
                      "protocol error from cgiplus-runner serving the WebSocket upgrade of "
                      "%s: %s (%" APR_SIZE_T_FMT " bytes)", q->r->filename, why, len);
        return APR_EGENERAL;
    }
    u->accepted = 1;
    u->id = m.conn;
    u->pid = m.pid;
    memcpy(u->proto, m.proto, m.plen);
    u->proto[m.plen] = '\0';
    return APR_SUCCESS;
}

/* The handshake's checks (RFC 6455 4.2.1); 0 or the status to answer. */
static int ws_check(request_rec *r, const char **key, const char **why)
{
    const char *conn = apr_table_get(r->headers_in, "Connection");
    const char *ver = apr_table_get(r->headers_in, "Sec-WebSocket-Version");
    const char *cl = apr_table_get(r->headers_in, "Content-Length");

    *key = apr_table_get(r->headers_in, "Sec-WebSocket-Key");
    /* HEAD is M_GET to httpd (header_only): RFC 6455 4.1 wants GET */
    if (r->method_number != M_GET || r->header_only)
        return *why = "the method is not GET", HTTP_BAD_REQUEST;
    if (r->proto_num < HTTP_VERSION(1, 1))
        return *why = "it is not HTTP/1.1 or later", HTTP_BAD_REQUEST;
    if (!conn || !cgp_ws_token_has(conn, strlen(conn), "upgrade"))
        return *why = "Connection does not name Upgrade", HTTP_BAD_REQUEST;
    if (!ver || strcmp(ver, "13")) {
        apr_table_setn(r->err_headers_out, "Sec-WebSocket-Version", "13");
        /* a 426 names the protocol to upgrade to (RFC 9110 15.5.22) */
        if (!r->connection->master) {
            apr_table_setn(r->err_headers_out, "Upgrade", "websocket");
            apr_table_mergen(r->err_headers_out, "Connection", "Upgrade");
        }
        return *why = "Sec-WebSocket-Version is not 13", HTTP_UPGRADE_REQUIRED;
    }
    if (!*key || !cgp_ws_key_valid(*key, strlen(*key)))
        return *why = "Sec-WebSocket-Key is not the base64 of 16 bytes", HTTP_BAD_REQUEST;
    /* HTTP/1.x: nothing may follow the handshake but frames. (On HTTP/2
     * the stream's data are the frames; mod_http2 marks it chunked.) */
    if (!r->connection->master &&
        ((cl && strcmp(cl, "0")) || apr_table_get(r->headers_in, "Transfer-Encoding")))
        return *why = "it has a body", HTTP_BAD_REQUEST;
    return 0;
}

/* 1 if the client offered proto in Sec-WebSocket-Protocol (every such
 * header, comma-separated tokens). */
static int offered(request_rec *r, const char *proto)
{
    const apr_array_header_t *h = apr_table_elts(r->headers_in);
    const apr_table_entry_t *e = (const apr_table_entry_t *)h->elts;
    int i;

    for (i = 0; i < h->nelts; i++)
        if (e[i].key && !strcasecmp(e[i].key, "Sec-WebSocket-Protocol") && e[i].val) {
            /* tokens are case-sensitive here: compare exactly */
            const char *s = e[i].val;
            size_t pl = strlen(proto);
            while (*s) {
                size_t n;
                while (*s == ' ' || *s == '\t' || *s == ',')
                    s++;
                n = strcspn(s, " \t,");
                if (n == pl && !strncmp(s, proto, n))
                    return 1;
                s += n;
            }
        }
    return 0;
}

/* WAIT's action for an upgrade: the first output or the end, as for any
 * request; a worker that accepted it (WS_ACCEPT, then an end with no
 * output) gives ACCEPTED, once its subprotocol is one the client offered
 * and the runner connection is taken over (the relay forgets it). */
static unsigned ws_act_wait(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    ws_upgrade *u = q->ws;
    unsigned next = q->xp->wait_first(q);

    (void)ev;
    if (next != CGIPLUS_RE_SENTINEL || !u->accepted || q->out_total)
        return next; /* refused: an ordinary response, or a failure */
    if (u->proto[0] && !offered(r, u->proto)) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1802)
                      "%s (worker pid %lu) accepted the WebSocket with subprotocol '%s', which "
                      "the client did not offer; answering 502", r->filename,
                      (unsigned long)u->pid, u->proto);
        q->status = HTTP_BAD_GATEWAY;
        return CGIPLUS_RE_LOST; /* the connection is given up: the worker hears its close */
    }
    if ((u->fd = cgiplus_relay_take(q)) < 0 ||
        fcntl(u->fd, F_SETFL, fcntl(u->fd, F_GETFL) | O_NONBLOCK) < 0) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, errno, r, CGIPLUS_LOGNO(1803)
                      "cannot keep the runner connection of the WebSocket to %s", r->filename);
        if (u->fd >= 0)
            close(u->fd);
        q->status = HTTP_INTERNAL_SERVER_ERROR;
        return CGIPLUS_RE_LOST;
    }
    return CGIPLUS_RE_ACCEPTED;
}

/* WAIT -accepted-> UPGRADED: 101, and the connection is the WebSocket's,
 * served here or by the reactor. The handler returns DONE. */
static unsigned ws_act_upgrade(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    conn_rec *c = r->connection;
    ws_upgrade *u = q->ws;
    char accept[CGP_WS_ACCEPT_LEN + 1];
    cgiplus_ws *w;

    (void)ev;
    q->status = DONE;
    cgp_ws_accept(u->key, strlen(u->key), accept);
    r->status = HTTP_SWITCHING_PROTOCOLS;
    r->status_line = ap_get_status_line(r->status);
    apr_table_clear(r->headers_out);
    apr_table_setn(r->headers_out, "Upgrade", "websocket");
    apr_table_setn(r->headers_out, "Connection", "Upgrade");
    apr_table_setn(r->headers_out, "Sec-WebSocket-Accept", apr_pstrdup(r->pool, accept));
    if (u->proto[0])
        apr_table_setn(r->headers_out, "Sec-WebSocket-Protocol", apr_pstrdup(r->pool, u->proto));
    ap_send_interim_response(r, 1);

    /* From here the connection is no HTTP: only its own filters, nothing
     * timing a request, never reused for one. */
    ap_remove_input_filter_byhandle(c->input_filters, "reqtimeout");
    /* mod_ssl would hold small writes back for more (mod_proxy's tunnel
     * removes it too): a message goes out when it is there */
    ap_remove_output_filter_byhandle(c->output_filters, "SSL/TLS Coalescing Filter");
    r->output_filters = r->proto_output_filters = c->output_filters;
    r->input_filters = r->proto_input_filters = c->input_filters;
    c->keepalive = AP_CONN_CLOSE;
    if (!(w = cgiplus_ws_new(r, u->fd, &u->lim, u->id))) {
        close(u->fd);
        return CGIPLUS_RE_NONE;
    }
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1804)
                  "WebSocket %lu to %s accepted by worker pid %lu%s%s", (unsigned long)u->id,
                  r->filename, (unsigned long)u->pid, u->proto[0] ? ", subprotocol " : "",
                  u->proto);
    if (!c->master && cgiplus_ws_async_ok()) {
        cgiplus_ws_async_start(w, r); /* the MPM holds it, without a thread */
        return CGIPLUS_RE_NONE;
    }
    cgiplus_ws_run_sync(w);
    cgiplus_ws_free(w);
    return CGIPLUS_RE_NONE;
}

int cgiplus_ws_serve(cgiplus_req *q, cgiplus_dir_conf *dc, const cgiplus_ractions *acts)
{
    request_rec *r = q->r;
    cgiplus_ractions ws_acts = *acts;
    ws_upgrade *u = apr_pcalloc(r->pool, sizeof(*u));
    const char *why = NULL;
    int ret;

    if ((ret = ws_check(r, &u->key, &why)) != 0) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1805)
                      "WebSocket handshake for %s refused (%d): %s", r->filename, ret, why);
        return ret;
    }
    ws_limits(r, dc, &u->lim);
    u->fd = -1;
    q->ws = u;
    q->mode_name = cgp_mode_names[CGP_MODE_WEBSOCKET].name;
    /* The relay alone, on a connection of its own (the accepted WebSocket
     * keeps it), handing this room the frames it does not know. */
    q->claim = NULL;
    q->own_conn = 1;
    q->on_frame = ws_frame;
    ws_acts.run[CGIPLUS_RA_WAIT] = ws_act_wait;
    ws_acts.run[CGIPLUS_RA_UPGRADE] = ws_act_upgrade;
    return cgiplus_req_run(q, &ws_acts);
}
