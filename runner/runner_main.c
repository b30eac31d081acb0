/* runner_main.c: cgiplus-runner's command line, listening socket, pidfile
 * and process set-up; then the loop (runner_loop.c) does the work. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
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
            "usage: cgiplus-runner [--config FILE] --socket PATH [--user NAME|UID]\n"
            "                      [--group NAME|GID] [--pidfile PATH] [--die-with-parent]\n"
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

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int setup_socket(void)
{
    struct sockaddr_un sa;
    struct stat st;
    const char *path = runner_g.o.socket_path;
    int fd = -1;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2053) "socket path too long: %s", path);
        return -1;
    }
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2053) "%s exists and is not a socket; "
                       "not removing it", path);
            return -1;
        }
        unlink(path); /* stale: a restarted runner replaces it */
    }
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        goto fail;
    mode_t old = umask(0177); /* born 0600: no window with a wider mode */
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc < 0 || chmod(path, 0600) < 0)
        goto fail;
    runner_g.sock_bound = 1;
    if (runner_g.is_root && runner_g.o.have_user && chown(path, runner_g.o.uid, (gid_t)-1) < 0)
        goto fail;
    if (stat(path, &st) < 0)
        goto fail;
    runner_g.sock_dev = st.st_dev;
    runner_g.sock_ino = st.st_ino;
    if (listen(fd, 128) < 0)
        goto fail;
    return fd;
fail:
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2053) "cannot listen on %s: %s", path,
               strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Only our own socket: a restarted runner may have replaced the path. */
void runner_unlink_socket(void)
{
    struct stat st;
    if (!runner_g.sock_bound)
        return;
    runner_g.sock_bound = 0;
    if (stat(runner_g.o.socket_path, &st) == 0 && st.st_dev == runner_g.sock_dev &&
        st.st_ino == runner_g.sock_ino)
        unlink(runner_g.o.socket_path);
}

static int write_pidfile(void)
{
    char tmp[PATH_MAX], line[32];
    const char *path = runner_g.o.pidfile;
    int n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
    if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        goto fail;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto fail;
    if (write(fd, line, (size_t)n) != n || close(fd) < 0 || rename(tmp, path) < 0) {
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
    int fd = open(runner_g.o.pidfile, O_RDONLY | O_CLOEXEC);
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

    runner_g.o.max_workers = RUNNER_DEFAULT_MAX_WORKERS;
    runner_conf_init(&runner_g.conf);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': runner_g.o.socket_path = optarg; break;
        case 'u': runner_g.o.user_name = optarg; break;
        case 'g': group = optarg; break;
        case 'p': runner_g.o.pidfile = optarg; break;
        case 'd': runner_g.o.die_with_parent = 1; break;
        case 'e': runner_g.o.stderr_from_parent = 1; break;
        case 'm': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!all_digits(optarg) || *end || v < 1 || v > RUNNER_MAX_WORKERS_CAP) {
                fprintf(stderr, "cgiplus-runner: --max-workers wants 1..%u\n",
                        RUNNER_MAX_WORKERS_CAP);
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
            runner_g.o.socket_path = f->socket;
        if (!runner_g.o.user_name)
            runner_g.o.user_name = f->user;
        if (!group)
            group = f->group;
        if (!runner_g.o.pidfile)
            runner_g.o.pidfile = f->pidfile;
        if (!level)
            level = f->log_level;
        runner_g.o.die_with_parent |= f->die_with_parent;
    }
    if (level && (runner_log_level = runner_log_parse_level(level)) < 0) {
        fprintf(stderr, "cgiplus-runner: the log level is error, warn, info or debug\n");
        return -1;
    }
    if (!runner_g.o.socket_path && runner_g.activated < 0) {
        usage(stderr);
        return -1;
    }
    {
        char err[512], dflt[4096];
        const char *spool = runner_g.conf.spool_dir;
        if (runner_key_load(runner_g.o.key_fd, runner_g.conf.key_file, err, sizeof(err)) < 0) {
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
        }
        if (runner_spool_setup(spool, err, sizeof(err)) < 0) {
            fprintf(stderr, "cgiplus-runner: %s\n", err);
            return -1;
        }
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

int main(int argc, char **argv)
{
    int lfd = -1, rc = 1;

    open_std_fds();
    runner_g.epfd = -1;
    runner_g.sig_w = -1;
    runner_ev_init(&runner_g.ev_listen, RUNNER_EV_LISTEN, -1, NULL);
    runner_ev_init(&runner_g.ev_sig, RUNNER_EV_SIGNAL, -1, NULL);
    runner_g.is_root = geteuid() == 0;
    runner_g.o.parent = getppid();
    runner_notify_init();
    if ((runner_g.activated = runner_listen_fd()) == -2)
        return 1;
    if (parse_args(argc, argv) < 0)
        return 2;
    if (runner_g.o.die_with_parent) {
        /* The check after prctl closes the race with a parent dying first. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1) {
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2055) "parent already gone; exiting");
            return 0;
        }
    }
    raise_nofile();
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
    int init = runner_loop_init(lfd);
    lfd = -1; /* the loop owns it now, even on failure */
    if (init == 0)
        runner_watch_init(); /* none: every pool stats its script per request */
    if (init < 0 || (runner_g.o.pidfile && write_pidfile() < 0))
        goto out;
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2056) "cgiplus-runner/%s listening on %s (protocol "
               "%u, scripts run as %s%s, at most %llu workers%s%s)", CGIPLUS_VERSION,
               runner_g.o.socket_path, CGP_VERSION,
               runner_g.o.have_user ? runner_g.o.user_name
               : runner_g.is_root ? "nobody: root without --user refuses to run scripts"
               : "the runner's own user",
               runner_g.o.die_with_parent ? ", dies with its parent" : "",
               (unsigned long long)runner_g.conf.max_workers_total,
               runner_g.o.config ? ", configuration " : "",
               runner_g.o.config ? runner_g.o.config : "");
    runner_pool_declared();
    runner_notify("READY=1"); /* the socket accepts connections */
    if (runner_loop_run() == 0) {
        rc = 0;
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2057) "stopped");
    }
out:
    if (lfd >= 0)
        close(lfd);
    runner_unlink_socket();
    remove_pidfile();
    runner_loop_fini();
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

int runner_reload(void)
{
    runner_conf nc;
    char err[512];
    int rc = 0;
    runner_notify("RELOADING=1");
    reload_log();
    if (!runner_g.o.config) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2051) "SIGHUP: no configuration file to read "
                   "again (start with --config)");
        goto done;
    }
    if (runner_conf_load(runner_g.o.config, &nc, err, sizeof(err)) < 0) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2078) "SIGHUP: %s: %s; keeping the settings "
                   "in force", runner_g.o.config, err);
        rc = -1;
        goto done;
    }
    /* The log level follows the file (httpd's LogLevel cgiplus:...) unless
     * the command line fixed it. */
    if (!runner_g.o.have_log_level && nc.log_level) {
        int l = runner_log_parse_level(nc.log_level);
        if (l < 0)
            runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2401) "SIGHUP: log_level %s is not "
                       "error, warn, info or debug; keeping %s", nc.log_level,
                       runner_log_level_name(runner_log_level));
        else
            runner_log_level = l;
    }
    /* Process settings (socket, user...) apply at start only: the running
     * values keep pointing at the strings they came from. */
    char *keep[] = { nc.socket, nc.user, nc.group, nc.pidfile, nc.log_level };
    nc.socket = runner_g.conf.socket;
    nc.user = runner_g.conf.user;
    nc.group = runner_g.conf.group;
    nc.pidfile = runner_g.conf.pidfile;
    nc.log_level = runner_g.conf.log_level;
    runner_g.conf.socket = keep[0];
    runner_g.conf.user = keep[1];
    runner_g.conf.group = keep[2];
    runner_g.conf.pidfile = keep[3];
    runner_g.conf.log_level = keep[4];
    runner_conf_free(&runner_g.conf);
    runner_g.conf = nc;
    runner_g.reloads++;
    runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2051) "SIGHUP: read %s again (reload %lu): %u "
               "pool sections, at most %llu workers", runner_g.o.config, runner_g.reloads,
               nc.npools, (unsigned long long)nc.max_workers_total);
    runner_pool_reload();
done:
    runner_notify("READY=1");
    return rc;
}
