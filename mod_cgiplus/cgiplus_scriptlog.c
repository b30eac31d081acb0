/* cgiplus_scriptlog.c: a log of failed script requests, like mod_cgi's
 * ScriptLog (same entry format), but set per directory or location. As
 * mod_cgi does, the file is opened for each entry by the httpd child (as
 * User), appending and creating it, after a stat of the path: a log removed
 * or rotated away is made anew at the next failure, and the length limit
 * is measured on the file as it is now. An entry is assembled in memory
 * and appended with one write, so entries of concurrent requests never
 * mix. */
#include "cgiplus_conf.h"
#include "cgiplus_header.h"
#include "cgiplus_scriptlog.h"
#include "cgp_stderr.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "util_time.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* The defaults are mod_cgi's (include/cgp_settings.def). */
#define SLOG_STDERR_MAX     (64 * 1024) /* stderr kept per request */

/* One request's capture, from r->pool; lives for the request. */
struct cgiplus_slog {
    const char *path;          /* the log file (from the configuration) */
    apr_off_t length;          /* write only while the file is not larger */
    apr_size_t buffer;         /* the most body bytes kept */
    char *body;
    apr_size_t body_len;
    char *err;                 /* stderr lines, "\n"-ended */
    apr_size_t err_len;
};

const char *cgiplus_set_scriptlog(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *path;

    if (!strcasecmp(arg, "none"))
        return cgiplus_conf_store(cmd, dcv, CGP_S_SCRIPT_LOG, 0, NULL);
    /* Nothing is opened now: as mod_cgi, a path the children cannot write
     * only loses the entries (logged at debug, CGIPLUS1260). */
    if (!*arg || !(path = ap_server_root_relative(cmd->pool, arg)))
        return apr_psprintf(cmd->pool, "%s: '%s' is not a valid path (or 'none')",
                            cmd->cmd->name, arg);
    return cgiplus_conf_store(cmd, dcv, CGP_S_SCRIPT_LOG, 1, path);
}

/* ScriptLogLength and ScriptLogBuffer said as mod_cgi says them. */
static const char *slog_number(cmd_parms *cmd, void *dcv, cgp_setting_id id, const char *arg)
{
    apr_int64_t max = cgp_settings[id].max;
    apr_off_t n;
    char *end;

    if (apr_strtoff(&n, arg, &end, 10) != APR_SUCCESS || *end || end == arg ||
        n < 0 || n > max)
        return apr_psprintf(cmd->pool, "%s takes a number of bytes from 0 to %"
                            APR_INT64_T_FMT ", not '%s'", cmd->cmd->name, max, arg);
    return cgiplus_conf_store(cmd, dcv, id, n, NULL);
}

const char *cgiplus_set_scriptlog_len(cmd_parms *cmd, void *dcv, const char *arg)
{
    return slog_number(cmd, dcv, CGP_S_SCRIPT_LOG_LENGTH, arg);
}

const char *cgiplus_set_scriptlog_buf(cmd_parms *cmd, void *dcv, const char *arg)
{
    return slog_number(cmd, dcv, CGP_S_SCRIPT_LOG_BUFFER, arg);
}

const char *cgiplus_set_cgi_scriptlog(cmd_parms *cmd, void *dcv, const char *arg)
{
    static const char *(*const set[])(cmd_parms *, void *, const char *) = {
        cgiplus_set_scriptlog, cgiplus_set_scriptlog_len, cgiplus_set_scriptlog_buf
    };

    /* mod_cgi/mod_cgid get the directive too and write their own entries:
     * one directive, one writer. */
    if (cgiplus_cgi_module_loaded())
        return NULL;
    return set[(apr_uintptr_t)cmd->info](cmd, dcv, arg);
}

void cgiplus_scriptlog_start(cgiplus_req *q)
{
    request_rec *r = q->r;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    const char *path = cgiplus_conf_gets(dc, CGP_S_SCRIPT_LOG);
    struct cgiplus_slog *s;

    if (!path)
        return;
    s = apr_pcalloc(r->pool, sizeof(*s));
    s->path = path;
    s->length = cgiplus_conf_geti(dc, CGP_S_SCRIPT_LOG_LENGTH);
    s->buffer = (apr_size_t)cgiplus_conf_geti(dc, CGP_S_SCRIPT_LOG_BUFFER);
    q->slog = s;
}

void cgiplus_scriptlog_body(cgiplus_req *q, const char *data, apr_size_t len)
{
    struct cgiplus_slog *s = q->slog;

    if (s->body_len >= s->buffer)
        return;
    if (!s->body)
        s->body = apr_palloc(q->r->pool, s->buffer);
    if (len > s->buffer - s->body_len)
        len = s->buffer - s->body_len;
    memcpy(s->body + s->body_len, data, len);
    s->body_len += len;
}

/* Keeps a stderr line for the entry. */
static void slog_stderr(cgiplus_req *q, const char *line, apr_size_t len)
{
    struct cgiplus_slog *s = q->slog;

    if (s->err_len + len + 1 > SLOG_STDERR_MAX)
        return;
    if (!s->err)
        s->err = apr_palloc(q->r->pool, SLOG_STDERR_MAX);
    memcpy(s->err + s->err_len, line, len);
    s->err_len += len;
    s->err[s->err_len++] = '\n';
}

/* Logs a script's stderr, one error-log line per script line: each line is
 * one write to the log of the request's own virtual host, so lines of
 * concurrent scripts never mix inside a line. */
void cgiplus_script_stderr(cgiplus_req *q, const char *buf, apr_size_t len)
{
    const char *p = buf, *end = buf + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (apr_size_t)(end - p));
        const char *eol = nl ? nl : end;
        apr_size_t n = (apr_size_t)(eol - p);

        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (n > 0 || nl) {
            int lv = cgp_stderr_level(p, n);
            /* mod_fcgid logs an application's stderr at warn ("mod_fcgid:
             * stderr:"); mod_cgi at error */
            int level = lv == CGP_STDERR_INFO ? APLOG_INFO
                        : lv == CGP_STDERR_WARN || q->fcgid ? APLOG_WARNING : APLOG_ERR;

            if (q->worker_pid)
                ap_log_rerror(APLOG_MARK, level, 0, q->r, CGIPLUS_LOGNO(1050)
                              "stderr from %s (pid %lu): %.*s", q->r->filename,
                              (unsigned long)q->worker_pid, (int)n, p);
            else /* the runner did not say which process (it breaks the protocol) */
                ap_log_rerror(APLOG_MARK, level, 0, q->r, CGIPLUS_LOGNO(1052)
                              "stderr from %s: %.*s", q->r->filename, (int)n, p);
            if (q->slog)
                slog_stderr(q, p, n);
        }
        p = nl ? nl + 1 : end;
    }
}

/* The pieces of one entry, written with one writev. */
static void slog_push(apr_array_header_t *a, const char *p, apr_size_t len)
{
    struct iovec *v = &APR_ARRAY_PUSH(a, struct iovec);

    v->iov_base = (void *)p;
    v->iov_len = len;
}

static void slog_puts(apr_array_header_t *a, const char *p)
{
    slog_push(a, p, strlen(p));
}

static int slog_add_header(void *arr, const char *key, const char *val)
{
    apr_array_header_t *a = arr;

    slog_puts(a, apr_pstrcat(a->pool, key, ": ", val, "\n", NULL));
    return 1;
}

/* mod_cgi's open: the file as it is now, no entry once it is larger than
 * length; else opened (made if missing) for appending, as this process's
 * user, with the system's default mode. NULL: no entry. */
static apr_file_t *slog_open(request_rec *r, const char *path, apr_off_t length)
{
    apr_finfo_t fi;
    apr_file_t *f = NULL;
    apr_status_t rv;

    if (apr_stat(&fi, path, APR_FINFO_SIZE, r->pool) == APR_SUCCESS && fi.size > length)
        return NULL;
    rv = apr_file_open(&f, path, APR_FOPEN_APPEND | APR_FOPEN_WRITE | APR_FOPEN_CREATE,
                       APR_OS_DEFAULT, r->pool);
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r, CGIPLUS_LOGNO(1260)
                      "cannot open the script log '%s' for the failure of %s; no entry",
                      path, r->filename);
        return NULL;
    }
    return f;
}

void cgiplus_scriptlog_write(request_rec *r, cgiplus_req *q, int status,
                             const char *why)
{
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    struct cgiplus_slog *s = q ? q->slog : NULL;
    const char *path = s ? s->path : cgiplus_conf_gets(dc, CGP_S_SCRIPT_LOG);
    apr_off_t length = s ? s->length : cgiplus_conf_geti(dc, CGP_S_SCRIPT_LOG_LENGTH);
    char date[APR_CTIME_LEN];
    apr_array_header_t *a;
    apr_size_t raw_len = 0, written;
    const char *raw;
    apr_file_t *f;
    apr_status_t rv;

    if (!path || (q && !s))
        return;
    if (q)
        status = cgiplus_fail_status(q, status);
    if (!(f = slog_open(r, path, length)))
        return;
    a = apr_array_make(r->pool, 32, sizeof(struct iovec));
    apr_ctime(date, apr_time_now());
    slog_puts(a, apr_psprintf(r->pool, "%%%% [%s] %s %s%s%s %s\n%%%% %d %s\n",
                              date, r->method, r->uri, r->args ? "?" : "",
                              r->args ? r->args : "", r->protocol, status,
                              r->filename));
    if (!q) {
        /* refused before anything ran: mod_cgi's short form */
        slog_puts(a, apr_pstrcat(r->pool, "%error\n", why ? why : "", "\n", NULL));
    }
    else {
        slog_puts(a, "%request\n");
        apr_table_do(slog_add_header, a, r->headers_in, NULL);
        if (s->body_len) {
            slog_puts(a, "\n");
            slog_push(a, s->body, s->body_len);
            slog_puts(a, "\n");
        }
        slog_puts(a, "%response\n");
        apr_table_do(slog_add_header, a, r->headers_out, NULL);
        if (why)
            slog_puts(a, apr_pstrcat(r->pool, why, "\n", NULL));
        raw = cgiplus_header_raw(q, &raw_len);
        if (raw_len) {
            slog_puts(a, "%stdout\n");
            slog_push(a, raw, raw_len);
            if (raw[raw_len - 1] != '\n')
                slog_puts(a, "\n");
        }
        if (s->err_len) {
            slog_puts(a, "%stderr\n");
            slog_push(a, s->err, s->err_len);
        }
    }
    rv = apr_file_writev_full(f, (const struct iovec *)a->elts, (apr_size_t)a->nelts,
                              &written);
    if (rv != APR_SUCCESS)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, rv, r, CGIPLUS_LOGNO(1101)
                      "cannot write to the script log of %s", r->filename);
    apr_file_close(f);
}
