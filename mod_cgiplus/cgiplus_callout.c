/* cgiplus_callout.c: the answers to the script callouts only httpd can
 * answer, for every kind of worker (the relay gets them as CALLOUT frames,
 * the direct path reads them itself): MAP-PATH (a URL path mapped to a file
 * by httpd's own translation, as a sub-request), MAP-FILE (its reverse),
 * AUTH-FILE (httpd's access checks for a file, as a sub-request), LOG (a
 * line in the error log of the request's virtual host) and WATCH (the same
 * at trace1). docs/PROTOCOL.md, "Callouts". */
#include "cgiplus_callout.h"

#include <string.h>

#include "httpd.h"
#include "http_core.h"
#include "http_log.h"
#include "http_request.h"
#include "apr_strings.h"

#include "cgp_proto.h"

APLOG_USE_MODULE(cgiplus);

/* The longest answer line the runner relays (docs/PROTOCOL.md, Callouts). */
#define CGIPLUS_ANSWER_MAX 4096
/* MAP-FILE's candidate URLs tried at most (each one sub-request). */
#define MAP_FILE_TRIES 16

/* MAP-PATH's translation of url: the file httpd maps it to (its path info
 * appended), or NULL with *st the status of a sub-request httpd refused. */
static const char *map_uri(request_rec *r, const char *url, int *st)
{
    request_rec *rr = ap_sub_req_lookup_uri(url, r, NULL);
    const char *f = NULL;

    *st = rr->status;
    if (rr->status == HTTP_OK && rr->filename)
        f = apr_pstrcat(r->pool, rr->filename, rr->path_info, NULL);
    ap_destroy_sub_req(rr);
    return f;
}

/* The script reads one answer line: a name it cannot carry whole is
 * refused, never cut (a cut one names another file). */
static const char *one_line(request_rec *r, const char *ans, const char *what)
{
    if (strpbrk(ans, "\r\n"))
        return apr_psprintf(r->pool, "500 the %s holds a line break, which an answer line "
                            "cannot carry", what);
    if (strlen(ans) > CGIPLUS_ANSWER_MAX)
        return apr_psprintf(r->pool, "500 the %s is longer than an answer line may be "
                            "(%d bytes)", what, CGIPLUS_ANSWER_MAX);
    return ans;
}

static const char *callout_map_path(request_rec *r, const char *path)
{
    const char *f;
    int st;

    if (path[0] != '/')
        return "400 MAP-PATH wants a URL path starting with /";
    if (!(f = map_uri(r, path, &st)))
        return apr_psprintf(r->pool, "404 %s does not map to a file (status %d)", path, st);
    return one_line(r, apr_pstrcat(r->pool, "200 ", f, NULL), "mapped file name");
}

/* The last '/' in s[0..n), or NULL. */
static const char *last_slash(const char *s, apr_size_t n)
{
    while (n--)
        if (s[n] == '/')
            return s + n;
    return NULL;
}

/* One MAP-FILE candidate: the directory fdir (no trailing '/'; "" for /)
 * seen at the URL path udir (likewise). The URL of file under it, escaped
 * as a request line carries it, if MAP-PATH of that URL gives file back:
 * an answer never names a URL httpd maps elsewhere. */
static const char *map_file_try(request_rec *r, const char *file, const char *fdir,
                                apr_size_t flen, const char *udir, apr_size_t ulen,
                                int *tries)
{
    const char *url, *f;
    int st;

    if (strncmp(file, fdir, flen) != 0 || file[flen] != '/' || (*tries)++ >= MAP_FILE_TRIES)
        return NULL;
    url = ap_escape_uri(r->pool, apr_pstrcat(r->pool, apr_pstrmemdup(r->pool, udir, ulen),
                                             file + flen, NULL));
    f = map_uri(r, url, &st);
    return f && strcmp(f, file) == 0 ? url : NULL;
}

/* The reverse of MAP-PATH, which httpd has no call for: the candidates are
 * the request's own mapping (SCRIPT_FILENAME's directory at SCRIPT_NAME's,
 * then both less each last segment they share: an Alias's roots), then
 * DocumentRoot at /; the first that MAP-PATH maps back to file wins. */
static const char *callout_map_file(request_rec *r, const char *file)
{
    const char *fdir = apr_table_get(r->subprocess_env, "SCRIPT_FILENAME");
    const char *udir = apr_table_get(r->subprocess_env, "SCRIPT_NAME");
    const char *root = ap_document_root(r), *url = NULL;
    apr_size_t flen, ulen;
    int tries = 0;

    if (file[0] != '/')
        return "400 MAP-FILE wants an absolute file name starting with /";
    if (!fdir)
        fdir = r->filename;
    if (fdir && udir && fdir[0] == '/' && udir[0] == '/') {
        flen = strrchr(fdir, '/') - fdir;
        ulen = strrchr(udir, '/') - udir;
        for (;;) {
            const char *fs, *us;

            if ((url = map_file_try(r, file, fdir, flen, udir, ulen, &tries)))
                break;
            /* up one level while both end in the same segment */
            fs = last_slash(fdir, flen);
            us = last_slash(udir, ulen);
            if (!fs || !us || flen - (fs - fdir) != ulen - (us - udir) ||
                flen - (fs - fdir) < 2 ||
                memcmp(fs, us, flen - (fs - fdir)) != 0)
                break;
            flen = fs - fdir;
            ulen = us - udir;
        }
    }
    if (!url && root && root[0] == '/') {
        flen = strlen(root);
        while (flen && root[flen - 1] == '/')
            flen--;
        url = map_file_try(r, file, root, flen, "", 0, &tries);
    }
    if (!url)
        return "404 no URL path of this server maps to that file";
    return one_line(r, apr_pstrcat(r->pool, "200 ", url, NULL), "URL path");
}

/* 1 if the name has a ".." segment. */
static int dotdot(const char *f)
{
    const char *p;

    for (p = strstr(f, "/.."); p; p = strstr(p + 1, "/.."))
        if (p[3] == '/' || p[3] == '\0')
            return 1;
    return 0;
}

/* httpd's access checks for file as this request's user (a file
 * sub-request: <Directory>, <Files>, .htaccess and the authn/authz of
 * those; <Location> only beside the script, where httpd gives the file a
 * URL). Nothing runs. */
static const char *callout_auth_file(request_rec *r, const char *file)
{
    request_rec *rr;
    const char *ans;

    if (file[0] != '/')
        return "400 AUTH-FILE wants an absolute file name starting with /";
    /* httpd drops a ".." with the segment before it, the kernel after it
     * follows a symbolic link there: the two could name different files */
    if (dotdot(file))
        return "400 AUTH-FILE wants a file name without .. segments";
    rr = ap_sub_req_lookup_file(file, r, NULL);
    if (rr->status == HTTP_UNAUTHORIZED || rr->status == HTTP_FORBIDDEN)
        ans = apr_psprintf(r->pool, "403 access denied (status %d)", rr->status);
    /* a fixup's redirect (a directory without its '/') comes after the
     * access checks passed */
    else if (rr->status != HTTP_OK && !ap_is_HTTP_REDIRECT(rr->status))
        ans = apr_psprintf(r->pool, "%d access check failed (status %d)",
                           rr->status >= 400 && rr->status <= 599 ? rr->status : 500,
                           rr->status);
    else if (rr->finfo.filetype == APR_NOFILE || (rr->path_info && *rr->path_info))
        ans = "404 no such file";
    else
        ans = "200 access allowed";
    ap_destroy_sub_req(rr);
    return ans;
}

const char *cgiplus_callout_answer(request_rec *r, const char *line)
{
    const char *colon = strchr(line, ':');
    const char *arg;
    apr_size_t klen;

    /* A bare keyword has empty params, as the runner reads it. */
    klen = colon ? (apr_size_t)(colon - line) : strlen(line);
    while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
        klen--;
    for (arg = colon ? colon + 1 : ""; *arg == ' ' || *arg == '\t'; arg++)
        ;
    if (klen == 8 && strncasecmp(line, "MAP-PATH", 8) == 0)
        return callout_map_path(r, arg);
    if (klen == 8 && strncasecmp(line, "MAP-FILE", 8) == 0)
        return callout_map_file(r, arg);
    if (klen == 9 && strncasecmp(line, "AUTH-FILE", 9) == 0)
        return callout_auth_file(r, arg);
    if (klen == 3 && strncasecmp(line, "LOG", 3) == 0) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r, CGIPLUS_LOGNO(1110)
                      "%s says: %s", r->filename, arg);
        return "200 logged";
    }
    if (klen == 5 && strncasecmp(line, "WATCH", 5) == 0) {
        ap_log_rerror(APLOG_MARK, APLOG_TRACE1, 0, r, CGIPLUS_LOGNO(3750)
                      "%s watch: %s", r->filename, arg);
        return "200 WATCH";
    }
    return apr_psprintf(r->pool, "501 %.*s is not answered by httpd", (int)klen, line);
}
