/* cgiplus_static_cache.c: the per-process cache of the static fast path.
 * An entry holds what answering a file needs: its stat data, its contents
 * (small files) or an open descriptor (large ones), and the header values
 * (Content-Type, Content-Length, Last-Modified, ETag) made once. Lookups
 * stat the file again at most every CGIplusStaticRevalidate ms and drop the
 * entry when it changed. The cache is bounded in entries and bytes and
 * evicts with CLOCK (default) or LRU. One mutex guards the index and the
 * list; entries are reference counted, so a request or a bucket still
 * using an evicted entry keeps it alive. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cgiplus_static_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"
#include "apr_atomic.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"


APLOG_USE_MODULE(cgiplus);

/* The cache of this process: made by child_init in pchild, lives as long
 * as the child. head, count and bytes are under mu. */
static struct {
    apr_thread_mutex_t *mu;   /* NULL: nothing is cached (entries 0, or no mutex) */
    apr_pool_t *pool;         /* the mounts' hash tables */
    cgiplus_static_limits lim;
    cgiplus_static_entry *head; /* CLOCK hand, or the most recently used */
    long count;
    apr_size_t bytes;
    int ready;
} cache;

int cgiplus_static_cache_ready(void)
{
    return cache.ready;
}

void cgiplus_static_entry_ref(cgiplus_static_entry *e)
{
    apr_atomic_inc32(&e->refs);
}

void cgiplus_static_entry_unref(cgiplus_static_entry *e)
{
    if (apr_atomic_dec32(&e->refs) == 0) {
        if (e->fd >= 0)
            close(e->fd);
        free(e);
    }
}

static apr_status_t entry_unref_cleanup(void *v)
{
    cgiplus_static_entry_unref(v);
    return APR_SUCCESS;
}

void cgiplus_static_entry_free_data(void *data)
{
    cgiplus_static_entry *e;

    /* the entry's address is stored just before its data */
    memcpy(&e, (char *)data - sizeof(e), sizeof(e));
    cgiplus_static_entry_unref(e);
}

/* ---- the eviction list, under cache.mu ---- */

/* Puts e just behind the CLOCK hand (it is reached last), or first for LRU. */
static void list_insert(cgiplus_static_entry *e)
{
    if (!cache.head) {
        e->next = e->prev = e;
        cache.head = e;
        return;
    }
    e->next = cache.head;
    e->prev = cache.head->prev;
    e->prev->next = e;
    cache.head->prev = e;
    if (cache.lim.lru)
        cache.head = e;
}

static void list_remove(cgiplus_static_entry *e)
{
    if (e->next == e) {
        cache.head = NULL;
    }
    else {
        e->prev->next = e->next;
        e->next->prev = e->prev;
        if (cache.head == e)
            cache.head = e->next;
    }
    e->next = e->prev = NULL;
}

static void entry_touch(cgiplus_static_entry *e)
{
    if (!cache.lim.lru) {
        e->hot = 1;
    }
    else if (cache.head != e) {
        list_remove(e);
        list_insert(e);
    }
}

/* Takes e out of the index and the list; the cache's reference is then the
 * caller's to drop, after unlocking. */
static void entry_unlink(cgiplus_static_entry *e)
{
    apr_hash_set(e->mount->entries, e->rel, (apr_ssize_t)e->rel_len, NULL);
    list_remove(e);
    cache.count--;
    cache.bytes -= e->charge;
    e->cached = 0;
}

/* The entry to evict: CLOCK gives recently hit entries a second round. */
static cgiplus_static_entry *evict_pick(void)
{
    cgiplus_static_entry *e = cache.head;

    if (cache.lim.lru)
        return e->prev;
    while (e->hot) {
        e->hot = 0;
        e = e->next;
    }
    cache.head = e->next;
    return e;
}

/* Publishes e (which must fit), evicting as needed; the entries taken out
 * are chained on *dead to be released after unlocking. */
static void entry_insert(request_rec *r, cgiplus_static_entry *e, apr_time_t now,
                         cgiplus_static_entry **dead)
{
    cgiplus_static_entry *old = apr_hash_get(e->mount->entries, e->rel,
                                             (apr_ssize_t)e->rel_len);

    if (old) {
        entry_unlink(old);
        old->next = *dead;
        *dead = old;
    }
    while (cache.count > 0 && (cache.count + 1 > cache.lim.entries ||
                               cache.bytes + e->charge > (apr_size_t)cache.lim.bytes)) {
        cgiplus_static_entry *v = evict_pick();

        ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r, CGIPLUS_LOGNO(1521)
                     "static cache full (%ld %s, %" APR_SIZE_T_FMT " byte%s): "
                     "evicting %s", cache.count, cache.count == 1 ? "entry" : "entries",
                     cache.bytes, CGIPLUS_S(cache.bytes), v->path);
        entry_unlink(v);
        v->next = *dead;
        *dead = v;
    }
    apr_atomic_inc32(&e->refs); /* the cache's own reference */
    apr_hash_set(e->mount->entries, e->rel, (apr_ssize_t)e->rel_len, e);
    list_insert(e);
    cache.count++;
    cache.bytes += e->charge;
    e->cached = 1;
    e->checked = now;
}

static void release_dead(cgiplus_static_entry *dead)
{
    while (dead) {
        cgiplus_static_entry *next = dead->next;

        cgiplus_static_entry_unref(dead);
        dead = next;
    }
}

void cgiplus_static_cache_drop(cgiplus_static_entry *e)
{
    int unlinked = 0;

    if (!cache.mu)
        return;
    apr_thread_mutex_lock(cache.mu);
    if (e->cached && apr_hash_get(e->mount->entries, e->rel,
                                  (apr_ssize_t)e->rel_len) == e) {
        entry_unlink(e);
        unlinked = 1;
    }
    apr_thread_mutex_unlock(cache.mu);
    if (unlinked)
        cgiplus_static_entry_unref(e);
}

/* ---- loading ---- */

/* Which precompressed siblings of rel exist (existence only: a variant is
 * resolved under the mount's policy when it is served). */
static unsigned entry_variants(cgiplus_static_mount *m, const char *rel)
{
    static const struct { const char *suffix; unsigned bit; } v[] = {
        { ".br", CGIPLUS_STATIC_BR }, { ".gz", CGIPLUS_STATIC_GZ }
    };
    char buf[4096];
    struct stat st;
    unsigned bits = 0;
    size_t i;

    if (!m->precompressed)
        return 0;
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        if (snprintf(buf, sizeof(buf), "%s%s", rel, v[i].suffix) >= (int)sizeof(buf))
            continue;
        if (cgiplus_static_path_stat(m, buf, &st) == APR_SUCCESS && S_ISREG(st.st_mode))
            bits |= v[i].bit;
    }
    return bits;
}

static int stat_same(const cgiplus_static_entry *e, const struct stat *st)
{
    return e->dev == st->st_dev && e->ino == st->st_ino &&
           e->finfo.size == (apr_off_t)st->st_size &&
           e->mtim.tv_sec == st->st_mtim.tv_sec &&
           e->mtim.tv_nsec == st->st_mtim.tv_nsec &&
           e->ctim.tv_sec == st->st_ctim.tv_sec &&
           e->ctim.tv_nsec == st->st_ctim.tv_nsec;
}

/* Nonzero if the file of e (or its set of variants) changed on disk. */
static int entry_changed(cgiplus_static_entry *e)
{
    struct stat st;

    if (cgiplus_static_path_stat(e->mount, e->rel, &st) != APR_SUCCESS)
        return 1;
    return !stat_same(e, &st) || entry_variants(e->mount, e->rel) != e->variants;
}

#define PROBE_MAX_FILTERS 64

/* Removes the filters of the chain from f on that are not in set[0..n). */
static int probe_drop_filters(ap_filter_t *f, ap_filter_t **set, int n, int output)
{
    int dropped = 0;

    while (f) {
        ap_filter_t *next = f->next;
        int i;

        for (i = 0; i < n && set[i] != f; i++)
            ;
        if (i == n) {
            if (output)
                ap_remove_output_filter(f);
            else
                ap_remove_input_filter(f);
            dropped = 1;
        }
        f = next;
    }
    return dropped;
}

static int probe_collect(ap_filter_t *f, ap_filter_t **set)
{
    int n = 0;

    for (; f && n < PROBE_MAX_FILTERS; f = f->next)
        set[n++] = f;
    return f ? -1 : n;
}

void cgiplus_static_type_probe(request_rec *r, const char *path,
                               const apr_finfo_t *fi, cgiplus_static_type *out)
{
    char *filename = r->filename, *canonical = r->canonical_filename;
    const char *ct = r->content_type, *handler = r->handler;
    const char *enc = r->content_encoding;
    apr_array_header_t *langs = r->content_languages;
    apr_finfo_t finfo = r->finfo;
    ap_filter_t *oset[PROBE_MAX_FILTERS], *iset[PROBE_MAX_FILTERS];
    int on = probe_collect(r->output_filters, oset);
    int in = probe_collect(r->input_filters, iset);
    int added, forced_handler;
    core_dir_config *cd;

    r->filename = r->canonical_filename = apr_pstrdup(r->pool, path);
    r->finfo = *fi;
    r->content_type = NULL;
    r->handler = NULL;
    r->content_encoding = NULL;
    r->content_languages = NULL;
    ap_run_type_checker(r);
    /* ForceType and SetHandler are applied by the core's fixup
     * (core_override_type), SetOutputFilter and SetInputFilter by its
     * insert_filter hook, neither of which a quick answer reaches: the type
     * as it forces it; a handler or filters set so are httpd's business, as
     * below. */
    cd = ap_get_core_module_config(r->per_dir_config);
    if (cd->mime_type && strcmp(cd->mime_type, "none"))
        ap_set_content_type(r, cd->mime_type);
    forced_handler = cd->expr_handler != NULL ||
                     (cd->handler && strcmp(cd->handler, "none")) ||
                     (cd->output_filters && *cd->output_filters) ||
                     (cd->input_filters && *cd->input_filters);

    out->content_type = r->content_type;
    out->content_encoding = r->content_encoding;
    out->languages = r->content_languages && r->content_languages->nelts
                     ? apr_array_pstrcat(r->pool, r->content_languages, ',') : NULL;
    /* A filter added for this type (AddOutputFilter) or a handler
     * (AddHandler) is httpd's business: the quick path leaves such files
     * to it. The filters are taken out again: the normal path adds them. */
    added = on < 0 || in < 0 ||
            probe_drop_filters(r->output_filters, oset, on, 1) |
            probe_drop_filters(r->input_filters, iset, in, 0);
    out->not_quick = r->handler != NULL || forced_handler || added;

    r->filename = filename;
    r->canonical_filename = canonical;
    r->finfo = finfo;
    r->content_type = ct;
    r->handler = handler;
    r->content_encoding = enc;
    r->content_languages = langs;
}

/* Copies s to the end of an entry's block. */
static const char *pack(char **cursor, const char *s)
{
    char *d;
    size_t n;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    d = *cursor;
    memcpy(d, s, n);
    *cursor += n;
    return d;
}

static size_t plen(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* Reads the whole file into data; ESTALE if it changed meanwhile. */
static apr_status_t load_data(int fd, char *data, const struct stat *st)
{
    apr_size_t done = 0, size = (apr_size_t)st->st_size;
    struct stat after;

    while (done < size) {
        ssize_t n = pread(fd, data + done, size - done, (off_t)done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return CGIPLUS_STATIC_ESTALE; /* shrank */
        done += (apr_size_t)n;
    }
    if (fstat(fd, &after) != 0)
        return errno;
    if (after.st_size != st->st_size || after.st_mtim.tv_sec != st->st_mtim.tv_sec ||
        after.st_mtim.tv_nsec != st->st_mtim.tv_nsec)
        return CGIPLUS_STATIC_ESTALE;
    return APR_SUCCESS;
}

static unsigned conf_etag_bits(request_rec *r)
{
    core_dir_config *d = ap_get_core_module_config(r->per_dir_config);

    return (unsigned)((d->etag_bits & ~d->etag_remove) | d->etag_add);
}

/* Opens rel and makes its entry (one reference: the caller's). */
static apr_status_t entry_load(request_rec *r, cgiplus_static_mount *m,
                               const char *rel, apr_size_t rel_len,
                               cgiplus_static_type_e how,
                               cgiplus_static_entry **out)
{
    cgiplus_static_entry *e;
    cgiplus_static_type ty = { NULL, NULL, NULL, 0 };
    apr_file_t *f = NULL;
    apr_finfo_t fi;
    struct stat st;
    const char *path, *clen, *lm = NULL, *etag = NULL;
    char *block, *cur, *data = NULL;
    size_t fixed, total;
    int fd = -1, mem;
    apr_status_t rv;

    *out = NULL;
    if ((rv = cgiplus_static_path_open(r, m, rel, &fd, &st)) != APR_SUCCESS)
        return rv;
    apr_os_file_put(&f, &fd, APR_FOPEN_READ | APR_FOPEN_BINARY, r->pool);
    rv = apr_file_info_get(&fi, APR_FINFO_MIN | APR_FINFO_IDENT | APR_FINFO_NLINK |
                           APR_FINFO_OWNER | APR_FINFO_PROT, f);
    if (rv != APR_SUCCESS && rv != APR_INCOMPLETE)
        goto fail;
    path = apr_pstrcat(r->pool, m->dir, "/", rel, NULL);
    fi.fname = path;
    mem = (apr_off_t)st.st_size <= cache.lim.max_mem_file;

    if (how == CGIPLUS_STATIC_TYPE_PROBE)
        cgiplus_static_type_probe(r, path, &fi, &ty);
    /* The header values as the core makes them now; kept only if they
     * cannot change with time (a file modified within the last second has
     * a weak ETag, the core's rule). */
    if (!r->vlist_validator && !AP_REQUEST_IS_STRONG_ETAG(r)) {
        etag_rec er;

        er.vlist_validator = NULL;
        er.request_time = r->request_time;
        er.finfo = &fi;
        er.pathname = NULL;
        er.fd = f;
        er.force_weak = 0;
        etag = ap_make_etag_ex(r, &er);
        if (!strncmp(etag, "W/", 2))
            etag = NULL;
    }
    if (fi.mtime < r->request_time) {
        char *buf = apr_palloc(r->pool, APR_RFC822_DATE_LEN);

        apr_rfc822_date(buf, fi.mtime);
        lm = buf;
    }
    clen = apr_off_t_toa(r->pool, fi.size);

    fixed = APR_ALIGN_DEFAULT(sizeof(*e) + rel_len + 1 + plen(path) + plen(clen) +
                              plen(lm) + plen(etag) + plen(ty.content_type) +
                              plen(ty.content_encoding) + plen(ty.languages));
    total = fixed + sizeof(e) + (mem ? (size_t)st.st_size : 0);
    if (!(block = malloc(total))) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1522)
                      "out of memory caching %s (%" APR_SIZE_T_FMT " byte%s)",
                      path, total, CGIPLUS_S(total));
        rv = APR_ENOMEM;
        goto fail;
    }
    e = (cgiplus_static_entry *)block;
    memset(e, 0, sizeof(*e));
    cur = block + sizeof(*e);
    e->mount = m;
    memcpy(cur, rel, rel_len + 1);
    e->rel = cur;
    cur += rel_len + 1;
    e->rel_len = rel_len;
    e->path = pack(&cur, path);
    e->clen = pack(&cur, clen);
    e->last_modified = pack(&cur, lm);
    e->etag = pack(&cur, etag);
    e->etag_bits = conf_etag_bits(r);
    e->type.content_type = pack(&cur, ty.content_type);
    e->type.content_encoding = pack(&cur, ty.content_encoding);
    e->type.languages = pack(&cur, ty.languages);
    e->type.not_quick = ty.not_quick;
    e->has_type = how == CGIPLUS_STATIC_TYPE_PROBE;
    e->type_conf = r->per_dir_config;
    e->finfo = fi;
    e->finfo.fname = e->path;
    e->finfo.pool = NULL;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->mtim = st.st_mtim;
    e->ctim = st.st_ctim;
    e->variants = entry_variants(m, rel);
    e->charge = total;
    e->refs = 1;
    e->fd = -1;
    if (mem) {
        data = block + fixed + sizeof(e);
        memcpy(block + fixed, &e, sizeof(e));
        if ((rv = load_data(fd, data, &st)) != APR_SUCCESS) {
            free(block);
            goto fail;
        }
        e->data = data;
        close(fd);
    }
    else {
        e->fd = fd;
    }
    *out = e;
    return APR_SUCCESS;

fail:
    close(fd);
    return rv;
}

apr_status_t cgiplus_static_cache_get(request_rec *r, cgiplus_static_mount *m,
                                      const char *rel, cgiplus_static_type_e how,
                                      int force, cgiplus_static_entry **out)
{
    apr_size_t len = strlen(rel);
    cgiplus_static_entry *e = NULL, *dead = NULL;
    apr_status_t rv;
    int check = 0, tries;

    *out = NULL;
    if (!cache.ready || !m->entries)
        return APR_EINIT;
    if (cache.mu) {
        apr_thread_mutex_lock(cache.mu);
        if ((e = apr_hash_get(m->entries, rel, (apr_ssize_t)len)) != NULL) {
            apr_atomic_inc32(&e->refs);
            entry_touch(e);
            /* One request at a time looks at the disk: it moves the mark. */
            check = force || cache.lim.revalidate == 0 ||
                    r->request_time - e->checked >= cache.lim.revalidate;
            if (check && r->request_time > e->checked)
                e->checked = r->request_time;
        }
        apr_thread_mutex_unlock(cache.mu);
    }
    if (e) {
        if (!check || !entry_changed(e))
            goto found;
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1520)
                      "%s changed on disk; dropping it from the cache", e->path);
        cgiplus_static_cache_drop(e);
        cgiplus_static_entry_unref(e);
        e = NULL;
    }

    for (tries = 0; ; tries++) {
        rv = entry_load(r, m, rel, len, how, &e);
        if (rv != CGIPLUS_STATIC_ESTALE || tries == 2)
            break;
    }
    if (rv != APR_SUCCESS) {
        if (rv == CGIPLUS_STATIC_ESTALE) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1523)
                          "%s/%s kept changing while it was read; answering 503",
                          m->dir, rel);
            rv = APR_EAGAIN;
        }
        return rv;
    }
    if (cache.mu && e->charge <= (apr_size_t)cache.lim.bytes) {
        apr_thread_mutex_lock(cache.mu);
        entry_insert(r, e, apr_time_now(), &dead);
        apr_thread_mutex_unlock(cache.mu);
        release_dead(dead);
    }

found:
    apr_pool_cleanup_register(r->pool, e, entry_unref_cleanup,
                              apr_pool_cleanup_null);
    *out = e;
    return APR_SUCCESS;
}

/* At the child's end: drops every entry (buckets may outlive this no more). */
static apr_status_t cache_cleanup(void *dummy)
{
    cgiplus_static_entry *dead = NULL;

    while (cache.head) {
        cgiplus_static_entry *e = cache.head;

        entry_unlink(e);
        e->next = dead;
        dead = e;
    }
    release_dead(dead);
    cache.ready = 0;
    return APR_SUCCESS;
}

static void child_init_mounts(apr_array_header_t *a, server_rec *s)
{
    int i;

    for (i = 0; i < a->nelts; i++) {
        cgiplus_static_mount *m = APR_ARRAY_IDX(a, i, cgiplus_static_mount *);
        apr_status_t rv;

        if (m->entries)
            continue; /* shared with a server seen before */
        m->entries = apr_hash_make(cache.pool);
        if ((rv = cgiplus_static_path_root(m)) != APR_SUCCESS)
            ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, CGIPLUS_LOGNO(1502)
                         "cannot open the static directory %s in this process; "
                         "its requests fail until it can be opened", m->dir);
    }
}

void cgiplus_static_child_init(apr_pool_t *pchild, server_rec *s)
{
    server_rec *v;
    apr_status_t rv;
    int any = 0;

    for (v = s; v; v = v->next) {
        const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(v);

        if (c && (c->mounts->nelts || c->offload->nelts))
            any = 1;
    }
    if (!any)
        return;
    cgiplus_static_conf_limits(s, &cache.lim);
    if ((rv = apr_pool_create(&cache.pool, pchild)) != APR_SUCCESS)
        return;
    if (cache.lim.entries > 0 &&
        (rv = apr_thread_mutex_create(&cache.mu, APR_THREAD_MUTEX_DEFAULT,
                                      pchild)) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, CGIPLUS_LOGNO(1501)
                     "cannot create the static cache's mutex; files are served "
                     "without caching in this process");
        cache.mu = NULL;
    }
    for (v = s; v; v = v->next) {
        const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(v);

        if (c) {
            child_init_mounts(c->mounts, v);
            child_init_mounts(c->offload, v);
        }
    }
    apr_pool_cleanup_register(cache.pool, NULL, cache_cleanup, apr_pool_cleanup_null);
    cache.ready = 1;
}
