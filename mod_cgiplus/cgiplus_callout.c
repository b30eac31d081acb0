/* cgiplus_callout.c: the answers to the script callouts only httpd can
 * answer, for every kind of worker (the relay gets them as CALLOUT frames,
 * the direct path reads them itself): MAP-PATH (a URL path mapped to a file
 * by httpd's own translation, as a sub-request) and LOG (a line in the
 * error log of the request's virtual host). */
#include "cgiplus_callout.h"

#include <string.h>

#include "httpd.h"
#include "http_log.h"
#include "http_request.h"
#include "apr_strings.h"

#include "cgp_proto.h"

/* The longest answer line the runner relays (docs/PROTOCOL.md, Callouts). */
#define CGIPLUS_ANSWER_MAX 4096

static const char *callout_map_path(request_rec *r, const char *path)
{
    request_rec *rr;
    const char *ans;

    if (path[0] != '/')
        return "400 MAP-PATH wants a URL path starting with /";
    rr = ap_sub_req_lookup_uri(path, r, NULL);
    if (rr->status != HTTP_OK || !rr->filename)
        ans = apr_psprintf(r->pool, "404 %s does not map to a file (status %d)",
                           path, rr->status);
    else
        ans = apr_pstrcat(r->pool, "200 ", rr->filename, rr->path_info, NULL);
    ap_destroy_sub_req(rr);
    /* The script reads one answer line: a name it cannot carry whole is
     * refused, never cut (a cut one names another file). */
    if (strpbrk(ans, "\r\n"))
        return "500 the mapped file name holds a line break, which an answer line "
               "cannot carry";
    if (strlen(ans) > CGIPLUS_ANSWER_MAX)
        return apr_psprintf(r->pool, "500 the mapped file name is longer than an "
                            "answer line may be (%d bytes)", CGIPLUS_ANSWER_MAX);
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
    if (klen == 3 && strncasecmp(line, "LOG", 3) == 0) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r, CGIPLUS_LOGNO(1110)
                      "%s says: %s", r->filename, arg);
        return "200 logged";
    }
    return apr_psprintf(r->pool, "501 %.*s is not answered by httpd", (int)klen, line);
}
