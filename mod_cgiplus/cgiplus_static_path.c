/* cgiplus_static_path.c: from a URL path to an open file, safely. The
 * quick handler runs before httpd normalizes the URL, so it normalizes a
 * copy with httpd's own functions and flags; files are opened relative to
 * the mount's directory with openat2(RESOLVE_BENEATH), so neither '..' nor
 * a symlink can lead out of it unless the mount allows. The translate_name
 * hook maps the same prefixes for the requests the quick handler leaves
 * to httpd (other methods, subrequests, phase=handler). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cgiplus_static_private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* Cleared when the kernel has no openat2 (before Linux 5.6): the realpath
 * checks below take over. Written once, racily but idempotently. */
static int path_have_openat2 = 1;

/* Nonzero if p has an encoded NUL. */
static int path_has_nul(const char *p)
{
    while ((p = strchr(p, '%')) != NULL) {
        if (p[1] == '0' && p[2] == '0')
            return 1;
        p++;
    }
    return 0;
}

char *cgiplus_static_path_normalize(request_rec *r, int *status)
{
    core_server_config *sconf = ap_get_core_module_config(r->server->module_config);
    core_dir_config *d = ap_get_core_module_config(r->per_dir_config);
    unsigned int flags = AP_NORMALIZE_NOT_ABOVE_ROOT;
    unsigned int uflags = AP_UNESCAPE_URL_KEEP_UNRESERVED;
    char *p;

    *status = DECLINED;
    if (!r->parsed_uri.path || r->parsed_uri.path[0] != '/')
        return NULL;
    if (sconf->merge_slashes != AP_CORE_CONFIG_OFF)
        flags |= AP_NORMALIZE_MERGE_SLASHES;
    /* The steps of ap_process_request_internal, on a copy: if we decline,
     * httpd does them again on the original. */
    p = apr_pstrdup(r->pool, r->parsed_uri.path);
    if (!ap_normalize_path(p, flags | AP_NORMALIZE_DECODE_UNRESERVED))
        return NULL;
    if (path_has_nul(p)) {
        const char *rel;

        /* httpd itself says 404; below our prefixes a NUL is a 400 */
        if (cgiplus_static_path_match(r->server, p, &rel)) {
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1515)
                          "refused %s: an encoded NUL in the path", r->unparsed_uri);
            *status = HTTP_BAD_REQUEST;
        }
        return NULL;
    }
    if (!d->allow_encoded_slashes)
        uflags |= AP_UNESCAPE_URL_FORBID_SLASHES;
    else if (!d->decode_encoded_slashes)
        uflags |= AP_UNESCAPE_URL_KEEP_SLASHES;
    if (ap_unescape_url_ex(p, uflags) != OK)
        return NULL; /* %00, bad %xx, %2F: httpd answers 400 or 404 */
    if (d->allow_encoded_slashes && d->decode_encoded_slashes &&
        !ap_normalize_path(p, flags))
        return NULL;
    return p;
}

cgiplus_static_mount *cgiplus_static_path_match(server_rec *s, const char *path,
                                                const char **rel)
{
    const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(s);
    cgiplus_static_mount *best = NULL;
    int i;

    if (!c)
        return NULL;
    for (i = 0; i < c->mounts->nelts; i++) {
        cgiplus_static_mount *m = APR_ARRAY_IDX(c->mounts, i, cgiplus_static_mount *);

        if ((path[m->prefix_len] == '/' || path[m->prefix_len] == '\0') &&
            !strncmp(path, m->prefix, m->prefix_len) &&
            (!best || m->prefix_len > best->prefix_len))
            best = m;
    }
    if (best) {
        *rel = path + best->prefix_len;
        if (**rel == '/')
            (*rel)++;
    }
    return best;
}

int cgiplus_static_path_has_dotfile(const char *rel)
{
    const char *p = rel;

    while (*p) {
        if (*p == '.')
            return 1;
        p = strchr(p, '/');
        if (!p)
            break;
        p++;
    }
    return 0;
}

apr_status_t cgiplus_static_path_root(cgiplus_static_mount *m)
{
    int fd, expect = -1;

    if (__atomic_load_n(&m->root_fd, __ATOMIC_ACQUIRE) >= 0)
        return APR_SUCCESS;
    fd = open(m->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    if (!__atomic_compare_exchange_n(&m->root_fd, &expect, fd, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        close(fd); /* another thread was first */
    return APR_SUCCESS;
}

/* openat2 beneath the root with the given resolve flags; -1 with errno.
 * EAGAIN means a rename or mount anywhere raced a ".." of the walk, which
 * any local process can cause at will: asked again, and after
 * PATH_OPENAT2_TRIES refused (EXDEV), never passed on as an error httpd's
 * core would then walk past itself. */
#define PATH_OPENAT2_TRIES 32
static int path_openat2(int root, const char *rel, int flags, unsigned long long resolve)
{
#ifdef SYS_openat2
    struct open_how how;
    int fd, tries = 0;

    memset(&how, 0, sizeof(how));
    how.flags = (unsigned long long)flags;
    how.resolve = resolve;
    do
        fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
    while (fd < 0 && errno == EAGAIN && ++tries < PATH_OPENAT2_TRIES);
    if (fd < 0 && errno == EAGAIN)
        errno = EXDEV;
    return fd;
#else
    (void)root; (void)rel; (void)flags; (void)resolve;
    errno = ENOSYS;
    return -1;
#endif
}

/* realpath(full) if it lies in the mount's directory, else NULL with errno
 * (CGIPLUS_STATIC_EREFUSED as EXDEV). The result is malloc'd. */
static char *path_real_inside(cgiplus_static_mount *m, const char *full)
{
    size_t n = strlen(m->dir_real);
    char *rp = realpath(full, NULL);

    if (!rp)
        return NULL;
    if (strncmp(rp, m->dir_real, n) || (rp[n] != '/' && rp[n] != '\0')) {
        free(rp);
        errno = EXDEV;
        return NULL;
    }
    return rp;
}

/* The open of rel under the mount's symlink policy; -1 with errno, EXDEV
 * or ELOOP meaning the policy refused it. */
static int path_open_policy(request_rec *r, cgiplus_static_mount *m,
                            const char *rel, int flags)
{
    const char *p = *rel ? rel : ".";
    unsigned long long resolve = 0;
    char *full, *rp;
    int fd;

    if (m->symlinks == CGIPLUS_SYMLINKS_ANY)
        return openat(m->root_fd, p, flags);
#ifdef SYS_openat2
    resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    if (m->symlinks == CGIPLUS_SYMLINKS_NONE)
        resolve |= RESOLVE_NO_SYMLINKS;
#endif
    if (path_have_openat2) {
        fd = path_openat2(m->root_fd, p, flags, resolve);
        if (fd >= 0 || errno != ENOSYS) {
            if (fd < 0 && errno == EXDEV && m->symlinks == CGIPLUS_SYMLINKS_INSIDE) {
                /* An absolute symlink: allowed if it points inside. The
                 * second open refuses any link swapped in meanwhile. */
                full = apr_pstrcat(r->pool, m->dir, "/", rel, NULL);
                if (!(rp = path_real_inside(m, full)))
                    return -1;
                p = rp[strlen(m->dir_real)] ? rp + strlen(m->dir_real) + 1 : ".";
#ifdef SYS_openat2
                resolve |= RESOLVE_NO_SYMLINKS;
#endif
                fd = path_openat2(m->root_fd, p, flags, resolve);
                free(rp);
            }
            return fd;
        }
        path_have_openat2 = 0;
    }
    /* No openat2: resolve with realpath, then open what it found. */
    full = apr_pstrcat(r->pool, m->dir, "/", rel, NULL);
    if (!(rp = path_real_inside(m, full)))
        return -1;
    if (m->symlinks == CGIPLUS_SYMLINKS_NONE &&
        strcmp(rp + strlen(m->dir_real), full + strlen(m->dir))) {
        free(rp);
        errno = ELOOP; /* a symlink was on the way */
        return -1;
    }
    fd = open(rp, flags | O_NOFOLLOW);
    free(rp);
    return fd;
}

/* The result for errno after a failed open under the policy. */
static apr_status_t path_policy_errno(const cgiplus_static_mount *m)
{
    if (errno == EXDEV || (errno == ELOOP && m->symlinks == CGIPLUS_SYMLINKS_NONE))
        return CGIPLUS_STATIC_EREFUSED;
    return errno;
}

apr_status_t cgiplus_static_path_check(request_rec *r, cgiplus_static_mount *m,
                                       const char *rel)
{
    apr_status_t rv;
    char *up, *slash;
    int fd;

    if (m->symlinks == CGIPLUS_SYMLINKS_ANY)
        return APR_SUCCESS;
    if ((rv = cgiplus_static_path_root(m)) != APR_SUCCESS)
        return rv;
    /* O_PATH: the walk alone, for a directory or a file we may not read.
     * A missing name: its deepest existing parent is what httpd's core
     * would walk (path info), so that part must pass too. The openat2
     * walk already failed at a link out before reaching it, but the
     * realpath fallback needs the existing part. */
    up = apr_pstrdup(r->pool, rel);
    for (;;) {
        fd = path_open_policy(r, m, up, O_PATH | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            return APR_SUCCESS;
        }
        rv = path_policy_errno(m);
        if ((rv != ENOENT && rv != ENOTDIR) || !*up)
            return rv == ENOENT || rv == ENOTDIR ? APR_SUCCESS : rv;
        slash = strrchr(up, '/');
        if (slash)
            *slash = '\0';
        else
            *up = '\0';
    }
}

apr_status_t cgiplus_static_path_open(request_rec *r, cgiplus_static_mount *m,
                                      const char *rel, int *fdp, struct stat *st)
{
    apr_status_t rv;
    int fd;

    *fdp = -1;
    if ((rv = cgiplus_static_path_root(m)) != APR_SUCCESS)
        return rv;
    fd = path_open_policy(r, m, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        rv = path_policy_errno(m);
        /* Missing below a link out (path info): refused, as for httpd. */
        if ((rv == ENOENT || rv == ENOTDIR) &&
            cgiplus_static_path_check(r, m, rel) == CGIPLUS_STATIC_EREFUSED)
            rv = CGIPLUS_STATIC_EREFUSED;
        return rv;
    }
    if (fstat(fd, st) != 0) {
        rv = errno;
        close(fd);
        return rv;
    }
    if (S_ISDIR(st->st_mode)) {
        close(fd);
        return EISDIR;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return CGIPLUS_STATIC_ENOTREG;
    }
    *fdp = fd;
    return APR_SUCCESS;
}

apr_status_t cgiplus_static_path_stat(cgiplus_static_mount *m, const char *rel,
                                      struct stat *st)
{
    apr_status_t rv;

    if ((rv = cgiplus_static_path_root(m)) != APR_SUCCESS)
        return rv;
    if (fstatat(m->root_fd, *rel ? rel : ".", st, 0) != 0)
        return errno;
    return APR_SUCCESS;
}

int cgiplus_static_path_status(request_rec *r, apr_status_t rv, const char *path)
{
    switch (rv) {
    case ENOENT:
    case ENOTDIR:
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1510)
                      "File does not exist: %s", path);
        return HTTP_NOT_FOUND;
    case EACCES:
    case EPERM:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1511)
                      "file permissions deny server access: %s", path);
        return HTTP_FORBIDDEN;
    case CGIPLUS_STATIC_EREFUSED:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1512)
                      "refused %s: a symbolic link on its path leads out of the "
                      "served directory, or symlinks=none forbids it", path);
        return HTTP_FORBIDDEN;
    case CGIPLUS_STATIC_ENOTREG:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1516)
                      "refused %s: not a regular file (a FIFO, socket or device)",
                      path);
        return HTTP_FORBIDDEN;
    case EISDIR:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1517)
                      "refused %s: a directory", path);
        return HTTP_FORBIDDEN;
    case EAGAIN:
        return HTTP_SERVICE_UNAVAILABLE; /* logged where it happened */
    default:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1514)
                      "cannot serve %s", path);
        return rv == ENAMETOOLONG || rv == ELOOP ? HTTP_FORBIDDEN
                                                  : HTTP_INTERNAL_SERVER_ERROR;
    }
}

/* ---- the translate_name hook and its note ---- */

#define PATH_NOTE_KEY "cgiplus-static-note"

/* What translate_name found, for the handler of the same request. In r's
 * pool; an internal redirect shares that pool, hence the r check. */
typedef struct path_note {
    request_rec *r;
    cgiplus_static_mount *m;
    const char *rel;
} path_note;

int cgiplus_static_note_get(request_rec *r, cgiplus_static_mount **m,
                            const char **rel)
{
    void *v = NULL;
    path_note *n;

    apr_pool_userdata_get(&v, PATH_NOTE_KEY, r->pool);
    if (!(n = v) || n->r != r)
        return 0;
    *m = n->m;
    *rel = n->rel;
    return 1;
}

int cgiplus_static_translate(request_rec *r)
{
    cgiplus_static_mount *m;
    const char *rel;
    path_note *n;
    int i;

    if (!r->uri || r->uri[0] != '/' || !(m = cgiplus_static_path_match(r->server,
                                                                       r->uri, &rel)))
        return DECLINED;
    if (!m->dotfiles && cgiplus_static_path_has_dotfile(rel)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1513)
                      "refused %s: a name starting with '.' (dotfiles=deny)", r->uri);
        return HTTP_FORBIDDEN;
    }
    /* httpd's core follows symlinks as its Options say; the mount's policy
     * holds for every request under the prefix, whatever its method or
     * handler (a directory listing, a POST, an AddHandler script). */
    if (cgiplus_static_path_check(r, m, rel) == CGIPLUS_STATIC_EREFUSED)
        return cgiplus_static_path_status(r, CGIPLUS_STATIC_EREFUSED, r->uri);
    /* A directory: its first existing index file, as the quick path. In
     * the handler phase without index= mod_dir chooses, as DirectoryIndex
     * says for that directory (.htaccess included); the handler serves its
     * choice. "/prefix" alone is left to mod_dir, which redirects. */
    if (r->uri[strlen(r->uri) - 1] == '/' && (m->index_set || !m->handler_phase)) {
        for (i = 0; i < m->index->nelts; i++) {
            const char *cand = apr_pstrcat(r->pool, rel,
                                           APR_ARRAY_IDX(m->index, i, const char *),
                                           NULL);
            struct stat st;
            int fd;

            if (cgiplus_static_path_open(r, m, cand, &fd, &st) == APR_SUCCESS) {
                close(fd);
                rel = cand;
                break;
            }
        }
    }
    r->filename = apr_pstrcat(r->pool, m->dir, "/", rel, NULL);
    n = apr_palloc(r->pool, sizeof(*n));
    n->r = r;
    n->m = m;
    n->rel = rel;
    apr_pool_userdata_setn(n, PATH_NOTE_KEY, NULL, r->pool);
    return OK;
}
