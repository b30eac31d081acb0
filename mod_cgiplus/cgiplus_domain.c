/* cgiplus_domain.c: every process of httpd's that drops root to httpd's
 * User (each child, and mod_cgid's daemon, which runs the same hook) first
 * enters a Landlock domain of its own. It restricts nothing the process
 * does; what it adds is Landlock's ptrace rule: a process of the domain
 * may trace only processes of its own domain or one nested in it. The
 * processes an httpd child starts (SSI's #exec cmd from cgiplus_include.c,
 * mod_cgi's scripts, mod_ext_filter's commands) and mod_cgid's scripts run
 * as httpd's User outside the runner, so before this they could read every
 * worker's /proc/PID/environ (each pool's CGIplusSetEnv values) and memory
 * (its requests), and ptrace it: workers of httpd's User are dumpable, and
 * their own domains (runner_landlock.c) stop only tracers inside a domain.
 * Root only, as the runner (without root, or no_new_privs, which would take
 * set-uid programs from those scripts, no domain may be made); signals are
 * not scoped (an httpd child must still signal mod_cgid's scripts). */
#include "cgiplus_domain.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#if defined(__linux__)
#include <linux/landlock.h>
#endif

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_errno.h"


APLOG_USE_MODULE(cgiplus);

#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_restrict_self) \
    && defined(SYS_landlock_add_rule)
/* The calling thread (httpd has no other yet) enters a domain handling
 * only moves between directories, allowed beneath / (every domain refuses
 * them otherwise, EXDEV): nothing else is handled, so nothing is refused.
 * APR_ENOTIMPL: no Landlock of ABI 2 here (ABI 1 cannot allow those
 * moves). */
static apr_status_t domain_enter(void)
{
    struct landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_REFER };
    struct landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_REFER,
                                             .parent_fd = -1 };
    apr_status_t rv = APR_SUCCESS;
    int rs = -1;

    if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 2)
        return APR_ENOTIMPL;
    if ((pb.parent_fd = open("/", O_PATH | O_CLOEXEC)) < 0 ||
        (rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0)) < 0 ||
        syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0 ||
        syscall(SYS_landlock_restrict_self, rs, 0) < 0)
        rv = APR_FROM_OS_ERROR(errno);
    if (rs >= 0)
        close(rs);
    if (pb.parent_fd >= 0)
        close(pb.parent_fd);
    return rv;
}
#else
static apr_status_t domain_enter(void)
{
    return APR_ENOTIMPL;
}
#endif

int cgiplus_domain_drop_privileges(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    (void)pchild;
    if (geteuid() != 0 || (rv = domain_enter()) == APR_SUCCESS || rv == APR_ENOTIMPL)
        return DECLINED;
    ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s, CGIPLUS_LOGNO(3790)
                 "this process of httpd (pid %ld) could not enter a Landlock domain "
                 "of its own: the commands and CGI scripts it starts as httpd's User "
                 "(SSI #exec cmd, mod_cgi, mod_cgid) can read the memory and "
                 "environment of the runner's workers of that user", (long)getpid());
    return DECLINED;
}
