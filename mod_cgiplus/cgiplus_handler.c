/* cgiplus_handler.c: the cgiplus-script handler. Checks the request as
 * mod_cgi does, sets it up (the kinds of worker it may use: the direct
 * path, then the relay) and runs its state machine (cgiplus_req.c), whose
 * actions up to the first output are here: the body read ahead, the claim
 * of a worker, the request sent, the wait for the first output. The
 * actions from there on are cgiplus_response.c's. */
#include "cgiplus_handler.h"
#include "cgiplus_conf.h"
#include "cgiplus_direct.h"
#include "cgiplus_engine.h"
#include "cgiplus_env.h"
#include "cgiplus_fcgid.h"
#include "cgiplus_include.h"
#include "cgiplus_relay.h"
#include "cgiplus_req.h"
#include "cgiplus_resp.h"
#include "cgiplus_scriptlog.h"
#include "cgiplus_ws.h"

#include <errno.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_core.h"
#include "apr_atomic.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

/* Request ids only need to differ between consecutive requests on one
 * connection; a process-wide counter is simplest. 0 is never used. */
static apr_uint32_t cgiplus_reqids;

/* As mod_cgi: a ScriptAlias'd directory needs no Options ExecCGI. */
static int handler_scriptaliased(request_rec *r)
{
    const char *t = apr_table_get(r->notes, "alias-forced-type");

    return t && (!strcasecmp(t, "cgi-script") || !strcasecmp(t, CGIPLUS_HANDLER));
}

/* Refuses a request before anything runs, logged in mod_cgi's style. */
static int handler_refuse(request_rec *r, int status, const char *logno,
                          const char *why)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "%s%s: %s", logno, why, r->filename);
    cgiplus_scriptlog_write(r, NULL, status, why);
    return status;
}

/* Which requests are ours: the cgiplus-script handler always; mod_cgi's
 * handler names where CGIplusCompat is on, or in an #exec cgi of our own
 * exec element. Sets *compat for the latter. */
static int handler_wanted(request_rec *r, const cgiplus_dir_conf *dc, int *compat)
{
    *compat = 0;
    if (!r->handler)
        return 0;
    if (!strcmp(r->handler, CGIPLUS_HANDLER))
        return 1;
    if (strcmp(r->handler, "cgi-script") && strcmp(r->handler, "application/x-httpd-cgi"))
        return 0;
    if (cgiplus_conf_geti(dc, CGP_S_COMPAT) || apr_table_get(r->notes, CGIPLUS_INCLUDE_NOTE)) {
        *compat = 1;
        return 1;
    }
    /* Nobody serves it, and httpd's default handler sends the script's
     * source, silently: after swapping mod_cgi(d) for mod_cgiplus the
     * missing CGIplusCompat is otherwise found by the visitors. */
    if (!cgiplus_cgi_module_loaded())
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, CGIPLUS_LOGNO(1392)
                      "%s is a cgi-script, but neither mod_cgi nor mod_cgid is loaded and "
                      "CGIplusCompat is off here: httpd sends the file as it is; "
                      "'CGIplusCompat on' runs it", r->filename);
    return 0;
}

/* A request whose body could not be read (cause) still counts for its
 * pool: the kind that claims workers counts it if it can, else the relay. */
static void handler_report(cgiplus_req *q, unsigned cause)
{
    cgiplus_req_failed(q, cause);
    if (cgiplus_env_make(q) != APR_SUCCESS)
        return; /* logged */
    if (!q->claim || !q->claim->report(q))
        q->relay->report(q);
}

/* Whether status is answered with a local ErrorDocument: httpd makes it a
 * GET that reads the connection as its own body, so what the script left
 * unread must go first (mod_cgi's script has had all of it). */
static int handler_local_errdoc(request_rec *r, int status)
{
    const char *doc = ap_response_code_string(r, ap_index_of_response(status));

    return doc && doc[0] == '/';
}

/* NEW -start-> BODY: the body, whole if small, before any worker is
 * taken, so a slow client never holds one. */
static unsigned act_read_body(cgiplus_req *q, unsigned ev)
{
    request_rec *r = q->r;
    int ret;

    (void)ev;
    cgiplus_body_init(r, &q->in);
    if (q->fcgid) {
        /* FcgidMaxRequestLen (413, where mod_fcgid says 500; 0 refuses
         * every body, as there) and FcgidMaxRequestInMem, as mod_fcgid
         * has them */
        cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
        apr_off_t mem = cgiplus_conf_geti(dc, CGP_S_FCGID_IN_MEM); /* CGP_UNSET: none */

        q->in.limit = cgiplus_conf_geti(dc, CGP_S_FCGID_MAX_LEN);
        if (mem >= 0)
            q->in.buffer = mem;
        if (q->in.cl > q->in.limit) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, CGIPLUS_LOGNO(1907)
                          "the request body for %s is %" APR_OFF_T_FMT " bytes, over "
                          "FcgidMaxRequestLen %" APR_OFF_T_FMT "; answering 413", r->filename,
                          q->in.cl, q->in.limit);
            q->status = HTTP_REQUEST_ENTITY_TOO_LARGE;
            q->in.failed = 1; /* refused unread: an ErrorDocument 413 does not read it */
            handler_report(q, CGP_O_TOO_LARGE); /* counted as LimitRequestBody's */
            return CGIPLUS_RE_ERROR;
        }
    }
    if ((ret = cgiplus_body_preread(r, &q->in)) != OK) {
        q->status = ret; /* logged */
        handler_report(q, cgiplus_body_cause(r, ret));
        return CGIPLUS_RE_ERROR;
    }
    return CGIPLUS_RE_BODY_READ;
}

/* BODY -body-read-> CLAIM: BEGIN and PARAMS packed (BEGIN says whether
 * the body is whole: a queued request may then get a worker by GRANT);
 * the kind that claims workers tries. */
static unsigned act_claim(cgiplus_req *q, unsigned ev)
{
    (void)ev;
    if (cgiplus_env_make(q) != APR_SUCCESS) {
        q->status = HTTP_INTERNAL_SERVER_ERROR; /* logged */
        return CGIPLUS_RE_ERROR;
    }
    return q->claim ? q->claim->start(q) : CGIPLUS_RE_NO_IDLE;
}

/* CLAIM -no-idle-> SEND, SEND -retry-> SEND, WAIT -retry-> SEND: through
 * the runner. */
static unsigned act_relay(cgiplus_req *q, unsigned ev)
{
    (void)ev;
    return q->relay->start(q);
}

/* SEND -sent-> WAIT: the first output, watching the client. */
static unsigned act_wait(cgiplus_req *q, unsigned ev)
{
    (void)ev;
    return q->xp->wait_first(q);
}

/* CLAIM -claimed-> WAIT (the claimed worker has the request already) and
 * WAIT -granted-> WAIT (the runner handed the queued request a worker,
 * which the kind that claims workers takes on): the first output. */
static unsigned act_write(cgiplus_req *q, unsigned ev)
{
    int rc = ev == CGIPLUS_RE_GRANTED ? q->claim->grant(q, &q->grant, 1) : OK;

    if (rc == DECLINED) /* the worker was gone before q reached it: the runner again */
        return CGIPLUS_RE_RETRY;
    if (rc != OK || !q->xp) {
        cgp_end e = { 0 };

        e.outcome = CGP_O_OVERLOADED; /* 503 + Retry-After */
        e.detail = ECHILD;            /* the worker handed over, not the queue */
        e.retry_after = 1;
        cgiplus_req_end(q, &e);
        return CGIPLUS_RE_REFUSED;
    }
    return q->xp->wait_first(q);
}

/* The table's actions (cgiplus_reqstate.h), before and after the first
 * output. */
static const cgiplus_ractions handler_actions = { .run = {
    [CGIPLUS_RA_READ_BODY]  = act_read_body,
    [CGIPLUS_RA_CLAIM]      = act_claim,
    [CGIPLUS_RA_WRITE]      = act_write,
    [CGIPLUS_RA_RELAY]      = act_relay,
    [CGIPLUS_RA_WAIT]       = act_wait,
    [CGIPLUS_RA_RESEND]     = act_relay,
    [CGIPLUS_RA_PARSE]      = cgiplus_resp_act_parse,
    [CGIPLUS_RA_PASS]       = cgiplus_resp_act_pass,
    [CGIPLUS_RA_HOLD]       = cgiplus_resp_act_hold,
    [CGIPLUS_RA_DROP]       = cgiplus_resp_act_drop,
    [CGIPLUS_RA_REPLACE]    = cgiplus_resp_act_replace,
    [CGIPLUS_RA_EOS]        = cgiplus_resp_act_eos,
    [CGIPLUS_RA_END_STATUS] = cgiplus_resp_act_end_status,
    [CGIPLUS_RA_ANSWER]     = cgiplus_resp_act_answer,
    [CGIPLUS_RA_ABANDON]    = cgiplus_resp_act_abandon,
    [CGIPLUS_RA_CUT]        = cgiplus_resp_act_cut,
    [CGIPLUS_RA_ABORT]      = cgiplus_resp_act_abort,
} };

/* Safety net: a worker or connection still held when the request ends is
 * given up. */
static apr_status_t handler_cleanup(void *data)
{
    cgiplus_req_abandon(data);
    return APR_SUCCESS;
}

/* The scope's mode: CGIplusMode's, else fastcgi for a FastCGI engine
 * (CGIplusEngine php), else the default. */
static const char *scope_mode(const cgiplus_dir_conf *dc)
{
    if (!cgiplus_conf_named(dc, CGP_S_MODE) && cgiplus_engine_fastcgi(dc))
        return "fastcgi";
    return cgp_mode_names[cgiplus_conf_geti(dc, CGP_S_MODE)].name;
}

int cgiplus_handler(request_rec *r)
{
    cgiplus_req *q;
    cgiplus_dir_conf *dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    int nph, is_included, ret, compat, virt = 0, fcgid = cgiplus_fcgid_wanted(r), data, other;
    const char *wrapper = NULL;

    if (fcgid) /* mod_fcgid's handler, served as it serves it */
        compat = 1, wrapper = cgiplus_fcgid_wrapper(r, dc, &virt);
    else if (!handler_wanted(r, dc, &compat))
        return DECLINED;
    /* A FastCGI engine's scripts are its data (.php files), not programs:
     * as under mod_php or php-fpm, neither ExecCGI nor an execute bit; run
     * as plain CGI too (CGIplusMode cgi), as php-cgi under mod_actions. */
    data = !fcgid && cgiplus_engine_fastcgi(dc);

    /* The checks of mod_cgi's handler, in its order. */
    is_included = !strcmp(r->protocol, "INCLUDED");
    nph = !fcgid && !strncmp(apr_filepath_name_get(r->filename), "nph-", 4);
    if (!data && !(ap_allow_options(r) & OPT_EXECCGI) && !handler_scriptaliased(r))
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1082),
                              "Options ExecCGI is off in this directory");
    if (nph && is_included)
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1083),
                              "attempt to include NPH CGI script");
    if (r->finfo.filetype == APR_NOFILE && !virt)
        return handler_refuse(r, HTTP_NOT_FOUND, CGIPLUS_LOGNO(1084),
                              "script not found or unable to stat");
    if (r->finfo.filetype == APR_DIR && !virt)
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1085),
                              "attempt to invoke directory as script");
    if (r->used_path_info == AP_REQ_REJECT_PATH_INFO &&
        r->path_info && *r->path_info)
        return handler_refuse(r, HTTP_NOT_FOUND, CGIPLUS_LOGNO(1086),
                              "AcceptPathInfo off disallows user's path");
    /* An inherited CGIplusEngine is not what an fcgid-script request runs
     * (its FcgidWrapper is, its file needing no execute bit). */
    if (!fcgid && cgiplus_engine_path(dc) && !data && !cgiplus_engine_runnable(r))
        return handler_refuse(r, HTTP_FORBIDDEN, CGIPLUS_LOGNO(1300),
                              "script not executable (an engine runs only what "
                              "plain CGI would)");

    q = apr_pcalloc(r->pool, sizeof(*q));
    q->r = r;
    q->nph = nph;
    q->compat = compat;
    q->engine = fcgid ? wrapper : cgiplus_engine_path(dc);
    q->fcgid = fcgid;
    /* not the engine's language: plain CGI, answered as mod_cgi answers */
    other = q->engine && !fcgid && !data && !cgiplus_engine_runs(r, dc);
    if (other)
        q->engine = NULL;
    /* Drop-in: plain CGI unless this scope asks for persistent workers (an
     * engine does); a FastCGI engine's and mod_fcgid's handler: FastCGI
     * workers. */
    q->mode_name = fcgid ? "fastcgi"
                   : other || (compat && !cgiplus_conf_named(dc, CGP_S_MODE) && !q->engine) ? "cgi"
                   : scope_mode(dc);
    q->as_cgi = compat || other || (q->engine && !fcgid && strcmp(q->mode_name, "fastcgi") != 0);
    cgiplus_scriptlog_start(q);
    q->timeout = r->server->timeout;
    q->out = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    do {
        q->reqid = apr_atomic_inc32(&cgiplus_reqids) + 1;
    } while (q->reqid == 0);
    /* The kinds of worker it may use: the direct path to a persistent
     * worker (CGIplus or FastCGI, by mode; no script log: it wants what the
     * runner relays), else the relay. A WebSocket upgrade is a room of its
     * own on the same table, with the relay alone. */
    q->relay = &cgiplus_relay_xport;
    apr_pool_cleanup_register(r->pool, q, handler_cleanup, apr_pool_cleanup_null);
    if (cgiplus_ws_wanted(q, dc)) {
        ret = cgiplus_ws_serve(q, dc, &handler_actions);
    }
    else {
        const cgiplus_xport *kind = !strcmp(q->mode_name, "cgiplus") ? &cgiplus_direct_xport
                                    : !strcmp(q->mode_name, "fastcgi") ? &cgiplus_fcgi_xport
                                    : NULL;

        if (kind && cgiplus_direct_on(dc) && !q->slog && cgiplus_direct_begin(q))
            q->claim = kind;
        ret = cgiplus_req_run(q, &handler_actions);
    }
    if (q->rbad) /* a state change the table refused: logged (CGIPLUS1091) */
        return r->sent_bodyct ? OK : HTTP_INTERNAL_SERVER_ERROR;
    ret = cgiplus_fail_status(q, ret);
    if (ap_is_HTTP_ERROR(ret) && handler_local_errdoc(r, ret))
        (void)cgiplus_body_drain(r, &q->in); /* a failure is logged; the error stands */
    return ret;
}


