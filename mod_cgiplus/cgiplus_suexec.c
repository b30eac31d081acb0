/* cgiplus_suexec.c: suEXEC for the scripts the module runs, as mod_cgi
 * honours it. Where httpd's suexec is enabled (its wrapper installed setuid
 * root: ap_unixd_config.suexec_enabled), a request whose identity mod_suexec
 * (SuexecUserGroup) or mod_userdir (~user) gives through
 * ap_run_get_suexec_identity runs in a pool of that user and group; the
 * runner makes suexec's checks before it starts each process of such a pool
 * (runner/runner_suexec.c). The module only names the identity and hands
 * the runner the wrapper's own settings (its document root, userdir suffix,
 * uid and gid minimums, log), read from `suexec -V` at startup, so both
 * refuse the same scripts. docs/cgi-compat.md, "suEXEC and per-user
 * scripts". */
#include "cgiplus_suexec.h"
#include "cgiplus_conf.h"
#include "cgp_suexec.h"

#include <stdlib.h>
#include <string.h>

#include "http_core.h"
#include "http_log.h"
#include "unixd.h"
#include "apr_strings.h"

APLOG_USE_MODULE(cgiplus);

/* The wrapper's settings, as `suexec -V` (or suexec-custom's file) says;
 * from pconf, lives one configuration generation (stored in the settings
 * table's SUEXEC_* rows). */
typedef struct sx_settings {
    const char *docroot;      /* AP_DOC_ROOT, NULL: not allowed */
    const char *userdir;      /* AP_USERDIR_SUFFIX, NULL: not allowed */
    const char *log;          /* AP_LOG_EXEC */
    long uid_min, gid_min;    /* AP_UID_MIN, AP_GID_MIN; never below CGP_SUEXEC_ID_MIN */
} sx_settings;

/* "VALUE" or VALUE of " -D NAME=VALUE" in the wrapper's -V output. */
static const char *sx_define(apr_pool_t *p, const char *out, const char *name)
{
    const char *at = out, *v, *end;
    size_t n = strlen(name);

    while ((at = strstr(at, "-D ")) != NULL) {
        at += 3;
        if (strncmp(at, name, n) || at[n] != '=')
            continue;
        v = at + n + 1;
        end = v + strcspn(v, "\r\n");
        if (end > v + 1 && *v == '"' && end[-1] == '"')
            return apr_pstrmemdup(p, v + 1, (apr_size_t)(end - v - 2));
        return apr_pstrmemdup(p, v, (apr_size_t)(end - v));
    }
    return NULL;
}

/* suexec-custom (Debian) reads its document root and userdir suffix from
 * SUEXEC_CONFIG_DIR/<httpd's user>: line 1 and line 2, "#" disabling one. */
static void sx_custom(apr_pool_t *p, sx_settings *sx, const char *dir)
{
    const char *path = apr_pstrcat(p, dir, ap_unixd_config.user_name, NULL);
    const char **dst[] = { &sx->docroot, &sx->userdir };
    char line[1024];
    apr_file_t *f;

    if (apr_file_open(&f, path, APR_FOPEN_READ, 0, p) != APR_SUCCESS)
        return; /* both refused, as suexec-custom refuses without its file */
    for (int i = 0; i < 2 && apr_file_gets(line, sizeof(line), f) == APR_SUCCESS; i++) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] && line[0] != '#')
            *dst[i] = apr_pstrdup(p, line);
    }
    apr_file_close(f);
}

/* Runs `SUEXEC_BIN -V` (it prints its compiled settings on stderr, to root
 * and httpd's user only) and reads them. */
static apr_status_t sx_probe(apr_pool_t *p, apr_pool_t *ptemp, sx_settings *sx)
{
    const char *argv[] = { SUEXEC_BIN, "-V", NULL };
    char buf[4096];
    apr_size_t got = 0, n;
    apr_procattr_t *attr;
    apr_proc_t proc;
    apr_exit_why_e why;
    const char *v;
    int code;
    apr_status_t rv;

    if ((rv = apr_procattr_create(&attr, ptemp)) != APR_SUCCESS ||
        (rv = apr_procattr_io_set(attr, APR_NO_PIPE, APR_NO_FILE, APR_FULL_BLOCK))
        != APR_SUCCESS ||
        (rv = apr_procattr_cmdtype_set(attr, APR_PROGRAM)) != APR_SUCCESS ||
        (rv = apr_proc_create(&proc, SUEXEC_BIN, argv, NULL, attr, ptemp)) != APR_SUCCESS)
        return rv;
    while (got < sizeof(buf) - 1) {
        n = sizeof(buf) - 1 - got;
        if (apr_file_read(proc.err, buf + got, &n) != APR_SUCCESS)
            break;
        got += n;
    }
    buf[got] = '\0';
    apr_file_close(proc.err);
    apr_proc_wait(&proc, &code, &why, APR_WAIT);
    if (!APR_PROC_CHECK_EXIT(why) || code != 0 || !strstr(buf, "-D "))
        return APR_EGENERAL;
    sx->docroot = sx_define(p, buf, "AP_DOC_ROOT");
    sx->userdir = sx_define(p, buf, "AP_USERDIR_SUFFIX");
    sx->log = sx_define(p, buf, "AP_LOG_EXEC");
    if ((v = sx_define(p, buf, "AP_UID_MIN")))
        sx->uid_min = atol(v);
    if ((v = sx_define(p, buf, "AP_GID_MIN")))
        sx->gid_min = atol(v);
    if ((v = sx_define(p, buf, "SUEXEC_CONFIG_DIR")))
        sx_custom(p, sx, v);
    return APR_SUCCESS;
}

int cgiplus_suexec_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                               server_rec *s)
{
    sx_settings *sx;
    apr_status_t rv;

    /* httpd reads its configuration twice at startup; the runner starts on
     * the second, which is when its configuration file is written. */
    if (!ap_unixd_config.suexec_enabled ||
        ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    sx = apr_pcalloc(pconf, sizeof(*sx));
    rv = sx_probe(pconf, ptemp, sx);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s, CGIPLUS_LOGNO(1321)
                     "suEXEC is enabled, but '%s -V' did not give its settings: the runner "
                     "will refuse every script under SuexecUserGroup or UserDir (500)",
                     SUEXEC_BIN);
        return OK;
    }
    if (sx->uid_min < CGP_SUEXEC_ID_MIN)
        sx->uid_min = CGP_SUEXEC_ID_MIN;
    if (sx->gid_min < CGP_SUEXEC_ID_MIN)
        sx->gid_min = CGP_SUEXEC_ID_MIN;
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, CGIPLUS_LOGNO(1322)
                 "suEXEC is enabled (wrapper %s): scripts under SuexecUserGroup run "
                 "below %s, UserDir scripts below ~user/%s, as their user after "
                 "suexec's checks (uid from %ld, gid from %ld)", SUEXEC_BIN,
                 sx->docroot ? sx->docroot : "(none: refused)",
                 sx->userdir ? sx->userdir : "(none: refused)", sx->uid_min, sx->gid_min);
    /* runner-wide rows of the table: cgiplus-runner.conf carries them */
    if (sx->docroot)
        cgiplus_conf_sset(s, CGP_S_SUEXEC_DOCROOT, 1, sx->docroot);
    if (sx->userdir)
        cgiplus_conf_sset(s, CGP_S_SUEXEC_USERDIR, 1, sx->userdir);
    if (sx->log)
        cgiplus_conf_sset(s, CGP_S_SUEXEC_LOG, 1, sx->log);
    cgiplus_conf_sset(s, CGP_S_SUEXEC_UID_MIN, sx->uid_min, NULL);
    cgiplus_conf_sset(s, CGP_S_SUEXEC_GID_MIN, sx->gid_min, NULL);
    return OK;
}

const char *cgiplus_suexec_identity(request_rec *r)
{
    ap_unix_identity_t *id;

    /* As mod_cgi (ap_os_create_privileged_process): the hook's answer
     * counts only while the wrapper is there and enabled. */
    if (!ap_unixd_config.suexec_enabled || !(id = ap_run_get_suexec_identity(r)))
        return NULL;
    return apr_psprintf(r->pool, "%s%lu:%lu", id->userdir ? "~" : "",
                        (unsigned long)id->uid, (unsigned long)id->gid);
}
