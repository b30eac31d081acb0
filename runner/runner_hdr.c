/* runner_hdr.c: the response header block of one request. Output is held
 * until the blank line ending the header (at most RUNNER_HDR_MAX bytes);
 * Script-Control lines are taken out and applied (WASD's directives), the
 * rest goes on. After the header, X-buffer-records coalesces output. */
#include "runner.h"

#include <string.h>
#include <strings.h>

static int ieq(const char *a, size_t alen, const char *b)
{
    return alen == strlen(b) && strncasecmp(a, b, alen) == 0;
}

static void directive(runner_worker *w, const char *d, size_t len)
{
    runner_req *r = w->req;
    const char *eq = memchr(d, '=', len);
    size_t nlen = eq ? (size_t)(eq - d) : len;
    const char *val = eq ? eq + 1 : "";
    size_t vlen = eq ? len - nlen - 1 : 0;
    while (nlen && (d[nlen - 1] == ' ' || d[nlen - 1] == '\t'))
        nlen--;
    while (vlen && (*val == ' ' || *val == '\t'))
        val++, vlen--;
    int64_t v = eq ? runner_parse_minutes(val, vlen) : -2;

    if (ieq(d, nlen, "no-abort"))
        r->no_abort = 1;
    else if (ieq(d, nlen, "X-stream-mode"))
        r->buffer_records = 0;
    else if (ieq(d, nlen, "X-buffer-records"))
        r->buffer_records = !(eq && vlen == 1 && *val == '0');
    else if (ieq(d, nlen, "X-lifetime") && v != -2)
        runner_worker_set_lifetime(w, v);
    else if (ieq(d, nlen, "X-timeout-output") && v != -2)
        r->tmo_output = v;
    else if (ieq(d, nlen, "X-timeout-noprogress") && v != -2)
        r->tmo_noprogress = v;
    else {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2075) "worker pid %ld of %s: Script-Control "
                   "directive '%.*s' ignored", (long)w->pid, w->pool->script,
                   (int)(len > 60 ? 60 : len), d);
        return;
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2076) "worker pid %ld of %s: Script-Control %.*s",
               (long)w->pid, w->pool->script, (int)(len > 60 ? 60 : len), d);
}

/* "Script-Control: a; b=c" (the name in any case): applies and says 1. */
static int script_control(runner_worker *w, const char *line, size_t len)
{
    static const char name[] = "Script-Control";
    size_t n = sizeof(name) - 1, i = n;
    if (len < n || strncasecmp(line, name, n) != 0)
        return 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= len || line[i] != ':')
        return 0;
    for (i++; i < len;) {
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == ';' || line[i] == ','))
            i++;
        size_t s = i;
        while (i < len && line[i] != ';' && line[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (line[e - 1] == ' ' || line[e - 1] == '\t'))
            e--;
        if (e > s)
            directive(w, line + s, e - s);
    }
    return 1;
}

/* Sends h[0..end): complete lines filtered, the tail (if any) as it is. */
static void emit_header(runner_worker *w, const unsigned char *h, size_t end)
{
    size_t pos = 0, keep = 0; /* h[keep..pos) is pending output */
    while (pos < end) {
        const unsigned char *nl = memchr(h + pos, '\n', end - pos);
        if (!nl)
            break;
        size_t next = (size_t)(nl - h) + 1, l = next - 1 - pos;
        if (l && h[pos + l - 1] == '\r')
            l--;
        if (l && script_control(w, (const char *)h + pos, l)) {
            if (pos > keep)
                runner_worker_send(w, h + keep, pos - keep);
            keep = next;
        }
        pos = next;
    }
    if (end > keep)
        runner_worker_send(w, h + keep, end - keep);
}

static void records_flush(runner_worker *w)
{
    runner_req *r = w->req;
    if (!r || !runner_buf_used(&r->recs))
        return;
    runner_buf tmp = r->recs; /* send may not re-enter, but be safe */
    memset(&r->recs, 0, sizeof(r->recs));
    runner_worker_send(w, tmp.p + tmp.off, runner_buf_used(&tmp));
    runner_buf_free(&tmp);
}

static void body_out(runner_worker *w, const unsigned char *d, size_t len)
{
    runner_req *r = w->req;
    if (!len)
        return;
    if (!r->buffer_records) {
        records_flush(w);
        runner_worker_send(w, d, len);
        return;
    }
    if (runner_buf_append(&r->recs, d, len) < 0) {
        records_flush(w);
        runner_worker_send(w, d, len);
        return;
    }
    if (runner_buf_used(&r->recs) >= RUNNER_RECORDS_MAX)
        records_flush(w);
}

void runner_hdr_output(runner_worker *w, const unsigned char *d, size_t len)
{
    runner_req *r = w->req;
    if (!r)
        return;
    if (r->hdr_done) {
        body_out(w, d, len);
        return;
    }
    if (runner_buf_append(&r->hdr, d, len) < 0) {
        runner_hdr_flush(w); /* out of memory: pass it on unscanned */
        body_out(w, d, len);
        return;
    }
    const unsigned char *h = r->hdr.p + r->hdr.off;
    size_t used = runner_buf_used(&r->hdr), pos = r->hdr_scan;
    while (pos < used) {
        const unsigned char *nl = memchr(h + pos, '\n', used - pos);
        if (!nl)
            break;
        size_t next = (size_t)(nl - h) + 1, l = next - 1 - pos;
        if (l && h[pos + l - 1] == '\r')
            l--;
        if (l == 0) { /* the blank line: the header block ends here */
            runner_buf tmp = r->hdr;
            memset(&r->hdr, 0, sizeof(r->hdr));
            r->hdr_done = 1;
            emit_header(w, tmp.p + tmp.off, next);
            if (w->req == r)
                body_out(w, tmp.p + tmp.off + next, used - next);
            runner_buf_free(&tmp);
            runner_worker_rearm(w);
            return;
        }
        pos = next;
    }
    r->hdr_scan = pos;
    if (used >= RUNNER_HDR_MAX)
        runner_hdr_flush(w); /* no header block in sight: stop looking */
}

void runner_hdr_flush(runner_worker *w)
{
    runner_req *r = w->req;
    if (!r)
        return;
    if (!r->hdr_done) {
        runner_buf tmp = r->hdr;
        memset(&r->hdr, 0, sizeof(r->hdr));
        r->hdr_done = 1;
        if (runner_buf_used(&tmp))
            emit_header(w, tmp.p + tmp.off, runner_buf_used(&tmp));
        runner_buf_free(&tmp);
        runner_worker_rearm(w);
    }
    records_flush(w);
}
