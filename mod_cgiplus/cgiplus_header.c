/* cgiplus_header.c: the script's CGI header block. Only the header bytes
 * are copied (into one bounded buffer); the bucket holding the end of the
 * header is split there, so the body stays in q->out as it came off the
 * wire. Each line is checked (malformed, folded, oversized) before httpd's
 * own scanner sees it, so Status, Location, Last-Modified and conditional
 * requests behave exactly as under mod_cgi. */
#include "cgiplus_conf.h"
#include "cgiplus_header.h"

#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "util_script.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* httpd's scanner reads a line into MAX_STRING_LEN - 1 bytes, newline and
 * NUL included: a longer line would be split into two headers. */
#define HDR_LINE_MAX      (MAX_STRING_LEN - 3)

/* CGIplusMaxHeaderSize: said as a number of bytes, as mod_cgi's sizes are. */
const char *cgiplus_set_max_header(cmd_parms *cmd, void *dcv, const char *arg)
{
    const cgp_setting *d = &cgp_settings[CGP_S_MAX_HEADER_SIZE];
    apr_off_t n;
    char *end;

    if (apr_strtoff(&n, arg, &end, 10) != APR_SUCCESS || *end || end == arg ||
        n < d->min || n > d->max)
        return apr_psprintf(cmd->pool, "CGIplusMaxHeaderSize takes a number of "
                            "bytes from %" APR_INT64_T_FMT " to %" APR_INT64_T_FMT ", not '%s'",
                            d->min, d->max, arg);
    return cgiplus_conf_store(cmd, dcv, CGP_S_MAX_HEADER_SIZE, n, NULL);
}

const char *cgiplus_header_raw(cgiplus_req *q, apr_size_t *len)
{
    *len = q->hdr_raw_len;
    return q->hdr_raw;
}

/* The collected header: starts small (most headers are), then 64 KiB (a
 * big one), then the limit at once: a pool frees nothing, so doubling
 * left the chain of all the halves, twice the block (2 MiB for a runaway
 * header at the 1 MiB bound); this way about one block. Pages of the last
 * step that are never written cost no memory. From r->pool; lives for the
 * request. */
typedef struct header_buf {
    char *p;
    apr_size_t len, cap, limit;
} header_buf;

#define HDR_FIRST_CAP 8192
#define HDR_SECOND_CAP 65536

/* Moves header bytes from q->out into hb until the empty line that ends
 * the header. Returns APR_SUCCESS with *done set when it is found, with
 * *done 0 when the output ended first or the limit was reached (hb->len
 * says which), or a runner I/O error. */
static apr_status_t header_collect(cgiplus_req *q, header_buf *hb, int *done)
{
    apr_size_t line = 0;
    apr_status_t rv = APR_SUCCESS;

    *done = 0;
    while (!*done && hb->len < hb->limit) {
        apr_bucket *b;
        const char *data;
        apr_size_t blen, k;

        if (APR_BRIGADE_EMPTY(q->out)) {
            if (q->ended)
                break;
            if ((rv = cgiplus_req_read(q)) != APR_SUCCESS)
                break;
            continue;
        }
        b = APR_BRIGADE_FIRST(q->out);
        if ((rv = apr_bucket_read(b, &data, &blen, APR_BLOCK_READ)) != APR_SUCCESS)
            break;
        for (k = 0; k < blen && hb->len < hb->limit && !*done; k++) {
            if (hb->len == hb->cap) {
                apr_size_t cap = hb->cap < HDR_SECOND_CAP && HDR_SECOND_CAP < hb->limit
                                 ? HDR_SECOND_CAP : hb->limit;
                char *p = apr_palloc(q->r->pool, cap + 1);

                memcpy(p, hb->p, hb->len);
                hb->p = p;
                hb->cap = cap;
            }
            hb->p[hb->len++] = data[k];
            if (data[k] != '\n')
                continue;
            /* "\n" or "\r\n" alone: the header is over. Where q is
             * served as mod_cgi would (a drop-in or engine scope) any run
             * of CRs before the "\n" too ("\r\r\n" from a CRLF-translating
             * output layer): httpd's scanner for mod_cgi and mod_cgid
             * (getsfunc_BRIGADE) drops every CR of a line. */
            if (hb->len - line == 1 || (hb->len - line == 2 && hb->p[line] == '\r'))
                *done = 1;
            else if (q->as_cgi) {
                apr_size_t j = line;

                while (j < hb->len - 1 && hb->p[j] == '\r')
                    j++;
                if (j == hb->len - 1)
                    *done = 1;
            }
            line = hb->len;
        }
        if (k < blen)
            apr_bucket_split(b, k); /* the rest is body: left as it is */
        apr_bucket_delete(b);
        q->out_len -= (apr_off_t)k;
    }
    return rv;
}

static int header_tchar(unsigned char c)
{
    return apr_isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Checks one line (no line end); NULL if it is a good header. Served as
 * mod_cgi (as_cgi), a line with a colon goes to httpd's scanner whatever
 * its name and value, as under mod_cgi: one that cannot be sent (a name
 * that is no token, a control character) is refused by httpd's header
 * filter after the scanner took the Status, so the 500 is mod_cgi's
 * ("Additionally, a 302 Found error..."), and HttpProtocolOptions Unsafe
 * lets through what it lets through there. A NUL, where mod_cgi's scanner
 * cuts the line, is refused (docs/cgi-compat.md). */
static const char *header_check(apr_pool_t *p, const char *s, apr_size_t len, int as_cgi)
{
    const char *colon = memchr(s, ':', len);
    int show = len > 40 ? 40 : (int)len; /* s is not NUL-ended */
    apr_size_t i;

    if (len > HDR_LINE_MAX)
        return apr_psprintf(p, "a header line of %" APR_SIZE_T_FMT " bytes is "
                            "longer than the %d httpd accepts", len, HDR_LINE_MAX);
    if (as_cgi && memchr(s, '\0', len))
        return apr_psprintf(p, "control character 0x00 in the header line '%.*s'",
                            show, s);
    if ((s[0] == ' ' || s[0] == '\t') && (!as_cgi || !colon))
        return apr_psprintf(p, "folded header line (obsolete line folding is "
                            "not accepted): '%.*s'", show, s);
    if (!colon)
        return apr_psprintf(p, "malformed header line (no colon): '%.*s'", show, s);
    if (as_cgi)
        return NULL;
    if (colon == s)
        return "malformed header line (empty name)";
    for (i = 0; s + i < colon; i++)
        if (!header_tchar((unsigned char)s[i]))
            return apr_psprintf(p, "malformed header name '%.*s'",
                                (int)(colon - s > 40 ? 40 : colon - s), s);
    for (i = (apr_size_t)(colon - s) + 1; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return apr_psprintf(p, "control character 0x%02x in the value of "
                                "header '%.*s'", c,
                                (int)(colon - s > 40 ? 40 : colon - s), s);
    }
    return NULL;
}

/* Checks the value of a Status line (after the colon): httpd's scanner
 * only logs an invalid one and sends it on ("HTTP/1.1 099", or 500 with the
 * script's body for "abc"), as mod_cgi does. Outside a drop-in scope the
 * script failed: a three-digit code from 200 to 599, then the end or a
 * space and a reason (a 1xx is interim, never a response's final status:
 * sent as one, the client reads the body as the next response). NULL if
 * it is good. */
static const char *header_check_status(apr_pool_t *p, const char *v, apr_size_t len)
{
    apr_size_t i = 0;

    while (i < len && (v[i] == ' ' || v[i] == '\t'))
        i++;
    if (len - i < 3 || !apr_isdigit(v[i]) || !apr_isdigit(v[i + 1]) ||
        !apr_isdigit(v[i + 2]) || v[i] < '2' || v[i] > '5' ||
        (len - i > 3 && v[i + 3] != ' '))
        return apr_psprintf(p, "invalid Status '%.*s' (a code from 200 to 599, "
                            "then an optional reason)",
                            len - i > 40 ? 40 : (int)(len - i), v + i);
    return NULL;
}

/* mod_cgi's scanner takes each line's Status as it comes to it, so when
 * it then fails (a malformed or overlong line, the output's end) httpd's
 * 500 keeps the script's status line where its code is 500 ("500 Oops",
 * "500 Unknown Reason" for a bare "500"), and after an internal redirect
 * (whose failure httpd answers without resetting the status) says
 * "Additionally, a 404 Not Found error...": the same for the complete
 * lines of buf (CRs dropped, as the scanner drops them) before the one
 * refused here, up to one the scanner would refuse. */
static void header_cgi_status(request_rec *r, const char *buf, apr_size_t len)
{
    const char *nl, *end = buf + len;

    while (buf < end && (nl = memchr(buf, '\n', (apr_size_t)(end - buf))) != NULL) {
        char *w = apr_palloc(r->pool, (apr_size_t)(nl - buf) + 1), *o = w, *v;

        for (; buf < nl; buf++)
            if (*buf != '\r')
                *o++ = *buf;
        *o = '\0';
        buf = nl + 1;
        /* where the scanner stops: no colon (before a NUL, which cuts
         * its line), or a line too long for it */
        if ((apr_size_t)(o - w) > HDR_LINE_MAX || (v = strchr(w, ':')) == NULL)
            return;
        *v++ = '\0';
        if (strcasecmp(w, "Status"))
            continue;
        while (apr_isspace(*v))
            v++;
        r->status = atoi(v);
        r->status_line = v;
    }
}

/* The lines handed to httpd's scanner, one per call. */
typedef struct header_lines {
    char *next, *end;
} header_lines;

static int header_getsfunc(char *w, int wlen, void *arg)
{
    header_lines *hl = arg;
    char *nl;
    apr_size_t n;

    if (hl->next >= hl->end)
        return 0;
    nl = memchr(hl->next, '\n', (apr_size_t)(hl->end - hl->next));
    n = nl ? (apr_size_t)(nl - hl->next) + 1 : (apr_size_t)(hl->end - hl->next);
    if (n > (apr_size_t)wlen - 1) /* cannot happen: lines are checked */
        n = (apr_size_t)wlen - 1;
    memcpy(w, hl->next, n);
    w[n] = '\0';
    hl->next += n;
    return 1;
}

int cgiplus_header_scan(cgiplus_req *q, const char **why, apr_status_t *io)
{
    request_rec *r = q->r;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    apr_size_t limit = (apr_size_t)cgiplus_conf_geti(dc, CGP_S_MAX_HEADER_SIZE), len, i, start;
    char *buf, *clean, *out;
    char sbuf[MAX_STRING_LEN];
    header_buf hb;
    header_lines hl;
    apr_status_t rv;
    int done, ret;

    *why = NULL;
    *io = APR_SUCCESS;
    hb.limit = limit;
    hb.cap = limit < HDR_FIRST_CAP ? limit : HDR_FIRST_CAP;
    hb.p = apr_palloc(r->pool, hb.cap + 1);
    hb.len = 0;
    rv = header_collect(q, &hb, &done);
    buf = hb.p;
    len = hb.len;
    buf[len] = '\0';
    q->hdr_raw = buf;
    q->hdr_raw_len = len;
    if (rv != APR_SUCCESS) {
        *io = rv;
        *why = "lost the runner while reading the header";
        return APR_STATUS_IS_TIMEUP(rv) ? HTTP_GATEWAY_TIME_OUT : HTTP_BAD_GATEWAY;
    }
    if (!done && len >= limit) {
        *why = apr_psprintf(r->pool, "the header is larger than CGIplusMaxHeaderSize "
                            "(%" APR_SIZE_T_FMT " bytes)", limit);
        return HTTP_BAD_GATEWAY;
    }
    if (!done) {
        /* a script the runner ended (crashed, timed out) gets the note
         * of that end, made with its status */
        if (!q->ended || q->end.outcome == CGP_O_OK)
            cgiplus_req_error_notes(q, len ? "Premature end of script headers"
                                           : "End of script output before headers", NULL, 0);
        if (q->as_cgi)
            header_cgi_status(r, buf, len);
        *why = apr_psprintf(r->pool, "Premature end of script headers (the output "
                            "ended after %" APR_SIZE_T_FMT " byte%s, before the "
                            "empty line)", len, CGIPLUS_S(len));
        return HTTP_BAD_GATEWAY;
    }

    /* Check every line, and hand the scanner "line\n" without CRs: in
     * place (a line never grows) unless the script log may want the bytes
     * as they came. */
    clean = out = cgiplus_conf_gets(dc, CGP_S_SCRIPT_LOG) ? apr_palloc(r->pool, len + 1) : buf;
    for (start = 0, i = 0; i < len; i++) {
        apr_size_t l;
        char *ls = out;

        if (buf[i] != '\n')
            continue;
        l = i - start;
        if (q->as_cgi) {
            /* As httpd's scanner for mod_cgi and mod_cgid
             * (getsfunc_BRIGADE): every CR of the line is dropped, so
             * "X: v\r\r\n" (Perl's :crlf layer) and a stray CR in a
             * value are accepted as mod_cgid accepts them. */
            apr_size_t j;

            for (j = start; j < i; j++)
                if (buf[j] != '\r')
                    *out++ = buf[j];
            l = (apr_size_t)(out - ls);
            out = ls;
        }
        else {
            if (l > 0 && buf[start + l - 1] == '\r')
                l--;
            memmove(ls, buf + start, l);
        }
        if (l > 0) {
            if ((*why = header_check(r->pool, ls, l, q->as_cgi)) != NULL) {
                cgiplus_req_error_notes(q, "malformed header", ls, l);
                /* (a NUL: mod_cgi's scanner takes the line, cut there) */
                if (q->as_cgi && !memchr(ls, '\0', l))
                    header_cgi_status(r, clean, (apr_size_t)(ls - clean));
                return HTTP_BAD_GATEWAY;
            }
            if (!q->as_cgi && l >= 7 && !strncasecmp(ls, "Status:", 7) &&
                (*why = header_check_status(r->pool, ls + 7, l - 7)) != NULL)
                return HTTP_BAD_GATEWAY;
            out += l;
        }
        *out++ = '\n';
        start = i + 1;
    }
    hl.next = clean;
    hl.end = out;
    sbuf[0] = '\0';
    ret = ap_scan_script_header_err_core_ex(r, sbuf, header_getsfunc, &hl,
                                            APLOG_MODULE_INDEX);
    if (ret == HTTP_INTERNAL_SERVER_ERROR) {
        /* e.g. an invalid Status; the scanner logged its own line */
        *why = apr_psprintf(r->pool, "httpd's scanner refused the header%s%.64s",
                            sbuf[0] ? ": " : "", sbuf);
        return HTTP_BAD_GATEWAY;
    }
    return ret;
}

/* "HTTP/1.1 200": the shortest status line start. */
#define NPH_PEEK 12

int cgiplus_header_nph(cgiplus_req *q, const char **why, apr_status_t *io)
{
    char *p = apr_palloc(q->r->pool, NPH_PEEK + 1);
    apr_size_t len = NPH_PEEK;
    apr_status_t rv = APR_SUCCESS;

    *why = NULL;
    *io = APR_SUCCESS;
    while (q->out_len < NPH_PEEK && !q->ended && rv == APR_SUCCESS)
        rv = cgiplus_req_read(q);
    if (rv != APR_SUCCESS) {
        *io = rv;
        *why = "lost the runner while reading the status line";
        return APR_STATUS_IS_TIMEUP(rv) ? HTTP_GATEWAY_TIME_OUT : HTTP_BAD_GATEWAY;
    }
    /* Copies the first bytes; the brigade keeps them for the client. */
    apr_brigade_flatten(q->out, p, &len);
    p[len] = '\0';
    q->hdr_raw = p;
    q->hdr_raw_len = len;
    if (len == NPH_PEEK && !memcmp(p, "HTTP/", 5) && apr_isdigit(p[5]) && p[6] == '.' &&
        apr_isdigit(p[7]) && p[8] == ' ' && apr_isdigit(p[9]) && apr_isdigit(p[10]) &&
        apr_isdigit(p[11]))
        return OK;
    /* Sent raw (as mod_cgi would), it would reach the client as an
     * HTTP/0.9 response: refused as any malformed output. */
    *why = apr_psprintf(q->r->pool, "an nph- script must start its output with an "
                        "HTTP status line, not '%s'", ap_escape_logitem(q->r->pool, p));
    return HTTP_BAD_GATEWAY;
}
