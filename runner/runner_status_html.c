/* runner_status_html.c: the status snapshot as HTML. The front page is one
 * table, one line per pool (readable at hundreds of pools); ?pool=ID shows
 * one pool with its workers, errors, ends and settings. */
#include "runner_status.h"
#include "cgiplus_logno.h"

#include <inttypes.h>
#include <string.h>

static int put(runner_buf *b, const char *s)
{
    return cgp_buf_append(b, s, strlen(s));
}

static int esc(runner_buf *b, const char *s)
{
    return runner_buf_html(b, s, strlen(s));
}

/* One cell, its first n bytes escaped. */
static int celln(runner_buf *b, const char *tag, const char *s, size_t n)
{
    return runner_buf_printf(b, "<%s>", tag) < 0 || runner_buf_html(b, s, n) < 0 ||
           runner_buf_printf(b, "</%s>", tag) < 0 ? -1 : 0;
}

static int cell(runner_buf *b, const char *tag, const char *s)
{
    return celln(b, tag, s, strlen(s));
}

static int ucell(runner_buf *b, uint64_t v)
{
    return runner_buf_printf(b, "<td>%" PRIu64 "</td>", v);
}

static const char *const pool_cols[] = {
    "pool", "script", "mode", "idle", "active", "total", "max", "max active", "max reached",
    "queue", "max queue", "accepted", "served", "errors", "slow", "spawns", "ended",
    "backoff s"
};

static int pool_head(runner_buf *b)
{
    if (put(b, "<table>\n<tr>") < 0)
        return -1;
    for (size_t i = 0; i < sizeof(pool_cols) / sizeof(pool_cols[0]); i++)
        if (cell(b, "th", pool_cols[i]) < 0)
            return -1;
    return put(b, "</tr>\n");
}

static int pool_row(runner_buf *b, const runner_st_pool *p)
{
    if (runner_buf_printf(b, "<tr%s><td><a href=\"?pool=%" PRIu64 "\">%" PRIu64 "</a></td>",
                          p->retired ? " class=\"retired\"" : "", p->id, p->id) < 0 ||
        cell(b, "td", p->script) < 0 ||
        cell(b, "td", p->retired ? (strcmp(p->mode, "cgi") ? "cgiplus, retired" : "cgi, retired")
                                 : p->mode) < 0 ||
        ucell(b, p->idle) < 0 || ucell(b, p->busy) < 0 || ucell(b, p->total) < 0 ||
        ucell(b, p->set->v[CGP_S_MAX_WORKERS]) < 0 || ucell(b, p->max_active) < 0 ||
        ucell(b, p->max_reached) < 0 || ucell(b, p->qlen) < 0 || ucell(b, p->qmax) < 0 ||
        ucell(b, p->requests) < 0 || ucell(b, p->served) < 0 ||
        ucell(b, runner_st_errors(p)) < 0 || ucell(b, p->slow) < 0 ||
        ucell(b, p->spawned) < 0 || ucell(b, runner_st_deaths(p)) < 0 ||
        runner_buf_printf(b, "<td>%.1f</td></tr>\n", (double)p->backoff_ms / 1000) < 0)
        return -1;
    return 0;
}

/* A two-column table of name -> count, zero counts left out. */
static int counts(runner_buf *b, const char *title, const char *const *names,
                  const unsigned long *v, unsigned from, unsigned n)
{
    if (runner_buf_printf(b, "<table>\n<tr><th colspan=\"2\">%s</th></tr>\n", title) < 0)
        return -1;
    for (unsigned i = from; i < n; i++)
        if (v[i] && (put(b, "<tr>") < 0 || cell(b, "th", names[i]) < 0 ||
                     runner_buf_printf(b, "<td>%lu</td></tr>\n", v[i]) < 0))
            return -1;
    return put(b, "</table>\n");
}

static int workers(runner_buf *b, const runner_st_pool *p)
{
    if (put(b, "<h3>Workers</h3>\n<table>\n<tr><th>pid</th><th>state</th>"
                          "<th>generation</th><th>requests</th><th>age s</th><th>idle s</th>"
                          "<th>current URI</th><th>in it s</th></tr>\n") < 0)
        return -1;
    for (unsigned i = 0; i < p->nw; i++) {
        const runner_st_worker *w = &p->w[i];
        if (runner_buf_printf(b, "<tr><td>%ld</td><td>%s%s</td><td>%u</td><td>%lu</td>"
                              "<td>%.1f</td><td>", w->pid, w->state,
                              w->retiring ? " (retiring)" : "", w->gen, w->requests,
                              (double)w->age_ms / 1000) < 0 ||
            (w->is_idle && runner_buf_printf(b, "%.1f", (double)w->idle_ms / 1000) < 0) ||
            put(b, "</td>") < 0 || celln(b, "td", w->uri ? w->uri : "", w->urilen) < 0 ||
            put(b, "<td>") < 0 ||
            (w->uri && runner_buf_printf(b, "%.3f%s", (double)w->busy_ms / 1000,
                                         w->orphan ? " (client gone)" : "") < 0) ||
            put(b, "</td></tr>\n") < 0)
            return -1;
    }
    return put(b, "</table>\n");
}

static int settings(runner_buf *b, const runner_pool_set *set)
{
    if (put(b, "<table>\n<tr><th colspan=\"2\">settings</th></tr>\n") < 0)
        return -1;
    for (unsigned i = 0; i < CGP_S_WS_FIRST_; i++) { /* a WebSocket pool's: its own table */
        uint64_t v = set->v[i];
        if (put(b, "<tr>") < 0 || cell(b, "th", cgp_settings[i].key) < 0)
            return -1;
        int rc = i == CGP_S_USER
                 ? runner_buf_printf(b, "<td>%" PRIu64 ":%" PRIu64 "</td></tr>\n", v >> 32,
                                     v & 0xffffffffu)
                 : cgp_settings[i].type == CGP_ST_DURATION
                 ? runner_buf_printf(b, "<td>%" PRIu64 " ms</td></tr>\n", v)
                 : runner_buf_printf(b, "<td>%" PRIu64 "</td></tr>\n", v);
        if (rc < 0)
            return -1;
    }
    for (size_t o = 0; o < set->env_len; o += strlen(set->env + o) + 1)
        if (put(b, "<tr><th>env</th>") < 0 ||
            celln(b, "td", set->env + o, runner_st_env_name(set->env + o)) < 0 ||
            put(b, "</tr>\n") < 0)
            return -1;
    for (size_t o = 0; o < set->args_len; o += strlen(set->args + o) + 1)
        if (put(b, "<tr><th>arg</th>") < 0 || cell(b, "td", set->args + o) < 0 ||
            put(b, "</tr>\n") < 0)
            return -1;
    return put(b, "</table>\n");
}

static int ended(runner_buf *b, const runner_st *st, const runner_st_pool *p)
{
    if (put(b, "<h3>Last workers ended</h3>\n<table>\n<tr><th>pid</th><th>reason</th>"
               "<th>how</th><th>requests</th><th>s ago</th></tr>\n") < 0)
        return -1;
    for (unsigned k = 0; k < p->nended; k++) {
        const runner_ended *e = &p->ended[k];
        char how[48];
        runner_st_how(e, how, sizeof(how));
        if (runner_buf_printf(b, "<tr><td>%ld</td><td>%s</td><td>%s</td><td>%lu</td>"
                              "<td>%.1f</td></tr>\n", e->pid, runner_wend_name(e->why), how,
                              e->served, (double)(st->now - e->at) / 1000) < 0)
            return -1;
    }
    return put(b, "</table>\n");
}

/* An engine pool's scripts: the requests of each file it ran. */
static int scripts(runner_buf *b, const runner_st_pool *p)
{
    if (!p->nscripts)
        return 0;
    if (put(b, "<h3>Scripts (an engine's files)</h3>\n<table>\n<tr><th>script</th>"
               "<th>requests</th></tr>\n") < 0)
        return -1;
    for (unsigned i = 0; i < p->nscripts; i++)
        if (put(b, "<tr>") < 0 || cell(b, "td", p->scripts[i].name) < 0 ||
            ucell(b, p->scripts[i].requests) < 0 || put(b, "</tr>\n") < 0)
            return -1;
    if (p->scripts_other &&
        runner_buf_printf(b, "<tr><td>(other scripts)</td><td>%lu</td></tr>\n",
                          p->scripts_other) < 0)
        return -1;
    return put(b, "</table>\n");
}

static int one_pool(runner_buf *b, const runner_st *st, uint64_t id)
{
    static const char *deaths[RUNNER_END_N_];
    const runner_st_pool *p = NULL;
    for (unsigned i = 0; i < st->npools && !p; i++)
        if (st->pools[i].id == id)
            p = &st->pools[i];
    if (!p)
        return runner_buf_printf(b, "<p>No pool %" PRIu64 " (pools that retire are freed once "
                                 "empty). <a href=\"?\">All pools</a></p>\n", id);
    for (unsigned i = 0; i < RUNNER_END_N_; i++)
        deaths[i] = runner_wend_name((runner_wend)i);
    if (runner_buf_printf(b, "<h2>Pool %" PRIu64 ": ", p->id) < 0 || esc(b, p->script) < 0 ||
        (p->site && (put(b, " for site ") < 0 || esc(b, p->site) < 0)) ||
        runner_buf_printf(b, " (%s)%s</h2>\n<p><a href=\"?\">All pools</a>; generation %u, "
                          "age %.1f s, unused %.1f s, crash-loop failures %u; %s.</p>\n", p->mode,
                          p->retired ? " &mdash; retired" : "", p->gen,
                          (double)p->age_ms / 1000, (double)p->unused_ms / 1000,
                          p->fail_streak, p->direct ? "on the direct path"
                          : "every request through the runner (not in the direct path's table)") < 0 ||
        pool_head(b) < 0 || pool_row(b, p) < 0 || put(b, "</table>\n") < 0 ||
        workers(b, p) < 0 ||
        counts(b, "errors by cause", runner_st_outcome, p->outcomes, 1, CGP_C_MAX_ + 1) < 0 ||
        counts(b, "workers ended, by reason", deaths, p->deaths, 1, RUNNER_END_N_) < 0 ||
        scripts(b, p) < 0 || ended(b, st, p) < 0 || settings(b, p->set) < 0)
        return -1;
    return 0;
}

int runner_status_html(const runner_st *st, uint64_t pool, runner_buf *b)
{
    if (runner_buf_printf(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
                          "<title>cgiplus-runner status</title>\n<style>\n"
                          "table{border-collapse:collapse;margin:0.5em 0}\n"
                          "td,th{border:1px solid #aaa;padding:2px 6px;text-align:left}\n"
                          "tr.retired{color:#888}\n</style></head>\n<body>\n"
                          "<h1>cgiplus-runner %s</h1>\n<p>pid %ld, up %.1f s, %u of at most "
                          "%" PRIu64 " worker%s, %u pool%s, %lu reload%s%s; requests over %.1f s "
                          "count as slow. Also as <a href=\"?json\">JSON</a> and "
                          "<a href=\"?metrics\">Prometheus metrics</a>.</p>\n", st->version,
                          st->pid, (double)st->uptime_ms / 1000, st->workers,
                          st->max_workers_total, CGIPLUS_S(st->max_workers_total), st->npools,
                          CGIPLUS_S(st->npools), st->reloads, CGIPLUS_S(st->reloads),
                          st->stopping ? ", stopping" : "",
                          (double)st->slow_request / 1000) < 0)
        return -1;
    if (pool) {
        if (one_pool(b, st, pool) < 0)
            return -1;
    } else {
        if (pool_head(b) < 0)
            return -1;
        for (unsigned i = 0; i < st->npools; i++)
            if (pool_row(b, &st->pools[i]) < 0)
                return -1;
        if (put(b, "</table>\n") < 0)
            return -1;
    }
    if (!pool && runner_ws_status_html(b) < 0) /* runner_ws_status.c */
        return -1;
    return put(b, "</body></html>\n");
}
