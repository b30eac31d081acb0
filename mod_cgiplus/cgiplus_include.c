/* cgiplus_include.c: mod_include's exec element (<!--#exec cgi="..." -->
 * and <!--#exec cmd="..." -->), registered as mod_cgi and mod_cgid do, but
 * only when neither of them is loaded: where one is, its own handler stays
 * (an #exec cgi of a script in a CGIplusCompat scope still reaches the
 * runner, through the sub-request's handler).
 *
 * exec cgi runs the script as a sub-request through the runner, plain CGI
 * or persistent by its scope's CGIplusMode, seeing mod_cgi's environment
 * for an included request. exec cmd runs the command with /bin/sh from the
 * httpd child, exactly as mod_cgi does: a shell command line is no script
 * file a pool could keep (docs/cgi-compat.md). */
#include "cgiplus_conf.h"
#include "cgiplus_include.h"
#include "cgiplus_suexec.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_include.h"
#include "util_script.h"
#include "apr_optional.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* mod_include's parsers; set by the optional-function hook, for the life
 * of the process. */
static APR_OPTIONAL_FN_TYPE(ap_ssi_get_tag_and_value) *include_gtv;
static APR_OPTIONAL_FN_TYPE(ap_ssi_parse_string) *include_ps;

/* As mod_cgi: the script runs as a sub-request of the document, with the
 * document's path info and query string. Returns APR_EGENERAL for a URL
 * that is not a plain file without path info or query. */
static apr_status_t include_cgi(include_ctx_t *ctx, ap_filter_t *f,
                                apr_bucket_brigade *bb, const char *url)
{
    request_rec *r = f->r;
    request_rec *rr = ap_sub_req_lookup_uri(url, r, f->next);
    int status;

    if (rr->status != HTTP_OK || (rr->path_info && rr->path_info[0]) || rr->args ||
        rr->finfo.filetype != APR_REG) {
        ap_destroy_sub_req(rr);
        return APR_EGENERAL;
    }
    rr->path_info = r->path_info;
    rr->args = r->args;
    /* a CGI request whatever its type says; served by mod_cgiplus even
     * outside a CGIplusCompat scope, since no mod_cgi is there to do it */
#if AP_MODULE_MAGIC_AT_LEAST(20120211, 132)
    ap_set_content_type_ex(rr, CGI_MAGIC_TYPE, 1);
#else
    ap_set_content_type(rr, CGI_MAGIC_TYPE);
#endif
    apr_table_setn(rr->notes, CGIPLUS_INCLUDE_NOTE, "1");
    status = ap_run_sub_req(rr);
    if (ap_is_HTTP_REDIRECT(status)) {
        const char *location = apr_table_get(rr->headers_out, "Location");

        if (location) {
            const char *l = ap_escape_html(rr->pool, location);
            char *a = apr_pstrcat(ctx->pool, "<a href=\"", l, "\">", l, "</a>", NULL);

            APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_pool_create(a, strlen(a), ctx->pool,
                                                               f->c->bucket_alloc));
        }
    }
    ap_destroy_sub_req(rr);
    return APR_SUCCESS;
}

/* mod_cgi's extra variables for exec cmd. */
static void include_ssi_vars(request_rec *r)
{
    apr_table_t *e = r->subprocess_env;

    if (r->path_info && r->path_info[0]) {
        request_rec *pa;

        apr_table_setn(e, "PATH_INFO", ap_escape_shell_cmd(r->pool, r->path_info));
        pa = ap_sub_req_lookup_uri(ap_escape_uri(r->pool, r->path_info), r, NULL);
        if (pa->filename)
            apr_table_setn(e, "PATH_TRANSLATED",
                           apr_pstrcat(r->pool, pa->filename, pa->path_info, NULL));
        ap_destroy_sub_req(pa);
    }
    if (r->args) {
        char *a = apr_pstrdup(r->pool, r->args);

        apr_table_setn(e, "QUERY_STRING", r->args);
        ap_unescape_url(a);
        apr_table_setn(e, "QUERY_STRING_UNESCAPED", ap_escape_shell_cmd(r->pool, a));
    }
}

/* Runs command with /bin/sh -c in the document's directory; its output is
 * inserted as it comes, its stderr goes to the error log (as mod_cgi). */
static apr_status_t include_cmd(include_ctx_t *ctx, ap_filter_t *f,
                                apr_bucket_brigade *bb, const char *command)
{
    request_rec *r = f->r;
    core_dir_config *cd = ap_get_core_module_config(r->per_dir_config);
    const char *argv[2] = { command, NULL };
    apr_procattr_t *attr;
    apr_proc_t *proc = apr_pcalloc(r->pool, sizeof(*proc));
    apr_file_t *devnull;
    const char *sx = cgiplus_suexec_identity(r);
    apr_status_t rv;

    if (sx) {
        /* mod_cgi hands the command line to suexec, which takes it for a
         * program's name in the document's directory and refuses it: the
         * element inserts nothing. No shell as httpd's user here either. */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1323)
                      "exec cmd \"%s\" in %s not run: the document is under suEXEC (%s), "
                      "which runs no command lines; nothing inserted, as with mod_cgi",
                      command, r->filename, sx);
        return APR_SUCCESS;
    }
    include_ssi_vars(r);
    if ((rv = apr_procattr_create(&attr, r->pool)) != APR_SUCCESS ||
        (rv = apr_procattr_io_set(attr, APR_NO_PIPE, APR_FULL_BLOCK,
                                  APR_NO_PIPE)) != APR_SUCCESS ||
        (rv = apr_file_open(&devnull, "/dev/null", APR_FOPEN_READ, 0,
                            r->pool)) != APR_SUCCESS ||
        (rv = apr_procattr_child_in_set(attr, devnull, NULL)) != APR_SUCCESS ||
        (r->server->error_log &&
         (rv = apr_procattr_child_err_set(attr, r->server->error_log, NULL))
         != APR_SUCCESS) ||
        (rv = apr_procattr_dir_set(attr, ap_make_dirstr_parent(r->pool, r->filename)))
        != APR_SUCCESS ||
        (rv = apr_procattr_cmdtype_set(attr, APR_SHELLCMD)) != APR_SUCCESS ||
        (rv = apr_procattr_error_check_set(attr, 1)) != APR_SUCCESS)
        goto done;
#ifdef RLIMIT_CPU
    if (cd->limit_cpu)
        apr_procattr_limit_set(attr, APR_LIMIT_CPU, cd->limit_cpu);
#endif
#if defined(RLIMIT_AS) || defined(RLIMIT_DATA) || defined(RLIMIT_VMEM)
    if (cd->limit_mem)
        apr_procattr_limit_set(attr, APR_LIMIT_MEM, cd->limit_mem);
#endif
#ifdef RLIMIT_NPROC
    if (cd->limit_nproc)
        apr_procattr_limit_set(attr, APR_LIMIT_NPROC, cd->limit_nproc);
#endif
    rv = apr_proc_create(proc, command, argv,
                         (const char *const *)ap_create_environment(r->pool,
                                                                     r->subprocess_env),
                         attr, r->pool);
    if (rv != APR_SUCCESS)
        goto done;
    apr_pool_note_subprocess(r->pool, proc, APR_KILL_AFTER_TIMEOUT);
    apr_file_pipe_timeout_set(proc->out, r->server->timeout);
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_pipe_create(proc->out, f->c->bucket_alloc));
    ctx->flush_now = 1;
done:
    if (rv != APR_SUCCESS)
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1250)
                      "cannot run the command of an exec element in %s",
                      r->filename);
    return rv;
}

/* The exec element, checked as mod_cgi checks it. */
static apr_status_t include_exec(include_ctx_t *ctx, ap_filter_t *f,
                                 apr_bucket_brigade *bb)
{
    request_rec *r = f->r;
    char parsed[MAX_STRING_LEN];
    char *tag = NULL, *val = NULL;

    if (!ctx->argc)
        ap_log_rerror(APLOG_MARK, (ctx->flags & SSI_FLAG_PRINTING) ? APLOG_ERR
                      : APLOG_WARNING, 0, r, CGIPLUS_LOGNO(1251)
                      "missing argument for exec element in %s", r->filename);
    if (!(ctx->flags & SSI_FLAG_PRINTING))
        return APR_SUCCESS;
    if (!ctx->argc) {
        SSI_CREATE_ERROR_BUCKET(ctx, f, bb);
        return APR_SUCCESS;
    }
    if (ctx->flags & SSI_FLAG_NO_EXEC) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1252)
                      "exec used but not allowed in %s (Options IncludesNOEXEC)",
                      r->filename);
        SSI_CREATE_ERROR_BUCKET(ctx, f, bb);
        return APR_SUCCESS;
    }
    for (;;) {
        include_gtv(ctx, &tag, &val, SSI_VALUE_DECODED);
        if (!tag || !val)
            break;
        if (!strcmp(tag, "cmd")) {
            include_ps(ctx, val, parsed, sizeof(parsed), SSI_EXPAND_LEAVE_NAME);
            if (include_cmd(ctx, f, bb, parsed) != APR_SUCCESS) {
                SSI_CREATE_ERROR_BUCKET(ctx, f, bb); /* logged */
                break;
            }
        }
        else if (!strcmp(tag, "cgi")) {
            include_ps(ctx, val, parsed, sizeof(parsed), SSI_EXPAND_DROP_NAME);
            if (include_cgi(ctx, f, bb, parsed) != APR_SUCCESS) {
                ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1253)
                              "invalid CGI ref \"%s\" in %s (not a script file, "
                              "or with path info or a query)", val, r->filename);
                SSI_CREATE_ERROR_BUCKET(ctx, f, bb);
                break;
            }
        }
        else {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1254)
                          "unknown parameter \"%s\" to tag exec in %s", tag,
                          r->filename);
            SSI_CREATE_ERROR_BUCKET(ctx, f, bb);
            break;
        }
    }
    return APR_SUCCESS;
}

void cgiplus_include_retrieve(void)
{
    APR_OPTIONAL_FN_TYPE(ap_register_include_handler) *reg;

    /* mod_cgi/mod_cgid register their own: theirs stays. */
    if (cgiplus_cgi_module_loaded())
        return;
    reg = APR_RETRIEVE_OPTIONAL_FN(ap_register_include_handler);
    include_gtv = APR_RETRIEVE_OPTIONAL_FN(ap_ssi_get_tag_and_value);
    include_ps = APR_RETRIEVE_OPTIONAL_FN(ap_ssi_parse_string);
    if (reg && include_gtv && include_ps)
        reg("exec", include_exec);
}
