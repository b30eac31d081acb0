/* cgiplus_static_private.h: types shared by the files of the static fast path
 * (cgiplus_static_*.c). The rest of the module sees only the few functions
 * declared in cgiplus_static.h. */
#ifndef CGIPLUS_STATIC_PRIVATE_H
#define CGIPLUS_STATIC_PRIVATE_H

#include "cgiplus_conf.h"
#include "cgiplus_static.h"

#include <sys/stat.h>

#include "apr_file_info.h"
#include "apr_hash.h"
#include "apr_tables.h"

/* The handler name the fast path answers to in the handler phase. */
#define CGIPLUS_STATIC_PRIVATE_HANDLER  "cgiplus-static"

/* Built-in defaults of the cache settings (docs/STATIC.md). */
#define CGIPLUS_STATIC_DEF_ENTRIES     1024
#define CGIPLUS_STATIC_DEF_BYTES       (16 * 1024 * 1024)
#define CGIPLUS_STATIC_DEF_MAX_MEM     (64 * 1024)
#define CGIPLUS_STATIC_DEF_REVALIDATE  1000   /* ms */
#define CGIPLUS_STATIC_MAX_ENTRIES     1048576
#define CGIPLUS_STATIC_MAX_REVALIDATE  86400000L /* one day, in ms */

typedef enum {
    CGIPLUS_SYMLINKS_INSIDE = 0, /* followed while they stay inside the directory */
    CGIPLUS_SYMLINKS_ANY,        /* followed anywhere */
    CGIPLUS_SYMLINKS_NONE        /* never followed */
} cgiplus_symlinks_e;

/* One CGIplusStatic line or one CGIplusOffloadRoot directory. From pconf,
 * lives one configuration generation; vhosts share it by pointer. root_fd
 * and entries are per process: set in each child by child_init. */
typedef struct cgiplus_static_mount {
    const char *prefix;        /* URL prefix, no trailing '/' ("" for "/") */
    apr_size_t prefix_len;
    const char *dir;           /* absolute directory, no trailing '/' */
    const char *dir_real;      /* realpath(dir) at startup: fallback checks */
    apr_array_header_t *index; /* index file names (const char *); may be empty */
    int index_set;             /* index= given: else phase=handler leaves it to mod_dir */
    cgiplus_symlinks_e symlinks;
    int handler_phase;         /* phase=handler: after access control */
    int dotfiles;              /* dotfiles=allow */
    int precompressed;         /* look for name.br / name.gz */
    int offload;               /* an offload root, not a URL mount */
    server_rec *server;        /* an offload root's server (whose directive) */
    int root_fd;               /* O_PATH descriptor of dir; -1 until opened */
    apr_hash_t *entries;       /* this mount's cache index (under the cache lock) */
} cgiplus_static_mount;

/* The static settings of one server. From pconf, lives one generation. The
 * cache settings are only read from the main server's (GLOBAL_ONLY). */
struct cgiplus_static_sconf {
    apr_array_header_t *mounts;  /* cgiplus_static_mount *, longest prefix wins */
    apr_array_header_t *offload; /* cgiplus_static_mount *, offload roots */
    long cache_entries;          /* CGP_UNSET: unset */
    apr_off_t cache_bytes;       /* CGP_UNSET: unset */
    apr_off_t max_mem_file;      /* CGP_UNSET: unset */
    long revalidate_ms;          /* CGP_UNSET: unset */
    int evict_lru;               /* CGP_UNSET: unset, 0: CLOCK, 1: LRU */
};

/* Directive functions (cgiplus_static_conf.c), listed in cgiplus_cmds[]
 * through CGIPLUS_STATIC_CMDS. */
const char *cgiplus_static_set_mount(cmd_parms *cmd, void *dummy, const char *args);
const char *cgiplus_static_set_offload_root(cmd_parms *cmd, void *dummy,
                                            const char *arg);
const char *cgiplus_static_set_cache_entries(cmd_parms *cmd, void *dummy,
                                             const char *arg);
const char *cgiplus_static_set_cache_bytes(cmd_parms *cmd, void *dummy,
                                           const char *arg);
const char *cgiplus_static_set_max_mem_file(cmd_parms *cmd, void *dummy,
                                            const char *arg);
const char *cgiplus_static_set_revalidate(cmd_parms *cmd, void *dummy,
                                          const char *arg);
const char *cgiplus_static_set_eviction(cmd_parms *cmd, void *dummy,
                                        const char *arg);

#define CGIPLUS_STATIC_CMDS \
    AP_INIT_RAW_ARGS("CGIplusStatic", cgiplus_static_set_mount, NULL, RSRC_CONF, \
        "URL-prefix directory [phase=quick|handler] [index=names|none] " \
        "[symlinks=inside|any|none] [dotfiles=deny|allow] [precompressed=on|off]: " \
        "serve directory under URL-prefix from the static fast path"), \
    AP_INIT_ITERATE("CGIplusOffloadRoot", cgiplus_static_set_offload_root, NULL, \
        RSRC_CONF, "directories whose files scripts may hand over with " \
        "X-CGIplus-File"), \
    AP_INIT_TAKE1("CGIplusStaticCacheEntries", cgiplus_static_set_cache_entries, \
        NULL, RSRC_CONF, "the most files the static cache of one process holds " \
        "(0: none)"), \
    AP_INIT_TAKE1("CGIplusStaticCacheBytes", cgiplus_static_set_cache_bytes, NULL, \
        RSRC_CONF, "the most memory the static cache of one process uses"), \
    AP_INIT_TAKE1("CGIplusStaticMaxMemFile", cgiplus_static_set_max_mem_file, NULL, \
        RSRC_CONF, "files up to this size are served from memory, larger ones " \
        "from their descriptor"), \
    AP_INIT_TAKE1("CGIplusStaticRevalidate", cgiplus_static_set_revalidate, NULL, \
        RSRC_CONF, "milliseconds between checks of a cached file on disk"), \
    AP_INIT_TAKE1("CGIplusStaticCacheEviction", cgiplus_static_set_eviction, NULL, \
        RSRC_CONF, "'clock' or 'lru': which cached file goes when the cache is full")

/* The effective cache settings, defaults applied (cgiplus_static_conf.c). */
typedef struct cgiplus_static_limits {
    long entries;
    apr_off_t bytes;
    apr_off_t max_mem_file;
    apr_interval_time_t revalidate;
    int lru;
} cgiplus_static_limits;

void cgiplus_static_conf_limits(server_rec *main_s, cgiplus_static_limits *out);
struct cgiplus_static_sconf *cgiplus_static_sconf_get(server_rec *s);

/* Variant bits of an entry: which precompressed siblings exist. */
#define CGIPLUS_STATIC_BR 1u
#define CGIPLUS_STATIC_GZ 2u

/* What httpd's type checkers said about a file; kept in its cache entry. */
typedef struct cgiplus_static_type {
    const char *content_type;
    const char *content_encoding;
    const char *languages;     /* comma-separated, NULL: none */
    int not_quick;             /* a handler or filter is configured for it */
} cgiplus_static_type;

/* One cached file. One malloc block; shared by the cache index and by the
 * requests and memory buckets holding a reference (refs); freed, and its
 * descriptor closed, when the last reference goes. Fields other than the
 * bookkeeping ones are never written once the entry is published. */
typedef struct cgiplus_static_entry cgiplus_static_entry;
struct cgiplus_static_entry {
    apr_uint32_t refs;               /* atomic */
    cgiplus_static_mount *mount;
    const char *rel;                 /* key: the path below mount->dir */
    apr_size_t rel_len;
    const char *path;                /* mount->dir/rel: r->filename */
    apr_finfo_t finfo;               /* fname/pool are set per request */
    dev_t dev;                       /* identity, compared on revalidation */
    ino_t ino;
    struct timespec mtim, ctim;
    int fd;                          /* large files: kept open; else -1 */
    const char *data;                /* small files: the contents; else NULL */
    const char *clen;                /* Content-Length value */
    const char *last_modified;       /* NULL: made per request */
    const char *etag;                /* NULL: made per request */
    unsigned etag_bits;              /* FileETag bits etag was made with */
    const void *type_conf;           /* per-dir config the type was probed with */
    int has_type;                    /* type is valid */
    cgiplus_static_type type;
    unsigned variants;               /* CGIPLUS_STATIC_BR | _GZ */
    apr_size_t charge;               /* bytes counted against the cache */
    /* bookkeeping, under the cache lock */
    apr_time_t checked;              /* last revalidation */
    cgiplus_static_entry *prev, *next;
    unsigned hot : 1;                /* CLOCK reference bit */
    unsigned cached : 1;             /* in the index and the list */
};

/* ---- safe path resolution (cgiplus_static_path.c) ---- */

/* Result codes of resolution and lookup, beyond APR_SUCCESS: errno values
 * (ENOENT, ENOTDIR, EACCES, ENAMETOOLONG, EISDIR) and these. */
#define CGIPLUS_STATIC_EREFUSED  (APR_OS_START_USERERR + 1500) /* symlink policy */
#define CGIPLUS_STATIC_ENOTREG   (APR_OS_START_USERERR + 1501) /* fifo, device.. */
#define CGIPLUS_STATIC_ESTALE    (APR_OS_START_USERERR + 1502) /* changed under us */

/* The request path normalized as ap_process_request_internal will do it;
 * NULL if it cannot be served: *status is then HTTP_BAD_REQUEST (an encoded
 * NUL below a prefix) or DECLINED (httpd refuses it itself, 400 or 404). */
char *cgiplus_static_path_normalize(request_rec *r, int *status);
/* The mount whose prefix is the longest one of path's; *rel is set to the
 * rest (no leading '/'). NULL if none. */
cgiplus_static_mount *cgiplus_static_path_match(server_rec *s, const char *path,
                                                const char **rel);
/* Nonzero if a component of rel starts with '.' (refused unless allowed). */
int cgiplus_static_path_has_dotfile(const char *rel);
/* Opens rel below the mount's directory under its symlink policy; returns
 * an open descriptor (O_RDONLY, close-on-exec) in *fd and its stat. */
apr_status_t cgiplus_static_path_open(request_rec *r, cgiplus_static_mount *m,
                                      const char *rel, int *fd, struct stat *st);
/* Whether the mount's symlink policy lets rel (a file, a directory or a
 * missing name) be reached: APR_SUCCESS, CGIPLUS_STATIC_EREFUSED, or an
 * errno that httpd will answer itself. For requests httpd handles. */
apr_status_t cgiplus_static_path_check(request_rec *r, cgiplus_static_mount *m,
                                       const char *rel);
/* stat of rel below the mount, without opening it (revalidation). */
apr_status_t cgiplus_static_path_stat(cgiplus_static_mount *m, const char *rel,
                                      struct stat *st);
/* Opens the mount's directory in this process, if not yet done. */
apr_status_t cgiplus_static_path_root(cgiplus_static_mount *m);
/* What the translate_name hook mapped for r (mount and rel); 0 if none. */
int cgiplus_static_note_get(request_rec *r, cgiplus_static_mount **m,
                            const char **rel);
/* Maps an errno-like result to an HTTP status and logs why. */
int cgiplus_static_path_status(request_rec *r, apr_status_t rv, const char *path);

/* ---- the per-process cache (cgiplus_static_cache.c) ---- */

/* How the caller wants the type of a freshly opened file learnt. */
typedef enum {
    CGIPLUS_STATIC_TYPE_NONE = 0, /* httpd's own type checking already ran */
    CGIPLUS_STATIC_TYPE_PROBE     /* run the type checkers for the file */
} cgiplus_static_type_e;

/* Finds or loads rel of mount m; on success *out holds a reference that
 * r's pool releases. force: revalidate now (client's no-cache). */
apr_status_t cgiplus_static_cache_get(request_rec *r, cgiplus_static_mount *m,
                                      const char *rel, cgiplus_static_type_e how,
                                      int force, cgiplus_static_entry **out);
/* Drops an entry found stale while serving; the next lookup reloads. */
void cgiplus_static_cache_drop(cgiplus_static_entry *e);
/* Takes one more reference (for a bucket); released by the bucket. */
void cgiplus_static_entry_ref(cgiplus_static_entry *e);
void cgiplus_static_entry_unref(cgiplus_static_entry *e);
/* The free function of memory buckets: releases the entry of data. */
void cgiplus_static_entry_free_data(void *data);
/* Runs httpd's type checkers as if r named path; r is left as it was. */
void cgiplus_static_type_probe(request_rec *r, const char *path,
                               const apr_finfo_t *fi, cgiplus_static_type *out);
/* Nonzero once child_init has made the cache of this process. */
int cgiplus_static_cache_ready(void);

/* ---- answering (cgiplus_static_serve.c) ---- */

typedef enum {
    CGIPLUS_SERVE_QUICK,    /* quick handler: before translation and access control */
    CGIPLUS_SERVE_HANDLER,  /* handler phase, after access control */
    CGIPLUS_SERVE_OFFLOAD   /* a script's X-CGIplus-File */
} cgiplus_serve_e;

/* Answers r with rel of mount m: a status for ap_die, OK once sent, or
 * DECLINED when httpd should handle it (a directory without index, a file
 * with a handler or filter configured). */
int cgiplus_static_respond(request_rec *r, cgiplus_static_mount *m,
                           const char *rel, cgiplus_serve_e mode);

#endif
