/* cgiplus_env.c: the CGI environment of a request and the BEGIN + PARAMS
 * frames that carry it to the runner, packed into one buffer. */
#include "cgiplus_conf.h"
#include "cgiplus_engine.h"
#include "cgiplus_env.h"
#include "cgiplus_fcgid.h"
#include "cgiplus_suexec.h"
#include "cgp_suexec.h"

#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "util_script.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* One kv entry to send. */
typedef cgiplus_kv env_kv;

/* Appends frames of type t carrying kv[0..n) to buf at *off; a frame holds
 * as many whole entries as fit in CGP_MAX_PAYLOAD. The last gets END if
 * end_flag. buf must have room (see env_room). */
static void env_frames(unsigned char *buf, apr_size_t *off, unsigned t,
                       apr_uint32_t reqid, const env_kv *kv, int n, int end_flag)
{
    int i = 0;

    do {
        apr_size_t hdr = *off, pl = 0;
        cgp_hdr h = { 0 };

        *off += CGP_HDR_LEN;
        while (i < n && pl + cgp_kv_size(kv[i].nlen, kv[i].vlen) <= CGP_MAX_PAYLOAD) {
            apr_size_t o = 0;

            cgp_kv_pack(buf + *off, CGP_MAX_PAYLOAD - pl, &o, kv[i].name,
                        kv[i].nlen, kv[i].val, kv[i].vlen);
            *off += o;
            pl += o;
            i++;
        }
        h.type = (uint8_t)t;
        h.reqid = reqid;
        h.len = (uint32_t)pl;
        h.flags = (i == n && end_flag) ? CGP_F_END : 0;
        cgp_hdr_pack(buf + hdr, &h);
    } while (i < n);
}

/* Bytes env_frames needs at most for kv[0..n). */
static apr_size_t env_room(const env_kv *kv, int n, apr_size_t *payload)
{
    apr_size_t total = 0;
    int i;

    for (i = 0; i < n; i++)
        total += cgp_kv_size(kv[i].nlen, kv[i].vlen);
    *payload = total;
    /* each entry fits a frame alone, so at most one header per entry */
    return total + CGP_HDR_LEN * (apr_size_t)(n + 1);
}

static int env_check(request_rec *r, const env_kv *kv)
{
    if (kv->nlen == 0 || kv->nlen > CGP_MAX_NAME ||
        cgp_kv_size(kv->nlen, kv->vlen) > CGP_MAX_PAYLOAD) {
        /* the name alone: kv->name runs on into the value (a cookie, a
         * certificate), which has no place in the log */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1030)
                      "CGI variable %.*s (%" APR_SIZE_T_FMT " byte%s of name, %"
                      APR_SIZE_T_FMT " of value) is too large for the runner "
                      "protocol: %s", (int)(kv->nlen < 64 ? kv->nlen : 64), kv->name,
                      kv->nlen, CGIPLUS_S(kv->nlen), kv->vlen, r->filename);
        return 0;
    }
    return 1;
}

/* The PATH of a FastCGI application's requests: the scope's own
 * (CGIplusSetEnv PATH, then FcgidInitialEnv PATH, which wins), else the
 * fixed one the runner gives every worker. */
static const char *fcgi_path(const cgiplus_dir_conf *dc)
{
    const cgp_setting_id rows[2] = { CGP_S_ENV, CGP_S_FCGID_ENV };
    const char *path = CGP_DEFAULT_PATH;

    for (int k = 0; k < 2; k++) {
        const apr_array_header_t *l = dc->v[rows[k]].n > 0 ? dc->v[rows[k]].p : NULL;

        for (int i = 0; l && i < l->nelts; i++) {
            const char *e = APR_ARRAY_IDX(l, i, const char *);
            if (!strncmp(e, "PATH=", 5))
                path = e + 5;
        }
    }
    return path;
}

/* ap_create_environment's variables (httpd's own conversion: the TZ of
 * httpd's environment unless set, a name's leading digit and every other
 * character but letters and digits made '_', as mod_cgi passes them),
 * without its "NAME=value" copy of every variable: names are copied only
 * when they change, values never. */
static int env_params(apr_pool_t *p, apr_table_t *t, env_kv **out)
{
    const apr_array_header_t *arr = apr_table_elts(t);
    const apr_table_entry_t *el = (const apr_table_entry_t *)arr->elts;
    env_kv *kv = apr_palloc(p, sizeof(*kv) * (apr_size_t)(arr->nelts + 1));
    const char *tz;
    int i, n = 0;

    if (!apr_table_get(t, "TZ") && (tz = getenv("TZ")) != NULL) {
        kv[n].name = "TZ";
        kv[n].nlen = 2;
        kv[n].val = tz;
        kv[n].vlen = strlen(tz);
        n++;
    }
    for (i = 0; i < arr->nelts; i++) {
        const char *key = el[i].key, *val = el[i].val ? el[i].val : "";
        apr_size_t k, nlen;
        int clean = 1;

        if (!key)
            continue;
        if (strchr(key, '=')) {
            /* httpd's "key=val" splits at the key's first '=' */
            char *s = apr_pstrcat(p, key, "=", val, NULL);

            nlen = (apr_size_t)(strchr(s, '=') - s);
            key = s;
            val = s + nlen + 1;
        }
        else {
            nlen = strlen(key);
        }
        /* Most names need no copy: ASCII letters, '_', digits past the
         * first stay as they are in any locale; any other byte takes
         * httpd's own test below. */
        for (k = 0; k < nlen && clean; k++) {
            char c = key[k];

            clean = c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    (k > 0 && c >= '0' && c <= '9');
        }
        if (!clean) {
            char *c = apr_pstrmemdup(p, key, nlen);

            for (k = 0; k < nlen; k++)
                if (!apr_isalnum(c[k]) || (k == 0 && apr_isdigit(c[k])))
                    c[k] = '_';
            key = c;
        }
        kv[n].name = key;
        kv[n].nlen = nlen;
        kv[n].val = val;
        kv[n].vlen = strlen(val);
        n++;
    }
    *out = kv;
    return n;
}

apr_status_t cgiplus_env_make(cgiplus_req *q)
{
    request_rec *r = q->r;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    env_kv begin[11 + CGIPLUS_BEGIN_MAX], *params; /* 11 fixed entries at most */
    unsigned char own[11 + CGIPLUS_BEGIN_MAX] = { 0 }; /* the request's own: not the pool's key */
    char *progress = apr_palloc(r->pool, 24); /* kept in q->begin_kv */
    const char *bn[CGIPLUS_BEGIN_MAX], *bv[CGIPLUS_BEGIN_MAX];
    int i, n, nb = 0, nb_env;
    apr_size_t pp;

    ap_add_common_vars(r);
    ap_add_cgi_vars(r);
    if (q->fcgid)
        cgiplus_fcgid_env(r, dc); /* FcgidPassHeader, FcgidFixPathinfo */
    /* Scripts get the runner's fixed PATH (or CGIplusSetEnv PATH), never
     * the PATH of whoever started httpd, which ap_add_common_vars copies. */
    apr_table_unset(r->subprocess_env, "PATH");
    /* A FastCGI request's variables become the program's whole environment
     * (libfcgi's FCGI_Accept swaps environ, Perl's FCGI and CGI::Fast
     * %ENV), so they carry the workers' PATH: mod_fcgid passes one too. */
    if (q->mode_name && !strcmp(q->mode_name, "fastcgi")) {
        apr_table_setn(r->subprocess_env, "PATH", fcgi_path(dc));
        if (!q->fcgid) /* mod_fcgid passes it only as CGIPassAuth says */
            cgiplus_engine_php_auth(r, dc);
    }
    /* php-cgi run as plain CGI (CGIplusEngine php, CGIplusMode cgi) answers
     * only with REDIRECT_STATUS (cgi.force_redirect, on by default): the
     * module chose the script, as mod_actions' redirect does in Debian's
     * php-cgi set-up, which sets it. */
    if (q->mode_name && !strcmp(q->mode_name, "cgi") && cgiplus_engine_fastcgi(dc) &&
        !apr_table_get(r->subprocess_env, "REDIRECT_STATUS"))
        apr_table_setn(r->subprocess_env, "REDIRECT_STATUS", "200");
    /* php-cgi (cgi.fix_pathinfo, on by default) takes PATH_TRANSLATED for
     * the script when REDIRECT_URL is set too, its rule for PHP run through
     * Action, so a rewrite to index.php/PATH (CodeIgniter's .htaccess) ends
     * in "No input file specified."; php-fpm skips that rule behind
     * mod_proxy_fcgi. A php engine names the script itself (pool or plain
     * CGI): such a request goes without REDIRECT_URL, and runs as under
     * php-fpm, or as under mod_actions, where PATH_TRANSLATED is the script. */
    if (cgiplus_engine_php(q->engine, q->fcgid) &&
        apr_table_get(r->subprocess_env, "PATH_TRANSLATED"))
        apr_table_unset(r->subprocess_env, "REDIRECT_URL");
    /* httpoxy: a client's Proxy header must never become HTTP_PROXY. */
    apr_table_unset(r->subprocess_env, "HTTP_PROXY");
    /* A chunked body has no length yet: the runner spools and counts it
     * and the script gets an exact CONTENT_LENGTH and a de-chunked body,
     * so the client's Transfer-Encoding no longer describes what the
     * script reads (WSGI servers would wait for chunks): not passed. */
    /* An ErrorDocument's request (httpd's ap_die: r->prev failed) keeps the
     * failed request's Content-Length, but that request's handler may have
     * read or discarded the body already (the default handler's 404): what
     * is left is not the header's length, so the runner counts it too. */
    if (apr_table_get(r->headers_in, "Transfer-Encoding") ||
        (r->prev && ap_is_HTTP_ERROR(r->prev->status))) {
        apr_table_unset(r->subprocess_env, "CONTENT_LENGTH");
        apr_table_unset(r->subprocess_env, "HTTP_TRANSFER_ENCODING");
    }
    /* An input filter may change the body (SetInputFilter Sed, DEFLATE):
     * the client's Content-Length is then not what the script reads, and
     * the runner would cut the body there or refuse it as short. A body
     * read whole has its length counted here; a longer one through such a
     * filter is counted by the runner, as a chunked one. */
    else if (q->in.bb && apr_table_get(r->subprocess_env, "CONTENT_LENGTH")) {
        if (q->in.eos && q->in.got != q->in.cl)
            apr_table_setn(r->subprocess_env, "CONTENT_LENGTH", apr_off_t_toa(r->pool, q->in.got));
        else if (!q->in.eos && cgiplus_body_filtered(r))
            apr_table_unset(r->subprocess_env, "CONTENT_LENGTH");
    }
    /* httpd's ap_add_cgi_vars gives CONTENT_LENGTH only from the request's
     * Content-Length: a GET has none under mod_cgid, whose scripts a
     * drop-in scope or a CGI engine runs, nor under php-fpm (mod_proxy_fcgi
     * gives a chunked body it holds whole a length, 0 too). A worker's
     * record has one even so (CGIplus), unless told (docs/PROTOCOL.md).
     * mod_fcgid gives a GET 0, as a worker has it. php-fpm gives one
     * whenever the request says Content-Length, what it read (0 in an
     * ErrorDocument's request, whose failed request took the body). */
    q->cl_cgi = !q->fcgid && !apr_table_get(r->subprocess_env, "CONTENT_LENGTH") &&
                (q->as_cgi || (cgiplus_engine_php_pool(q->engine, q->mode_name, 0) &&
                               !apr_table_get(r->headers_in, "Transfer-Encoding") &&
                               !apr_table_get(r->headers_in, "Content-Length")));

    /* A record-mode record sends a CR or LF of a value as a space (a
     * PATH_INFO from %0A): an engine promises the script mod_cgi's
     * environment, so its requests go in struct mode, values verbatim. */
    q->struct_rec = !q->fcgid && q->engine && strcmp(q->mode_name, "fastcgi") &&
                    cgiplus_engine_builtin(q->engine);

    /* An engine pool runs the engine; the script is SCRIPT_FILENAME. */
    begin[nb].name = "script";
    begin[nb].val = q->engine ? q->engine : r->filename;
    nb++;
    begin[nb].name = "mode";
    begin[nb].val = q->mode_name;
    nb++;
    /* An engine (or FcgidWrapper) runs whatever file each request names,
     * in one process: a pool per virtual host, or one site's script could
     * watch another site's requests from inside the interpreter. */
    if (q->engine) {
        const cgiplus_server_conf *sc = ap_get_module_config(r->server->module_config,
                                                              &cgiplus_module);

        begin[nb].name = "site";
        begin[nb].val = sc->engine_site ? sc->engine_site : cgiplus_engine_site(r->pool, r->server);
        nb++;
    }
    begin[nb].name = "uri";
    own[nb] = 1;
    begin[nb].val = r->unparsed_uri ? r->unparsed_uri : r->uri;
    nb++;
    /* This module answers MAP-PATH and LOG callouts (cgiplus_callout.c). */
    begin[nb].name = "callouts";
    own[nb] = 1;
    begin[nb].val = "1";
    nb++;
    /* Each wait for the runner is Timeout long; while the script makes
     * progress we see no frame of (it takes a spooled body, say), the
     * runner sends PROGRESS this often so the wait starts again. */
    apr_snprintf(progress, 24, "%" APR_TIME_T_FMT,
                 apr_time_as_msec(q->timeout) / 3 + 1);
    begin[nb].name = "progress";
    own[nb] = 1;
    begin[nb].val = progress;
    nb++;
    /* The pool settings this directory names; the runner has the rest. */
    n = cgiplus_conf_begin(r, dc, q->ws != NULL, bn, bv, CGIPLUS_BEGIN_MAX);
    if (!q->fcgid && q->engine)
        n += cgiplus_engine_begin(r, dc, cgiplus_engine_php_pool(q->engine, q->mode_name, 0),
                                  bn + n, bv + n, CGIPLUS_BEGIN_MAX - n);
    else if (q->fcgid) /* its Fcgid* settings: the runner takes the last of a key */
        n += cgiplus_fcgid_begin(r, dc, q->engine ? q->engine : r->filename, bn + n, bv + n,
                                 CGIPLUS_BEGIN_MAX - n);
    if (q->compat && !q->fcgid && !strcmp(q->mode_name, "cgi"))
        n += cgiplus_conf_core_rlimits(r, dc, bn + n, bv + n, CGIPLUS_BEGIN_MAX - n);
    for (i = 0; i < n; i++, nb++) {
        begin[nb].name = bn[i];
        begin[nb].val = bv[i];
    }
    if (q->cl_cgi) {
        begin[nb].name = "nocl";
        own[nb] = 1;
        begin[nb].val = "1";
        nb++;
    }
    if (q->struct_rec) {
        begin[nb].name = "struct";
        own[nb] = 1;
        begin[nb].val = "1";
        nb++;
    }
    /* suEXEC's user for this request (its pool's user; the runner checks) */
    if ((q->suexec = cgiplus_suexec_identity(r))) {
        begin[nb].name = "suexec";
        begin[nb].val = q->suexec;
        nb++;
    }
    if (q->claim) {
        /* the runner says which table entry is this request's pool */
        begin[nb].name = "direct";
        own[nb] = 1;
        begin[nb].val = "1";
        nb++;
        if (q->in.eos && q->in.len == (apr_size_t)q->in.got) {
            /* The body is here whole and stays (the flat pre-read): if it
             * queues, the worker may come to us. A streamed one
             * (CGIplusBodyBuffer 0) is gone once sent to the runner. */
            begin[nb].name = "grant";
            own[nb] = 1;
            begin[nb].val = "1";
            nb++;
        }
    }
    for (i = 0; i < nb; i++) {
        begin[i].nlen = strlen(begin[i].name);
        begin[i].vlen = strlen(begin[i].val);
        if (!env_check(r, &begin[i]))
            return APR_EINVAL;
    }
    if (q->claim) {
        /* The pool key: everything in BEGIN but the request's own keys. */
        char *k;
        apr_size_t klen = 0;

        for (i = 0; i < nb; i++)
            klen += own[i] ? 0 : begin[i].nlen + begin[i].vlen + 2;
        q->pool_key = k = apr_palloc(r->pool, klen);
        for (i = 0; i < nb; i++) {
            if (own[i])
                continue;
            memcpy(k, begin[i].name, begin[i].nlen);
            k += begin[i].nlen;
            *k++ = '=';
            memcpy(k, begin[i].val, begin[i].vlen);
            k += begin[i].vlen;
            *k++ = '\0';
        }
        q->pool_key_len = (apr_size_t)(k - q->pool_key);
    }

    n = env_params(r->pool, r->subprocess_env, &params);
    for (i = nb_env = 0; i < n; i++) {
        /* suexec hands the script only the variables of its safe list; an
         * fcgid-script request's are FastCGI params, not the environment
         * suexec cleans, and mod_fcgid passes them all */
        if (q->suexec && !q->fcgid && !cgp_suexec_env_safe(params[i].name, params[i].nlen))
            continue;
        if (!env_check(r, &params[i]))
            return APR_EINVAL;
        params[nb_env++] = params[i];
    }
    n = nb_env;

    q->params = params;
    q->nparams = n;
    env_room(params, n, &pp);
    if (pp > CGP_MAX_PARAMS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1031)
                      "the CGI variables of this request take %" APR_SIZE_T_FMT
                      " bytes, more than the protocol's %u: %s", pp,
                      CGP_MAX_PARAMS, r->filename);
        return APR_EINVAL;
    }
    /* only a request that fits has frames to send (relay_report) */
    q->begin_kv = apr_pmemdup(r->pool, begin, sizeof(*begin) * (apr_size_t)nb);
    q->nbegin = nb;
    q->begin = NULL;
    return APR_SUCCESS;
}

void cgiplus_env_frames(cgiplus_req *q)
{
    apr_size_t room, pb, pp, off = 0;

    if (q->begin)
        return;
    room = env_room(q->begin_kv, q->nbegin, &pb) + env_room(q->params, q->nparams, &pp);
    q->begin = apr_palloc(q->r->pool, room);
    env_frames(q->begin, &off, CGP_T_BEGIN, q->reqid, q->begin_kv, q->nbegin, 0);
    env_frames(q->begin, &off, CGP_T_PARAMS, q->reqid, q->params, q->nparams, 1);
    q->begin_len = off;
}
