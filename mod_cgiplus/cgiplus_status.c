/* cgiplus_status.c: the cgiplus-status handler. Asks the runner for its
 * state in the format the query names (STATUS with a kv list: HTML by
 * default, ?pool=ID for one pool, ?json, ?metrics for Prometheus) and
 * relays the runner's STATUS_REPLY frames as they come: the runner renders
 * every format itself (runner/runner_status*.c, docs/RUNNER.md "Status"). */
#include "cgiplus_conf.h"
#include "cgiplus_conn.h"
#include "cgiplus_status.h"
#include "cgp_proto.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "apr_lib.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

#define STATUS_MAX (16 * 1024 * 1024) /* the most bytes we relay */

/* What the query asks for; NULL for a query we do not know. */
typedef struct status_query {
    const char *format, *type, *pool;
    int show_query;           /* CGIplusStatusShowQuery on */
} status_query;

static int parse_query(request_rec *r, status_query *q)
{
    const char *a = r->args;
    q->format = "html";
    q->type = "text/html; charset=utf-8";
    q->pool = NULL;
    if (!a || !*a)
        return 1;
    if (!strcmp(a, "json")) {
        q->format = "json";
        q->type = "application/json";
        return 1;
    }
    if (!strcmp(a, "metrics")) {
        q->format = "metrics";
        q->type = "text/plain; version=0.0.4; charset=utf-8";
        return 1;
    }
    if (!strncmp(a, "pool=", 5) && a[5] && strlen(a + 5) <= 19) {
        const char *d;
        for (d = a + 5; *d && apr_isdigit(*d); d++)
            ;
        q->pool = a + 5;
        return *d == '\0';
    }
    return 0;
}

/* Sends STATUS and relays the reply. *started: bytes reached the client
 * (no retry then). */
static apr_status_t status_relay(request_rec *r, cgiplus_conn *c, const status_query *q,
                                 int *started)
{
    unsigned char hb[CGP_HDR_LEN], kv[128], buf[CGP_MAX_PAYLOAD];
    struct iovec iov[2];
    cgp_hdr h = { 0 };
    size_t off = 0;
    apr_size_t total = 0;
    apr_status_t rv;

    cgp_kv_pack(kv, sizeof(kv), &off, "format", 6, q->format, strlen(q->format));
    if (q->pool)
        cgp_kv_pack(kv, sizeof(kv), &off, "pool", 4, q->pool, strlen(q->pool));
    if (q->show_query) /* else the runner leaves query strings out */
        cgp_kv_pack(kv, sizeof(kv), &off, "query", 5, "1", 1);
    h.type = CGP_T_STATUS;
    h.reqid = 1;
    h.len = (uint32_t)off;
    cgp_hdr_pack(hb, &h);
    iov[0].iov_base = hb;
    iov[0].iov_len = sizeof(hb);
    iov[1].iov_base = kv;
    iov[1].iov_len = off;
    apr_socket_timeout_set(c->sock, r->server->timeout);
    if ((rv = cgiplus_conn_sendv(c, iov, 2)) != APR_SUCCESS)
        return rv;
    for (;;) {
        int crc;
        if ((rv = cgiplus_conn_read_exact(c, hb, CGP_HDR_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_hdr_unpack(hb, &h)) != CGP_OK || h.type != CGP_T_STATUS_REPLY ||
            h.len > sizeof(buf)) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1600)
                          "the runner answered STATUS with %s; is it older than "
                          "this module?", crc == CGP_OK ? cgp_type_name(h.type)
                                                       : cgp_strerror(crc));
            return APR_EGENERAL;
        }
        if ((total += h.len) > STATUS_MAX)
            return APR_ENOSPC;
        if ((rv = cgiplus_conn_read_exact(c, buf, h.len)) != APR_SUCCESS)
            return rv;
        if (!*started) {
            *started = 1;
            ap_set_content_type(r, q->type);
        }
        if (h.len && !r->header_only && ap_rwrite(buf, (int)h.len, r) < 0)
            return APR_ECONNABORTED;
        if (h.flags & CGP_F_END)
            return APR_SUCCESS;
    }
}

int cgiplus_status_handler(request_rec *r)
{
    cgiplus_conn *c = NULL;
    apr_status_t rv = APR_EGENERAL;
    status_query q;
    int attempt, started = 0;

    if (!r->handler || strcmp(r->handler, CGIPLUS_STATUS_HANDLER))
        return DECLINED;
    r->allowed |= (AP_METHOD_BIT << M_GET);
    if (r->method_number != M_GET)
        return HTTP_METHOD_NOT_ALLOWED;
    if (!parse_query(r, &q))
        return HTTP_NOT_FOUND;
    q.show_query = cgiplus_conf_geti(ap_get_module_config(r->per_dir_config, &cgiplus_module),
                                     CGP_S_STATUS_SHOW_QUERY) != 0;
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");

    for (attempt = 0; attempt < 2 && !started; attempt++) {
        if ((rv = cgiplus_conn_acquire(r, attempt > 0, &c)) != APR_SUCCESS)
            break;
        rv = status_relay(r, c, &q, &started);
        if (rv == APR_SUCCESS) {
            cgiplus_conn_release(c);
            return OK;
        }
        cgiplus_conn_close(c);
        if (!cgiplus_conn_is_dead(rv))
            break;
    }
    ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1601)
                  "cannot get the status of cgiplus-runner");
    if (started)
        return OK; /* the response is cut; the client sees it end early */
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    return HTTP_SERVICE_UNAVAILABLE;
}
