/* cgiplus_scriptlog.c: a log of failed script requests, like mod_cgi's
 * ScriptLog (same entry format), but set per directory or location. Each
 * file is opened once by the parent (as root, like ErrorLog) and inherited
 * by the children; an entry is assembled in memory and appended with one
 * write, so entries of concurrent requests never mix. */
#include "cgiplus_private.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "util_time.h"
#include "apr_hash.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

#define SLOG_DEFAULT_LENGTH 10385760 /* mod_cgi's ScriptLogLength default */
#define SLOG_DEFAULT_BUFFER 1024     /* mod_cgi's ScriptLogBuffer default */
#define SLOG_MAX_BUFFER     (1024 * 1024)
#define SLOG_STDERR_MAX     (64 * 1024) /* stderr kept per request */

/* One script log file; from pconf, lives one configuration generation. */
typedef struct slog_target {
    apr_file_t *file;          /* NULL until open_logs */
} slog_target;

/* The script log files of this configuration generation: path -> its
 * slog_target. Lives in pconf; children inherit it. */
static apr_hash_t *slog_files;

/* One request's capture, from r->pool; lives for the request. */
struct cgiplus_slog {
    apr_file_t *file;
    apr_off_t length;          /* write only while the file is smaller */
    apr_size_t buffer;         /* the most body bytes kept */
    char *body;
    apr_size_t body_len;
    char *err;                 /* stderr lines, "\n"-ended */
    apr_size_t err_len;
};

static apr_status_t slog_forget(void *unused)
{
    slog_files = NULL;
    return APR_SUCCESS;
}

const char *cgiplus_set_scriptlog(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;
    const char *path;

    if (!strcasecmp(arg, "none")) {
        dc->scriptlog = "";
        return NULL;
    }
    if (!*arg || !(path = ap_server_root_relative(cmd->pool, arg)))
        return apr_psprintf(cmd->pool, "%s: '%s' is not a valid path (or 'none')",
                            cmd->cmd->name, arg);
    if (!slog_files) {
        slog_files = apr_hash_make(cmd->pool);
        apr_pool_cleanup_register(cmd->pool, NULL, slog_forget,
                                  apr_pool_cleanup_null);
    }
    if (!apr_hash_get(slog_files, path, APR_HASH_KEY_STRING))
        apr_hash_set(slog_files, path, APR_HASH_KEY_STRING,
                     apr_pcalloc(cmd->pool, sizeof(slog_target)));
    dc->scriptlog = path;
    return NULL;
}

static const char *slog_number(cmd_parms *cmd, const char *arg, apr_off_t max,
                               apr_off_t *out)
{
    apr_off_t n;
    char *end;

    if (apr_strtoff(&n, arg, &end, 10) != APR_SUCCESS || *end || end == arg ||
        n < 0 || n > max)
        return apr_psprintf(cmd->pool, "%s takes a number of bytes from 0 to %"
                            APR_OFF_T_FMT ", not '%s'", cmd->cmd->name, max, arg);
    *out = n;
    return NULL;
}

const char *cgiplus_set_scriptlog_len(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;

    return slog_number(cmd, arg, APR_INT64_MAX, &dc->scriptlog_len);
}

const char *cgiplus_set_scriptlog_buf(cmd_parms *cmd, void *dcv, const char *arg)
{
    cgiplus_dir_conf *dc = dcv;

    return slog_number(cmd, arg, SLOG_MAX_BUFFER, &dc->scriptlog_buf);
}

const char *cgiplus_set_cgi_scriptlog(cmd_parms *cmd, void *dcv, const char *arg)
{
    static const char *(*const set[])(cmd_parms *, void *, const char *) = {
        cgiplus_set_scriptlog, cgiplus_set_scriptlog_len, cgiplus_set_scriptlog_buf
    };

    /* mod_cgi/mod_cgid get the directive too and open the file themselves,
     * as User: the parent must not create it first (as root). */
    if (cgiplus_cgi_module_loaded())
        return NULL;
    return set[(apr_uintptr_t)cmd->info](cmd, dcv, arg);
}

int cgiplus_scriptlog_open_logs(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s)
{
    apr_hash_index_t *hi;

    if (!slog_files)
        return OK;
    for (hi = apr_hash_first(ptemp, slog_files); hi; hi = apr_hash_next(hi)) {
        const void *key;
        void *val;
        slog_target *t;
        apr_status_t rv;

        apr_hash_this(hi, &key, NULL, &val);
        t = val;
        rv = apr_file_open(&t->file, key, APR_FOPEN_WRITE | APR_FOPEN_APPEND |
                           APR_FOPEN_CREATE, APR_FPROT_UREAD | APR_FPROT_UWRITE |
                           APR_FPROT_GREAD, pconf);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, rv, s,
                         CGIPLUS_LOGNO(1100) "mod_cgiplus cannot open the "
                         "script log '%s' (CGIplusScriptLog)", (const char *)key);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
    }
    return OK;
}

/* The open file of r's directory, NULL if it has no script log. */
static apr_file_t *slog_file(request_rec *r, const cgiplus_dir_conf *dc)
{
    slog_target *t;

    if (!dc->scriptlog || !*dc->scriptlog || !slog_files)
        return NULL;
    t = apr_hash_get(slog_files, dc->scriptlog, APR_HASH_KEY_STRING);
    return t ? t->file : NULL;
}

void cgiplus_scriptlog_start(cgiplus_req *q)
{
    request_rec *r = q->r;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    apr_file_t *f = slog_file(r, dc);
    struct cgiplus_slog *s;

    if (!f)
        return;
    s = apr_pcalloc(r->pool, sizeof(*s));
    s->file = f;
    s->length = dc->scriptlog_len >= 0 ? dc->scriptlog_len : SLOG_DEFAULT_LENGTH;
    s->buffer = dc->scriptlog_buf >= 0 ? (apr_size_t)dc->scriptlog_buf
                                       : SLOG_DEFAULT_BUFFER;
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

void cgiplus_scriptlog_stderr(cgiplus_req *q, const char *line, apr_size_t len)
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

void cgiplus_scriptlog_write(request_rec *r, cgiplus_req *q, int status,
                             const char *why)
{
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    struct cgiplus_slog *s = q ? q->slog : NULL;
    apr_file_t *f = s ? s->file : slog_file(r, dc);
    apr_off_t length = s ? s->length : dc->scriptlog_len >= 0 ? dc->scriptlog_len
                                                               : SLOG_DEFAULT_LENGTH;
    char date[APR_CTIME_LEN];
    apr_array_header_t *a;
    apr_finfo_t fi;
    apr_size_t raw_len = 0, written;
    const char *raw;
    apr_status_t rv;

    if (!f || (q && !s))
        return;
    if (q)
        status = cgiplus_fail_status(q, status);
    /* As mod_cgi: nothing more once the file has grown past its length. */
    if (apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS || fi.size > length)
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
}
