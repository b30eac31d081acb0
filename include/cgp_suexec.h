/* cgp_suexec.h: why the runner refused to start a script under suEXEC's
 * rules (runner/runner_suexec.c), sent as the detail of an END whose outcome
 * is refused, so the module can name the reason in the request's log. The
 * texts are suexec's own (httpd's support/suexec.c), without its values. */
#ifndef CGP_SUEXEC_H
#define CGP_SUEXEC_H

#include <stddef.h>
#include <string.h>

/* The lowest uid and gid scripts run as under suEXEC, whatever the wrapper
 * says: Debian builds suexec with AP_UID_MIN and AP_GID_MIN 100. */
#define CGP_SUEXEC_ID_MIN 100

enum cgp_suexec_why {
    CGP_SX_NOT_CONFIGURED = 1, /* the runner has no suexec_docroot / suexec_userdir */
    CGP_SX_NOT_ROOT,           /* the runner cannot switch users */
    CGP_SX_BAD_USER,           /* no passwd entry for the target uid */
    CGP_SX_BAD_GROUP,          /* no group entry for the target gid */
    CGP_SX_UID,                /* root, or below the uid minimum */
    CGP_SX_GID,                /* root, or below the gid minimum */
    CGP_SX_COMMAND,            /* a ".." in the script's path */
    CGP_SX_CWD,                /* the script's directory does not resolve */
    CGP_SX_DOCROOT,            /* the document root does not resolve */
    CGP_SX_NOT_IN_DOCROOT,
    CGP_SX_DIR_STAT,
    CGP_SX_DIR_WRITABLE,
    CGP_SX_PROG_STAT,          /* missing, or a symbolic link */
    CGP_SX_PROG_WRITABLE,
    CGP_SX_SETID,
    CGP_SX_OWNER,
    CGP_SX_NOEXEC,
    CGP_SX_MAX_ = CGP_SX_NOEXEC
};

static inline const char *cgp_suexec_why_text(unsigned why)
{
    static const char *const text[] = {
        "refused",
        "suEXEC is not configured in the runner",
        "the runner does not run as root",
        "invalid target user id",
        "invalid target group id",
        "cannot run as forbidden uid",
        "cannot run as forbidden gid",
        "invalid command",
        "cannot get current working directory",
        "cannot get docroot information",
        "command not in docroot",
        "cannot stat directory",
        "directory is writable by others",
        "cannot stat program",
        "file is writable by others",
        "file is either setuid or setgid",
        "target uid/gid mismatch with directory or program",
        "file has no execute permission",
    };
    return why <= CGP_SX_MAX_ ? text[why] : text[0];
}

/* Whether suexec passes a variable of this name to what it starts
 * (suexec's clean_env(): HTTP_* but HTTP_PROXY, SSL_*, and these). */
static inline int cgp_suexec_env_safe(const char *name, size_t len)
{
    static const char *const safe[] = {
        "AUTH_TYPE", "CONTENT_LENGTH", "CONTENT_TYPE", "CONTEXT_DOCUMENT_ROOT",
        "CONTEXT_PREFIX", "DATE_GMT", "DATE_LOCAL", "DOCUMENT_ARGS", "DOCUMENT_NAME",
        "DOCUMENT_PATH_INFO", "DOCUMENT_ROOT", "DOCUMENT_URI", "GATEWAY_INTERFACE", "HTTPS",
        "LAST_MODIFIED", "PATH_INFO", "PATH_TRANSLATED", "QUERY_STRING",
        "QUERY_STRING_UNESCAPED", "REMOTE_ADDR", "REMOTE_HOST", "REMOTE_IDENT",
        "REMOTE_PORT", "REMOTE_USER", "REDIRECT_ERROR_NOTES", "REDIRECT_HANDLER",
        "REDIRECT_QUERY_STRING", "REDIRECT_REMOTE_USER", "REDIRECT_SCRIPT_FILENAME",
        "REDIRECT_STATUS", "REDIRECT_URL", "REQUEST_METHOD", "REQUEST_SCHEME", "REQUEST_URI",
        "SCRIPT_FILENAME", "SCRIPT_NAME", "SCRIPT_URI", "SCRIPT_URL", "SERVER_ADDR",
        "SERVER_ADMIN", "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "SERVER_SIGNATURE",
        "SERVER_SOFTWARE", "UNIQUE_ID", "USER_NAME", "TZ",
    };

    if (len > 5 && !strncmp(name, "HTTP_", 5))
        return !(len == 10 && !strncmp(name, "HTTP_PROXY", 10));
    if (len > 4 && !strncmp(name, "SSL_", 4))
        return 1;
    for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
        if (strlen(safe[i]) == len && !strncmp(name, safe[i], len))
            return 1;
    return 0;
}

#endif
