/* cgiplus_direct_callout.c: what a script asks of the direct path: its
 * callouts (answered on CGIPLUSIN) and its Script-Control header. */
#include "cgiplus_direct_private.h"
#include "cgiplus_callout.h"

#include <string.h>

#include "http_log.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

#define DIRECT_ANSWERS_MAX (64 * 1024)  /* callout answers the script has not taken */

/* Queues one answer line for CGIPLUSIN; nonzero if there is no room: the
 * script does not read them. */
static int direct_answer(cgiplus_req *q, const char *text)
{
    cgiplus_direct *x = direct_x(q);
    apr_size_t n = strlen(text), pend = x->in_len - x->in_off;

    if (pend + n + 1 > DIRECT_ANSWERS_MAX) {
        if (!x->broken)
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, q->r, CGIPLUS_LOGNO(1704)
                          "script %s (worker pid %lu) does not read its callout answers "
                          "(%" APR_SIZE_T_FMT " bytes pending); it will be stopped",
                          q->r->filename, (unsigned long)x->ch->pid, pend);
        x->broken = 1;
        return 1; /* its request fails now: 502, the worker is stopped */
    }
    if (x->in_off > 0 && x->in_off == x->in_len)
        x->in_off = x->in_len = 0;
    if (x->in_len + n + 1 > x->in_cap) {
        apr_size_t cap = (x->in_len - x->in_off + n + 1) * 2 + 256;
        char *b = apr_palloc(q->r->pool, cap);

        memcpy(b, x->in + x->in_off, x->in_len - x->in_off);
        x->in_len -= x->in_off;
        x->in_off = 0;
        x->in = b;
        x->in_cap = cap;
    }
    memcpy(x->in + x->in_len, text, n);
    x->in[x->in_len + n] = '\n';
    x->in_len += n + 1;
    return 0;
}

/* Durations are read by cgp_parse_minutes, as the runner reads them. */
static const char *direct_say_time(cgiplus_req *q, const char *what, apr_int64_t v)
{
    if (v < 0)
        return apr_psprintf(q->r->pool, "200 %s none", what);
    if (v == 0)
        return apr_psprintf(q->r->pool, "200 %s default", what);
    return apr_psprintf(q->r->pool, "200 %s %" APR_INT64_T_FMT " ms", what, v);
}

int cgiplus_direct_callout(cgiplus_req *q, const unsigned char *line, apr_size_t len,
                           int too_long)
{
    cgiplus_direct *x = direct_x(q);
    const char *kw, *par, *ans;
    apr_size_t klen, plen;
    cgp_callout c;
    int want;

    cgp_callout_split(line, len, &c);
    want = c.want;
    if (too_long)
        return want > 0 ? direct_answer(q, "400 callout line too long") : 0;
    if (want < 0 || len == (apr_size_t)(want == 0))
        return 0; /* a comment, or a blank line: it asks nothing */
    line = (const unsigned char *)c.kw; /* what follows a '!' */
    len -= want == 0;
    kw = c.kw;
    klen = c.klen;
    par = c.par;
    plen = c.plen;
    if (cgp_callout_is(&c, "NOOP")) {
        ans = "200 NOOP";
    }
    else if (cgp_callout_is(&c, "LOG") || cgp_callout_is(&c, "WATCH") ||
             cgp_callout_is(&c, "MAP-PATH") || cgp_callout_is(&c, "MAP-FILE") ||
             cgp_callout_is(&c, "AUTH-FILE")) {
        int log = cgp_callout_is(&c, "LOG");

        if ((log || cgp_callout_is(&c, "WATCH")) && ++x->logs > DIRECT_LOG_MAX)
            /* counted once at the end */
            ans = log ? "429 LOG dropped (rate limit)" : "429 WATCH dropped (rate limit)";
        else if (memchr(line, '\r', len) || memchr(line, '\0', len))
            /* as the runner answers it: never a cut name */
            ans = "400 a callout line httpd answers may not hold a CR or NUL byte";
        else
            ans = cgiplus_callout_answer(q->r, apr_pstrmemdup(q->r->pool, (const char *)line,
                                                                 len));
    }
    else if (cgp_callout_is(&c, "LIFETIME") || cgp_callout_is(&c, "TIMEOUT-OUTPUT") ||
             cgp_callout_is(&c, "TIMEOUT-NOPROGRESS")) {
        apr_int64_t v = cgp_parse_minutes(par, plen);

        if (v == -2) {
            ans = apr_psprintf(q->r->pool, "400 %.*s wants minutes, 0 or none",
                               (int)(klen > 40 ? 40 : klen), kw);
        }
        else if (cgp_callout_is(&c, "LIFETIME")) {
            atomic_store(&x->slot->lifetime, v);
            x->lifetime_set = 1;
            ans = direct_say_time(q, "lifetime", v);
        }
        else if (cgp_callout_is(&c, "TIMEOUT-OUTPUT")) {
            x->over_out = v;
            ans = direct_say_time(q, "timeout-output", v);
        }
        else {
            x->over_np = v;
            ans = direct_say_time(q, "timeout-noprogress", v);
        }
    }
    else if (cgp_callout_is(&c, "RETIRE")) {
        /* handed back to the runner after this request, which stops it */
        atomic_fetch_or(&x->slot->flags, CGP_TS_RETIRE);
        ans = "200 retire";
    }
    else if (cgp_callout_is(&c, "CGIPLUS")) {
        if (plen == 6 && !strncasecmp(par, "struct", 6)) {
            atomic_fetch_or(&x->slot->flags, CGP_TS_STRUCT);
            ans = "200 struct";
        }
        else if (plen == 6 && !strncasecmp(par, "record", 6)) {
            atomic_fetch_and(&x->slot->flags, ~CGP_TS_STRUCT);
            ans = "200 record";
        }
        else {
            ans = "400 CGIPLUS wants struct or record";
        }
    }
    else {
        ans = apr_psprintf(q->r->pool, "400 unknown callout %.*s",
                           (int)(klen > 40 ? 40 : klen), kw);
    }
    return want > 0 ? direct_answer(q, ans) : 0;
}

/* Script-Control (WASD's directives) from the parsed header. */
void cgiplus_direct_script_control(cgiplus_req *q)
{
    const char *v = apr_table_get(q->r->headers_out, "Script-Control");
    cgiplus_direct *x = direct_x(q);
    char *copy, *tok, *last;

    if (!v)
        v = apr_table_get(q->r->err_headers_out, "Script-Control");
    if (!v)
        return;
    copy = apr_pstrdup(q->r->pool, v);
    for (tok = apr_strtok(copy, ";,", &last); tok; tok = apr_strtok(NULL, ";,", &last)) {
        char *eq, *val = "";
        apr_int64_t m;

        while (*tok == ' ' || *tok == '\t')
            tok++;
        if ((eq = strchr(tok, '='))) {
            *eq = '\0';
            for (val = eq + 1; *val == ' ' || *val == '\t'; val++)
                ;
        }
        apr_collapse_spaces(tok, tok);
        m = eq ? cgp_parse_minutes(val, strcspn(val, " \t")) : -2;
        if (!strcasecmp(tok, "no-abort"))
            x->no_abort = 1;
        else if (!strcasecmp(tok, "X-lifetime") && m != -2) {
            atomic_store(&x->slot->lifetime, m);
            x->lifetime_set = 1;
        }
        else if (!strcasecmp(tok, "X-timeout-output") && m != -2)
            x->over_out = m;
        else if (!strcasecmp(tok, "X-timeout-noprogress") && m != -2)
            x->over_np = m;
    }
}
