/* runner_main.c: cgiplus-runner's command line, listening socket, pidfile
 * and process set-up; then the loop (runner_loop.c) does the work. */
#include "runner_loop.h"
#include "runner_ctx.h"
#include "runner_fcgi.h"
#include "runner_watch.h"
#include "runner_client.h"
#include "runner_key.h"
#include "runner_log.h"
#include "runner_notify.h"
#include "runner_pool.h"
#include "runner_spawn.h"
#include "runner_landlock.h"
#include "runner_seccomp.h"
#include "runner_spool.h"
#include "runner_table.h"
#include "runner_worker.h"
#include "runner_ws.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cgiplus-runner [--config FILE] [--socket PATH] [--user NAME|UID]\n"
            "                      [--group NAME|GID] [--pidfile PATH] [--die-with-parent]\n"
            "                      [--parent-pid PID]\n"
            "                      [--max-workers N] [--log-level error|warn|info|debug]\n"
            "                      [--key-fd N]\n"
            "                      [--stderr-from-parent]\n"
            "       cgiplus-runner --version | --help\n"
            "The socket, user, group, pidfile and log level may come from FILE instead;\n"
            "the command line wins. SIGHUP reads FILE again (docs/RUNNER.md).\n"
            "Connections must prove a key: read once from descriptor N (httpd hands it\n"
            "over so), else from the file FILE's key_file names.\n");
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static int resolve_user(const char *s, uid_t *uid, gid_t *gid, int *have_gid)
{
    struct passwd *pw;
    errno = 0;
    if (all_digits(s)) {
        unsigned long v = strtoul(s, NULL, 10);
        if (v > (unsigned long)INT_MAX)
            return -1;
        *uid = (uid_t)v;
        if ((pw = getpwuid(*uid))) {
            *gid = pw->pw_gid;
            *have_gid = 1;
        }
        return 0;
    }
    if (!(pw = getpwnam(s)))
        return -1;
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
    *have_gid = 1;
    return 0;
}

static int resolve_group(const char *s, gid_t *gid)
{
    struct group *gr;
    if (all_digits(s)) {
        unsigned long v = strtoul(s, NULL, 10);
        if (v > (unsigned long)INT_MAX)
            return -1;
        *gid = (gid_t)v;
        return 0;
    }
    if (!(gr = getgrnam(s)))
        return -1;
    *gid = gr->gr_gid;
    return 0;
}

/* With 0, 1 or 2 closed, a socket could land there and be taken for stdio. */
static void open_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
            _exit(1);
}

/* As many descriptors as allowed; the unauthenticated connections get a
 * share of them and the last eighth is kept for httpd's connections and
 * the workers (runner_client.c). */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    runner_g.fd_limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT_MAX
                        ? INT_MAX : (long)rl.rlim_cur;
    runner_g.unauth_max = runner_g.fd_limit / 8 < RUNNER_UNAUTH_MAX
                          ? (unsigned)(runner_g.fd_limit / 8) : RUNNER_UNAUTH_MAX;
    if (runner_g.unauth_max < 4)
        runner_g.unauth_max = 4;
}

/* Large buffers (a request's PARAMS, up to 1 MiB) are mapped and unmapped
 * on their own, so their memory goes back to the system when they are
 * freed; glibc's default threshold would rise after the first one and leave
 * later ones in a heap that does not shrink (issue 20: 110 MB kept after a
 * burst of queued requests). */
static void tune_malloc(void)
{
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
#endif
}

/* Mode and owner of the socket just bound, set through a descriptor of
 * the node at path (O_PATH | O_NOFOLLOW) that must be a socket: a chmod
 * or chown by name would follow a symlink planted there meanwhile (a
 * directory others may write) and hand a root file to httpd's user. */
static int own_socket(const char *path, struct stat *st)
{
    char proc[64];
    int rc = -1, saved, fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) < 0)
        goto out;
    if (!S_ISSOCK(st->st_mode)) {
        errno = EEXIST; /* someone else's file took its place */
        goto out;
    }
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    /* A root runner with a user: root's, in the user's group, 0660. Never
     * the user's own: its scripts run as that user, and the owner of a
     * node may chmod it (000: no new httpd child could connect again,
     * every request 503 until the runner restarts). Group first, then
     * the mode: no moment when root's group may connect. */
    int grp = runner_g.is_root && runner_g.o.have_user;
    mode_t want = grp ? 0660 : 0600;
    if (grp && fchownat(fd, "", 0, runner_g.o.gid, AT_EMPTY_PATH) < 0)
        goto out;
    if ((st->st_mode & 07777) != want && chmod(proc, want) < 0)
        goto out;
    rc = 0;
out:
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* The socket is made under a name of its own (PATH.new), given its mode
 * and owner and listening before it is renamed to PATH: a client never
 * meets it half made (root's 0600 before the chown: EACCES for httpd's
 * children, which would take the runner for gone). */
static int setup_socket(void)
{
    struct sockaddr_un sa;
    struct stat st;
    const char *path = runner_g.o.socket_path;
    char tmp[sizeof(sa.sun_path)];
    int fd = -1, bound = 0;

    if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp)) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2053) "socket path too long: %s", path);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        const char *p = i ? tmp : path;
        if (lstat(p, &st) == 0 && !S_ISSOCK(st.st_mode)) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2096) "%s exists and is not a socket; "
                       "not removing it", p);
            return -1;
        }
    }
    unlink(tmp); /* a stale one: a runner that died making it */
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        goto fail;
    mode_t old = umask(0177); /* born 0600: no window with a wider mode */
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc < 0)
        goto fail;
    bound = 1;
    if (own_socket(tmp, &st) < 0 || listen(fd, 128) < 0)
        goto fail;
    if (rename(tmp, path) < 0) /* replaces a stale socket of a runner before */
        goto fail;
    runner_g.sock_bound = 1;
    runner_g.sock_dev = st.st_dev;
    runner_g.sock_ino = st.st_ino;
    return fd;
fail:
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2097) "cannot listen on %s: %s", path,
               strerror(errno));
    if (bound)
        unlink(tmp);
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Set once this runner removed its own socket: no other runner took the
 * path over, so what it made beside the socket is its own to remove. */
static int sock_removed;
/* The spool directory is the default one beside the socket (not spool_dir). */
static int spool_beside_socket;

/* Only our own socket: a restarted runner may have replaced the path. */
static void unlink_socket(void)
{
    struct stat st;
    if (!runner_g.sock_bound)
        return;
    runner_g.sock_bound = 0;
    if (stat(runner_g.o.socket_path, &st) == 0 && st.st_dev == runner_g.sock_dev &&
        st.st_ino == runner_g.sock_ino && unlink(runner_g.o.socket_path) == 0)
        sock_removed = 1;
}

/* A unique name made with O_EXCL (mkostemp), then renamed over the
 * pidfile: root never opens a name someone else may have planted (a
 * symlink to a root file, where the directory is writable by others), and
 * rename replaces a link at the pidfile's name instead of following it. */
static int write_pidfile(void)
{
    char tmp[PATH_MAX], line[32];
    const char *path = runner_g.o.pidfile;
    int n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
    if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        goto fail;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        goto fail;
    if (fchmod(fd, 0644) < 0 || write(fd, line, (size_t)n) != n || close(fd) < 0 ||
        rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        goto fail;
    }
    return 0;
fail:
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2054) "cannot write pidfile %s: %s", path,
               strerror(errno));
    return -1;
}

static void remove_pidfile(void)
{
    char line[32];
    if (!runner_g.o.pidfile)
        return;
    int fd = open(runner_g.o.pidfile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    ssize_t n = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (n > 0) {
        line[n] = '\0';
        if (strtol(line, NULL, 10) == (long)getpid())
            unlink(runner_g.o.pidfile);
    }
}

static int parse_args(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "user", required_argument, NULL, 'u' },
        { "group", required_argument, NULL, 'g' },
        { "pidfile", required_argument, NULL, 'p' },
        { "die-with-parent", no_argument, NULL, 'd' },
        { "parent-pid", required_argument, NULL, 'P' },
        { "stderr-from-parent", no_argument, NULL, 'e' },
        { "max-workers", required_argument, NULL, 'm' },
        { "log-level", required_argument, NULL, 'l' },
        { "config", required_argument, NULL, 'c' },
        { "key-fd", required_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    const char *group = NULL, *level = NULL;
    int c, have_gid = 0;

    runner_g.o.max_workers = (unsigned)cgp_settings[CGP_S_MAX_WORKERS].dflt;
    runner_conf_init(&runner_g.conf);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': runner_g.o.socket_path = optarg; break;
        case 'u': runner_g.o.user_name = optarg; break;
        case 'g': group = optarg; break;
        case 'p': runner_g.o.pidfile = optarg; break;
        case 'd': runner_g.o.die_with_parent = 1; break;
        case 'P': {
            /* The parent's own word for its pid: getppid() at start may
             * already be the subreaper's, had the parent died since fork. */
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!all_digits(optarg) || *end || v < 2 || v > INT_MAX) {
                fprintf(stderr, "cgiplus-runner: --parent-pid wants a process id above 1\n");
                return -1;
            }
            runner_g.o.parent = (pid_t)v;
            break;
        }
        case 'e': runner_g.o.stderr_from_parent = 1; break;
        case 'm': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!all_digits(optarg) || *end || v < 1 ||
                v > (unsigned long)cgp_settings[CGP_S_MAX_WORKERS].max) {
                fprintf(stderr, "cgiplus-runner: --max-workers wants 1..%lld\n",
                        (long long)cgp_settings[CGP_S_MAX_WORKERS].max);
                return -1;
            }
            runner_g.o.max_workers = (unsigned)v;
            runner_g.o.have_max_workers = 1;
            break;
        }
        case 'l': level = optarg; runner_g.o.have_log_level = 1; break;
        case 'c': runner_g.o.config = optarg; break;
        case 'k': runner_g.o.key_fd = optarg; break;
        case 'h':
            usage(stdout);
            exit(0);
        case 'V':
            printf("cgiplus-runner %s (mod_cgiplus, protocol %u)\n", CGIPLUS_VERSION,
                   CGP_VERSION);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return -1;
    }
    if (runner_g.o.config) {
        char err[512];
        runner_conf *f = &runner_g.conf;
        if (runner_conf_load(runner_g.o.config, f, err, sizeof(err)) < 0) {
            fprintf(stderr, "cgiplus-runner: %s: %s\n", runner_g.o.config, err);
            return -1;
        }
        /* The command line wins over the file. */
        if (!runner_g.o.socket_path)
            runner_g.o.socket_path = f->s[CGP_S_SOCKET];
        if (!runner_g.o.user_name)
            runner_g.o.user_name = f->s[CGP_S_RUN_USER];
        if (!group)
            group = f->s[CGP_S_RUN_GROUP];
        if (!runner_g.o.pidfile)
            runner_g.o.pidfile = f->s[CGP_S_PIDFILE];
        if (!level)
            level = f->s[CGP_S_LOG_LEVEL];
        runner_g.o.die_with_parent |= f->v[CGP_S_DIE_WITH_PARENT] != 0;
    }
    if (level && (runner_log_level = runner_log_parse_level(level)) < 0) {
        fprintf(stderr, "cgiplus-runner: the log level is error, warn, info or debug\n");
        return -1;
    }
    if (!runner_g.o.socket_path && runner_g.activated < 0) {
        fprintf(stderr, "cgiplus-runner: no socket to listen on: give --socket PATH, a "
                        "socket key in the --config file, or a systemd socket\n");
        usage(stderr);
        return -1;
    }
    {
        char err[512], dflt[4096];
        const char *spool = runner_g.conf.s[CGP_S_SPOOL_DIR];
        if (runner_key_load(runner_g.o.key_fd, runner_g.conf.s[CGP_S_KEY_FILE], err,
                            sizeof(err)) < 0) {
            fprintf(stderr, "cgiplus-runner: %s\n", err);
            return -1;
        }
        if (!runner_g.o.socket_path) {
            /* Socket activation without --socket: the unit's path names it. */
            static char apath[sizeof(((struct sockaddr_un *)0)->sun_path)];
            if (runner_listen_fd_path(runner_g.activated, apath, sizeof(apath)) < 0) {
                fprintf(stderr, "cgiplus-runner: the activated socket has no path\n");
                return -1;
            }
            runner_g.o.socket_path = apath;
        }
        if (!spool) {
            /* Beside the socket: a directory the operator already chose. */
            const char *slash = strrchr(runner_g.o.socket_path, '/');
            int dl = slash ? (int)(slash - runner_g.o.socket_path) : 0;
            snprintf(dflt, sizeof(dflt), "%.*s%scgiplus-spool", dl, runner_g.o.socket_path,
                     slash ? "/" : ""); /* relative: refused below, spool_dir wanted */
            spool = dflt;
            spool_beside_socket = 1;
        }
        if (runner_spool_setup(spool, err, sizeof(err)) < 0) {
            fprintf(stderr, "cgiplus-runner: %s\n", err);
            return -1;
        }
        runner_fcgi_sweep();
    }
    if (runner_g.o.user_name) {
        if (resolve_user(runner_g.o.user_name, &runner_g.o.uid, &runner_g.o.gid, &have_gid) < 0) {
            fprintf(stderr, "cgiplus-runner: unknown user %s\n", runner_g.o.user_name);
            return -1;
        }
        runner_g.o.have_user = 1;
    }
    if (group) {
        if (!runner_g.o.have_user) {
            fprintf(stderr, "cgiplus-runner: --group needs --user\n");
            return -1;
        }
        if (resolve_group(group, &runner_g.o.gid) < 0) {
            fprintf(stderr, "cgiplus-runner: unknown group %s\n", group);
            return -1;
        }
        have_gid = 1;
    }
    if (runner_g.o.have_user && !have_gid) {
        fprintf(stderr, "cgiplus-runner: uid %s has no passwd entry: give --group\n",
                runner_g.o.user_name);
        return -1;
    }
    return 0;
}

static void reload(void);

/* The process's own share of the loop: SIGHUP reads the configuration
 * again; the stop removes the socket. */
static const runner_room process_room = {
    .name = "process", .reload = reload, .stop = unlink_socket,
};

int main(int argc, char **argv)
{
    int lfd = -1, rc = 1;

    open_std_fds();
    runner_g.is_root = geteuid() == 0;
    runner_g.o.parent = getppid();
    runner_notify_init();
    if ((runner_g.activated = runner_listen_fd()) == -2)
        return 1;
    if (parse_args(argc, argv) < 0)
        return 2;
    if (runner_g.o.die_with_parent) {
        /* The check after prctl closes the race with a parent dying first:
         * the parent at start, not pid 1, for an orphan goes to the nearest
         * subreaper (a service manager's, PR_SET_CHILD_SUBREAPER). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != runner_g.o.parent) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2055) "parent already gone; exiting");
            return 0;
        }
    }
    raise_nofile();
    tune_malloc();
    if (runner_g.activated >= 0) {
        /* The service manager's socket: its path, mode and owner are the
         * .socket unit's; it is not ours to remove. */
        static char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
        lfd = runner_g.activated;
        if (!runner_g.o.socket_path)
            runner_g.o.socket_path = runner_listen_fd_path(lfd, path, sizeof(path)) == 0
                                     ? path : "(socket activation)";
    } else if ((lfd = setup_socket()) < 0)
        goto out;
    runner_table_init(); /* none: every request is relayed */
    /* The loop's rooms, in the order their hooks run. */
    runner_loop_room(&runner_client_room);
    runner_loop_room(&process_room);
    runner_loop_room(&runner_worker_room);
    runner_loop_room(&runner_pool_room);
    runner_ws_init();
    runner_loop_room(&runner_ws_room);
    int init = runner_loop_init();
    if (init == 0) {
        runner_client_listen(lfd);
        lfd = -1; /* the clients' room owns it now */
        if (runner_watch_init() == 0) { /* none: every pool stats its script per request */
            runner_watch_listen(runner_pool_watched);
            runner_watch_listen(runner_ws_watched);
        }
    }
    if (init < 0 || (runner_g.o.pidfile && write_pidfile() < 0))
        goto out;
    /* The size a pool gets unless a request names one: --max-workers, else
     * [defaults], else the computed default. */
    unsigned long long pool_max = runner_default_max_workers(&runner_g);
    if (runner_g.o.have_max_workers)
        pool_max = runner_g.o.max_workers;
    else if (runner_g.conf.defaults.have & (1u << CGP_S_MAX_WORKERS))
        pool_max = runner_g.conf.defaults.s.v[CGP_S_MAX_WORKERS];
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2056) "cgiplus-runner/%s listening on %s (protocol "
               "%u, scripts run as %s%s, at most %llu worker%s, %llu a pool unless set%s%s)",
               CGIPLUS_VERSION, runner_g.o.socket_path, CGP_VERSION,
               runner_g.o.have_user ? runner_g.o.user_name
               : runner_g.is_root ? "nobody: root without --user refuses to run scripts"
               : "the runner's own user",
               runner_g.o.die_with_parent ? ", dies with its parent" : "",
               (unsigned long long)runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL],
               CGIPLUS_S(runner_g.conf.v[CGP_S_MAX_WORKERS_TOTAL]),
               pool_max, runner_g.o.config ? ", configuration " : "",
               runner_g.o.config ? runner_g.o.config : "");
    if (runner_g.is_root) {
        int abi = runner_landlock_probe();

        if (abi > 0)
            runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2913) "each worker starts in a Landlock "
                       "domain of its own (ABI %d): no script can ptrace another worker or an "
                       "httpd child, nor read their memory or /proc/PID/environ, nor write "
                       "another process's /proc files%s", abi,
                       runner_landlock_scopes_signals()
                           ? ", nor signal them (but its own pool's processes)"
                           : "; it can still signal processes of its user (scoping signals "
                             "needs Landlock ABI 6, Linux 6.12)");
        else
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2914) "the kernel has no Landlock of ABI 2 "
                       "or later (%s): "
                       "a script can ptrace the workers of other pools that run as its user, "
                       "and read their memory and /proc/PID/environ; give such pools their own "
                       "CGIplusUser", strerror(errno));
    }
    if (runner_g.is_root && runner_seccomp_probe() < 0)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2915) "workers get no seccomp filter (%s): "
                   "a script can lower the resource limits, priority and scheduling of httpd's "
                   "children and of other workers of its user (prlimit, renice); give pools their "
                   "own CGIplusUser", strerror(errno));
    runner_pool_declared();
    runner_notify("READY=1"); /* the socket accepts connections */
    if (runner_loop_run() == 0) {
        rc = 0;
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2057) "stopped");
    }
out:
    if (lfd >= 0)
        close(lfd);
    unlink_socket();
    /* A clean stop leaves DefaultRuntimeDir as it found it; a runner now
     * listening on the same path (a restart) keeps the directory. */
    if (rc == 0 && sock_removed && spool_beside_socket &&
        access(runner_g.o.socket_path, F_OK) < 0)
        runner_spool_remove_dir();
    remove_pidfile();
    runner_loop_fini();
    runner_watch_fini();
    runner_conf_free(&runner_g.conf);
    return rc;
}

/* At SIGHUP from httpd: its error log may have been rotated and reopened. */
static void reload_log(void)
{
    if (runner_g.o.stderr_from_parent && runner_log_take_parent_stderr(runner_g.o.parent) < 0)
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2400) "SIGHUP: cannot take the parent's "
                   "error log (/proc/%ld/fd/2): %s; still writing to the old one",
                   (long)runner_g.o.parent, strerror(errno));
}

static void reload(void)
{
    runner_conf nc;
    char err[512];
    runner_notify("RELOADING=1");
    reload_log();
    if (!runner_g.o.config) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2095) "SIGHUP: no configuration file to read "
                   "again (start with --config)");
        goto done;
    }
    if (runner_conf_load(runner_g.o.config, &nc, err, sizeof(err)) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2078) "SIGHUP: %s: %s; keeping the settings "
                   "in force", runner_g.o.config, err);
        goto done;
    }
    /* The log level follows the file (httpd's LogLevel cgiplus:...) unless
     * the command line fixed it. */
    const char *level = nc.s[CGP_S_LOG_LEVEL];
    if (!runner_g.o.have_log_level && level) {
        int l = runner_log_parse_level(level);
        if (l < 0)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2401) "SIGHUP: log_level %s is not "
                       "error, warn, info or debug; keeping %s", level,
                       runner_log_level_name(runner_log_level));
        else
            runner_log_level = l;
    }
    /* Text settings (socket, user, spool_dir...) apply at start only: the
     * running values keep pointing at the strings they came from. */
    for (unsigned i = 0; i < CGP_S_N_; i++) {
        char *keep = nc.s[i];
        nc.s[i] = runner_g.conf.s[i];
        runner_g.conf.s[i] = keep;
    }
    runner_conf_free(&runner_g.conf);
    runner_g.conf = nc;
    runner_g.reloads++;
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2051) "SIGHUP: read %s again (reload %lu): %u "
               "pool section%s, at most %llu worker%s", runner_g.o.config, runner_g.reloads,
               nc.npools, CGIPLUS_S(nc.npools), (unsigned long long)nc.v[CGP_S_MAX_WORKERS_TOTAL],
               CGIPLUS_S(nc.v[CGP_S_MAX_WORKERS_TOTAL]));
    runner_pool_reload();
done:
    runner_notify("READY=1");
}
