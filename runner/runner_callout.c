/* runner_callout.c: answers the callouts a worker writes between its
 * CGIPLUSESC and CGIPLUSEOT lines (docs/PROTOCOL.md, "Callouts"). Answers go
 * back on CGIPLUSIN, one line per request line, in the order asked. MAP-PATH,
 * MAP-FILE, AUTH-FILE, LOG and WATCH go to the module as CALLOUT frames when
 * it said it answers them (BEGIN key callouts); their answer slot waits for
 * CALLOUT_ANSWER, or "503 no answer" after callout_timeout or when the
 * request ends. */
#include "runner_worker.h"
#include "runner_ctx.h"
#include "runner_loop.h"
#include "runner_client.h"
#include "runner_log.h"
#include "cgp_parse.h"
#include "runner_pool.h"
#include "runner_req.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void say_time(char *ans, size_t cap, const char *what, int64_t v)
{
    if (v < 0)
        snprintf(ans, cap, "200 %s none", what);
    else if (v == 0)
        snprintf(ans, cap, "200 %s default", what);
    else
        snprintf(ans, cap, "200 %s %lld ms", what, (long long)v);
}

/* Writes the answers at the head of the queue that are ready. */
void runner_callout_flush(runner_worker *w)
{
    runner_ans *a;
    while ((a = TAILQ_FIRST(&w->answers)) && a->ready) {
        TAILQ_REMOVE(&w->answers, a, link);
        w->nanswers--;
        runner_worker_reply(w, a->text);
        free(a);
    }
}

static runner_ans *push(runner_worker *w, const char *text, size_t len, int ready)
{
    if (w->nanswers >= RUNNER_ANS_COUNT_MAX) {
        runner_worker_flooded(w);
        return NULL;
    }
    runner_ans *a = malloc(sizeof(*a) + len + 1);
    if (!a) {
        runner_log(RUNNER_LOG_ERROR, CGIPLUS_LOGNO(2088) "out of memory answering a callout of "
                   "worker pid %ld; stopping it", (long)w->pid);
        runner_worker_stop(w, RUNNER_END_BROKEN, 1);
        return NULL;
    }
    memcpy(a->text, text, len);
    a->text[len] = '\0';
    a->ready = ready;
    a->due = ready ? 0 : runner_g.now + runner_g.conf.v[CGP_S_CALLOUT_TIMEOUT];
    TAILQ_INSERT_TAIL(&w->answers, a, link);
    w->nanswers++;
    return a;
}

static void answer(runner_worker *w, const char *text)
{
    if (push(w, text, strlen(text), 1))
        runner_callout_flush(w);
}

void runner_callout_answer(runner_worker *w, const char *text, size_t len)
{
    runner_ans *a;
    TAILQ_FOREACH(a, &w->answers, link)
        if (!a->ready)
            break;
    if (!a) {
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2073) "a CALLOUT_ANSWER for worker pid %ld "
                   "that waits for none; dropped", (long)w->pid);
        return;
    }
    /* One line of at most RUNNER_LINE_MAX: the script reads lines. An answer
     * that is not is refused whole, never cut (a cut path names another file). */
    static const char bad[] = "502 httpd's answer was not one line of at most 4096 bytes";
    size_t n = 0;
    while (n < len && n < RUNNER_LINE_MAX && text[n] != '\n' && text[n] != '\r' && text[n])
        n++;
    if (n < len) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2202) "a CALLOUT_ANSWER for worker pid %ld "
                   "is not one line of at most %u bytes; the script gets 502", (long)w->pid,
                   RUNNER_LINE_MAX);
        text = bad;
        n = sizeof(bad) - 1;
    }
    /* A new slot in the old one's place: the list links live in it. */
    runner_ans *b = malloc(sizeof(*b) + n + 1);
    if (b) {
        memcpy(b->text, text, n);
        b->text[n] = '\0';
        b->due = 0;
        TAILQ_INSERT_BEFORE(a, b, link);
        TAILQ_REMOVE(&w->answers, a, link);
        free(a);
        a = b;
    } /* else the old slot's "503 no answer" stands */
    a->ready = 1;
    runner_callout_flush(w);
    runner_worker_rearm(w);
}

void runner_callout_expire(runner_worker *w, int all)
{
    runner_ans *a, *an;
    for (a = TAILQ_FIRST(&w->answers); a; a = an) {
        an = TAILQ_NEXT(a, link);
        if (a->ready || (!all && runner_g.now < a->due))
            continue;
        if (all == 2) { /* the request is over: nobody waits for it */
            TAILQ_REMOVE(&w->answers, a, link);
            w->nanswers--;
            free(a);
            continue;
        }
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2074) "worker pid %ld of %s: no answer from "
                   "httpd to a forwarded callout%s; answering 503", (long)w->pid,
                   w->pool->script, all ? " (request over)" : "");
        strcpy(a->text, "503 no answer");
        a->ready = 1;
    }
    runner_callout_flush(w);
}

void runner_callout_free(runner_worker *w)
{
    runner_ans *a;
    while ((a = TAILQ_FIRST(&w->answers))) {
        TAILQ_REMOVE(&w->answers, a, link);
        free(a);
    }
    w->nanswers = 0;
}

void runner_callout_log_summary(runner_worker *w, int force)
{
    if (!w->log_dropped || (!force && runner_g.now - w->log_said < RUNNER_LOG_SUMMARY_MS))
        return;
    runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2083) "worker pid %ld of %s: dropped %lu LOG "
               "and WATCH callouts (more than %u at once or %u a second)", (long)w->pid, w->pool->script,
               w->log_dropped, RUNNER_LOG_BURST, RUNNER_LOG_RATE);
    w->log_dropped = 0;
    w->log_said = runner_g.now;
}

/* The token bucket of LOG and WATCH: 1 if this line may be logged. */
static int log_allowed(runner_worker *w)
{
    const uint64_t full = RUNNER_LOG_BURST * 1000u;
    if (!w->log_at)
        w->log_mtok = full;
    else
        w->log_mtok += (runner_g.now - w->log_at) * RUNNER_LOG_RATE;
    if (w->log_mtok > full)
        w->log_mtok = full;
    w->log_at = runner_g.now;
    if (w->log_mtok >= 1000u) {
        w->log_mtok -= 1000u;
        return 1;
    }
    if (!w->log_dropped++)
        w->log_said = runner_g.now; /* a long flood is summed up every RUNNER_LOG_SUMMARY_MS */
    runner_callout_log_summary(w, 0);
    return 0;
}

/* A callout only httpd answers (with an answer wanted) to the module, if it
 * takes them. */
static int forward(runner_worker *w, const unsigned char *line, size_t len)
{
    runner_req *r = w->req;
    static const char none[] = "503 no answer";
    if (!r || !r->callouts || !r->client || runner_req_ended(r))
        return 0;
    /* The module takes a CALLOUT for one text line: a CR or NUL inside
     * would fail the request (a protocol error) or cut a name. */
    if (memchr(line, '\r', len) || memchr(line, '\0', len)) {
        answer(w, "400 a callout line httpd answers may not hold a CR or NUL byte");
        return 1;
    }
    if (runner_client_send(r->client, CGP_T_CALLOUT, 0, r->reqid, line, len) < 0)
        return 0;
    /* The slot is sized for the fallback; the module's answer may resize it. */
    if (push(w, none, sizeof(none) - 1, 0))
        runner_worker_rearm(w);
    return 1;
}

void runner_callout_line(runner_worker *w, const unsigned char *line, size_t len, int too_long)
{
    char ans[160];
    cgp_callout c;

    if (w->flooded)
        return; /* being killed: it gets no more answers */
    cgp_callout_split(line, len, &c);
    int want = c.want > 0;
    if (too_long) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2031) "worker pid %ld of %s wrote a callout "
                   "line over %u bytes; ignored", (long)w->pid, w->pool->script, RUNNER_LINE_MAX);
        if (want)
            answer(w, "400 callout line too long");
        return;
    }
    if (c.want < 0 || len == (size_t)(c.want == 0))
        return; /* a comment, or a blank line: it asks nothing */
    /* What follows the '!', as the module gets it when forwarded. */
    line = (const unsigned char *)c.kw;
    len -= c.want == 0;
    const char *kw = c.kw, *par = c.par;
    size_t klen = c.klen, plen = c.plen;

    if (cgp_callout_is(&c, "NOOP")) {
        snprintf(ans, sizeof(ans), "200 NOOP");
    } else if ((cgp_callout_is(&c, "LOG") || cgp_callout_is(&c, "WATCH")) && !log_allowed(w)) {
        if (!want)
            return;
        snprintf(ans, sizeof(ans), "429 %s dropped (rate limit)",
                 cgp_callout_is(&c, "LOG") ? "LOG" : "WATCH");
    } else if (cgp_callout_is(&c, "LOG")) {
        /* Logged once: by httpd in the request's virtual host when it
         * answers callouts, else here. */
        if (want && forward(w, line, len))
            return;
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2032) "%s (pid %ld) says: %.*s",
                   w->pool->script, (long)w->pid, (int)plen, par);
        snprintf(ans, sizeof(ans), "200 logged");
    } else if (cgp_callout_is(&c, "WATCH")) {
        /* httpd's trace (trace1, the request's virtual host) when it
         * answers callouts, else the runner's debug level */
        if (want && forward(w, line, len))
            return;
        runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(3751) "%s (pid %ld) watch: %.*s",
                   w->pool->script, (long)w->pid, (int)plen, par);
        snprintf(ans, sizeof(ans), "200 WATCH");
    } else if (cgp_callout_is(&c, "LIFETIME") || cgp_callout_is(&c, "TIMEOUT-OUTPUT") ||
               cgp_callout_is(&c, "TIMEOUT-NOPROGRESS")) {
        int64_t v = cgp_parse_minutes(par, plen);
        if (v == -2) {
            snprintf(ans, sizeof(ans), "400 %.*s wants minutes, 0 or none",
                     (int)(klen > 40 ? 40 : klen), kw);
        } else if (cgp_callout_is(&c, "LIFETIME")) {
            runner_worker_set_lifetime(w, v);
            say_time(ans, sizeof(ans), "lifetime", v);
        } else if (!w->req) {
            snprintf(ans, sizeof(ans), "400 no request is active");
        } else if (cgp_callout_is(&c, "TIMEOUT-OUTPUT")) {
            w->req->tmo_output = v;
            say_time(ans, sizeof(ans), "timeout-output", v);
        } else {
            w->req->tmo_noprogress = v;
            say_time(ans, sizeof(ans), "timeout-noprogress", v);
        }
        runner_worker_rearm(w);
    } else if (cgp_callout_is(&c, "RETIRE")) {
        /* The worker asks to be stopped once this request is done (an
         * engine grown too large): never handed another request. */
        if (!w->retire)
            w->retire = RUNNER_END_RETIRED;
        snprintf(ans, sizeof(ans), "200 retire");
    } else if (cgp_callout_is(&c, "MAP-PATH") || cgp_callout_is(&c, "MAP-FILE") ||
               cgp_callout_is(&c, "AUTH-FILE")) {
        if (want && forward(w, line, len))
            return;
        snprintf(ans, sizeof(ans), "501 %.*s not available", (int)klen, kw);
    } else if (cgp_callout_is(&c, "CGIPLUS")) {
        if (plen == 6 && strncasecmp(par, "struct", 6) == 0) {
            runner_worker_set_struct(w, 1);
            snprintf(ans, sizeof(ans), "200 struct");
        } else if (plen == 6 && strncasecmp(par, "record", 6) == 0) {
            runner_worker_set_struct(w, 0);
            snprintf(ans, sizeof(ans), "200 record");
        } else {
            snprintf(ans, sizeof(ans), "400 CGIPLUS wants struct or record");
        }
    } else {
        snprintf(ans, sizeof(ans), "400 unknown callout %.*s", (int)(klen > 40 ? 40 : klen), kw);
    }
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2033) "worker pid %ld callout %.*s -> %s",
               (long)w->pid, (int)(klen > 40 ? 40 : klen), kw, want ? ans : "(no answer)");
    if (want)
        answer(w, ans);
}
