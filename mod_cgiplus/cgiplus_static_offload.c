/* cgiplus_static_offload.c: a script answers with "X-CGIplus-File: /path"
 * (the X-Sendfile idea) and the static fast path sends that file, with the
 * script's status and other headers. Only files under a CGIplusOffloadRoot
 * directory are sent, resolved like any static file (no '..', no symlink
 * out of the root). */
#include "cgiplus_static_private.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* The offload root path lies in (longest match); *rel is the rest. */
static cgiplus_static_mount *offload_root(request_rec *r, const char *path,
                                          const char **rel)
{
    const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(r->server);
    cgiplus_static_mount *best = NULL;
    apr_size_t n = 0;
    int i;

    if (!c)
        return NULL;
    for (i = 0; i < c->offload->nelts; i++) {
        cgiplus_static_mount *m = APR_ARRAY_IDX(c->offload, i, cgiplus_static_mount *);
        apr_size_t len = strlen(m->dir);

        if (!strncmp(path, m->dir, len) && path[len] == '/' && (!best || len > n)) {
            best = m;
            n = len;
        }
    }
    if (best)
        *rel = path + n + 1;
    return best;
}

int cgiplus_static_offload_own(request_rec *r)
{
    const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(r->server);
    int i;

    for (i = 0; c && i < c->offload->nelts; i++) {
        if (APR_ARRAY_IDX(c->offload, i, cgiplus_static_mount *)->server == r->server)
            return 1;
    }
    return 0;
}

int cgiplus_static_offload(request_rec *r, const char *hdr)
{
    char *path = apr_pstrdup(r->pool, hdr);
    cgiplus_static_mount *m;
    const char *rel;

    if (path[0] != '/' || !ap_normalize_path(path, AP_NORMALIZE_NOT_ABOVE_ROOT |
                                                   AP_NORMALIZE_MERGE_SLASHES)) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1540)
                      "script %s answered " CGIPLUS_OFFLOAD_HEADER " '%s', which "
                      "is not an absolute path; answering 502", r->filename, hdr);
        return HTTP_BAD_GATEWAY;
    }
    if (!(m = offload_root(r, path, &rel))) {
        const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(r->server);

        if (!c || c->offload->nelts == 0)
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1542)
                          "script %s answered " CGIPLUS_OFFLOAD_HEADER " %s, but no "
                          "CGIplusOffloadRoot is configured for this server; "
                          "answering 403", r->filename, path);
        else
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1541)
                          "script %s answered " CGIPLUS_OFFLOAD_HEADER " %s, which "
                          "is outside every CGIplusOffloadRoot; answering 403",
                          r->filename, path);
        return HTTP_FORBIDDEN;
    }
    /* The file's validators, not the script's. */
    apr_table_unset(r->headers_out, "Last-Modified");
    apr_table_unset(r->headers_out, "ETag");
    r->mtime = 0;
    return cgiplus_static_respond(r, m, rel, CGIPLUS_SERVE_OFFLOAD);
}
