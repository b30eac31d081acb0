/* runner_watch.c: the inotify side of deploy detection (runner_watch.h).
 * A script is replaced by renaming a file over it, by copying over it, by
 * swapping a symlink (ln -sfn, or a rename of a new link), or by swapping
 * a directory on its path: each is an event on one of the names resolving
 * its path goes through, in the directory holding that name. */
#include "runner_watch.h"
#include "runner_log.h"
#include "runner_loop.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM | \
              IN_ONLYDIR)
#define HOPS_MAX 40 /* symlinks followed, as the kernel's ELOOP */

/* One watched directory, shared by every pool whose path passes through
 * it; lives while refs > 0. wd -1: the kernel dropped it (IN_IGNORED). */
struct runner_wdir {
    int wd;
    unsigned refs;
    TAILQ_ENTRY(runner_wdir) link;
};

#define LISTENERS 4

/* The descriptor, what it watches and who is told; for the runner's life. */
static struct {
    runner_ev ev;
    TAILQ_HEAD(, runner_wdir) dirs;
    TAILQ_HEAD(, runner_pwatch) watches;
    runner_watch_fn *listeners[LISTENERS];
    unsigned nlisteners;
} wt = { .ev = { .fd = -1 } };

static void on_watch(runner_ev *ev, uint32_t events);

void runner_watch_listen(runner_watch_fn *fn)
{
    if (wt.nlisteners < LISTENERS)
        wt.listeners[wt.nlisteners++] = fn;
}

int runner_watch_init(void)
{
    TAILQ_INIT(&wt.dirs);
    TAILQ_INIT(&wt.watches);
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2085) "inotify_init1: %s; every pool stats "
                   "its script per request to see deploys", strerror(errno));
        return -1;
    }
    runner_ev_init(&wt.ev, on_watch, fd, NULL);
    if (runner_ev_watch(&wt.ev, EPOLLIN) < 0) {
        runner_ev_close(&wt.ev);
        return -1;
    }
    runner_ev_early(&wt.ev);
    return 0;
}

void runner_watch_fini(void)
{
    runner_pwatch *w;
    while ((w = TAILQ_FIRST(&wt.watches)))
        runner_watch_drop(w);
    runner_ev_close(&wt.ev);
}

static runner_wdir *dir_get(const char *dir, int *err)
{
    runner_wdir *d;
    int wd = inotify_add_watch(wt.ev.fd, dir, MASK);
    if (wd < 0) {
        *err = errno;
        return NULL;
    }
    TAILQ_FOREACH(d, &wt.dirs, link) /* the same directory: the same wd */
        if (d->wd == wd) {
            d->refs++;
            return d;
        }
    if (!(d = calloc(1, sizeof(*d)))) {
        *err = ENOMEM;
        return NULL; /* wd stays: harmless, events on it match nobody */
    }
    d->wd = wd;
    d->refs = 1;
    TAILQ_INSERT_TAIL(&wt.dirs, d, link);
    return d;
}

static void dir_put(runner_wdir *d)
{
    if (--d->refs)
        return;
    if (d->wd >= 0)
        inotify_rm_watch(wt.ev.fd, d->wd);
    TAILQ_REMOVE(&wt.dirs, d, link);
    free(d);
}

static int point(runner_pwatch *w, const char *dir, const char *name, size_t nlen, int *err)
{
    if (w->n >= RUNNER_WATCH_POINTS) {
        *err = ENAMETOOLONG;
        return -1;
    }
    if (!(w->name[w->n] = strndup(name, nlen))) {
        *err = ENOMEM;
        return -1;
    }
    if (!(w->dir[w->n] = dir_get(dir, err))) {
        free(w->name[w->n]);
        return -1;
    }
    w->n++;
    return 0;
}

/* Walks path as the kernel resolves it, watching each name met in the
 * directory that holds it. A missing name ends the walk: its directory
 * is watched, so it is seen when it comes. */
static int walk(runner_pwatch *w, const char *path, int *err)
{
    char todo[2 * PATH_MAX], real[PATH_MAX], link[PATH_MAX], tmp[2 * PATH_MAX];
    size_t rl = 0;            /* real[0..rl): the directory reached, no symlink in it; "" is / */
    unsigned hops = 0;
    const char *p;

    if (strlen(path) >= sizeof(todo)) {
        *err = ENAMETOOLONG;
        return -1;
    }
    strcpy(todo, path);
    real[0] = '\0';
    p = todo;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            return 0;
        const char *c = p, *slash = strchr(p, '/');
        size_t cl = slash ? (size_t)(slash - p) : strlen(p);
        p = c + cl;
        if (cl == 1 && c[0] == '.')
            continue;
        if (cl == 2 && c[0] == '.' && c[1] == '.') {
            while (rl && real[rl - 1] != '/')
                rl--;
            if (rl)
                rl--;
            real[rl] = '\0';
            continue;
        }
        if (point(w, rl ? real : "/", c, cl, err) < 0)
            return -1;
        if (rl + 1 + cl >= sizeof(real)) {
            *err = ENAMETOOLONG;
            return -1;
        }
        size_t at = rl;
        real[rl] = '/';
        memcpy(real + rl + 1, c, cl);
        real[rl + 1 + cl] = '\0';
        struct stat st;
        if (lstat(real, &st) < 0)
            return 0; /* missing (or unreadable): watched where it would appear */
        if (!S_ISLNK(st.st_mode)) {
            rl += 1 + cl;
            if (!S_ISDIR(st.st_mode))
                return 0; /* the file (or a file where a directory should be) */
            continue;
        }
        ssize_t ll = readlink(real, link, sizeof(link) - 1);
        if (ll < 0)
            return 0;
        link[ll] = '\0';
        if (++hops > HOPS_MAX) {
            *err = ELOOP;
            return -1;
        }
        real[at] = '\0'; /* the link's directory */
        rl = link[0] == '/' ? 0 : at;
        real[rl] = '\0';
        if ((size_t)snprintf(tmp, sizeof(tmp), "%s%s", link, p) >= sizeof(tmp)) {
            *err = ENAMETOOLONG;
            return -1;
        }
        strcpy(todo, tmp);
        p = todo;
    }
}

static void points_free(runner_wdir **dir, char **name, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        dir_put(dir[i]);
        free(name[i]);
    }
}

int runner_watch_set(runner_pwatch *w, const char *path)
{
    runner_wdir *old_dir[RUNNER_WATCH_POINTS];
    char *old_name[RUNNER_WATCH_POINTS];
    unsigned old_n = w->n;
    int err = 0;

    if (w->failed || wt.ev.fd < 0) {
        w->ok = 0;
        return -1;
    }
    if (!w->listed) {
        TAILQ_INSERT_TAIL(&wt.watches, w, link);
        w->listed = 1;
    }
    /* The new names first: a directory both lists hold stays watched. */
    memcpy(old_dir, w->dir, sizeof(old_dir));
    memcpy(old_name, w->name, sizeof(old_name));
    w->n = 0;
    w->dirty = 0;
    int rc = walk(w, path, &err);
    points_free(old_dir, old_name, old_n);
    if (rc < 0) {
        points_free(w->dir, w->name, w->n);
        w->n = 0;
        w->ok = 0;
        w->failed = 1;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2086) "cannot watch %s for deploys: %s%s; "
                   "it is stat'ed per request instead", path, strerror(err),
                   err == ENOSPC ? " (fs.inotify.max_user_watches)" : "");
        return -1;
    }
    w->ok = 1;
    return 0;
}

int runner_watch_look(runner_pwatch *w, const char *path, runner_check_fn *check, void *pool)
{
    if (!w->failed)
        runner_watch_set(w, path);
    w->err = check(pool);
    w->looked = 1;
    w->dirty = 0;
    return w->err;
}

int runner_watch_state(runner_pwatch *w, const char *path, runner_check_fn *check, void *pool)
{
    if (w->looked && w->ok && !w->dirty)
        return w->err;
    return runner_watch_look(w, path, check, pool);
}

int runner_watch_stale(const runner_pwatch *w, int all)
{
    return w->looked && (all || w->dirty);
}

void runner_watch_drop(runner_pwatch *w)
{
    if (w->listed)
        TAILQ_REMOVE(&wt.watches, w, link);
    points_free(w->dir, w->name, w->n);
    memset(w, 0, sizeof(*w));
}

/* Reads what is pending, marking the watches it names dirty; 1 when the
 * kernel's queue overflowed (every watch must look), 0, or -1 none. */
static int watch_read(void)
{
    _Alignas(struct inotify_event) char buf[16384];
    int overflow = 0;
    ssize_t n;

    if (wt.ev.fd < 0)
        return -1;
    while ((n = read(wt.ev.fd, buf, sizeof(buf))) > 0) {
        for (char *at = buf; at < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)at;
            at += sizeof(*e) + e->len;
            if (e->mask & IN_Q_OVERFLOW) {
                overflow = 1;
                continue;
            }
            runner_wdir *d;
            TAILQ_FOREACH(d, &wt.dirs, link)
                if (d->wd == e->wd)
                    break;
            if (!d)
                continue;
            if (e->mask & IN_IGNORED)
                d->wd = -1; /* its directory went: whoever passes through it looks again */
            runner_pwatch *w;
            TAILQ_FOREACH(w, &wt.watches, link)
                for (unsigned i = 0; i < w->n && !w->dirty; i++)
                    if (w->dir[i] == d &&
                        (d->wd < 0 || (e->len && strcmp(w->name[i], e->name) == 0)))
                        w->dirty = 1;
        }
    }
    if (overflow)
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2087) "inotify queue overflowed: every "
                   "pool's script is stat'ed once");
    return overflow;
}

/* Pending events: the watches they name are dirty; then each listener
 * looks at its own (all: the queue overflowed, every one must look). */
static void on_watch(runner_ev *ev, uint32_t events)
{
    int all = watch_read();
    if (all < 0)
        return;
    for (unsigned i = 0; i < wt.nlisteners; i++)
        wt.listeners[i](all);
}

/* ------------------------------------------------------------ identity */

static int64_t ns_of(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

int runner_ident_stat(const char *path, struct stat *st)
{
    if (stat(path, st) < 0)
        return errno == EACCES ? EACCES : ENOENT;
    if (!S_ISREG(st->st_mode) || !(st->st_mode & 0111))
        return EACCES;
    return 0;
}

int runner_ident_changed(const runner_ident *id, const struct stat *st)
{
    return id->have && (id->dev != st->st_dev || id->ino != st->st_ino ||
                        id->size != (int64_t)st->st_size ||
                        id->mtime_ns != ns_of(&st->st_mtim) || id->ctime_ns != ns_of(&st->st_ctim));
}

void runner_ident_note(runner_ident *id, const struct stat *st)
{
    id->have = 1;
    id->dev = st->st_dev;
    id->ino = st->st_ino;
    id->size = (int64_t)st->st_size;
    id->mtime_ns = ns_of(&st->st_mtim);
    id->ctime_ns = ns_of(&st->st_ctim);
}
