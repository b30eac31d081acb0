/* cgiplus_outbuf.c: a response on its way to a client that may be slower
 * than its script (issue 20, hole 7; docs/DESIGN.md, "Slow readers"), so
 * that the script's worker is free as soon as the script has written it.
 *
 * What the client takes now goes on at once: passed without a FLUSH, so
 * httpd's core output filter writes it without waiting and sets aside what
 * the socket does not take (c->data_in_output_filters), as httpd's own
 * tunnel does (proxy_util.c, ap_proxy_transfer_between_connections). While
 * the core holds data nothing more is passed: it is held here, in memory
 * up to CGIplusResponseBuffer, then in an unlinked spool file (at most
 * CGIplusResponseSpoolMax bytes), and passed in slices as the client's
 * socket becomes writable; spooled bytes go as file buckets (sendfile
 * under EnableSendfile). An HTTP/2 stream has no socket of its own and its
 * output filter waits when the stream's buffer (H2StreamMaxMemSize) is
 * full: there what is passed is a counted copy, and mod_http2 freeing it
 * says the stream took it, so no more than half that buffer is ever
 * passed and not yet taken. Past the spool cap, or without a spool, the
 * response waits for the client as before (the worker with it). */
#include "cgiplus_outbuf.h"
#include "cgiplus_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_portable.h"
#include "apr_strings.h"
#include "unixd.h"

APLOG_USE_MODULE(cgiplus);

#define OB_DIR_NAME    "cgiplus-response"
#define OB_H2_FLIGHT   (32 * 1024)        /* h2: passed, not yet taken (half the default
                                           * H2StreamMaxMemSize) */
#define OB_READ        (64 * 1024)        /* h2: one read of the spool file */
#define OB_FILE_BUCKET (APR_INT64_C(1) << 30) /* the longest file bucket made */
#define OB_TICK_MIN    apr_time_from_msec(5)   /* h2: first look at what the stream took */
#define OB_TICK_MAX    apr_time_from_msec(200)

/* The spool directory of this configuration generation (pconf, set by
 * post_config, inherited by the children); NULL: none. */
static const char *ob_dir;

/* HTTP/2: bytes passed that mod_http2 has not taken yet, counted down by
 * the free function of each copy passed (mod_http2 frees it in the
 * sending thread once its connection took the data). From the
 * connection's bucket allocator; freed with its last reference (the
 * outbuf's, dropped with r->pool, and one per copy not yet freed), since
 * mod_http2 may free the last copies after the request. */
typedef struct ob_flight {
    apr_size_t bytes;   /* passed, not yet freed */
    apr_size_t taken;   /* freed so far: the stream's progress */
    apr_size_t refs;
} ob_flight;

/* The head of each counted copy, before its data (same allocation). */
typedef struct ob_chunk {
    ob_flight *fl;
    apr_size_t len;
} ob_chunk;
#define OB_CHUNK_HDR APR_ALIGN_DEFAULT(sizeof(ob_chunk))

/* One response. Owned by the request that streams it; from r->pool. */
struct cgiplus_outbuf {
    request_rec *r;
    conn_rec *c;
    ap_filter_t *net;          /* the connection's last filter: the core (h2: its own) */
    apr_bucket_brigade *mem;   /* held in memory; after what the spool holds */
    apr_bucket_brigade *bb;    /* the next pass */
    apr_off_t mem_len;
    apr_off_t buf_max;         /* CGIplusResponseBuffer */
    apr_off_t spool_max;       /* CGIplusResponseSpoolMax */
    apr_off_t slice;           /* HTTP/1: the most passed at once while the client lags */
    int fd;                    /* the spool file, -1: none yet */
    apr_file_t *file;          /* fd, for file buckets (HTTP/1) */
    apr_off_t f_rd, f_wr;      /* spooled, not yet passed: [f_rd, f_wr) */
    int spool_off;             /* no spooling (off, full, failed): the worker waits */
    int cs;                    /* HTTP/1: the client's socket; -1: h2 (fl is set) */
    ob_flight *fl;
    apr_time_t since;          /* data held and the client took nothing since; 0: it did */
    apr_interval_time_t tick;  /* h2: the wait before looking again */
    int idle;                  /* the script has nothing more right now */
    int unflushed;             /* passed since the last FLUSH (the header at first) */
};

static pid_t ob_parent; /* the process that made the default directory */
static int ob_made;     /* ob_dir is the default one, made by post_config */

/* pconf cleanup. When httpd stops (not at a restart) its parent removes the
 * default directory it made, so DefaultRuntimeDir is left as found; the
 * spool files were never named, so it is empty. */
static apr_status_t ob_dir_reset(void *unused)
{
    if (ob_made && ob_dir && getpid() == ob_parent &&
        ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_DESTROY_CONFIG)
        rmdir(ob_dir);
    ob_dir = NULL;
    ob_made = 0;
    return APR_SUCCESS;
}

/* Why the spool directory st is wrong, or NULL. root: a root httpd with a
 * User (root's, httpd's Group, 0730); else httpd's own user's, 0700. */
static const char *ob_dir_wrong(apr_pool_t *p, const struct stat *st, int root, uid_t uid,
                                gid_t gid, mode_t want)
{
    if (root ? st->st_uid == 0 && st->st_gid == gid && (st->st_mode & 07777) == want
             : st->st_uid == uid && !(st->st_mode & 077))
        return NULL;
    return root ? apr_psprintf(p, "must belong to root, group httpd's Group (gid "
                               "%ld), mode 0730, and nobody else may use it (it is "
                               "made so when it does not exist); it has uid %ld, "
                               "gid %ld, mode %04o", (long)gid, (long)st->st_uid,
                               (long)st->st_gid, (unsigned)(st->st_mode & 07777))
                : apr_psprintf(p, "must be yours (uid %ld) and nobody else may "
                               "use it (mode 0700; it is made so when it does not "
                               "exist); it has uid %ld, mode %04o", (long)uid,
                               (long)st->st_uid, (unsigned)(st->st_mode & 07777));
}

/* Made here (or by an administrator, or the User's from an older version)
 * and open to no one else: post_config makes it right. */
static int ob_dir_mendable(const struct stat *st, int root, uid_t uid)
{
    return root && (st->st_uid == 0 || st->st_uid == uid) && !(st->st_mode & 07);
}

int cgiplus_outbuf_check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                                server_rec *s)
{
    const char *dir = cgiplus_conf_sgets(s, CGP_S_RESPONSE_SPOOL_DIR);
    uid_t uid = geteuid() == 0 ? ap_unixd_config.user_id : geteuid();
    int root = geteuid() == 0 && uid != 0;
    const char *why = NULL;
    struct stat st;

    /* Only for httpd -t, which stops before post_config: the directory a
     * start would refuse (1153) fails the test, without making or
     * changing anything. */
    if (ap_state_query(AP_SQ_RUN_MODE) != AP_SQ_RM_CONFIG_TEST)
        return OK;
    if (!dir)
        dir = ap_runtime_dir_relative(ptemp, OB_DIR_NAME);
    if (!dir)
        why = "is not a valid path";
    else if (lstat(dir, &st) < 0)
        return OK; /* made at start (a failure to make it is told then) */
    else if (!S_ISDIR(st.st_mode))
        why = "cannot be opened as a directory: it is not one (or a symbolic link)";
    else if (!ob_dir_mendable(&st, root, uid))
        why = ob_dir_wrong(ptemp, &st, root, uid, ap_unixd_config.group_id, root ? 0730 : 0700);
    if (!why)
        return OK;
    ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s, CGIPLUS_LOGNO(1330)
                 "mod_cgiplus: the response spool directory %s (CGIplusResponseSpoolDir) "
                 "%s", dir ? dir : OB_DIR_NAME, why);
    return HTTP_INTERNAL_SERVER_ERROR;
}

int cgiplus_outbuf_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                               server_rec *s)
{
    const char *dir = cgiplus_conf_sgets(s, CGP_S_RESPONSE_SPOOL_DIR);
    uid_t uid = geteuid() == 0 ? ap_unixd_config.user_id : geteuid();
    gid_t gid = ap_unixd_config.group_id;
    /* A root httpd with a User: root's, httpd's Group may make files in it
     * and nothing more (0730). Never the User's: scripts run as the User,
     * and an owner may chmod (000: no response spooled again, 1150). */
    int root = geteuid() == 0 && uid != 0;
    mode_t want = root ? 0730 : 0700;
    const char *why = NULL;
    struct stat st;
    int fd = -1;

    apr_pool_cleanup_register(pconf, NULL, ob_dir_reset, apr_pool_cleanup_null);
    ob_parent = getpid();
    ob_made = !dir;
    if (!dir)
        dir = ap_runtime_dir_relative(pconf, OB_DIR_NAME);
    if (!dir)
        why = "is not a valid path";
    else if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        why = apr_psprintf(ptemp, "cannot be made: %s", strerror(errno));
    /* no symbolic link: the descriptor is the directory checked */
    else if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
             fstat(fd, &st) < 0)
        why = apr_psprintf(ptemp, "cannot be opened as a directory: %s", strerror(errno));
    else {
        if (ob_dir_mendable(&st, root, uid) && ob_dir_wrong(ptemp, &st, root, uid, gid, want) &&
            fchown(fd, 0, gid) == 0 && fchmod(fd, want) == 0)
            fstat(fd, &st);
        why = ob_dir_wrong(ptemp, &st, root, uid, gid, want);
    }
    if (fd >= 0)
        close(fd);
    if (why) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s, CGIPLUS_LOGNO(1153)
                     "mod_cgiplus: the response spool directory %s (CGIplusResponseSpoolDir) "
                     "%s", dir ? dir : OB_DIR_NAME, why);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    ob_dir = dir;
    return OK;
}

static void ob_flight_unref(ob_flight *fl)
{
    if (--fl->refs == 0)
        apr_bucket_free(fl);
}

static apr_status_t ob_flight_cleanup(void *data)
{
    ob_flight_unref(data);
    return APR_SUCCESS;
}

static void ob_chunk_free(void *data)
{
    ob_chunk *ch = (ob_chunk *)(void *)((char *)data - OB_CHUNK_HDR);
    ob_flight *fl = ch->fl;

    fl->bytes -= ch->len;
    fl->taken += ch->len;
    apr_bucket_free(ch);
    ob_flight_unref(fl);
}

/* h2: a heap bucket of len bytes (to be filled) that counts in ob->fl. */
static char *ob_chunk_new(cgiplus_outbuf *ob, apr_size_t len, apr_bucket **b)
{
    ob_chunk *ch = apr_bucket_alloc(OB_CHUNK_HDR + len, ob->c->bucket_alloc);
    char *data = (char *)ch + OB_CHUNK_HDR;

    ch->fl = ob->fl;
    ch->len = len;
    ob->fl->bytes += len;
    ob->fl->refs++;
    *b = apr_bucket_heap_create(data, len, ob_chunk_free, ob->c->bucket_alloc);
    return data;
}

cgiplus_outbuf *cgiplus_outbuf_make(request_rec *r)
{
    conn_rec *c = r->connection;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    core_server_config *csc = ap_get_core_module_config(c->base_server->module_config);
    cgiplus_outbuf *ob = apr_pcalloc(r->pool, sizeof(*ob));
    apr_socket_t *s = c->master ? NULL : ap_get_conn_socket(c);
    apr_os_sock_t fd;

    ob->r = r;
    ob->c = c;
    for (ob->net = c->output_filters; ob->net->next; ob->net = ob->net->next)
        ;
    ob->mem = apr_brigade_create(r->pool, c->bucket_alloc);
    ob->bb = apr_brigade_create(r->pool, c->bucket_alloc);
    ob->buf_max = cgiplus_conf_geti(dc, CGP_S_RESPONSE_BUFFER);
    ob->spool_max = cgiplus_conf_geti(dc, CGP_S_RESPONSE_SPOOL_MAX);
    ob->spool_off = !ob->spool_max || !ob_dir;
    ob->fd = -1;
    ob->unflushed = 1;
    /* Passed when the core holds nothing: it never holds more than its
     * flush threshold then (TLS records and chunk heads included), above
     * which it would wait for the client. */
    ob->slice = (apr_off_t)(csc->flush_max_threshold / 2);
    if (ob->slice < 4096)
        ob->slice = 4096;
    ob->cs = -1;
    if (s && apr_os_sock_get(&fd, s) == APR_SUCCESS && fd >= 0) {
        ob->cs = fd;
    }
    else {
        /* No descriptor on HTTP/1: a hard restart's MPM closed the
         * connection under us. The client is gone; the bucket path below
         * serves any connection, so the request ends as an abort. */
        if (s)
            c->aborted = 1;
        ob->fl = apr_bucket_alloc(sizeof(*ob->fl), c->bucket_alloc);
        memset(ob->fl, 0, sizeof(*ob->fl));
        ob->fl->refs = 1;
        apr_pool_cleanup_register(r->pool, ob->fl, ob_flight_cleanup, apr_pool_cleanup_null);
    }
    return ob;
}

/* Data not yet on its way: here, or set aside by the core (HTTP/1). */
static int ob_data_held(const cgiplus_outbuf *ob)
{
    return ob->mem_len > 0 || ob->f_rd < ob->f_wr ||
           (ob->cs >= 0 && ob->c->data_in_output_filters);
}

int cgiplus_outbuf_held(const cgiplus_outbuf *ob)
{
    /* and the FLUSH an idle stream is owed (filters such as mod_ssl's
     * coalescing keep small writes until it comes) */
    return ob_data_held(ob) || (ob->cs >= 0 && ob->idle && ob->unflushed);
}

/* Passes ob->bb, then a FLUSH if flush (which waits until it is written). */
static apr_status_t ob_pass(cgiplus_outbuf *ob, int flush)
{
    apr_status_t rv;

    if (flush)
        APR_BRIGADE_INSERT_TAIL(ob->bb, apr_bucket_flush_create(ob->c->bucket_alloc));
    /* r->output_filters now, never as it was at the first pass: a filter
     * that took itself out of the chain then (the byterange filter, on a
     * brigade without EOS) would be called again on the last one and cut
     * a 200 down to the Range the client asked for. */
    rv = ap_pass_brigade(ob->r->output_filters, ob->bb);
    apr_brigade_cleanup(ob->bb);
    ob->unflushed = !flush;
    return rv == APR_SUCCESS && ob->c->aborted ? APR_ECONNABORTED : rv;
}

/* Lets the connection write what it holds, without waiting: the core's
 * non-blocking write, as the event MPM's write completion calls it; for
 * h2 an empty pass, in which mod_http2 frees what its stream took. *open:
 * the client may be given more now. */
static apr_status_t ob_net(cgiplus_outbuf *ob, int *open)
{
    apr_status_t rv = APR_SUCCESS;

    if (ob->cs >= 0) {
        if (ob->c->data_in_output_filters)
            rv = ob->net->frec->filter_func.out_func(ob->net, NULL);
        *open = !ob->c->data_in_output_filters;
    }
    else {
        if (ob->fl->bytes >= OB_H2_FLIGHT) {
            rv = ap_pass_brigade(ob->net, ob->bb);
            apr_brigade_cleanup(ob->bb);
        }
        *open = ob->fl->bytes < OB_H2_FLIGHT;
    }
    return rv == APR_SUCCESS && ob->c->aborted ? APR_ECONNABORTED : rv;
}

/* The spool descriptor, given as the cleanup's data: the main request's
 * pool may outlive a sub-request's outbuf. */
static apr_status_t ob_close(void *data)
{
    close((int)(intptr_t)data);
    return APR_SUCCESS;
}

/* The spool file: unlinked from the start (O_TMPFILE, or a name removed at
 * once where the file system has none), mode 0600, in a directory only
 * httpd's User may use. Closed with the (main) request's pool, which goes
 * with its EOR bucket, after the data passed before it. */
static apr_status_t ob_open(cgiplus_outbuf *ob)
{
    request_rec *r = ob->r, *top = r;
    core_dir_config *cdc = ap_get_core_module_config(r->per_dir_config);
    int fd = open(ob_dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

    if (fd < 0) {
        char *path = apr_pstrcat(r->pool, ob_dir, "/response-XXXXXX", NULL);

        if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
            unlink(path);
    }
    if (fd < 0) {
        apr_status_t rv = APR_FROM_OS_ERROR(errno);

        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1150)
                      "cannot create a response spool file in %s for %s; the response "
                      "waits for the client, and its worker with it", ob_dir, r->filename);
        return rv;
    }
    ob->fd = fd;
    while (top->main)
        top = top->main;
    apr_pool_cleanup_register(top->pool, (void *)(intptr_t)fd, ob_close,
                              apr_pool_cleanup_null);
    if (!ob->fl) {
        /* In the connection's pool: every pool the core or a filter sets
         * a bucket aside into descends from it, so the bucket keeps this
         * handle (apr_file_setaside would take it away from the others). */
        apr_int32_t flags = APR_FOPEN_READ;

        if (cdc->enable_sendfile == ENABLE_SENDFILE_ON)
            flags |= APR_FOPEN_SENDFILE_ENABLED;
        apr_os_file_put(&ob->file, &ob->fd, flags, ob->c->pool);
    }
    return APR_SUCCESS;
}

/* Moves what memory holds to the end of the spool file. Not APR_SUCCESS:
 * it may not (spooling off, the cap reached, the file failed: logged);
 * nothing is lost, memory still holds it. */
static apr_status_t ob_spool(cgiplus_outbuf *ob)
{
    request_rec *r = ob->r;
    apr_status_t rv;

    if (ob->spool_off)
        return APR_EOF;
    if (ob->f_wr + ob->mem_len > ob->spool_max) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, CGIPLUS_LOGNO(1151)
                      "the response of %s for a slow client is past "
                      "CGIplusResponseSpoolMax (%" APR_OFF_T_FMT " bytes); the rest waits "
                      "for the client, and the worker with it", r->filename, ob->spool_max);
        ob->spool_off = 1;
        return APR_EOF;
    }
    if (ob->fd < 0 && (rv = ob_open(ob)) != APR_SUCCESS) {
        ob->spool_off = 1;
        return rv;
    }
    while (!APR_BRIGADE_EMPTY(ob->mem)) {
        apr_bucket *b = APR_BRIGADE_FIRST(ob->mem);
        apr_size_t len, done = 0;
        const char *data;

        if ((rv = apr_bucket_read(b, &data, &len, APR_BLOCK_READ)) != APR_SUCCESS)
            return rv;
        while (done < len) {
            ssize_t n = pwrite(ob->fd, data + done, len - done, (off_t)(ob->f_wr + done));

            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                rv = n < 0 ? APR_FROM_OS_ERROR(errno) : APR_FROM_OS_ERROR(ENOSPC);
                ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, CGIPLUS_LOGNO(1152)
                              "writing the response spool file of %s in %s failed; the "
                              "rest waits for the client, and the worker with it",
                              r->filename, ob_dir);
                ob->spool_off = 1;
                return rv;
            }
            done += (apr_size_t)n;
        }
        ob->f_wr += (apr_off_t)len;
        ob->mem_len -= (apr_off_t)len;
        apr_bucket_delete(b);
    }
    return APR_SUCCESS;
}

/* Moves up to max bytes of the oldest held data into ob->bb: from the
 * spool file (HTTP/1: file buckets; h2: a counted copy), else from memory
 * (h2: a counted copy). */
static apr_status_t ob_take(cgiplus_outbuf *ob, apr_off_t max)
{
    apr_bucket_alloc_t *ba = ob->c->bucket_alloc;
    apr_bucket *b, *e;
    apr_off_t n;
    apr_status_t rv;

    if (ob->f_rd < ob->f_wr) {
        n = ob->f_wr - ob->f_rd < max ? ob->f_wr - ob->f_rd : max;
        if (ob->fl) {
            char *p = ob_chunk_new(ob, (apr_size_t)n, &b);
            apr_size_t got = 0;

            while (got < (apr_size_t)n) {
                ssize_t k = pread(ob->fd, p + got, (apr_size_t)n - got,
                                  (off_t)(ob->f_rd + (apr_off_t)got));

                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0) {
                    apr_bucket_destroy(b);
                    return k < 0 ? APR_FROM_OS_ERROR(errno) : APR_EOF;
                }
                got += (apr_size_t)k;
            }
            APR_BRIGADE_INSERT_TAIL(ob->bb, b);
        }
        else {
            apr_off_t at;

            for (at = 0; at < n; at += OB_FILE_BUCKET) {
                apr_off_t len = n - at < OB_FILE_BUCKET ? n - at : OB_FILE_BUCKET;

                b = apr_bucket_file_create(ob->file, ob->f_rd + at, (apr_size_t)len,
                                           ob->c->pool, ba);
                apr_bucket_file_enable_mmap(b, 0);
                APR_BRIGADE_INSERT_TAIL(ob->bb, b);
            }
        }
        ob->f_rd += n;
        return APR_SUCCESS;
    }
    n = ob->mem_len < max ? ob->mem_len : max;
    if ((rv = apr_brigade_partition(ob->mem, n, &e)) != APR_SUCCESS)
        return rv;
    if (ob->fl) {
        apr_size_t len = (apr_size_t)n;
        char *p = ob_chunk_new(ob, len, &b);

        if ((rv = apr_brigade_flatten(ob->mem, p, &len)) != APR_SUCCESS) {
            apr_bucket_destroy(b);
            return rv;
        }
        APR_BRIGADE_INSERT_TAIL(ob->bb, b);
        while (APR_BRIGADE_FIRST(ob->mem) != e)
            apr_bucket_delete(APR_BRIGADE_FIRST(ob->mem));
    }
    else {
        while ((b = APR_BRIGADE_FIRST(ob->mem)) != e) {
            APR_BUCKET_REMOVE(b);
            APR_BRIGADE_INSERT_TAIL(ob->bb, b);
        }
    }
    ob->mem_len -= n;
    return APR_SUCCESS;
}

/* Nonzero if a FLUSH now would not wait: the core holds nothing and the
 * socket has room for what content filters (mod_deflate) keep back. On
 * h2 a FLUSH is one more bucket in the stream's queue. */
static int ob_writable(cgiplus_outbuf *ob)
{
    struct pollfd pf;

    if (ob->cs < 0)
        return 1;
    if (ob->c->data_in_output_filters)
        return 0;
    pf.fd = ob->cs;
    pf.events = POLLOUT;
    return poll(&pf, 1, 0) == 1 && (pf.revents & POLLOUT);
}

/* Passes what is held while the client takes it without a wait; then, if
 * the script is idle and all went, a FLUSH (a stream shows each write). */
static apr_status_t ob_push(cgiplus_outbuf *ob)
{
    for (;;) {
        apr_status_t rv;
        int open;

        if ((rv = ob_net(ob, &open)) != APR_SUCCESS)
            return rv;
        if (!open || (!ob->mem_len && ob->f_rd == ob->f_wr))
            break;
        if ((rv = ob_take(ob, ob->fl ? OB_H2_FLIGHT - (apr_off_t)ob->fl->bytes : ob->slice))
            != APR_SUCCESS || (rv = ob_pass(ob, 0)) != APR_SUCCESS)
            return rv;
    }
    if (ob->idle && ob->unflushed && !ob_data_held(ob) && ob_writable(ob))
        return ob_pass(ob, 1);
    return APR_SUCCESS;
}

/* Passes everything held, then tail (NULL: a FLUSH), waiting for the
 * client as any handler's output does. */
static apr_status_t ob_drain(cgiplus_outbuf *ob, apr_bucket_brigade *tail)
{
    apr_status_t rv;

    while (ob->f_rd < ob->f_wr) {
        /* HTTP/1: file buckets, all in one pass; h2: piece by piece */
        if ((rv = ob_take(ob, ob->fl ? OB_READ : ob->f_wr - ob->f_rd)) != APR_SUCCESS ||
            (ob->fl && (rv = ob_pass(ob, 0)) != APR_SUCCESS))
            return rv;
    }
    APR_BRIGADE_CONCAT(ob->bb, ob->mem);
    ob->mem_len = 0;
    if (tail)
        APR_BRIGADE_CONCAT(ob->bb, tail);
    return ob_pass(ob, !tail);
}

/* The last n bytes held in memory, if few, are copied into buffers of
 * their own size (apr_brigade_write fills 8000-byte ones): the buckets they
 * came in may keep a whole read buffer alive (the direct path reads 64 KiB
 * at a time), so small writes held for a slow client would take far more
 * memory than CGIplusResponseBuffer says. */
static apr_status_t ob_compact(cgiplus_outbuf *ob, apr_off_t n)
{
    apr_status_t rv;
    apr_bucket *e;

    if (n <= 0 || n >= APR_BUCKET_BUFF_SIZE)
        return APR_SUCCESS;
    if ((rv = apr_brigade_partition(ob->mem, ob->mem_len - n, &e)) != APR_SUCCESS)
        return rv;
    apr_brigade_split_ex(ob->mem, e, ob->bb);
    for (e = APR_BRIGADE_FIRST(ob->bb); rv == APR_SUCCESS && e != APR_BRIGADE_SENTINEL(ob->bb);
         e = APR_BUCKET_NEXT(e)) {
        const char *data;
        apr_size_t len;

        if ((rv = apr_bucket_read(e, &data, &len, APR_BLOCK_READ)) == APR_SUCCESS)
            rv = apr_brigade_write(ob->mem, NULL, NULL, data, len);
    }
    apr_brigade_cleanup(ob->bb);
    return rv;
}

apr_status_t cgiplus_outbuf_put(cgiplus_outbuf *ob, apr_bucket_brigade *bb, int idle)
{
    apr_off_t len = 0;
    apr_status_t rv;

    if ((rv = apr_brigade_length(bb, 1, &len)) != APR_SUCCESS)
        return rv;
    APR_BRIGADE_CONCAT(ob->mem, bb);
    ob->mem_len += len;
    ob->idle = idle;
    if ((rv = ob_push(ob)) != APR_SUCCESS ||
        (rv = ob_compact(ob, len < ob->mem_len ? len : ob->mem_len)) != APR_SUCCESS)
        return rv;
    /* Past the memory bound: to the spool file, else to the client now. */
    if (ob->mem_len > ob->buf_max && ob_spool(ob) != APR_SUCCESS)
        return ob_drain(ob, NULL);
    return APR_SUCCESS;
}

apr_status_t cgiplus_outbuf_wait(cgiplus_outbuf *ob, int src, int *src_ready)
{
    apr_interval_time_t limit = ob->r->server->timeout, wait;
    apr_size_t taken = ob->fl ? ob->fl->taken : 0;
    struct pollfd pf[2];
    apr_status_t rv;
    int n = 1, rc;

    *src_ready = 0;
    if (!ob->since)
        ob->since = apr_time_now();
    wait = ob->since + limit - apr_time_now();
    if (ob->fl) {
        /* no descriptor says the stream took some: look again soon */
        ob->tick = ob->tick ? ob->tick : OB_TICK_MIN;
        wait = ob->tick < wait ? ob->tick : wait;
    }
    pf[0].fd = src;
    pf[0].events = POLLIN;
    if (ob->cs >= 0) {
        pf[1].fd = ob->cs;
        pf[1].events = POLLOUT;
        n = 2;
    }
    do
        rc = poll(pf, (nfds_t)n, wait > 0 ? (int)((wait + 999) / 1000) : 0);
    while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return APR_FROM_OS_ERROR(errno);
    *src_ready = pf[0].revents != 0;
    if ((rv = ob_push(ob)) != APR_SUCCESS)
        return rv;
    if (n == 2 && pf[1].revents)
        ob->since = 0; /* the socket had room: the client took some */
    if (ob->fl) {
        if (ob->fl->taken != taken) {
            ob->since = 0;
            ob->tick = OB_TICK_MIN;
        }
        else if (ob->tick < OB_TICK_MAX) {
            ob->tick *= 2;
        }
    }
    if (!cgiplus_outbuf_held(ob))
        ob->since = 0;
    else if (ob->since && apr_time_now() - ob->since >= limit)
        return APR_TIMEUP;
    return APR_SUCCESS;
}

apr_status_t cgiplus_outbuf_end(cgiplus_outbuf *ob, apr_bucket_brigade *tail)
{
    return ob_drain(ob, tail);
}
