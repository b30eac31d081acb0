/* fuzz_static_path.c: libFuzzer target for the static fast path's URL-path
 * handling after httpd's normalisation (mod_cgiplus/cgiplus_static_path.c,
 * included for its static helpers): the encoded-NUL and dotfile checks, the
 * longest-prefix match, and the resolution of the rest below the mount
 * under each symlink policy, with openat2 and with its realpath fallback,
 * on a real tree with links in and out (fuzz_static.h). Whatever the name
 * (dot-dot, links, loops), a file opened, or passed on to httpd, lies in
 * the served tree unless the mount says symlinks=any. httpd's own
 * normalisers (ap_normalize_path, ap_unescape_url_ex) are not linked. */
#include "../../mod_cgiplus/cgiplus_static_path.c"
#include "fuzz_static.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    char *path, *rel_copy;
    const char *rel;
    cgiplus_static_mount *m;
    int saved = path_have_openat2;

    if (n < 1 || n > 1024)
        return 0;
    path = apr_pstrmemdup(fz_r.pool, (const char *)d + 1, n - 1); /* up to a NUL */
    (void)path_has_nul(path);
    (void)cgiplus_static_path_has_dotfile(path);

    /* the prefix match: rel is the tail after the prefix, no leading '/' */
    if ((m = cgiplus_static_path_match(NULL, path, &rel)) != NULL) {
        CHECK(!strncmp(path, m->prefix, m->prefix_len));
        CHECK(rel >= path + m->prefix_len && rel <= path + m->prefix_len + 1);
        CHECK(strlen(rel) <= strlen(path) - m->prefix_len);
    }

    rel_copy = apr_pstrdup(fz_r.pool, path);
    while (*rel_copy == '/')
        rel_copy++;
    if (d[0] & 4)
        path_have_openat2 = 0; /* the fallback of kernels before 5.6 */
    fz_open_check(&fz_mounts[d[0] % 3], rel_copy);
    path_have_openat2 = saved;
    apr_pool_clear(fz_r.pool);
    return 0;
}
