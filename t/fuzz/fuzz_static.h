/* fuzz_static.h: what the static fast path's fuzz targets share: a real
 * directory tree with links in and out, mounts over it under each symlink
 * policy, and stubs for the httpd functions the included files refer to
 * but the fuzzed functions never call. One per target binary. */
#ifndef FUZZ_STATIC_H
#define FUZZ_STATIC_H

#include "../../mod_cgiplus/cgiplus_static_private.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

module AP_MODULE_DECLARE_DATA cgiplus_module;

void ap_log_rerror_(const char *file, int line, int module_index, int level,
                    apr_status_t status, const request_rec *r, const char *fmt, ...)
{
    (void)file; (void)line; (void)module_index; (void)level; (void)status;
    (void)r; (void)fmt;
}

int ap_normalize_path(char *path, unsigned int flags)
{
    (void)path; (void)flags;
    abort(); /* httpd's own; not driven here */
}

int ap_unescape_url_ex(char *url, unsigned int flags)
{
    (void)url; (void)flags;
    abort();
}

static struct cgiplus_static_sconf fz_sconf;

struct cgiplus_static_sconf *cgiplus_static_sconf_get(server_rec *s)
{
    (void)s;
    return &fz_sconf;
}

static char fz_top[64];          /* the temporary directory */
static char fz_root[PATH_MAX];   /* the served tree: fz_top/root */
static apr_pool_t *fz_pool;      /* the setup's */
static request_rec fz_r;
static cgiplus_static_mount fz_mounts[3]; /* inside, any, none */

static int fz_rm(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st; (void)flag; (void)f;
    return remove(p);
}

static void fz_cleanup(void)
{
    nftw(fz_top, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static void fz_put(const char *rel, const char *text)
{
    char p[PATH_MAX];
    FILE *f;

    snprintf(p, sizeof p, "%s/%s", fz_top, rel);
    CHECK((f = fopen(p, "w")) != NULL);
    fputs(text, f);
    fclose(f);
}

static void fz_link(const char *to, const char *rel)
{
    char p[PATH_MAX];

    snprintf(p, sizeof p, "%s/%s", fz_top, rel);
    CHECK(symlink(to, p) == 0);
}

/* The tree, and one mount of it per symlink policy (and offload roots). */
static void fz_setup(void)
{
    char p[PATH_MAX], abs_in[PATH_MAX];
    const cgiplus_symlinks_e pol[3] = { CGIPLUS_SYMLINKS_INSIDE, CGIPLUS_SYMLINKS_ANY,
                                        CGIPLUS_SYMLINKS_NONE };

    apr_initialize();
    apr_pool_create(&fz_pool, NULL);
    strcpy(fz_top, "/tmp/cgiplus-fuzz-XXXXXX");
    CHECK(mkdtemp(fz_top));
    atexit(fz_cleanup);
    snprintf(p, sizeof p, "%s/root", fz_top);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/root/sub", fz_top);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/outside", fz_top);
    CHECK(mkdir(p, 0755) == 0);
    fz_put("root/a.txt", "a\n");
    fz_put("root/.hid", "hidden\n");
    fz_put("root/sub/b.txt", "b\n");
    fz_put("outside/secret", "secret\n");
    fz_link("a.txt", "root/link-in");
    fz_link("sub", "root/linkdir-in");
    snprintf(abs_in, sizeof abs_in, "%s/root/sub/b.txt", fz_top);
    fz_link(abs_in, "root/link-abs-in");
    fz_link("/etc/passwd", "root/link-out");
    fz_link("../outside", "root/linkdir-out");
    fz_link("../outside/secret", "root/link-rel-out");
    fz_link("../a.txt", "root/sub/up");
    fz_link("../../outside/secret", "root/sub/upout");
    fz_link("loop", "root/loop");
    snprintf(p, sizeof p, "%s/outside/secret", fz_top);
    fz_link(p, "root/link-abs-out");
    snprintf(fz_root, sizeof fz_root, "%s/root", fz_top);
    CHECK(realpath(fz_root, p));
    strcpy(fz_root, p);

    fz_sconf.mounts = apr_array_make(fz_pool, 4, sizeof(cgiplus_static_mount *));
    fz_sconf.offload = apr_array_make(fz_pool, 4, sizeof(cgiplus_static_mount *));
    for (int i = 0; i < 3; i++) {
        cgiplus_static_mount *m = &fz_mounts[i];

        m->prefix = i == 0 ? "/s" : i == 1 ? "/s/any" : "/n";
        m->prefix_len = strlen(m->prefix);
        m->dir = m->dir_real = fz_root;
        m->index = apr_array_make(fz_pool, 1, sizeof(const char *));
        m->symlinks = pol[i];
        m->root_fd = -1;
        APR_ARRAY_PUSH(fz_sconf.mounts, cgiplus_static_mount *) = m;
        if (i == 0)
            APR_ARRAY_PUSH(fz_sconf.offload, cgiplus_static_mount *) = m;
    }
    apr_pool_create(&fz_r.pool, fz_pool); /* per input: cleared after each */
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_setup();
    return 0;
}

/* Whether the open descriptor's file lies in the served tree. */
static int fz_fd_inside(int fd)
{
    char proc[64], real[PATH_MAX];
    ssize_t n;
    size_t rl = strlen(fz_root);

    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    CHECK((n = readlink(proc, real, sizeof real - 1)) > 0);
    real[n] = '\0';
    return !strncmp(real, fz_root, rl) && (real[rl] == '/' || real[rl] == '\0');
}

/* Opens rel under m as the fast path does and checks the policy held. */
static void fz_open_check(cgiplus_static_mount *m, const char *rel)
{
    struct stat st;
    apr_status_t rv, crv;
    int fd = -1;

    rv = cgiplus_static_path_open(&fz_r, m, rel, &fd, &st);
    if (rv == APR_SUCCESS) {
        CHECK(fd >= 0 && S_ISREG(st.st_mode));
        CHECK(m->symlinks == CGIPLUS_SYMLINKS_ANY || fz_fd_inside(fd));
        close(fd);
    } else {
        CHECK(fd == -1);
    }
    /* what translate_name lets httpd open: never a file outside */
    crv = cgiplus_static_path_check(&fz_r, m, rel);
    if (crv == APR_SUCCESS && m->symlinks != CGIPLUS_SYMLINKS_ANY) {
        char full[PATH_MAX * 2];
        int ofd;

        snprintf(full, sizeof full, "%s/%s", m->dir, rel);
        if ((ofd = open(full, O_PATH | O_CLOEXEC)) >= 0) {
            CHECK(fz_fd_inside(ofd));
            close(ofd);
        }
    }
    /* a file the fast path refuses by policy is refused to httpd too */
    if (rv == CGIPLUS_STATIC_EREFUSED)
        CHECK(crv == CGIPLUS_STATIC_EREFUSED);
}

#endif
