/* runner_hdr.c: the response header block of one request. Output is held
 * until the blank line ending the header (at most RUNNER_HDR_MAX bytes);
 * Script-Control lines are taken out and noted (WASD's directives), the
 * rest goes on. After the header, X-buffer-records coalesces output. */
#include "runner_hdr.h"
#include "runner_log.h"
#include "cgp_parse.h"

#include <string.h>
#include <strings.h>

static int ieq(const char *a, size_t alen, const char *b)
{
    return alen == strlen(b) && strncasecmp(a, b, alen) == 0;
}

/* Applies one directive; 1 when it is httpd's to apply (the line is left
 * in the header for it). */
static int directive(runner_hdr *h, const runner_hdr_sink *s, const char *d, size_t len)
{
    runner_ctl *c = &h->ctl;
    const char *eq = memchr(d, '=', len);
    size_t nlen = eq ? (size_t)(eq - d) : len;
    const char *val = eq ? eq + 1 : "";
    size_t vlen = eq ? len - nlen - 1 : 0;
    while (nlen && (d[nlen - 1] == ' ' || d[nlen - 1] == '\t'))
        nlen--;
    while (vlen && (*val == ' ' || *val == '\t'))
        val++, vlen--;
    int64_t v = eq ? cgp_parse_minutes(val, vlen) : -2;
    int httpd = 0;

    if (ieq(d, nlen, "no-abort"))
        c->no_abort = 1;
    else if (ieq(d, nlen, "X-stream-mode"))
        h->buffer_records = 0;
    else if (ieq(d, nlen, "X-buffer-records"))
        h->buffer_records = !(eq && vlen == 1 && *val == '0');
    else if (ieq(d, nlen, "X-lifetime") && v != -2)
        c->have_lifetime = 1, c->lifetime = v;
    else if (ieq(d, nlen, "X-timeout-output") && v != -2)
        c->have_tmo_output = 1, c->tmo_output = v;
    else if (ieq(d, nlen, "X-timeout-noprogress") && v != -2)
        c->have_tmo_noprogress = 1, c->tmo_noprogress = v;
    else if (ieq(d, nlen, "X-location-as-is") && !eq)
        httpd = 1; /* the module reads it: a 200's Location goes as it is */
    else {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2075) "worker pid %ld of %s: Script-Control "
                   "directive '%.*s' ignored", s->pid, s->script,
                   (int)(len > 60 ? 60 : len), d);
        return 0;
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2076) "worker pid %ld of %s: Script-Control %.*s",
               s->pid, s->script, (int)(len > 60 ? 60 : len), d);
    return httpd;
}

/* "Script-Control: a; b=c" (the name in any case): notes it and says 1,
 * or 2 when it holds a directive of httpd's (the line stays); 0: another
 * header. */
static int script_control(runner_hdr *h, const runner_hdr_sink *s, const char *line, size_t len)
{
    int ret = 1;
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
        size_t b = i;
        while (i < len && line[i] != ';' && line[i] != ',')
            i++;
        size_t e = i;
        while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t'))
            e--;
        if (e > b && directive(h, s, line + b, e - b))
            ret = 2;
    }
    return ret;
}

/* Sends d[0..end): complete lines filtered, the tail (if any) as it is. */
static void emit_header(runner_hdr *h, const runner_hdr_sink *s, const unsigned char *d,
                        size_t end)
{
    size_t pos = 0, keep = 0; /* d[keep..pos) is pending output */
    while (pos < end) {
        const unsigned char *nl = memchr(d + pos, '\n', end - pos);
        if (!nl)
            break;
        size_t next = (size_t)(nl - d) + 1, l = next - 1 - pos;
        if (l && d[pos + l - 1] == '\r')
            l--;
        if (l && script_control(h, s, (const char *)d + pos, l) == 1) {
            if (pos > keep)
                s->send(s->arg, d + keep, pos - keep);
            keep = next;
        }
        pos = next;
    }
    if (end > keep)
        s->send(s->arg, d + keep, end - keep);
}

static void records_flush(runner_hdr *h, const runner_hdr_sink *s)
{
    if (!cgp_buf_used(&h->recs))
        return;
    runner_buf tmp = h->recs; /* send may not re-enter, but be safe */
    memset(&h->recs, 0, sizeof(h->recs));
    s->send(s->arg, tmp.p + tmp.off, cgp_buf_used(&tmp));
    cgp_buf_free(&tmp);
}

static void body_out(runner_hdr *h, const runner_hdr_sink *s, const unsigned char *d, size_t len)
{
    if (!len)
        return;
    if (!h->buffer_records) {
        records_flush(h, s);
        s->send(s->arg, d, len);
        return;
    }
    if (cgp_buf_append(&h->recs, d, len) < 0) {
        records_flush(h, s);
        s->send(s->arg, d, len);
        return;
    }
    if (cgp_buf_used(&h->recs) >= RUNNER_RECORDS_MAX)
        records_flush(h, s);
}

/* The header block ends: what is held goes on, filtered. */
static void header_end(runner_hdr *h, const runner_hdr_sink *s, size_t end)
{
    runner_buf tmp = h->hdr;
    memset(&h->hdr, 0, sizeof(h->hdr));
    h->done = 1;
    if (end)
        emit_header(h, s, tmp.p + tmp.off, end);
    body_out(h, s, tmp.p + tmp.off + end, cgp_buf_used(&tmp) - end);
    cgp_buf_free(&tmp);
}

int runner_hdr_output(runner_hdr *h, const runner_hdr_sink *s, const unsigned char *d,
                      size_t len)
{
    if (h->done) {
        body_out(h, s, d, len);
        return 0;
    }
    if (cgp_buf_append(&h->hdr, d, len) < 0) {
        int ended = runner_hdr_flush(h, s); /* out of memory: pass it on unscanned */
        body_out(h, s, d, len);
        return ended;
    }
    const unsigned char *p = h->hdr.p + h->hdr.off;
    size_t used = cgp_buf_used(&h->hdr), pos = h->scan;
    while (pos < used) {
        const unsigned char *nl = memchr(p + pos, '\n', used - pos);
        if (!nl)
            break;
        size_t next = (size_t)(nl - p) + 1, l = next - 1 - pos;
        if (l && p[pos + l - 1] == '\r')
            l--;
        if (l == 0) { /* the blank line: the header block ends here */
            header_end(h, s, next);
            return 1;
        }
        pos = next;
    }
    h->scan = pos;
    if (used >= RUNNER_HDR_MAX)
        return runner_hdr_flush(h, s); /* no header block in sight: stop looking */
    return 0;
}

int runner_hdr_flush(runner_hdr *h, const runner_hdr_sink *s)
{
    int ended = !h->done;
    if (ended)
        header_end(h, s, cgp_buf_used(&h->hdr));
    records_flush(h, s);
    return ended;
}

void runner_hdr_free(runner_hdr *h)
{
    cgp_buf_free(&h->hdr);
    cgp_buf_free(&h->recs);
}
