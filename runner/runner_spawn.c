/* runner_spawn.c: fork + exec of one script process. The child gets its own
 * session, drops to --user/--group when the runner is root, moves to the
 * script's directory, keeps exactly the descriptors it is given and reports
 * a failure before exec as (stage, errno) on the exec pipe, a failed exec
 * with the script's first bytes. */
#include "runner_spawn.h"
#include "runner_ctx.h"
#include "runner_oom.h"
#include "runner_landlock.h"
#include "runner_domain.h"
#include "runner_seccomp.h"
#include "runner_loop.h"
#include "cgp_proto.h"
#include "cgp_shebang.h"
#include "cgp_suexec.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *runner_spawn_stage(unsigned stage)
{
    switch (stage) {
    case RUNNER_STAGE_SETSID: return "setsid";
    case RUNNER_STAGE_CREDS:  return "switching user";
    case RUNNER_STAGE_CHDIR:  return "chdir";
    case RUNNER_STAGE_FDS:    return "setting up descriptors";
    case RUNNER_STAGE_EXEC:   return "exec";
    case RUNNER_STAGE_INTERP: return "exec";
    case RUNNER_STAGE_RLIMIT: return "setting resource limits";
    case RUNNER_STAGE_PDEATH: return "tying it to the runner";
    case RUNNER_STAGE_SECCOMP: return "installing its seccomp filter";
    default:           return "start";
    }
}

/* (stage, errno), and for a failed exec the script's first bytes, read as
 * its user: the runner names the interpreter its #! line wants. One write
 * (at most PIPE_BUF): the runner reads it with one read. */
static void child_fail_with(int efd, unsigned stage, int err, const char *script)
{
    unsigned char b[8 + CGP_SHEBANG_MAX];
    ssize_t got = 0;
    cgp_put32(b, stage);
    cgp_put32(b + 4, (uint32_t)err);
    if (script) {
        int fd = open(script, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            got = read(fd, b + 8, CGP_SHEBANG_MAX);
            close(fd);
        }
    }
    ssize_t n = write(efd, b, 8 + (size_t)(got > 0 ? got : 0));
    (void)n;
    _exit(127);
}

static void child_fail(int efd, unsigned stage, int err)
{
    child_fail_with(efd, stage, err, NULL);
}

/* Closes every descriptor from lo up, except keep. */
static void close_from(int lo, int keep)
{
    if (keep > lo && close_range((unsigned)lo, (unsigned)keep - 1, 0) < 0 && errno == ENOSYS)
        for (int fd = lo; fd < keep; fd++)
            close(fd);
    if (close_range((unsigned)keep + 1, ~0u, 0) < 0 && errno == ENOSYS) {
        long max = sysconf(_SC_OPEN_MAX);
        for (long fd = keep + 1; fd < (max > 0 ? max : 65536); fd++)
            close((int)fd);
    }
}

static void child(const runner_spawn_spec *s, pid_t runner, int scope_signals)
{
    int efd = s->exec_fd;
    int hi[RUNNER_SPAWN_MAXFD];
    struct sigaction sa = { .sa_handler = SIG_DFL };
    static const int sigs[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD };
    sigset_t none;

    /* Ignored signals stay ignored across exec: give the script defaults. */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (setsid() < 0)
        child_fail(efd, RUNNER_STAGE_SETSID, errno);
    /* Move everything above the target numbers first, so no dup2 clobbers
     * a source still needed; dup2 then clears FD_CLOEXEC on the targets. */
    for (int i = 0; i < s->nfds; i++)
        if ((hi[i] = fcntl(s->fds[i], F_DUPFD_CLOEXEC, 16)) < 0)
            child_fail(efd, RUNNER_STAGE_FDS, errno);
    int e2 = fcntl(efd, F_DUPFD_CLOEXEC, 16);
    if (e2 < 0)
        child_fail(efd, RUNNER_STAGE_FDS, errno);
    efd = e2;
    for (int i = 0; i < s->nfds; i++)
        if (dup2(hi[i], i) < 0)
            child_fail(efd, RUNNER_STAGE_FDS, errno);
    close_from(s->nfds, efd);
    /* Limits after the descriptors are in place (a low nofile would stop
     * their moves) and before the user switch (root may raise hard limits). */
    static const int res[] = { RLIMIT_CPU, RLIMIT_AS, RLIMIT_NOFILE, RLIMIT_NPROC };
    for (int i = 0; i < 4; i++) {
        uint64_t v = s->set->v[CGP_S_RLIMIT_CPU + i];
        if (!v)
            continue;
        /* CPU: SIGXCPU at the soft limit, SIGKILL a second later. */
        struct rlimit rl = { .rlim_cur = (rlim_t)v, .rlim_max = (rlim_t)v + (i == 0) };
        if (setrlimit(res[i], &rl) < 0)
            child_fail(efd, RUNNER_STAGE_RLIMIT, errno);
    }
    runner_oom_prefer(); /* as root: the script cannot lower it again */
    if (runner_g.is_root) {
        /* best effort: the runner said at start whether it works */
        runner_landlock_enter(scope_signals);
        if (runner_seccomp_confine() < 0)
            child_fail(efd, RUNNER_STAGE_SECCOMP, errno);
    }
    uint64_t user = s->set->v[CGP_S_USER];
    uid_t uid = (uid_t)(user >> 32);
    gid_t gid = (gid_t)(user & 0xffffffffu);
    if (runner_g.is_root) {
        if (!user || uid == 0 || gid == 0)
            child_fail(efd, RUNNER_STAGE_CREDS, EPERM);
        if ((s->groups ? setgroups(s->ngroups, s->groups) : setgroups(1, &gid)) < 0 ||
            setgid(gid) < 0 || setuid(uid) < 0)
            child_fail(efd, RUNNER_STAGE_CREDS, errno);
        if (setuid(0) == 0 || seteuid(0) == 0)
            child_fail(efd, RUNNER_STAGE_CREDS, EPERM);
    } else if (user && uid != geteuid()) {
        child_fail(efd, RUNNER_STAGE_CREDS, EPERM);
    }
    if (chdir(s->dir) < 0)
        child_fail(efd, RUNNER_STAGE_CHDIR, errno);
    /* After the user switch, which clears it; a runner already gone is
     * seen by the parent pid. */
    errno = 0;
    if (s->die_with_runner && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != runner))
        child_fail(efd, RUNNER_STAGE_PDEATH, errno ? errno : ESRCH);

    char *argv0[] = { (char *)s->path, NULL };
    execve(s->path, s->argv ? s->argv : argv0, s->envp);
    int err = errno;
    /* Refused though this user may run the script: its interpreter (or a
     * directory on the way to it) is what is refused, a mistake that stays
     * (500, as mod_cgi answers it), not a script closed to the user (403). */
    child_fail_with(efd, err == EACCES && access(s->path, X_OK) == 0 ? RUNNER_STAGE_INTERP
                    : RUNNER_STAGE_EXEC, err, s->path);
}

pid_t runner_spawn_here(const runner_spawn_spec *s, int scope_signals)
{
    sigset_t all, old;
    /* Blocked across fork: the child's inherited handlers must never write
     * into our self-pipe before it resets them. */
    pid_t runner = getpid();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        child(s, runner, scope_signals);
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return pid;
}

pid_t runner_spawn(const runner_spawn_spec *s)
{
    pid_t pid;
    if (s->domain && ((pid = runner_domain_spawn(s->domain, s)) >= 0 || errno != EOPNOTSUPP))
        return pid;
    return runner_spawn_here(s, 1);
}

void runner_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

int runner_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int runner_spawn_reopen(int fd, int flags)
{
    char path[40];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    return open(path, flags | O_NONBLOCK | O_CLOEXEC);
}

int runner_random_hex(char *out, size_t nhex)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[64];
    size_t n = nhex / 2, got = 0;
    if (n > sizeof(raw)) {
        errno = EINVAL;
        return -1;
    }
    while (got < n) {
        ssize_t r = getrandom(raw + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        got += (size_t)r;
    }
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * n] = '\0';
    return 0;
}

/* Whether two "NAME=value" strings name the same variable. */
static int same_name(const char *a, const char *b)
{
    size_t la = strcspn(a, "="), lb = strcspn(b, "=");
    return la == lb && memcmp(a, b, la) == 0;
}

size_t runner_spawn_env(const runner_pool_set *set, char **envp, size_t n, size_t cap)
{
    /* Pointers into set->env: the pool outlives the fork + exec. A
     * configured variable replaces a built-in one of the same name (PATH):
     * with both, getenv() would see the first. */
    for (size_t o = 0; o < set->env_len; o += strlen(set->env + o) + 1) {
        size_t i = 0;
        /* suexec starts a program with its safe list of the environment
         * only: an LD_PRELOAD or BASH_ENV from whoever asks must not run
         * code as the site's user (and mod_fcgid's FcgidInitialEnv is
         * dropped there the same way) */
        if (set->suexec && !cgp_suexec_env_safe(set->env + o, strcspn(set->env + o, "=")))
            continue;
        while (i < n && !same_name(envp[i], set->env + o))
            i++;
        if (i == n && n + 1 >= cap)
            break;
        envp[i] = set->env + o;
        n += i == n;
    }
    envp[n] = NULL;
    return n;
}
