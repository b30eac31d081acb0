/* cgiplus_runner.c: starts cgiplus-runner as a child of the httpd parent,
 * restarts it when it dies, keeps it across restarts (graceful or not: it
 * writes the runner's configuration file again and sends it SIGHUP; busy
 * workers are never touched) and stops it when httpd stops. Skipped when
 * CGIplusRunnerSocket names a runner that someone else started. */
#include "cgiplus_private.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
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
    const char *argv[16];
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
    argv[15] = NULL;

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
        d = apr_pcalloc(s->process->pool, sizeof(runner_keep));
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

static void keep_stop(runner_keep *k, const char *why)
{
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, rs.s, CGIPLUS_LOGNO(1603)
                 "%s: stopping cgiplus-runner (pid %ld)", why, (long)k->proc.pid);
    kill(k->proc.pid, SIGTERM);
    k->alive = 0;
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
    cgiplus_server_conf *sc = ap_get_module_config(s->module_config,
                                                   &cgiplus_module);
    apr_status_t rv;

    /* Forget this generation's paths when its pool goes (and stop the
     * runner if httpd stops). */
    apr_pool_cleanup_register(pconf, NULL, runner_retire, apr_pool_cleanup_null);
    rs.parent = getpid();
    if (cgiplus_key_post_config(ptemp, s, sc->runner_key_file) != APR_SUCCESS)
        return HTTP_INTERNAL_SERVER_ERROR; /* logged */
    if (sc->runner_socket) {
        runner_keep *k = keep_get(s);
        rs.sock = sc->runner_socket;
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
    rs.bin = cgiplus_conf_runner_path(sc);
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

/* Runs in the parent about every 10 s: retries a start that failed. */
int cgiplus_runner_monitor(apr_pool_t *p, server_rec *s)
{
    if (rs.wanted && rs.keep && !rs.keep->alive && getpid() == rs.parent &&
        !runner_stopping())
        runner_start();
    return DECLINED;
}
