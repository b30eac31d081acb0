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
    TAILQ_ENTRY(runner_pwatch) link;
} runner_pwatch;

/* Opens the inotify descriptor; -1 (logged once): every pool stats per request. */
int runner_watch_init(void);
void runner_watch_fini(void);
/* Watches the names on the way to path (again: the old ones are let go),
 * and says whether it could (w->ok). */
int runner_watch_set(runner_pwatch *w, const char *path);
void runner_watch_drop(runner_pwatch *w);
/* Reads what is pending, marking the watches it names dirty; 1 when the
 * kernel's queue overflowed (every watch must look), 0, or -1 none. */
int runner_watch_read(void);

#endif
