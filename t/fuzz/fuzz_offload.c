/* fuzz_offload.c: libFuzzer target for a script's X-CGIplus-File header
 * (mod_cgiplus/cgiplus_static_offload.c, included for its static
 * offload_root): the value names a file to send; it must lie under a
 * CGIplusOffloadRoot and is then resolved under that root's policy
 * (cgiplus_static_path.c, linked) on a real tree with links in and out
 * (fuzz_static.h). Here the value is taken as it comes, without httpd's
 * ap_normalize_path in front (not linked), so dot-dot and links must be
 * stopped by the resolution itself: nothing outside the root is opened. */
#include "../../mod_cgiplus/cgiplus_static_offload.c"
#include "fuzz_static.h"

#include <stdint.h>

/* What offload.c refers to beyond offload_root; not reached from it. */
int cgiplus_static_respond(request_rec *r, cgiplus_static_mount *m, const char *rel,
                           cgiplus_serve_e mode)
{
    (void)r; (void)m; (void)rel; (void)mode;
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    cgiplus_static_mount *m;
    const char *rel;
    char *path;

    if (n > 2048)
        return 0;
    /* A value naming the root (the seeds do) reaches the tree; the rest
     * is the script's. */
    path = apr_pstrcat(fz_r.pool, n && d[0] == '~' ? fz_root : "",
                       apr_pstrmemdup(fz_r.pool, (const char *)d + (n && d[0] == '~'),
                                      n - (n && d[0] == '~')), NULL);
    if ((m = offload_root(&fz_r, path, &rel)) != NULL) {
        size_t len = strlen(m->dir);

        CHECK(!strncmp(path, m->dir, len) && path[len] == '/' && rel == path + len + 1);
        fz_open_check(m, rel);
    }
    apr_pool_clear(fz_r.pool);
    return 0;
}
