/* runner_watch.h: deploy detection (runner_watch.c). One inotify
 * descriptor in the loop watches, for each pool, every name on the way to
 * its script: each directory component in its parent, every symlink met
 * while resolving (and the components of its target), and the file in its
 * directory. An event on one of those names marks the pool's watch dirty;
 * the pool then stats once (runner_pool.c). Directories are watched once
 * however many pools' paths pass through them. */
#ifndef RUNNER_WATCH_H
#define RUNNER_WATCH_H

#include "runner_types.h"

#include <stdint.h>
#include <sys/stat.h>

#define RUNNER_WATCH_POINTS 32u /* names watched on the way to one script */

typedef struct runner_wdir runner_wdir;

/* The names on the way to one script. Embedded in its pool, released with
 * it (runner_watch_drop); zeroed: not watched yet. */
typedef struct runner_pwatch {
    runner_wdir *dir[RUNNER_WATCH_POINTS];
    char *name[RUNNER_WATCH_POINTS];
    unsigned n;
    int ok;                   /* every name is watched: the script needs no stat per request */
    int failed;               /* watching failed (limits, access): stat per request for good */
    int dirty;                /* an event named one of them since the last look */
    int listed;               /* in the watcher's list */
    int looked;               /* the script was stat'ed: err (and the pool's ident) say what it is */
    int err;                  /* 0, ENOENT or EACCES, as of the last look */
    TAILQ_ENTRY(runner_pwatch) link;
} runner_pwatch;

/* Which file a pool's script is: another inode, size, mtime or ctime is a
 * deploy. Embedded in its pool (request or WebSocket); zeroed: none yet. */
typedef struct runner_ident {
    int have;
    dev_t dev;
    ino_t ino;
    int64_t size, mtime_ns, ctime_ns;
} runner_ident;

/* stat()s a script: 0 with *st, else ENOENT, or EACCES for what is not an
 * executable regular file (404 and 403). */
int runner_ident_stat(const char *path, struct stat *st);
/* st is another file than the one id noted (if it noted one). */
int runner_ident_changed(const runner_ident *id, const struct stat *st);
void runner_ident_note(runner_ident *id, const struct stat *st);

/* Opens the inotify descriptor; -1 (logged once): every pool stats per request. */
int runner_watch_init(void);
void runner_watch_fini(void);
/* Watches the names on the way to path (again: the old ones are let go),
 * and says whether it could (w->ok). */
int runner_watch_set(runner_pwatch *w, const char *path);
void runner_watch_drop(runner_pwatch *w);
/* A pool's stat of its script (check(pool)): 0, ENOENT or EACCES. */
typedef int runner_check_fn(void *pool);
/* Watches the way to path again (what an event named may have moved),
 * then stats the script once through check. */
int runner_watch_look(runner_pwatch *w, const char *path, runner_check_fn *check, void *pool);
/* What a request finds: the last look while the watch holds, else a look now. */
int runner_watch_state(runner_pwatch *w, const char *path, runner_check_fn *check, void *pool);
/* The pool must look again: an event named its way (or all must). */
int runner_watch_stale(const runner_pwatch *w, int all);
/* Told after events marked watches dirty (all: the kernel's queue
 * overflowed, every watch must look): a pool looks at its script. The
 * watch's descriptor is handled before the other events of a loop turn,
 * so a request sent after a file changed meets the rolled-over pool. */
typedef void runner_watch_fn(int all);
void runner_watch_listen(runner_watch_fn *fn);

#endif
