/* cgiplus_key.c: the connection key that lets only httpd's own processes
 * drive the runner (docs/RUNNER.md, "Who may drive the runner"). The httpd
 * parent makes it at startup (or reads CGIplusRunnerKeyFile as root); the
 * children inherit it by fork and prove it in every HELLO; the runner the
 * module starts reads it once from a pipe. It is in no argv, no environment
 * and no file a script can read, and only in the memory of processes a
 * script cannot inspect (not dumpable). */
#include "cgiplus_runner.h"
#include "cgp_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_core.h"
#include "mpm_common.h"
#include "apr_file_io.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

#define KEY_KEEP "cgiplus_runner_key"

/* This generation's key. Static in the parent, set by post_config; children
 * get their copy by fork and only read it. */
static struct {
    unsigned char key[CGP_KEY_LEN];
    int set;
} ck;

const unsigned char *cgiplus_key(void)
{
    return ck.set ? ck.key : NULL;
}

/* The random key lives as long as the httpd parent (userdata of the process
 * pool): a runner kept across restarts keeps its key, and so do children of
 * every generation. */
static apr_status_t key_random(server_rec *s, unsigned char *key)
{
    void *d = NULL;
    size_t got = 0;

    apr_pool_userdata_get(&d, KEY_KEEP, s->process->pool);
    if (d) {
        memcpy(key, d, CGP_KEY_LEN);
        return APR_SUCCESS;
    }
    while (got < CGP_KEY_LEN) {
        ssize_t n = getrandom(key + got, CGP_KEY_LEN - got, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return APR_FROM_OS_ERROR(errno);
        got += (size_t)n;
    }
    d = apr_pmemdup(s->process->pool, key, CGP_KEY_LEN);
    apr_pool_userdata_set(d, KEY_KEEP, apr_pool_cleanup_null, s->process->pool);
    return APR_SUCCESS;
}

/* A key file: a regular file nobody but its owner may read, whose whole
 * text is the key in hex. */
static apr_status_t key_file(apr_pool_t *p, server_rec *s, const char *path,
                             unsigned char *key)
{
    char text[CGP_KEY_HEX_MAX + 1];
    apr_size_t len = sizeof(text);
    apr_finfo_t fi;
    apr_file_t *f;
    apr_status_t rv;
    const char *why;

    if ((rv = apr_file_open(&f, path, APR_FOPEN_READ, 0, p)) != APR_SUCCESS) {
        why = "cannot be opened";
        goto fail;
    }
    rv = apr_file_info_get(&fi, APR_FINFO_TYPE | APR_FINFO_PROT | APR_FINFO_USER, f);
    if (rv == APR_SUCCESS && (fi.filetype != APR_REG ||
        (fi.protection & (APR_FPROT_GREAD | APR_FPROT_WREAD | APR_FPROT_GWRITE |
                          APR_FPROT_WWRITE)))) {
        apr_file_close(f);
        rv = APR_EINVAL;
        why = "must be a regular file that only its owner may read or write "
              "(chmod 0600 or 0400)";
        goto fail;
    }
    /* Its owner may read it: that must be root (an httpd started by
     * another user can only have its own, and its scripts run as it). */
    if (rv == APR_SUCCESS && fi.user != geteuid()) {
        apr_file_close(f);
        rv = APR_EINVAL;
        why = apr_psprintf(p, "is owned by uid %lu: it must be owned by %s, since "
                           "whoever owns it can read the key and drive the runner "
                           "(chown root:root)", (unsigned long)fi.user,
                           geteuid() ? "httpd's own user" : "root");
        goto fail;
    }
    if (rv == APR_SUCCESS)
        rv = apr_file_read_full(f, text, sizeof(text), &len);
    apr_file_close(f);
    if (rv != APR_SUCCESS && !APR_STATUS_IS_EOF(rv)) {
        why = "cannot be read";
        goto fail;
    }
    if (cgp_key_parse(text, len, key) != CGP_OK) {
        rv = APR_EINVAL;
        why = "must hold exactly 64 hex digits (32 random bytes), e.g. from "
              "'openssl rand -hex 32'";
        goto fail;
    }
    memset(text, 0, sizeof(text));
    return APR_SUCCESS;

fail:
    memset(text, 0, sizeof(text));
    ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, rv, s, CGIPLUS_LOGNO(1200)
                 "mod_cgiplus: CGIplusRunnerKeyFile %s %s", path, why);
    return rv;
}

apr_status_t cgiplus_key_check(apr_pool_t *ptemp, server_rec *s, const char *file)
{
    unsigned char key[CGP_KEY_LEN];
    apr_status_t rv = key_file(ptemp, s, file, key);

    memset(key, 0, sizeof(key));
    return rv;
}

apr_status_t cgiplus_key_post_config(apr_pool_t *ptemp, server_rec *s, const char *file)
{
    apr_status_t rv;

    rv = file ? key_file(ptemp, s, file, ck.key) : key_random(s, ck.key);
    if (rv != APR_SUCCESS) {
        if (!file)
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, rv, s,
                         CGIPLUS_LOGNO(1201) "mod_cgiplus cannot make the runner's "
                         "connection key (getrandom)");
        ck.set = 0;
        return rv;
    }
    ck.set = 1;
    /* A parent that keeps its uid shares it with the scripts: it must not
     * be dumpable, or a script could read the key from its memory. Its
     * children inherit this through fork. */
    if (geteuid() != 0)
        prctl(PR_SET_DUMPABLE, 0);
    /* Said once a start or restart, by the parent, not by every child
     * (nor on httpd's first pass over the configuration). */
    if (ap_coredumpdir_configured && ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_CONFIG)
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, CGIPLUS_LOGNO(1202)
                     "CoreDumpDirectory makes httpd's children dumpable: a script "
                     "running as httpd's user could read the runner's connection "
                     "key from their memory and drive the runner, unless the runner "
                     "starts its workers in Landlock domains (2913); run scripts as "
                     "another user (CGIplusUser) or drop CoreDumpDirectory");
    return APR_SUCCESS;
}

void cgiplus_key_child_init(apr_pool_t *pchild, server_rec *s)
{
    if (prctl(PR_GET_DUMPABLE) != 1)
        return;
    /* CoreDumpDirectory makes them dumpable on purpose (1202 at start) */
    if (!ap_coredumpdir_configured)
        prctl(PR_SET_DUMPABLE, 0);
}

int cgiplus_key_pipe(void)
{
    int fds[2];
    ssize_t n;

    if (!ck.set || pipe2(fds, O_CLOEXEC) < 0)
        return -1;
    /* 32 bytes always fit a pipe's buffer: one write, then the end closed,
     * so the runner reads the key and then end of file. */
    do {
        n = write(fds[1], ck.key, CGP_KEY_LEN);
    } while (n < 0 && errno == EINTR);
    close(fds[1]);
    /* Only the runner's exec inherits it; the caller closes it after. */
    if (n != (ssize_t)CGP_KEY_LEN || fcntl(fds[0], F_SETFD, 0) < 0) {
        close(fds[0]);
        return -1;
    }
    return fds[0];
}
