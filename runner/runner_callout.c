/* runner_callout.c: answers the callouts a worker writes between its
 * CGIPLUSESC and CGIPLUSEOT lines (docs/PROTOCOL.md, "Callouts"). The
 * answers go back on CGIPLUSIN, one line per request line. */
#include "runner.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* "none" -> -1, decimal minutes -> value, anything else -> -2. */
static int parse_minutes(const char *p, size_t len)
{
    int v = 0;
    if (len == 4 && strncasecmp(p, "none", 4) == 0)
        return -1;
    if (len == 0 || len > 6)
        return -2;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -2;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

static int kw_is(const char *kw, size_t klen, const char *want)
{
    return klen == strlen(want) && strncasecmp(kw, want, klen) == 0;
}

static void say_minutes(char *ans, size_t cap, const char *what, int v)
{
    if (v < 0)
        snprintf(ans, cap, "200 %s none", what);
    else
        snprintf(ans, cap, "200 %s %d", what, v);
}

void runner_callout_line(runner_worker *w, const unsigned char *line, size_t len, int too_long)
{
    char ans[128];
    int answer = 1;

    if (len && (line[0] == '!' || line[0] == '#')) { /* asks for no answer */
        answer = 0;
        line++;
        len--;
    }
    if (too_long) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2031) "worker pid %ld of %s wrote a callout "
                   "line over %u bytes; ignored", (long)w->pid, w->pool->script, RUNNER_LINE_MAX);
        if (answer)
            runner_worker_reply(w, "400 callout line too long");
        return;
    }
    if (len == 0)
        return; /* a blank line asks nothing */

    const char *kw = (const char *)line, *par = "";
    const char *colon = memchr(kw, ':', len);
    size_t klen = colon ? (size_t)(colon - kw) : len, plen = 0;
    if (colon) {
        par = colon + 1;
        plen = len - klen - 1;
        while (plen && (*par == ' ' || *par == '\t'))
            par++, plen--;
        while (plen && (par[plen - 1] == ' ' || par[plen - 1] == '\t'))
            plen--;
    }
    while (klen && (kw[klen - 1] == ' ' || kw[klen - 1] == '\t'))
        klen--;

    if (kw_is(kw, klen, "NOOP")) {
        snprintf(ans, sizeof(ans), "200 NOOP");
    } else if (kw_is(kw, klen, "LOG")) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2032) "%s (pid %ld) says: %.*s",
                   w->pool->script, (long)w->pid, (int)plen, par);
        snprintf(ans, sizeof(ans), "200 logged");
    } else if (kw_is(kw, klen, "LIFETIME") || kw_is(kw, klen, "TIMEOUT-OUTPUT") ||
               kw_is(kw, klen, "TIMEOUT-NOPROGRESS")) {
        int v = parse_minutes(par, plen);
        if (v == -2) {
            snprintf(ans, sizeof(ans), "400 %.*s wants minutes or none", (int)(klen > 40 ? 40 : klen), kw);
        } else if (kw_is(kw, klen, "LIFETIME")) {
            w->lifetime = v;
            say_minutes(ans, sizeof(ans), "lifetime", v);
        } else if (!w->req) {
            snprintf(ans, sizeof(ans), "400 no request is active");
        } else if (kw_is(kw, klen, "TIMEOUT-OUTPUT")) {
            w->req->timeout_output = v;
            say_minutes(ans, sizeof(ans), "timeout-output", v);
        } else {
            w->req->timeout_noprogress = v;
            say_minutes(ans, sizeof(ans), "timeout-noprogress", v);
        }
    } else if (kw_is(kw, klen, "MAP-PATH")) {
        snprintf(ans, sizeof(ans), "501 MAP-PATH not available");
    } else if (kw_is(kw, klen, "CGIPLUS")) {
        if (plen == 6 && strncasecmp(par, "struct", 6) == 0) {
            w->struct_mode = 1;
            snprintf(ans, sizeof(ans), "200 struct");
        } else if (plen == 6 && strncasecmp(par, "record", 6) == 0) {
            w->struct_mode = 0;
            snprintf(ans, sizeof(ans), "200 record");
        } else {
            snprintf(ans, sizeof(ans), "400 CGIPLUS wants struct or record");
        }
    } else {
        snprintf(ans, sizeof(ans), "400 unknown callout %.*s", (int)(klen > 40 ? 40 : klen), kw);
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2033) "worker pid %ld callout %.*s -> %s",
               (long)w->pid, (int)(klen > 40 ? 40 : klen), kw, answer ? ans : "(no answer)");
    if (answer)
        runner_worker_reply(w, ans);
}
