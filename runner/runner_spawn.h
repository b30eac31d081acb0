/* runner_spawn.h: fork + exec of one script process (runner_spawn.c). */
#ifndef RUNNER_SPAWN_H
#define RUNNER_SPAWN_H

#include "runner_types.h"
#include "runner_conf.h"

#define RUNNER_SPAWN_MAXFD 4
/* One spawn's request, the caller's (on its stack) for the call only. */
typedef struct runner_spawn_spec {
    const char *path;         /* script; also argv[0] */
    char **argv;              /* NULL-ended, or NULL for just { path } */
    const char *dir;          /* chdir target */
    char **envp;
    int fds[RUNNER_SPAWN_MAXFD]; /* become the child's 0..nfds-1 */
    int nfds;
    int exec_fd;              /* write end of the exec error pipe (CLOEXEC) */
    const runner_pool_set *set; /* user and rlimits */
    int die_with_runner;      /* SIGKILL when the runner dies (a FastCGI application,
                                 which nothing else would end: runner_fcgi.c) */
    const gid_t *groups;      /* supplementary groups (suEXEC's initgroups), NULL: gid alone */
    size_t ngroups;
    struct runner_domain **domain; /* its pool's (runner_domain.c); NULL: one of its own */
} runner_spawn_spec;
/* Where a child failed before exec, as reported on the exec pipe. */
enum runner_stage { RUNNER_STAGE_SETSID = 1, RUNNER_STAGE_CREDS, RUNNER_STAGE_CHDIR,
                    RUNNER_STAGE_FDS, RUNNER_STAGE_EXEC, RUNNER_STAGE_RLIMIT,
                    RUNNER_STAGE_PDEATH, RUNNER_STAGE_SECCOMP,
                    /* exec refused (EACCES) though the script itself is
                     * executable for its user: its #! interpreter is */
                    RUNNER_STAGE_INTERP };
/* Forks and execs s: in its pool's domain where there is one, else with
 * a domain of its own that scopes signals. The pid, or -1 with errno. */
pid_t runner_spawn(const runner_spawn_spec *s);
/* The fork itself, in the calling thread's domain (runner_domain.c). */
pid_t runner_spawn_here(const runner_spawn_spec *s, int scope_signals);
const char *runner_spawn_stage(unsigned stage);
int runner_random_hex(char *out, size_t nhex);
/* The spawns' descriptor chores: closes *fd if open and sets it -1; our
 * end non-blocking (0, or -1 with errno). */
void runner_close_fd(int *fd);
int runner_set_nonblock(int fd);
/* Another open file description of the pipe end fd, with its own flags
 * (non-blocking, close-on-exec), by /proc/self/fd: a pipe reopens as a
 * FIFO. -1 with errno. */
int runner_spawn_reopen(int fd, int flags);
/* Appends the pool's configured environment to envp (NULL-ended, cap slots). */
size_t runner_spawn_env(const runner_pool_set *set, char **envp, size_t n, size_t cap);

#endif
