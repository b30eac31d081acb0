/* runner_suexec.c: what httpd's suexec wrapper does before it runs a CGI
 * script under SuexecUserGroup or UserDir, done by the runner (root) before
 * each process it starts for such a pool: the same checks in the same order
 * (support/suexec.c), the same refusals, logged with suexec's words in the
 * error log and, where suexec_log names it, in suexec's own log. httpd only
 * names the identity (mod_suexec's and mod_userdir's hook); the runner
 * looks at the files itself, so nothing in the request is taken on trust. */
#include "runner_suexec.h"
#include "runner_conf.h"
#include "runner_ctx.h"
#include "runner_log.h"
#include "runner_pool.h"
#include "cgp_suexec.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* One line in suexec's own log, in its format. Opened per line, as suexec
 * opens it per run: a rotated log is simply created again. */
static void sx_file_line(const char *text)
{
    const char *path = runner_g.conf.s[CGP_S_SUEXEC_LOG];
    char stamp[32];
    struct tm tm;
    time_t now = time(NULL);
    int fd;

    if (!path || (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
        return;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "[%Y-%m-%d %H:%M:%S]: ", &tm);
    struct iovec iov[] = { { stamp, strlen(stamp) }, { (void *)text, strlen(text) },
                           { "\n", 1 } };
    ssize_t n = writev(fd, iov, 3);
    (void)n;
    close(fd);
}

/* A refusal: suexec's line in its log and in the error log; p->refused. */
__attribute__((format(printf, 3, 4)))
static int refuse(const runner_suexec_pool *p, unsigned why, const char *fmt, ...)
{
    char text[PATH_MAX * 2 + 128];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    sx_file_line(text);
    runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2700) "suEXEC refused to start %s as uid %lu "
               "gid %lu (pool #%llu): %s", p->script,
               (unsigned long)(p->set->v[CGP_S_USER] >> 32),
               (unsigned long)(p->set->v[CGP_S_USER] & 0xffffffffu),
               (unsigned long long)p->id, text);
    *p->refused = why;
    errno = EPERM;
    return -1;
}

/* The target user's groups, as suexec's initgroups() gives them. */
static int user_groups(const char *name, gid_t gid, const gid_t **out, size_t *n)
{
    static gid_t *buf;
    static int cap;
    int want = cap;

    while (getgrouplist(name, gid, buf, &want) < 0) {
        gid_t *nb;
        if (want <= cap)
            want = cap ? cap * 2 : 32;
        if (want > 65536 || !(nb = realloc(buf, (size_t)want * sizeof(gid_t))))
            return -1;
        buf = nb;
        cap = want;
    }
    *out = buf;
    *n = (size_t)want;
    return 0;
}

/* cwd lies in dwd: the same directory or below it (suexec compares the
 * prefix alone, which would also let /var/www2 pass for /var/www). */
static int below(const char *cwd, const char *dwd)
{
    size_t n = strlen(dwd);
    if (n == 1 && dwd[0] == '/')
        return 1;
    return strncmp(cwd, dwd, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/');
}

int runner_suexec_check(const runner_suexec_pool *p, const gid_t **groups, size_t *ngroups)
{
    const runner_conf *c = &runner_g.conf;
    const char *docroot = c->s[CGP_S_SUEXEC_DOCROOT], *udir = c->s[CGP_S_SUEXEC_USERDIR];
    uint64_t user = p->set->v[CGP_S_USER];
    unsigned long uid = (unsigned long)(user >> 32), gid = (unsigned long)(user & 0xffffffffu);
    int userdir = p->set->suexec == RUNNER_SUEXEC_USERDIR;
    const char *cmd = strrchr(p->script, '/') + 1;
    uint64_t uid_min = c->v[CGP_S_SUEXEC_UID_MIN], gid_min = c->v[CGP_S_SUEXEC_GID_MIN];
    char cwd[PATH_MAX], dwd[PATH_MAX], home[PATH_MAX], line[PATH_MAX + 128];
    struct passwd *pw;
    struct group *gr;
    struct stat dir, prg;
    size_t len = strlen(p->script);

    *p->refused = 0;
    if (!(userdir ? udir : docroot))
        return refuse(p, CGP_SX_NOT_CONFIGURED, "suEXEC is not configured for %s scripts "
                      "(no %s in the runner's configuration)", userdir ? "UserDir" :
                      "SuexecUserGroup", userdir ? "suexec_userdir" : "suexec_docroot");
    if (!runner_g.is_root)
        return refuse(p, CGP_SX_NOT_ROOT, "the runner does not run as root: it cannot "
                      "switch to uid %lu", uid);
    if (strstr(p->script, "/../") || (len >= 3 && !strcmp(p->script + len - 3, "/..")))
        return refuse(p, CGP_SX_COMMAND, "invalid command (%s)", p->script);
    if (!(pw = getpwuid((uid_t)uid)))
        return refuse(p, CGP_SX_BAD_USER, "invalid target user id: (%lu)", uid);
    if (!(gr = getgrgid((gid_t)gid)))
        return refuse(p, CGP_SX_BAD_GROUP, "invalid target group id: (%lu)", gid);
    if (snprintf(home, sizeof(home), "%s", pw->pw_dir) >= (int)sizeof(home))
        return refuse(p, CGP_SX_DOCROOT, "cannot get docroot information (%s)", pw->pw_dir);
    snprintf(line, sizeof(line), "uid: (%lu/%s) gid: (%lu/%s) cmd: %s", uid,
             pw->pw_name, gid, gr->gr_name, cmd);
    sx_file_line(line);
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2701) "suEXEC for %s: %s", p->script, line);

    if (uid == 0 || uid < uid_min)
        return refuse(p, CGP_SX_UID, "cannot run as forbidden uid (%lu/%s)", uid, cmd);
    if (gid == 0 || gid < gid_min)
        return refuse(p, CGP_SX_GID, "cannot run as forbidden gid (%lu/%s)", gid, cmd);
    if (user_groups(pw->pw_name, (gid_t)gid, groups, ngroups) < 0)
        return refuse(p, CGP_SX_BAD_USER, "failed to setgid/initgroups (%lu: %s): %s", gid,
                      cmd, strerror(ENOMEM));
    /* suexec works in the script's directory, as getcwd() names it */
    if (!realpath(p->dir, cwd))
        return refuse(p, CGP_SX_CWD, "cannot get current working directory");
    if (userdir) {
        char top[PATH_MAX];
        if (snprintf(top, sizeof(top), "%s/%s", home, udir) >= (int)sizeof(top) ||
            !realpath(top, dwd))
            return refuse(p, CGP_SX_DOCROOT, "cannot get docroot information (%s)", home);
    } else if (!realpath(docroot, dwd)) {
        return refuse(p, CGP_SX_DOCROOT, "cannot get docroot information (%s)", docroot);
    }
    if (!below(cwd, dwd))
        return refuse(p, CGP_SX_NOT_IN_DOCROOT, "command not in docroot (%s/%s)", cwd, cmd);
    if (lstat(cwd, &dir) < 0 || !S_ISDIR(dir.st_mode))
        return refuse(p, CGP_SX_DIR_STAT, "cannot stat directory: (%s)", cwd);
    if (dir.st_mode & (S_IWOTH | S_IWGRP))
        return refuse(p, CGP_SX_DIR_WRITABLE, "directory is writable by others: (%s)", cwd);
    if (snprintf(line, sizeof(line), "%s/%s", cwd, cmd) >= (int)sizeof(line) ||
        lstat(line, &prg) < 0 || S_ISLNK(prg.st_mode))
        return refuse(p, CGP_SX_PROG_STAT, "cannot stat program: (%s)", cmd);
    if (prg.st_mode & (S_IWOTH | S_IWGRP))
        return refuse(p, CGP_SX_PROG_WRITABLE, "file is writable by others: (%s/%s)", cwd, cmd);
    if (prg.st_mode & (S_ISUID | S_ISGID))
        return refuse(p, CGP_SX_SETID, "file is either setuid or setgid: (%s/%s)", cwd, cmd);
    if (uid != dir.st_uid || gid != dir.st_gid || uid != prg.st_uid || gid != prg.st_gid)
        return refuse(p, CGP_SX_OWNER, "target uid/gid (%lu/%lu) mismatch with directory "
                      "(%lu/%lu) or program (%lu/%lu)", uid, gid, (unsigned long)dir.st_uid,
                      (unsigned long)dir.st_gid, (unsigned long)prg.st_uid,
                      (unsigned long)prg.st_gid);
    if (!(prg.st_mode & S_IXUSR))
        return refuse(p, CGP_SX_NOEXEC, "file has no execute permission: (%s/%s)", cwd, cmd);
    return 0;
}
