/* cgiplus_static_serve.c: answering from the cache with the semantics of
 * httpd's default handler. The response is built as that handler builds
 * it (r->filename, r->finfo, Last-Modified, ETag, Accept-Ranges,
 * Content-Length, ap_meets_conditions) and passed down as one sized brigade
 * and EOS, so httpd's own filters do the protocol work: 304/412 bodies,
 * HEAD, single and multipart ranges (206, 416), chunking, keep-alive, the
 * access log line. Small files go as a heap bucket over the cached bytes
 * (no copy), larger ones as a file bucket (sendfile when EnableSendfile). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cgiplus_static_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* core_dir_config's content_md5 when ContentDigest is On (server/core.c's
 * AP_CONTENT_MD5_ON, not in httpd's headers) */
#define CGP_CONTENT_MD5_ON 1

/* The quality (0-1000) Accept-Encoding gives coding (or alias); -1 if
 * neither it nor '*' is listed, i.e. it is not acceptable. */
static int accept_q(const char *hdr, const char *coding, const char *alias)
{
    int explicit_q = -1, star_q = -1;
    const char *p = hdr;

    while (*p) {
        const char *tok, *end;
        apr_size_t n;
        int q = 1000;

        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        tok = p;
        while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
            p++;
        n = (apr_size_t)(p - tok);
        end = p;
        while (*end && *end != ',')
            end++;
        /* parameters: only q matters */
        for (; p < end; p++) {
            if ((*p == 'q' || *p == 'Q') && p[1] == '=') {
                const char *v = p + 2;
                int scale = 100;

                q = (*v == '1') ? 1000 : 0;
                if (*v == '0' || *v == '1') {
                    v++;
                    if (*v == '.')
                        for (v++; apr_isdigit(*v) && scale > 0; v++, scale /= 10)
                            q += (*v - '0') * scale;
                }
                if (q > 1000)
                    q = 1000;
                break;
            }
        }
        p = end;
        if (n == 0)
            continue;
        if ((n == strlen(coding) && !strncasecmp(tok, coding, n)) ||
            (alias && n == strlen(alias) && !strncasecmp(tok, alias, n)))
            explicit_q = q > explicit_q ? q : explicit_q;
        else if (n == 1 && *tok == '*')
            star_q = q;
    }
    return explicit_q >= 0 ? explicit_q : star_q;
}

/* The precompressed variant to send, if the client takes one: its file
 * suffix, and the Content-Encoding in *enc. */
static const char *pick_variant(request_rec *r, unsigned have, const char **enc)
{
    const char *ae = apr_table_get(r->headers_in, "Accept-Encoding");
    int qbr, qgz;

    if (!ae || !have)
        return NULL;
    qbr = (have & CGIPLUS_STATIC_BR) ? accept_q(ae, "br", NULL) : -1;
    qgz = (have & CGIPLUS_STATIC_GZ) ? accept_q(ae, "gzip", "x-gzip") : -1;
    if (qbr > 0 && qbr >= qgz) {
        *enc = "br";
        return ".br";
    }
    if (qgz > 0) {
        *enc = "gzip";
        return ".gz";
    }
    return NULL;
}

/* In the handler phase, whether httpd's access control lets the
 * precompressed variant vrel be served by its own name: the variant is
 * other file than the one r was checked for, and <Files "*.gz">,
 * <FilesMatch>, Options -FollowSymLinks, .htaccess and <Location> rules may
 * refuse it. A lookup subrequest walks it as a request for it would; the
 * variant is used only if that lookup maps it to the same file, unchanged
 * (no rewrite, no path info) and allowed. */
static int variant_allowed(request_rec *r, const cgiplus_static_mount *m,
                           const char *vrel, apr_finfo_t *vfi)
{
    const char *uri = apr_pstrcat(r->pool, m->prefix, "/",
                                  ap_escape_uri(r->pool, vrel), NULL);
    const char *want = apr_pstrcat(r->pool, m->dir, "/", vrel, NULL);
    request_rec *rr = ap_sub_req_lookup_uri(uri, r, NULL);
    int ok = rr->status == HTTP_OK && rr->finfo.filetype == APR_REG &&
             rr->filename && !strcmp(rr->filename, want) &&
             (!rr->path_info || !*rr->path_info);

    if (ok)
        *vfi = rr->finfo; /* its stat now, to check the cached copy against */
    else
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1525)
                      "not sending the variant %s: httpd would not serve it by "
                      "its own name (status %d)", want, rr->status);
    ap_destroy_sub_req(rr);
    return ok;
}

/* Nonzero if httpd's stat fi of filename (its directory walk of r, or a
 * lookup of a variant) shows e's file gone, or another file or another
 * version of it than e. Gone or no longer a regular file: the default
 * handler would answer 404 (or mod_dir would take the directory), never
 * the cached bytes. */
static int finfo_differs(const apr_finfo_t *fi, const char *filename,
                         const cgiplus_static_entry *e)
{
    if (!filename || strcmp(filename, e->path))
        return 0;
    if (fi->filetype != APR_REG)
        return 1;
    return ((fi->valid & APR_FINFO_IDENT) &&
            (fi->inode != e->finfo.inode || fi->device != e->finfo.device)) ||
           ((fi->valid & APR_FINFO_SIZE) && fi->size != e->finfo.size) ||
           ((fi->valid & APR_FINFO_MTIME) && fi->mtime != e->finfo.mtime) ||
           ((fi->valid & APR_FINFO_CTIME) && fi->ctime != e->finfo.ctime) ||
           ((fi->valid & APR_FINFO_PROT) && fi->protection != e->finfo.protection);
}

/* The client asks not to be answered from caches: check the disk now. */
static int wants_fresh(request_rec *r)
{
    const char *cc = apr_table_get(r->headers_in, "Cache-Control");
    const char *pragma = apr_table_get(r->headers_in, "Pragma");

    return (cc && ap_strcasestr(cc, "no-cache")) ||
           (pragma && ap_strcasestr(pragma, "no-cache"));
}

static apr_status_t fd_close_cleanup(void *v)
{
    close(*(int *)v);
    return APR_SUCCESS;
}

/* A descriptor of e's file for this request, closed with r's pool (which
 * outlives the request's buckets). With mmap on, every read of a file
 * bucket is positional (mmap or sendfile), so a dup of the cached
 * descriptor is safe; with EnableMMAP off reads use the file offset, so the
 * file is reopened, through /proc/self/fd: the same inode, checked once. */
static apr_status_t body_file(request_rec *r, cgiplus_static_entry *e,
                              core_dir_config *d, apr_file_t **out)
{
    int *fd = apr_palloc(r->pool, sizeof(*fd));
    struct stat now;

    if (d->enable_mmap != ENABLE_MMAP_OFF) {
        *fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 0);
    }
    else {
        char proc[64];
        struct stat st;

        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", e->fd);
        *fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (*fd < 0 && errno == ENOENT) {
            apr_status_t rv = cgiplus_static_path_open(r, e->mount, e->rel, fd, &st);

            if (rv != APR_SUCCESS)
                return rv;
            if (st.st_ino != e->ino || st.st_dev != e->dev) {
                close(*fd);
                return CGIPLUS_STATIC_ESTALE;
            }
        }
    }
    if (*fd < 0)
        return errno;
    /* Written in place since it was cached (within the revalidation
     * interval): the cached length would send a cut or stale body, or
     * nothing at all. One fstat per request of a large file. */
    if (fstat(*fd, &now) != 0 || now.st_size != (off_t)e->finfo.size ||
        now.st_mtim.tv_sec != e->mtim.tv_sec || now.st_mtim.tv_nsec != e->mtim.tv_nsec ||
        now.st_ctim.tv_sec != e->ctim.tv_sec || now.st_ctim.tv_nsec != e->ctim.tv_nsec) {
        close(*fd);
        return CGIPLUS_STATIC_ESTALE;
    }
    apr_pool_cleanup_register(r->pool, fd, fd_close_cleanup, apr_pool_cleanup_null);
    return apr_os_file_put(out, fd, APR_FOPEN_READ | APR_FOPEN_BINARY
#if APR_HAS_SENDFILE
                           | AP_SENDFILE_ENABLED(d->enable_sendfile)
#endif
                           , r->pool);
}

/* Sends body (e, or its variant) as the default handler would send the
 * file. type: applied to r unless NULL (httpd's type checking already ran,
 * or the script set a Content-Type). */
static int send_entry(request_rec *r, cgiplus_static_entry *body,
                      const cgiplus_static_type *type, const char *enc,
                      int vary, apr_file_t *f, cgiplus_serve_e mode)
{
    core_dir_config *d = ap_get_core_module_config(r->per_dir_config);
    conn_rec *c = r->connection;
    apr_bucket_brigade *bb;
    apr_bucket *b;
    apr_status_t rv;
    int errstatus;

    if (mode != CGIPLUS_SERVE_OFFLOAD) {
        ap_allow_standard_methods(r, MERGE_ALLOW, M_GET, M_OPTIONS, M_POST, -1);
        if ((errstatus = ap_discard_request_body(r)) != OK)
            return errstatus;
    }
    r->filename = r->canonical_filename = (char *)body->path;
    r->finfo = body->finfo;
    r->finfo.pool = r->pool;
    if (type) {
        if (type->content_type)
            ap_set_content_type(r, type->content_type);
        r->content_encoding = type->content_encoding;
        if (type->languages) {
            char *list = apr_pstrdup(r->pool, type->languages), *tok, *state;

            r->content_languages = apr_array_make(r->pool, 2, sizeof(char *));
            for (tok = apr_strtok(list, ",", &state); tok;
                 tok = apr_strtok(NULL, ",", &state))
                APR_ARRAY_PUSH(r->content_languages, char *) = tok;
        }
    }
    if (enc)
        r->content_encoding = enc;
    if (vary)
        apr_table_mergen(r->headers_out, "Vary", "Accept-Encoding");

    /* The default handler's sequence, with the values made at load time
     * where they are the same as the core would make now. */
    ap_update_mtime(r, body->finfo.mtime);
    if (body->last_modified && r->mtime == body->finfo.mtime && !r->assbackwards)
        apr_table_setn(r->headers_out, "Last-Modified", body->last_modified);
    else
        ap_set_last_modified(r);
    if (body->etag && !r->vlist_validator && !AP_REQUEST_IS_STRONG_ETAG(r) &&
        (unsigned)((d->etag_bits & ~d->etag_remove) | d->etag_add) == body->etag_bits) {
        if (*body->etag)
            apr_table_setn(r->headers_out, "ETag", body->etag);
        else
            apr_table_setn(r->notes, "no-etag", "omit");
    }
    else {
        ap_set_etag(r);
    }
    ap_set_accept_ranges(r);
    r->clength = body->finfo.size;
    apr_table_setn(r->headers_out, "Content-Length", body->clen);

    bb = apr_brigade_create(r->pool, c->bucket_alloc);
    if ((errstatus = ap_meets_conditions(r)) != OK) {
        r->status = errstatus;
    }
    else if (body->data) {
        if (body->finfo.size > 0) {
            cgiplus_static_entry_ref(body); /* released with the bucket */
            b = apr_bucket_heap_create(body->data, (apr_size_t)body->finfo.size,
                                       cgiplus_static_entry_free_data, c->bucket_alloc);
            APR_BRIGADE_INSERT_TAIL(bb, b);
        }
    }
    else {
        b = apr_brigade_insert_file(bb, f, 0, body->finfo.size, r->pool);
#if APR_HAS_MMAP
        if (d->enable_mmap == ENABLE_MMAP_OFF)
            (void)apr_bucket_file_enable_mmap(b, 0);
#endif
    }
    ap_log_rerror(APLOG_MARK, APLOG_TRACE2, 0, r, CGIPLUS_LOGNO(1503)
                  "%s: %s answered from %s", mode == CGIPLUS_SERVE_QUICK ? "quick"
                  : mode == CGIPLUS_SERVE_HANDLER ? "handler" : "offload",
                  body->path, body->data ? "memory" : "its descriptor");
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(c->bucket_alloc));
    rv = ap_pass_brigade(r->output_filters, bb);
    apr_brigade_cleanup(bb);
    if (rv == APR_SUCCESS || r->status != HTTP_OK || c->aborted)
        return OK;
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r, CGIPLUS_LOGNO(1530)
                  "passing %s to the output filters failed", r->filename);
    return AP_FILTER_ERROR;
}

/* Finds rel, or for a directory its first index file; DECLINED when there
 * is none (httpd then redirects, lists or refuses as configured). */
static int find_entry(request_rec *r, cgiplus_static_mount *m, const char *rel,
                      cgiplus_serve_e mode, int fresh, cgiplus_static_entry **e)
{
    cgiplus_static_type_e how = mode == CGIPLUS_SERVE_HANDLER
                                ? CGIPLUS_STATIC_TYPE_NONE : CGIPLUS_STATIC_TYPE_PROBE;
    apr_status_t rv;
    int i;

    if (mode != CGIPLUS_SERVE_OFFLOAD && (!*rel || rel[strlen(rel) - 1] == '/')) {
        if (mode == CGIPLUS_SERVE_HANDLER)
            return DECLINED; /* translate_name found no index file */
        for (i = 0; i < m->index->nelts; i++) {
            const char *cand = apr_pstrcat(r->pool, rel,
                                           APR_ARRAY_IDX(m->index, i, const char *),
                                           NULL);

            if (cgiplus_static_cache_get(r, m, cand, how, fresh, e) == APR_SUCCESS)
                return OK;
        }
        return DECLINED;
    }
    rv = cgiplus_static_cache_get(r, m, rel, how, fresh, e);
    if (rv == APR_SUCCESS)
        return OK;
    /* A directory, or a file with path info after it ("f.txt/extra"):
     * httpd's path decides (mod_dir; AcceptPathInfo, 404 by default), after
     * its access control. */
    if (rv == APR_EINIT ||
        ((rv == EISDIR || rv == ENOTDIR) && mode != CGIPLUS_SERVE_OFFLOAD))
        return DECLINED;
    return cgiplus_static_path_status(r, rv, apr_pstrcat(r->pool, m->dir, "/",
                                                         rel, NULL));
}

int cgiplus_static_respond(request_rec *r, cgiplus_static_mount *m,
                           const char *rel, cgiplus_serve_e mode)
{
    cgiplus_static_entry *e = NULL, *body;
    cgiplus_static_type probed;
    const cgiplus_static_type *type = NULL;
    const char *enc = NULL, *suffix;
    apr_file_t *f = NULL;
    int fresh = wants_fresh(r), ret, attempt, vary = 0;

    /* ContentDigest On: the default handler adds Content-MD5 (same
     * condition); rare and deprecated, so it answers such requests. */
    if (mode != CGIPLUS_SERVE_OFFLOAD &&
        ((core_dir_config *)ap_get_core_module_config(r->per_dir_config))->content_md5
            == CGP_CONTENT_MD5_ON &&
        r->output_filters->frec->ftype != AP_FTYPE_RESOURCE)
        return DECLINED;
    for (attempt = 0; ; attempt++) {
        cgiplus_static_entry *v = NULL;
        apr_status_t rv;

        if ((ret = find_entry(r, m, rel, mode, fresh, &e)) != OK)
            return ret;
        /* In the handler phase httpd has just stat()ed the file (r->finfo,
         * which mod_include's XBitHack and others read): if that differs
         * from the entry, it changed within the revalidation interval, and
         * the default handler would send it as it is now. */
        if (mode == CGIPLUS_SERVE_HANDLER && !fresh &&
            finfo_differs(&r->finfo, r->filename, e)) {
            cgiplus_static_cache_drop(e);
            fresh = 1;
            continue;
        }
        body = e;
        enc = NULL;
        /* The type: httpd's own in the handler phase; else as probed with
         * this server's configuration (the script's Content-Type wins). */
        if (mode == CGIPLUS_SERVE_QUICK) {
            if (e->has_type && e->type_conf == r->per_dir_config) {
                type = &e->type;
            }
            else {
                cgiplus_static_type_probe(r, e->path, &e->finfo, &probed);
                type = &probed;
            }
            if (type->not_quick)
                return DECLINED; /* a handler or filter: httpd's path */
        }
        else if (mode == CGIPLUS_SERVE_OFFLOAD && !r->content_type) {
            type = &e->type;
        }
        vary = e->variants && !(mode == CGIPLUS_SERVE_OFFLOAD &&
                                apr_table_get(r->headers_out, "Content-Encoding"));
        if (vary && (suffix = pick_variant(r, e->variants, &enc)) != NULL) {
            const char *vrel = apr_pstrcat(r->pool, e->rel, suffix, NULL);
            cgiplus_static_type_e vhow = mode == CGIPLUS_SERVE_HANDLER
                                         ? CGIPLUS_STATIC_TYPE_NONE
                                         : CGIPLUS_STATIC_TYPE_PROBE;
            apr_finfo_t vfi;

            /* typed too: it may be asked for by its own name */
            if ((mode != CGIPLUS_SERVE_HANDLER || variant_allowed(r, m, vrel, &vfi)) &&
                cgiplus_static_cache_get(r, m, vrel, vhow, fresh, &v) == APR_SUCCESS) {
                /* In the handler phase the lookup has just stat()ed the
                 * variant: a cached copy older than that is loaded again,
                 * as for the file itself. */
                if (mode == CGIPLUS_SERVE_HANDLER && !fresh &&
                    finfo_differs(&vfi, v->path, v)) {
                    cgiplus_static_cache_drop(v);
                    v = NULL;
                    if (cgiplus_static_cache_get(r, m, vrel, vhow, 1, &v) != APR_SUCCESS)
                        v = NULL;
                }
            }
            if (v)
                body = v;
            else
                enc = NULL;
        }
        if (body->data)
            break;
        rv = body_file(r, body, ap_get_core_module_config(r->per_dir_config), &f);
        if (rv == APR_SUCCESS)
            break;
        if (rv != CGIPLUS_STATIC_ESTALE)
            return cgiplus_static_path_status(r, rv, body->path);
        if (attempt == 2) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1524)
                          "%s kept changing while it was being served; "
                          "answering 503", body->path);
            return HTTP_SERVICE_UNAVAILABLE;
        }
        cgiplus_static_cache_drop(body); /* changed or replaced: load it again */
    }
    return send_entry(r, body, type, enc, vary, f, mode);
}

int cgiplus_static_quick_handler(request_rec *r, int lookup)
{
    const struct cgiplus_static_sconf *c;
    cgiplus_static_mount *m;
    const char *rel;
    char *path, *uri;
    int ret;

    /* Lookups, subrequests and other methods take httpd's path, where
     * translate_name maps the same prefixes. */
    if (lookup || r->main || r->method_number != M_GET || r->proxyreq ||
        !cgiplus_static_cache_ready())
        return DECLINED;
    if (!(c = cgiplus_static_sconf_get(r->server)) || c->mounts->nelts == 0)
        return DECLINED;
    if (!(path = cgiplus_static_path_normalize(r, &ret)))
        return ret; /* DECLINED: httpd answers 400 or 404 itself */
    if (!(m = cgiplus_static_path_match(r->server, path, &rel)) || m->handler_phase)
        return DECLINED;
    if (!m->dotfiles && cgiplus_static_path_has_dotfile(rel)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1518)
                      "refused %s: a name starting with '.' (dotfiles=deny)", path);
        return HTTP_FORBIDDEN;
    }
    if (!*rel && path[m->prefix_len] != '/')
        return DECLINED; /* "/prefix" itself: mod_dir redirects to "/prefix/" */
    uri = r->uri;
    r->uri = path; /* as httpd would log it */
    if ((ret = cgiplus_static_respond(r, m, rel, CGIPLUS_SERVE_QUICK)) == DECLINED)
        r->uri = uri;
    return ret;
}

/* Whether filename is dir + "/" + rel, without building that string (it
 * runs for every request the handler phase serves). */
static int names_file(const char *filename, const char *dir, const char *rel)
{
    size_t n = strlen(dir);

    return !strncmp(filename, dir, n) && filename[n] == '/' && !strcmp(filename + n + 1, rel);
}

int cgiplus_static_handler(request_rec *r)
{
    cgiplus_static_mount *m;
    const char *rel;

    if (!cgiplus_static_note_get(r, &m, &rel))
        return DECLINED;
    /* Another module made a lookup subrequest this request's (mod_dir's
     * DirectoryIndex, mod_negotiation's MultiViews variant), with its
     * access checks: r names another file now. Serve it if a mount maps the
     * new URI to it, else leave it to httpd, never the file first mapped. */
    if (r->filename && !names_file(r->filename, m->dir, rel)) {
        cgiplus_static_mount *im;
        const char *irel;

        if (!r->uri || !(im = cgiplus_static_path_match(r->server, r->uri, &irel)) ||
            !*irel || irel[strlen(irel) - 1] == '/' ||
            !names_file(r->filename, im->dir, irel))
            return DECLINED;
        m = im;
        rel = irel;
    }
    /* GET and POST read the file (httpd's default handler answers POST to
     * a file with its contents): opened here under the mount's policy.
     * The default handler answers the others without opening the file
     * (OPTIONS, 405 with Allow, 501), as it would for an Alias. */
    if ((r->method_number != M_GET && r->method_number != M_POST) ||
        !cgiplus_static_cache_ready())
        return DECLINED;
    return cgiplus_static_respond(r, m, rel, CGIPLUS_SERVE_HANDLER);
}
