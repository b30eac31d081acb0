/* cgiplus_status.c: the cgiplus-status handler. Asks the runner for its
 * state (STATUS, answered by STATUS_REPLY frames carrying JSON) and shows
 * it as HTML (default), JSON (?json) or Prometheus text (?metrics). The
 * JSON shape is the runner's (docs/RUNNER.md, "Status"). */
#include "cgiplus_private.h"

#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

#define STATUS_MAX (16 * 1024 * 1024) /* the most JSON we accept */

/* ---- a small JSON reader: the runner's output only, into r->pool ---- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

/* One JSON value; lives in r->pool. Objects keep keys[i] for items[i]. */
typedef struct jv {
    jtype t;
    double n;
    const char *s;
    apr_array_header_t *items; /* struct jv * */
    apr_array_header_t *keys;  /* const char * */
} jv;

typedef struct jp {
    apr_pool_t *p;
    const char *s, *end;
    int depth;
} jp;

static void j_ws(jp *j)
{
    while (j->s < j->end && (*j->s == ' ' || *j->s == '\n' || *j->s == '\r' || *j->s == '\t'))
        j->s++;
}

static jv *j_value(jp *j);

static const char *j_string(jp *j)
{
    char *out, *o;
    const char *s = ++j->s; /* past the quote */

    out = o = apr_palloc(j->p, (apr_size_t)(j->end - s) + 1);
    while (s < j->end && *s != '"') {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        if (++s >= j->end)
            return NULL;
        switch (*s) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned v = 0;
            int k;
            for (k = 1; k <= 4; k++) {
                if (s + k >= j->end || !apr_isxdigit(s[k]))
                    return NULL;
                v = v * 16 + (unsigned)(apr_isdigit(s[k]) ? s[k] - '0'
                                        : (apr_tolower(s[k]) - 'a' + 10));
            }
            s += 4;
            if (v < 0x80) {
                *o++ = (char)v;
            } else if (v < 0x800) { /* the runner only escapes bytes below 0x100 */
                *o++ = (char)(0xc0 | (v >> 6));
                *o++ = (char)(0x80 | (v & 0x3f));
            } else {
                *o++ = '?';
            }
            break;
        }
        default: *o++ = *s; break;
        }
        s++;
    }
    if (s >= j->end)
        return NULL;
    *o = '\0';
    j->s = s + 1;
    return out;
}

static jv *j_container(jp *j, int obj)
{
    jv *v = apr_pcalloc(j->p, sizeof(*v));

    v->t = obj ? J_OBJ : J_ARR;
    v->items = apr_array_make(j->p, 8, sizeof(jv *));
    v->keys = apr_array_make(j->p, obj ? 8 : 1, sizeof(const char *));
    if (++j->depth > 32)
        return NULL;
    j->s++;
    j_ws(j);
    if (j->s < j->end && *j->s == (obj ? '}' : ']')) {
        j->s++;
        j->depth--;
        return v;
    }
    for (;;) {
        jv *item;
        j_ws(j);
        if (obj) {
            const char *k;
            if (j->s >= j->end || *j->s != '"' || !(k = j_string(j)))
                return NULL;
            j_ws(j);
            if (j->s >= j->end || *j->s != ':')
                return NULL;
            j->s++;
            APR_ARRAY_PUSH(v->keys, const char *) = k;
        }
        if (!(item = j_value(j)))
            return NULL;
        APR_ARRAY_PUSH(v->items, jv *) = item;
        j_ws(j);
        if (j->s < j->end && *j->s == ',') {
            j->s++;
            continue;
        }
        if (j->s < j->end && *j->s == (obj ? '}' : ']')) {
            j->s++;
            j->depth--;
            return v;
        }
        return NULL;
    }
}

static jv *j_value(jp *j)
{
    jv *v;

    j_ws(j);
    if (j->s >= j->end)
        return NULL;
    if (*j->s == '{' || *j->s == '[')
        return j_container(j, *j->s == '{');
    v = apr_pcalloc(j->p, sizeof(*v));
    if (*j->s == '"') {
        v->t = J_STR;
        return (v->s = j_string(j)) ? v : NULL;
    }
    if (j->end - j->s >= 4 && !strncmp(j->s, "true", 4)) {
        v->t = J_BOOL, v->n = 1, j->s += 4;
        return v;
    }
    if (j->end - j->s >= 5 && !strncmp(j->s, "false", 5)) {
        v->t = J_BOOL, j->s += 5;
        return v;
    }
    if (j->end - j->s >= 4 && !strncmp(j->s, "null", 4)) {
        v->t = J_NULL, j->s += 4;
        return v;
    }
    if (*j->s == '-' || apr_isdigit(*j->s)) {
        char *e;
        v->t = J_NUM;
        v->n = strtod(j->s, &e); /* the buffer ends with a NUL */
        if (e == j->s)
            return NULL;
        j->s = e;
        return v;
    }
    return NULL;
}

static jv *j_get(const jv *o, const char *k)
{
    int i;

    if (!o || o->t != J_OBJ)
        return NULL;
    for (i = 0; i < o->keys->nelts; i++)
        if (!strcmp(APR_ARRAY_IDX(o->keys, i, const char *), k))
            return APR_ARRAY_IDX(o->items, i, jv *);
    return NULL;
}

static double j_num(const jv *o, const char *k)
{
    const jv *v = j_get(o, k);
    return v && (v->t == J_NUM || v->t == J_BOOL) ? v->n : 0;
}

static const char *j_str(const jv *o, const char *k)
{
    const jv *v = j_get(o, k);
    return v && v->t == J_STR ? v->s : "";
}

static int j_len(const jv *v)
{
    return v && (v->t == J_ARR || v->t == J_OBJ) ? v->items->nelts : 0;
}

static jv *j_at(const jv *v, int i)
{
    return APR_ARRAY_IDX(v->items, i, jv *);
}

static const char *j_key(const jv *v, int i)
{
    return APR_ARRAY_IDX(v->keys, i, const char *);
}

/* ---- asking the runner ---- */

static apr_status_t status_fetch(request_rec *r, cgiplus_conn *c, char **json, apr_size_t *len)
{
    unsigned char hb[CGP_HDR_LEN];
    struct iovec iov;
    cgp_hdr h = { 0 };
    apr_size_t cap = 65536, used = 0;
    char *buf = apr_palloc(r->pool, cap + 1);
    apr_status_t rv;

    h.type = CGP_T_STATUS;
    h.reqid = 1;
    cgp_hdr_pack(hb, &h);
    iov.iov_base = hb;
    iov.iov_len = sizeof(hb);
    apr_socket_timeout_set(c->sock, r->server->timeout);
    if ((rv = cgiplus_conn_sendv(c, &iov, 1)) != APR_SUCCESS)
        return rv;
    for (;;) {
        int crc;
        if ((rv = cgiplus_conn_read_exact(c, hb, CGP_HDR_LEN)) != APR_SUCCESS)
            return rv;
        if ((crc = cgp_hdr_unpack(hb, &h)) != CGP_OK || h.type != CGP_T_STATUS_REPLY) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1600)
                          "the runner answered STATUS with %s; is it older than "
                          "this module?", crc == CGP_OK ? cgp_type_name(h.type)
                                                       : cgp_strerror(crc));
            return APR_EGENERAL;
        }
        if (used + h.len > STATUS_MAX)
            return APR_ENOSPC;
        if (used + h.len > cap) {
            char *nb;
            while (used + h.len > cap)
                cap *= 2;
            nb = apr_palloc(r->pool, cap + 1);
            memcpy(nb, buf, used);
            buf = nb;
        }
        if ((rv = cgiplus_conn_read_exact(c, buf + used, h.len)) != APR_SUCCESS)
            return rv;
        used += h.len;
        if (h.flags & CGP_F_END)
            break;
    }
    buf[used] = '\0';
    *json = buf;
    *len = used;
    return APR_SUCCESS;
}

/* ---- rendering ---- */

static const char *esc(request_rec *r, const char *s)
{
    return ap_escape_html(r->pool, s);
}

/* Prometheus label value: backslash, quote and newline escaped. */
static const char *lbl(request_rec *r, const char *s)
{
    char *o = apr_palloc(r->pool, 2 * strlen(s) + 1), *d = o;

    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            *d++ = '\\', *d++ = *s;
        else if (*s == '\n')
            *d++ = '\\', *d++ = 'n';
        else
            *d++ = *s;
    }
    *d = '\0';
    return o;
}

static void metric_head(request_rec *r, const char *name, const char *type, const char *help)
{
    ap_rprintf(r, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void render_metrics(request_rec *r, const jv *root)
{
    const jv *run = j_get(root, "runner"), *pools = j_get(root, "pools");
    int i, k, m;
    static const char *const states[] = { "idle", "busy", "stopping" };
    static const struct { const char *key, *name, *type, *help; } pool_metrics[] = {
        { "requests", "cgiplus_pool_requests_total", "counter", "Requests submitted to the pool." },
        { "served", "cgiplus_pool_served_total", "counter", "Requests the workers completed." },
        { "spawns", "cgiplus_pool_spawns_total", "counter", "Worker processes started." },
    };
    /* counters broken down by one label, one sample per key the runner sent */
    static const struct { const char *key, *name, *label, *help; } keyed[] = {
        { "errors", "cgiplus_pool_errors_total", "cause", "Failed requests by cause." },
        { "deaths", "cgiplus_pool_deaths_total", "reason", "Workers ended, by reason." },
    };
    static const struct { const char *key, *name, *help; int prec; double div; } per_worker[] = {
        { "requests", "cgiplus_worker_requests", "Requests served by the worker.", 0, 1 },
        { "age_ms", "cgiplus_worker_age_seconds", "Seconds since the worker started.", 3, 1000 },
    };

    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    metric_head(r, "cgiplus_runner_workers", "gauge", "Live worker processes of the runner.");
    ap_rprintf(r, "cgiplus_runner_workers %.0f\n", j_num(run, "workers"));
    metric_head(r, "cgiplus_runner_max_workers_total", "gauge", "The runner's cap on workers.");
    ap_rprintf(r, "cgiplus_runner_max_workers_total %.0f\n", j_num(run, "max_workers_total"));
    metric_head(r, "cgiplus_runner_uptime_seconds", "gauge", "Seconds since the runner started.");
    ap_rprintf(r, "cgiplus_runner_uptime_seconds %.3f\n", j_num(run, "uptime_ms") / 1000);
    metric_head(r, "cgiplus_runner_reloads_total", "counter", "Settings reloads (SIGHUP).");
    ap_rprintf(r, "cgiplus_runner_reloads_total %.0f\n", j_num(run, "reloads"));

#define POOL_LABELS(p) esc_id, lbl(r, j_str(p, "script")), j_str(p, "mode")
#define EACH_POOL for (i = 0; i < j_len(pools); i++) { const jv *p = j_at(pools, i); \
        const char *esc_id = apr_psprintf(r->pool, "%.0f", j_num(p, "id"));
    metric_head(r, "cgiplus_pool_workers", "gauge", "Workers of the pool by state.");
    EACH_POOL
        const jv *ws = j_get(p, "workers");
        for (k = 0; k < 3; k++) {
            int n = 0, w;
            for (w = 0; w < j_len(ws); w++)
                n += !strcmp(j_str(j_at(ws, w), "state"), states[k]);
            ap_rprintf(r, "cgiplus_pool_workers{pool=\"%s\",script=\"%s\",mode=\"%s\","
                       "state=\"%s\"} %d\n", POOL_LABELS(p), states[k], n);
        }
    }
    metric_head(r, "cgiplus_pool_queue_depth", "gauge", "Requests waiting for a worker now.");
    EACH_POOL
        ap_rprintf(r, "cgiplus_pool_queue_depth{pool=\"%s\",script=\"%s\",mode=\"%s\"} %.0f\n",
                   POOL_LABELS(p), j_num(j_get(p, "queue"), "depth"));
    }
    metric_head(r, "cgiplus_pool_queue_max", "gauge", "The most requests that ever waited.");
    EACH_POOL
        ap_rprintf(r, "cgiplus_pool_queue_max{pool=\"%s\",script=\"%s\",mode=\"%s\"} %.0f\n",
                   POOL_LABELS(p), j_num(j_get(p, "queue"), "max"));
    }
    for (k = 0; k < (int)(sizeof(pool_metrics) / sizeof(pool_metrics[0])); k++) {
        metric_head(r, pool_metrics[k].name, pool_metrics[k].type, pool_metrics[k].help);
        EACH_POOL
            ap_rprintf(r, "%s{pool=\"%s\",script=\"%s\",mode=\"%s\"} %.0f\n",
                       pool_metrics[k].name, POOL_LABELS(p),
                       j_num(j_get(p, "counters"), pool_metrics[k].key));
        }
    }
    for (m = 0; m < (int)(sizeof(keyed) / sizeof(keyed[0])); m++) {
        metric_head(r, keyed[m].name, "counter", keyed[m].help);
        EACH_POOL
            const jv *e = j_get(j_get(p, "counters"), keyed[m].key);
            for (k = 0; k < j_len(e); k++)
                ap_rprintf(r, "%s{pool=\"%s\",script=\"%s\",mode=\"%s\",%s=\"%s\"} %.0f\n",
                           keyed[m].name, POOL_LABELS(p), keyed[m].label, j_key(e, k),
                           j_at(e, k)->n);
        }
    }
    metric_head(r, "cgiplus_pool_backoff_failures", "gauge",
                "Workers in a row that ended before serving (crash loop).");
    EACH_POOL
        ap_rprintf(r, "cgiplus_pool_backoff_failures{pool=\"%s\",script=\"%s\",mode=\"%s\"} "
                   "%.0f\n", POOL_LABELS(p), j_num(j_get(p, "backoff"), "failures"));
    }
    for (m = 0; m < (int)(sizeof(per_worker) / sizeof(per_worker[0])); m++) {
        metric_head(r, per_worker[m].name, "gauge", per_worker[m].help);
        EACH_POOL
            const jv *ws = j_get(p, "workers");
            for (k = 0; k < j_len(ws); k++)
                ap_rprintf(r, "%s{pool=\"%s\",script=\"%s\",mode=\"%s\",pid=\"%.0f\"} %.*f\n",
                           per_worker[m].name, POOL_LABELS(p), j_num(j_at(ws, k), "pid"),
                           per_worker[m].prec,
                           j_num(j_at(ws, k), per_worker[m].key) / per_worker[m].div);
        }
    }
#undef EACH_POOL
#undef POOL_LABELS
}

static void html_kv(request_rec *r, const jv *o)
{
    int k;

    for (k = 0; k < j_len(o); k++) {
        const jv *v = j_at(o, k);
        const char *t = v->t == J_STR ? esc(r, v->s)
                        : v->t == J_BOOL ? (v->n ? "yes" : "no")
                        : v->t == J_NUM ? apr_psprintf(r->pool, "%.0f", v->n) : "";
        if (v->t == J_ARR) {
            int i;
            t = "";
            for (i = 0; i < j_len(v); i++)
                if (j_at(v, i)->t == J_STR)
                    t = apr_pstrcat(r->pool, t, i ? ", " : "", esc(r, j_at(v, i)->s), NULL);
        }
        ap_rprintf(r, "<tr><th>%s</th><td>%s</td></tr>", esc(r, j_key(o, k)), t);
    }
}

static void render_html(request_rec *r, const jv *root)
{
    const jv *run = j_get(root, "runner"), *pools = j_get(root, "pools");
    int i, k;

    ap_set_content_type(r, "text/html; charset=utf-8");
    ap_rputs(DOCTYPE_HTML_4_01 "<html><head><title>cgiplus-runner status</title>"
             "<style>table{border-collapse:collapse;margin:0.5em 0}"
             "td,th{border:1px solid #aaa;padding:2px 6px;text-align:left}</style>"
             "</head><body><h1>cgiplus-runner status</h1>", r);
    ap_rprintf(r, "<p>Runner pid %.0f, up %.1f s, %.0f of at most %.0f workers, %d pools, "
               "%.0f reloads%s. Also as <a href=\"?json\">JSON</a> and "
               "<a href=\"?metrics\">metrics</a>.</p>",
               j_num(run, "pid"), j_num(run, "uptime_ms") / 1000, j_num(run, "workers"),
               j_num(run, "max_workers_total"), j_len(pools), j_num(run, "reloads"),
               j_num(run, "stopping") ? ", stopping" : "");
    for (i = 0; i < j_len(pools); i++) {
        const jv *p = j_at(pools, i), *ws = j_get(p, "workers"), *q = j_get(p, "queue");
        const jv *c = j_get(p, "counters"), *b = j_get(p, "backoff"), *e = j_get(p, "ended");

        ap_rprintf(r, "<h2>Pool %.0f: %s (%s)%s</h2>", j_num(p, "id"),
                   esc(r, j_str(p, "script")), esc(r, j_str(p, "mode")),
                   j_num(p, "retired") ? " &mdash; retired" : "");
        ap_rprintf(r, "<p>Generation %.0f; queue %.0f now, %.0f at most; requests %.0f, "
                   "served %.0f, spawns %.0f; crash-loop failures %.0f, backoff %.0f ms.</p>",
                   j_num(p, "generation"), j_num(q, "depth"), j_num(q, "max"),
                   j_num(c, "requests"), j_num(c, "served"), j_num(c, "spawns"),
                   j_num(b, "failures"), j_num(b, "remaining_ms"));
        ap_rputs("<table><tr><th>pid</th><th>state</th><th>requests</th><th>age s</th>"
                 "<th>current URI</th><th>in it ms</th></tr>", r);
        for (k = 0; k < j_len(ws); k++) {
            const jv *w = j_at(ws, k);
            ap_rprintf(r, "<tr><td>%.0f</td><td>%s%s</td><td>%.0f</td><td>%.1f</td>"
                       "<td>%s</td><td>%s</td></tr>", j_num(w, "pid"),
                       esc(r, j_str(w, "state")), j_num(w, "retiring") ? " (retiring)" : "",
                       j_num(w, "requests"), j_num(w, "age_ms") / 1000,
                       esc(r, j_str(w, "uri")),
                       j_get(w, "busy_ms") ? apr_psprintf(r->pool, "%.0f", j_num(w, "busy_ms"))
                                           : "");
        }
        ap_rputs("</table><table><tr><th colspan=2>errors by cause</th></tr>", r);
        html_kv(r, j_get(c, "errors"));
        ap_rputs("</table><table><tr><th colspan=2>workers ended, by reason</th></tr>", r);
        html_kv(r, j_get(c, "deaths"));
        ap_rputs("</table><table><tr><th colspan=2>settings</th></tr>", r);
        html_kv(r, j_get(p, "settings"));
        ap_rputs("</table><table><tr><th>ended pid</th><th>reason</th><th>how</th>"
                 "<th>requests</th><th>s ago</th></tr>", r);
        for (k = 0; k < j_len(e); k++) {
            const jv *x = j_at(e, k);
            ap_rprintf(r, "<tr><td>%.0f</td><td>%s</td><td>%s</td><td>%.0f</td>"
                       "<td>%.1f</td></tr>", j_num(x, "pid"), esc(r, j_str(x, "reason")),
                       esc(r, j_str(x, "how")), j_num(x, "requests"),
                       j_num(x, "ago_ms") / 1000);
        }
        ap_rputs("</table>", r);
    }
    ap_rputs("</body></html>\n", r);
}

int cgiplus_status_handler(request_rec *r)
{
    cgiplus_conn *c = NULL;
    apr_status_t rv = APR_EGENERAL;
    char *json = NULL;
    apr_size_t len = 0;
    int attempt;
    jp j;
    jv *root;

    if (!r->handler || strcmp(r->handler, CGIPLUS_STATUS_HANDLER))
        return DECLINED;
    r->allowed |= (AP_METHOD_BIT << M_GET);
    if (r->method_number != M_GET)
        return HTTP_METHOD_NOT_ALLOWED;

    for (attempt = 0; attempt < 2; attempt++) {
        if ((rv = cgiplus_conn_acquire(r, attempt > 0, &c)) != APR_SUCCESS)
            break;
        rv = status_fetch(r, c, &json, &len);
        if (rv == APR_SUCCESS) {
            cgiplus_conn_release(c);
            break;
        }
        cgiplus_conn_close(c);
        if (!cgiplus_conn_is_dead(rv))
            break;
    }
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1601)
                      "cannot get the status of cgiplus-runner");
        apr_table_setn(r->err_headers_out, "Retry-After", "5");
        return HTTP_SERVICE_UNAVAILABLE;
    }
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    if (r->args && !strcmp(r->args, "json")) {
        ap_set_content_type(r, "application/json");
        if (!r->header_only)
            ap_rwrite(json, (int)len, r);
        return OK;
    }
    j.p = r->pool;
    j.s = json;
    j.end = json + len;
    j.depth = 0;
    if (!(root = j_value(&j)) || root->t != J_OBJ) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1602)
                      "the runner's status is not the JSON this module reads "
                      "(%" APR_SIZE_T_FMT " bytes)", len);
        return HTTP_BAD_GATEWAY;
    }
    if (r->args && !strcmp(r->args, "metrics"))
        render_metrics(r, root);
    else
        render_html(r, root);
    return OK;
}
