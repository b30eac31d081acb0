/* cgiplus_runner.c: starts cgiplus-runner as a child of the httpd parent,
 * restarts it when it dies, keeps it across restarts (graceful or not: it
 * writes the runner's configuration file again and sends it SIGHUP; busy
 * workers are never touched) and stops it when httpd stops. Skipped when
 * CGIplusRunnerSocket names a runner that someone else started. */
#include "cgiplus_conf.h"
#include "cgiplus_runner.h"
#include "cgp_proto.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_main.h"
#include "http_log.h"
#include "ap_mpm.h"
#include "unixd.h"
#include "apr_strings.h"
#include "apr_thread_proc.h"


APLOG_USE_MODULE(cgiplus);

#define KEEP_KEY "cgiplus_runner_keep"

/* One page every httpd child shares with the parent (anonymous, made
 * before the first fork, for httpd's life): the pid of the runner the
 * parent started last, so a child forked before a runner restart still
 * knows whom to give the key to. */
typedef struct runner_shared {
    _Atomic uint32_t pid;
} runner_shared;

/* The runner process, kept across restarts. httpd unloads and reloads the
 * module on a restart (its statics start over), so this lives in the
 * process pool, found again through userdata; lives until httpd exits. */
typedef struct runner_keep {
    apr_proc_t proc;
    int alive;              /* started, not known to have ended */
    char bin[PATH_MAX], sock[PATH_MAX]; /* what it was started with */
    long uid, gid;
    unsigned char key[CGP_KEY_LEN]; /* the connection key it was given */
    unsigned restarts;      /* numbered restarts since httpd started */
    runner_shared *shared;  /* NULL: no such page (mmap failed): root runners only */
} runner_keep;

/* What this generation needs to (re)start its runner. Static, in the
 * parent; pconf and the strings are valid between post_config and the next
 * pconf cleanup. Children inherit a copy and only read sock. */
static struct {
    apr_pool_t *pconf;
    server_rec *s;
    const char *sock;       /* the path children connect to */
    const char *pidfile;
    const char *bin;
    const char *conf;       /* the runner's configuration file */
    runner_keep *keep;
    int wanted;             /* this generation runs its own runner */
    pid_t parent;           /* the process that may signal the runner */
    apr_time_t last_start;
    long peer_uid;          /* CGIplusRunnerUser, -1: none (root only) */
} rs;

const char *cgiplus_runner_socket_path(void)
{
    return rs.sock;
}

/* Runs in the forked child when exec fails; stderr is the error log. */
static void runner_exec_failed(apr_pool_t *p, apr_status_t err,
                               const char *desc)
{
    apr_file_t *ferr;
    char buf[120];

    if (apr_file_open_stderr(&ferr, p) == APR_SUCCESS)
        apr_file_printf(ferr, "[cgiplus:emerg] [pid %ld] " CGIPLUS_LOGNO(1005)
                        "cannot run cgiplus-runner: %s: %s\n", (long)getpid(),
                        desc, apr_strerror(err, buf, sizeof(buf)));
}

static void runner_maint(int reason, void *data, apr_wait_t status);

static void runner_ids(uid_t *uid, gid_t *gid)
{
    /* Children only switch user when httpd runs as root; the runner must
     * accept connections from whatever uid they really have. */
    *uid = geteuid() == 0 ? ap_unixd_config.user_id : geteuid();
    *gid = geteuid() == 0 ? ap_unixd_config.group_id : getegid();
}

static apr_status_t runner_start(void)
{
    apr_pool_t *p = rs.pconf;
    runner_keep *k = rs.keep;
    apr_procattr_t *attr;
    const char *argv[18];
    apr_status_t rv;
    uid_t uid;
    gid_t gid;
    int kfd;

    runner_ids(&uid, &gid);
    /* The key goes by an inherited pipe the runner reads once: never in
     * argv or the environment, where a script could read it. */
    if ((kfd = cgiplus_key_pipe()) < 0) {
        rv = APR_FROM_OS_ERROR(errno);
        goto fail;
    }
    argv[0] = rs.bin;
    argv[1] = "--socket";
    argv[2] = rs.sock;
    argv[3] = "--pidfile";
    argv[4] = rs.pidfile;
    argv[5] = "--user";
    argv[6] = apr_psprintf(p, "%ld", (long)uid);
    argv[7] = "--group";
    argv[8] = apr_psprintf(p, "%ld", (long)gid);
    argv[9] = "--die-with-parent";
    argv[10] = "--config";
    argv[11] = rs.conf;
    argv[12] = "--key-fd";
    argv[13] = apr_itoa(p, kfd);
    argv[14] = "--stderr-from-parent"; /* at each restart it takes httpd's reopened error log (rotation) */
    argv[15] = "--parent-pid"; /* should httpd die before the runner looks */
    argv[16] = apr_ltoa(p, (long)getpid());
    argv[17] = NULL;

    if ((rv = apr_procattr_create(&attr, p)) != APR_SUCCESS ||
        (rv = apr_procattr_cmdtype_set(attr, APR_PROGRAM_ENV)) != APR_SUCCESS ||
        (rv = apr_procattr_error_check_set(attr, 1)) != APR_SUCCESS ||
        (rv = apr_procattr_child_errfn_set(attr, runner_exec_failed)) != APR_SUCCESS)
        goto fail;

    rs.last_start = apr_time_now();
    /* stdin, stdout and stderr are inherited: stderr is the error log. */
    rv = apr_proc_create(&k->proc, rs.bin, argv, NULL, attr, p);
    close(kfd);
    kfd = -1;
    if (rv != APR_SUCCESS)
        goto fail;
    k->alive = 1;
    if (k->shared)
        atomic_store(&k->shared->pid, (uint32_t)k->proc.pid);
    apr_cpystrn(k->bin, rs.bin, sizeof(k->bin));
    apr_cpystrn(k->sock, rs.sock, sizeof(k->sock));
    k->uid = (long)uid;
    k->gid = (long)gid;
    memcpy(k->key, cgiplus_key(), CGP_KEY_LEN);
    /* Registered with pconf: the registration (and its callback, which
     * lives in this copy of the module) goes with the generation. */
    apr_proc_other_child_register(&k->proc, runner_maint, k, NULL, rs.pconf);
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, rs.s, CGIPLUS_LOGNO(1006)
                 "started cgiplus-runner (pid %ld) on %s",
                 (long)k->proc.pid, rs.sock);
    return APR_SUCCESS;

fail:
    if (kfd >= 0)
        close(kfd);
    ap_log_error(APLOG_MARK, APLOG_ERR, rv, rs.s, CGIPLUS_LOGNO(1007)
                 "cannot start cgiplus-runner %s; requests answer 503 until "
                 "it runs (retried about every 10 seconds)", rs.bin);
    return rv;
}

static void runner_describe_exit(char *buf, apr_size_t len, apr_wait_t status)
{
    if (status == -1)
        apr_snprintf(buf, len, "was lost");
    else if (WIFEXITED(status))
        apr_snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        apr_snprintf(buf, len, "was killed by signal %d", WTERMSIG(status));
    else
        apr_snprintf(buf, len, "ended (wait status %d)", (int)status);
}

static int runner_stopping(void)
{
    int state = AP_MPMQ_STOPPING;

    if (ap_mpm_query(AP_MPMQ_MPM_STATE, &state) != APR_SUCCESS)
        return 1; /* cannot tell: do not fight a shutdown */
    return state == AP_MPMQ_STOPPING;
}

/* Called by the MPM (through APR) when it reaps the runner, and by APR on
 * unregister; never signals the runner itself. */
static void runner_maint(int reason, void *data, apr_wait_t status)
{
    runner_keep *k = data;
    char how[64];

    if (reason != APR_OC_REASON_DEATH && reason != APR_OC_REASON_LOST)
        return;
    k->alive = 0;
    apr_proc_other_child_unregister(k);
    runner_describe_exit(how, sizeof(how), reason == APR_OC_REASON_LOST ? -1 : status);
    if (!rs.wanted || !rs.pconf || getpid() != rs.parent || runner_stopping()) {
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, ap_server_conf, CGIPLUS_LOGNO(1008)
                     "cgiplus-runner (pid %ld) %s", (long)k->proc.pid, how);
        return;
    }
    {
        apr_time_t since = apr_time_now() - rs.last_start;

        ap_log_error(APLOG_MARK, APLOG_ERR, 0, rs.s, CGIPLUS_LOGNO(1004)
                     "cgiplus-runner (pid %ld) %s; restarting it (restart #%u)",
                     (long)k->proc.pid, how, ++k->restarts);
        /* At most one start a second, so a crash loop cannot spin. */
        if (since >= 0 && since < apr_time_from_sec(1))
            apr_sleep(apr_time_from_sec(1) - since);
        runner_start();
    }
}

/* pconf cleanup: the configuration is going away. On a restart (graceful
 * or not) the runner stays: busy workers finish, pooled connections of old
 * children stay valid, and the next post_config hands it the new settings.
 * On stop it is told to finish (it would also get SIGTERM when the parent
 * exits, through --die-with-parent). */
static apr_status_t runner_retire(void *unused)
{
    int stopping = ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_DESTROY_CONFIG;

    if (getpid() == rs.parent && rs.keep && rs.keep->alive && stopping) {
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, rs.s, CGIPLUS_LOGNO(1009)
                     "stopping cgiplus-runner (pid %ld)", (long)rs.keep->proc.pid);
        kill(rs.keep->proc.pid, SIGTERM);
        rs.keep->alive = 0;
    }
    /* httpd stops: the runner has read its settings for the last time,
     * and DefaultRuntimeDir is left as found (the runner removes its
     * socket, pidfile and spool directory itself). */
    if (getpid() == rs.parent && rs.conf && stopping)
        unlink(rs.conf);
    rs.wanted = 0;
    rs.pconf = NULL;
    rs.s = NULL;
    rs.keep = NULL;
    rs.sock = rs.pidfile = rs.bin = rs.conf = NULL;
    return APR_SUCCESS;
}

static runner_keep *keep_get(server_rec *s)
{
    void *d = NULL;

    apr_pool_userdata_get(&d, KEEP_KEY, s->process->pool);
    if (!d) {
        runner_keep *k = apr_pcalloc(s->process->pool, sizeof(runner_keep));
        void *m = mmap(NULL, sizeof(runner_shared), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        k->shared = m == MAP_FAILED ? NULL : m;
        d = k;
        apr_pool_userdata_set(d, KEEP_KEY, apr_pool_cleanup_null, s->process->pool);
    }
    return d;
}

/* Whether the runner of an earlier generation still runs (it may have died
 * while no generation watched it). */
static int keep_alive(runner_keep *k)
{
    int st;
    pid_t got;

    if (!k->alive)
        return 0;
    got = waitpid(k->proc.pid, &st, WNOHANG);
    if (got == 0 || (got < 0 && errno != ECHILD && kill(k->proc.pid, 0) == 0))
        return 1;
    k->alive = 0;
    return 0;
}

/* The exit of a runner stopped by keep_stop(). */
static void old_maint(int reason, void *data, apr_wait_t status)
{
    apr_proc_t *proc = data;
    char how[64];

    if (reason != APR_OC_REASON_DEATH && reason != APR_OC_REASON_LOST)
        return;
    apr_proc_other_child_unregister(proc);
    runner_describe_exit(how, sizeof(how), reason == APR_OC_REASON_LOST ? -1 : status);
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, ap_server_conf, CGIPLUS_LOGNO(1370)
                 "the cgiplus-runner stopped at the restart (pid %ld) %s",
                 (long)proc->pid, how);
}

static void keep_stop(runner_keep *k, const char *why)
{
    apr_proc_t *old = apr_pmemdup(rs.pconf, &k->proc, sizeof(k->proc));

    ap_log_error(APLOG_MARK, APLOG_INFO, 0, rs.s, CGIPLUS_LOGNO(1603)
                 "%s: stopping cgiplus-runner (pid %ld)", why, (long)k->proc.pid);
    kill(k->proc.pid, SIGTERM);
    k->alive = 0;
    /* It exits once its busy workers finish: watched by this generation,
     * its exit is ours, not httpd's "long lost child came home!". */
    apr_proc_other_child_register(old, old_maint, old, NULL, rs.pconf);
}

/* The runner of the previous generation, if it can serve this one: it
 * is watched again and reads its settings again. */
static int runner_reuse(void)
{
    runner_keep *k = rs.keep;
    uid_t uid;
    gid_t gid;

    if (!keep_alive(k))
        return 0;
    runner_ids(&uid, &gid);
    if (strcmp(k->bin, rs.bin) || strcmp(k->sock, rs.sock) ||
        k->uid != (long)uid || k->gid != (long)gid ||
        !cgp_key_equal(k->key, cgiplus_key())) {
        keep_stop(k, "the runner's path, socket, user or key changed");
        return 0;
    }
    apr_proc_other_child_register(&k->proc, runner_maint, k, NULL, rs.pconf);
    kill(k->proc.pid, SIGHUP);
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, rs.s, CGIPLUS_LOGNO(1604)
                 "keeping cgiplus-runner (pid %ld) across the restart; it reads "
                 "its settings again", (long)k->proc.pid);
    return 1;
}

int cgiplus_runner_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    const char *runner_socket = cgiplus_conf_sgets(s, CGP_S_RUNNER_SOCKET);
    apr_status_t rv;

    /* Forget this generation's paths when its pool goes (and stop the
     * runner if httpd stops). */
    apr_pool_cleanup_register(pconf, NULL, runner_retire, apr_pool_cleanup_null);
    rs.parent = getpid();
    rs.peer_uid = (long)cgiplus_conf_sgeti(s, CGP_S_RUNNER_USER);
    if (cgiplus_key_post_config(ptemp, s, cgiplus_conf_sgets(s, CGP_S_RUNNER_KEY_FILE))
        != APR_SUCCESS)
        return HTTP_INTERNAL_SERVER_ERROR; /* logged */
    if (runner_socket) {
        runner_keep *k = keep_get(s);
        rs.sock = runner_socket;
        rs.s = s;
        if (keep_alive(k))
            keep_stop(k, "CGIplusRunnerSocket names another runner");
        return OK;
    }
    rs.sock = ap_runtime_dir_relative(pconf, CGIPLUS_SOCK_NAME);
    /* httpd reads its configuration twice at startup; start on the second. */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;

    rs.pconf = pconf;
    rs.s = s;
    rs.keep = keep_get(s);
    rs.pidfile = ap_runtime_dir_relative(pconf, CGIPLUS_PID_NAME);
    rs.conf = ap_runtime_dir_relative(pconf, "cgiplus-runner.conf");
    rs.bin = cgiplus_conf_runner_path(s);
    rs.wanted = 1;
    rv = cgiplus_conf_write_runner(ptemp, s, rs.conf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, rv, s, CGIPLUS_LOGNO(1605)
                     "mod_cgiplus cannot write the runner's configuration %s", rs.conf);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!runner_reuse())
        runner_start(); /* a failure is logged; the monitor hook retries */
    return OK;
}

apr_status_t cgiplus_runner_peer_check(request_rec *r, apr_socket_t *sock)
{
    struct ucred uc;
    socklen_t len = sizeof(uc);
    apr_os_sock_t fd;
    uint32_t ours = rs.keep && rs.keep->shared ? atomic_load(&rs.keep->shared->pid) : 0;

    if (apr_os_sock_get(&fd, sock) != APR_SUCCESS ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0 || len != sizeof(uc)) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, APR_FROM_OS_ERROR(errno), r, CGIPLUS_LOGNO(1134)
                      "cannot tell which process listens on %s (SO_PEERCRED); the "
                      "connection key is not sent", rs.sock);
        return APR_EACCES;
    }
    /* The runner this httpd started (its pid), or one started on its own
     * as root or as CGIplusRunnerUser; never a process of httpd's User
     * that put a socket of its own in the runner's place. */
    if (uc.uid == 0 || (ours && (uint32_t)uc.pid == ours) ||
        (rs.peer_uid >= 0 && (long)uc.uid == rs.peer_uid))
        return APR_SUCCESS;
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1133)
                  "the process listening on %s (pid %ld, uid %ld) is not the runner: %s; "
                  "the connection key is not sent and the request is answered 503 (is "
                  "someone else's socket in the runner's place?)", rs.sock, (long)uc.pid,
                  (long)uc.uid, ours ? apr_psprintf(r->pool, "that is pid %lu, or a process "
                                                   "of root", (unsigned long)ours)
                                     : rs.peer_uid >= 0
                                     ? apr_psprintf(r->pool, "that runs as root or uid %ld",
                                                    rs.peer_uid)
                                     : "that runs as root");
    return APR_EACCES;
}

/* Whether uid (whose groups are given) can write into the directory st
 * describes; its owner can always, by a chmod. */
static int dir_writable(const struct stat *st, uid_t uid, const gid_t *groups, int ngroups)
{
    int i;

    if (st->st_uid == uid)
        return 1;
    for (i = 0; i < ngroups; i++)
        if (groups[i] == st->st_gid)
            return (st->st_mode & S_IWGRP) != 0;
    return (st->st_mode & S_IWOTH) != 0;
}

int cgiplus_runner_check_dir(apr_pool_t *p, server_rec *s, const char *sock,
                             const char *directive)
{
    gid_t groups[256];
    int ngroups = 256, target = 1, mine_below = 0;
    char *at = apr_pstrdup(p, sock), *slash;
    uid_t user = ap_unixd_config.user_id;
    const char *why = NULL;
    struct stat st;

    /* Only a root httpd has a User apart from itself; else its children,
     * the runner and the scripts share one uid, and a child sends the key
     * to the runner process it knows by pid only (peer_check). */
    if (geteuid() != 0)
        return OK;
    if (getgrouplist(ap_unixd_config.user_name, ap_unixd_config.group_id, groups,
                     &ngroups) < 0) {
        groups[0] = ap_unixd_config.group_id;
        ngroups = 1;
    }
    /* The socket's directory, then each one above it: a script must not be
     * able to put a socket of its own in the runner's place, nor replace a
     * directory on the way (which a sticky bit prevents, unless the one
     * below is its own, or not there yet). */
    for (;;) {
        if (!(slash = strrchr(at, '/')))
            break;
        if (slash == at && !slash[1])
            break; /* "/" done */
        *(slash == at ? slash + 1 : slash) = '\0';
        if (stat(at, &st) < 0) {
            mine_below = 1; /* not there yet: whoever can write above makes it */
            target = 0;
            continue;
        }
        if (target && dir_writable(&st, user, groups, ngroups))
            why = "writable by httpd's User";
        else if (target && (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
            why = "writable by its group or others, and not sticky";
        else if (!target && dir_writable(&st, user, groups, ngroups) &&
                 (!(st.st_mode & S_ISVTX) || mine_below))
            why = "writable by httpd's User, so the directory below it can be replaced";
        if (why)
            break;
        mine_below = st.st_uid == user;
        target = 0;
    }
    if (!why)
        return OK;
    ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s, CGIPLUS_LOGNO(1137)
                 "mod_cgiplus: %s (%s the runner's socket %s) is %s; scripts run as httpd's "
                 "User (%s), and one could put a socket of its own in the runner's place and "
                 "be sent the connection key. Make it root's and writable by root only "
                 "(chown root %s; chmod go-w %s), or choose another %s", at,
                 target ? "the directory of" : "on the way to", sock, why,
                 ap_unixd_config.user_name, at, at, directive);
    return HTTP_INTERNAL_SERVER_ERROR;
}

/* Runs in the parent about every 10 s: retries a start that failed. */
int cgiplus_runner_monitor(apr_pool_t *p, server_rec *s)
{
    if (rs.wanted && rs.keep && !rs.keep->alive && getpid() == rs.parent &&
        !runner_stopping())
        runner_start();
    return DECLINED;
}

/* Checks what can only be checked once the whole configuration is read:
 * the runner's socket and key, its user, its binary and its directory. */
int cgiplus_runner_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s)
{
    const char *bin = cgiplus_conf_runner_path(s);
    const char *runner_socket = cgiplus_conf_sgets(s, CGP_S_RUNNER_SOCKET);
    apr_int64_t runner_uid = cgiplus_conf_sgeti(s, CGP_S_RUNNER_USER); /* CGP_UNSET: none */
    const char *sock;
    struct sockaddr_un sun;
    apr_finfo_t fi;
    apr_status_t rv;

    if (runner_socket && !cgiplus_conf_sgets(s, CGP_S_RUNNER_KEY_FILE)) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1203) "mod_cgiplus: CGIplusRunnerSocket needs "
                     "CGIplusRunnerKeyFile: the runner accepts only connections "
                     "that prove the key its key_file holds (docs/RUNNER.md)");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* -t stops before post_config, which reads the key (and logs to the
     * error log when it is wrong): check it here for -t only. */
    if (ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST &&
        cgiplus_conf_sgets(s, CGP_S_RUNNER_KEY_FILE) &&
        cgiplus_key_check(ptemp, s, cgiplus_conf_sgets(s, CGP_S_RUNNER_KEY_FILE)) != APR_SUCCESS)
        return HTTP_INTERNAL_SERVER_ERROR; /* logged (1200) */
    if (runner_uid != CGP_UNSET && !runner_socket) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1135) "mod_cgiplus: CGIplusRunnerUser names the user of a "
                     "runner started on its own, so it needs CGIplusRunnerSocket (the runner "
                     "httpd starts is known by its pid)");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (runner_uid != CGP_UNSET && geteuid() == 0 &&
        runner_uid == (apr_int64_t)ap_unixd_config.user_id) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1136) "mod_cgiplus: CGIplusRunnerUser is httpd's User (%s): "
                     "scripts run as that user, so any of them could pose as the runner and "
                     "take the connection key; run the runner as root or as a user of its own",
                     ap_unixd_config.user_name);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (runner_socket)
        /* a runner started by someone else: nothing to start */
        return cgiplus_runner_check_dir(ptemp, s, runner_socket, "CGIplusRunnerSocket");

    rv = apr_stat(&fi, bin, APR_FINFO_TYPE | APR_FINFO_PROT, ptemp);
    if (rv != APR_SUCCESS || fi.filetype != APR_REG ||
        !(fi.protection & (APR_FPROT_UEXECUTE | APR_FPROT_GEXECUTE |
                           APR_FPROT_WEXECUTE))) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, rv, s,
                     CGIPLUS_LOGNO(1001) "mod_cgiplus cannot start the runner: "
                     "'%s' is not an executable file; install cgiplus-runner, "
                     "point CGIplusRunnerPath at it, or name an already running "
                     "runner with CGIplusRunnerSocket", bin);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    sock = ap_runtime_dir_relative(ptemp, CGIPLUS_SOCK_NAME);
    /* the runner makes it as SOCK.new first (runner_main.c) */
    if (!sock || strlen(sock) + 4 >= sizeof(sun.sun_path)) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1002) "mod_cgiplus: the runner socket path "
                     "'%s' is too long for a UNIX socket (at most %" APR_SIZE_T_FMT
                     " bytes); choose a shorter DefaultRuntimeDir",
                     sock ? sock : "(invalid)", sizeof(sun.sun_path) - 5);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return cgiplus_runner_check_dir(ptemp, s, sock, "DefaultRuntimeDir");
}
