/* runner_status_json.c: the status snapshot as JSON (?json), one object;
 * the shape is documented in docs/RUNNER.md ("Status"). */
#include "runner_status.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int key(runner_buf *b, int *first, const char *k)
{
    if (!*first && cgp_buf_append(b, ",", 1) < 0)
        return -1;
    *first = 0;
    return runner_buf_json(b, k, strlen(k)) < 0 || cgp_buf_append(b, ":", 1) < 0 ? -1 : 0;
}

static int num(runner_buf *b, int *first, const char *k, uint64_t v)
{
    return key(b, first, k) < 0 ? -1 : runner_buf_printf(b, "%" PRIu64, v);
}

static int boolean(runner_buf *b, int *first, const char *k, int v)
{
    return key(b, first, k) < 0 ? -1 : runner_buf_printf(b, "%s", v ? "true" : "false");
}

static int text(runner_buf *b, int *first, const char *k, const char *v)
{
    return key(b, first, k) < 0 ? -1 : runner_buf_json(b, v, strlen(v));
}

static int settings(runner_buf *b, const runner_pool_set *set)
{
    int f = 1;
    if (cgp_buf_append(b, "{", 1) < 0)
        return -1;
    for (unsigned i = 0; i < CGP_S_WS_FIRST_; i++) { /* a WebSocket pool's: its own section */
        if (i == CGP_S_USER) {
            char u[48];
            uint64_t v = set->v[i];
            snprintf(u, sizeof(u), "%" PRIu64 ":%" PRIu64, v >> 32, v & 0xffffffffu);
            if (text(b, &f, "user", v ? u : "runner") < 0)
                return -1;
        } else if (num(b, &f, cgp_settings[i].key, set->v[i]) < 0) {
            return -1;
        }
    }
    if (key(b, &f, "env") < 0 || cgp_buf_append(b, "[", 1) < 0)
        return -1;
    for (size_t o = 0, n = 0; o < set->env_len; n++) {
        if ((n && cgp_buf_append(b, ",", 1) < 0) ||
            runner_buf_json(b, set->env + o, runner_st_env_name(set->env + o)) < 0)
            return -1;
        o += strlen(set->env + o) + 1;
    }
    /* the program's arguments (a FcgidWrapper command line's) */
    if (cgp_buf_append(b, "]", 1) < 0 || key(b, &f, "args") < 0 || cgp_buf_append(b, "[", 1) < 0)
        return -1;
    for (size_t o = 0; o < set->args_len; o += strlen(set->args + o) + 1)
        if ((o && cgp_buf_append(b, ",", 1) < 0) ||
            runner_buf_json(b, set->args + o, strlen(set->args + o)) < 0)
            return -1;
    return cgp_buf_append(b, "]}", 2);
}

static int worker(runner_buf *b, const runner_st_worker *w)
{
    int f = 1;
    if (cgp_buf_append(b, "{", 1) < 0 || num(b, &f, "pid", (uint64_t)w->pid) < 0 ||
        text(b, &f, "state", w->state) < 0 || num(b, &f, "generation", w->gen) < 0 ||
        num(b, &f, "requests", w->requests) < 0 || num(b, &f, "age_ms", w->age_ms) < 0 ||
        boolean(b, &f, "retiring", w->retiring) < 0)
        return -1;
    if (w->is_idle && num(b, &f, "idle_ms", w->idle_ms) < 0)
        return -1;
    if (w->uri && (key(b, &f, "uri") < 0 || runner_buf_json(b, w->uri, w->urilen) < 0 ||
                   num(b, &f, "busy_ms", w->busy_ms) < 0 ||
                   boolean(b, &f, "orphan", w->orphan) < 0))
        return -1;
    return cgp_buf_append(b, "}", 1);
}

static int counters(runner_buf *b, const runner_st_pool *p)
{
    int f = 1, g = 1, h = 1;
    if (cgp_buf_append(b, "{", 1) < 0 || num(b, &f, "requests", p->requests) < 0 ||
        num(b, &f, "served", p->served) < 0 || num(b, &f, "spawns", p->spawned) < 0 ||
        num(b, &f, "slow", p->slow) < 0 || num(b, &f, "max_active", p->max_active) < 0 ||
        num(b, &f, "max_reached", p->max_reached) < 0 ||
        key(b, &f, "errors") < 0 || cgp_buf_append(b, "{", 1) < 0)
        return -1;
    for (unsigned i = 1; i <= CGP_C_MAX_; i++)
        if (num(b, &g, runner_st_outcome[i], p->outcomes[i]) < 0)
            return -1;
    if (cgp_buf_append(b, "}", 1) < 0 || key(b, &f, "deaths") < 0 ||
        cgp_buf_append(b, "{", 1) < 0)
        return -1;
    for (unsigned i = 1; i < RUNNER_END_N_; i++)
        if (num(b, &h, runner_wend_name((runner_wend)i), p->deaths[i]) < 0)
            return -1;
    return cgp_buf_append(b, "}}", 2);
}

static int ended(runner_buf *b, const runner_st *st, const runner_st_pool *p)
{
    if (cgp_buf_append(b, "[", 1) < 0)
        return -1;
    for (unsigned k = 0; k < p->nended; k++) { /* newest first */
        const runner_ended *e = &p->ended[k];
        int f = 1;
        char how[48];
        runner_st_how(e, how, sizeof(how));
        if ((k && cgp_buf_append(b, ",", 1) < 0) || cgp_buf_append(b, "{", 1) < 0 ||
            num(b, &f, "pid", (uint64_t)e->pid) < 0 ||
            text(b, &f, "reason", runner_wend_name(e->why)) < 0 || text(b, &f, "how", how) < 0 ||
            num(b, &f, "requests", e->served) < 0 ||
            num(b, &f, "ago_ms", st->now - e->at) < 0 || cgp_buf_append(b, "}", 1) < 0)
            return -1;
    }
    return cgp_buf_append(b, "]", 1);
}

/* An engine pool's scripts and their requests (both paths). */
static int scripts(runner_buf *b, const runner_st_pool *p)
{
    if (cgp_buf_append(b, "[", 1) < 0)
        return -1;
    for (unsigned i = 0; i < p->nscripts; i++) {
        int f = 1;
        if ((i && cgp_buf_append(b, ",", 1) < 0) || cgp_buf_append(b, "{", 1) < 0 ||
            text(b, &f, "script", p->scripts[i].name) < 0 ||
            num(b, &f, "requests", p->scripts[i].requests) < 0 || cgp_buf_append(b, "}", 1) < 0)
            return -1;
    }
    return cgp_buf_append(b, "]", 1);
}

static int pool(runner_buf *b, const runner_st *st, const runner_st_pool *p)
{
    int f = 1, q = 1, k = 1;
    if (cgp_buf_append(b, "{", 1) < 0 || num(b, &f, "id", p->id) < 0 ||
        text(b, &f, "script", p->script) < 0 || text(b, &f, "mode", p->mode) < 0 ||
        (p->site && text(b, &f, "site", p->site) < 0) || boolean(b, &f, "retired", p->retired) < 0 ||
        boolean(b, &f, "direct", p->direct) < 0 || num(b, &f, "generation", p->gen) < 0 ||
        num(b, &f, "age_ms", p->age_ms) < 0 || num(b, &f, "unused_ms", p->unused_ms) < 0 ||
        key(b, &f, "settings") < 0 || settings(b, p->set) < 0 || key(b, &f, "workers") < 0 ||
        cgp_buf_append(b, "[", 1) < 0)
        return -1;
    for (unsigned i = 0; i < p->nw; i++)
        if ((i && cgp_buf_append(b, ",", 1) < 0) || worker(b, &p->w[i]) < 0)
            return -1;
    if (cgp_buf_append(b, "]", 1) < 0 || key(b, &f, "queue") < 0 ||
        cgp_buf_append(b, "{", 1) < 0 || num(b, &q, "depth", p->qlen) < 0 ||
        num(b, &q, "max", p->qmax) < 0 || num(b, &q, "bytes", p->qbytes) < 0 ||
        cgp_buf_append(b, "}", 1) < 0 ||
        key(b, &f, "backoff") < 0 || cgp_buf_append(b, "{", 1) < 0 ||
        num(b, &k, "failures", p->fail_streak) < 0 ||
        num(b, &k, "remaining_ms", p->backoff_ms) < 0 || cgp_buf_append(b, "}", 1) < 0 ||
        key(b, &f, "counters") < 0 || counters(b, p) < 0 || key(b, &f, "ended") < 0 ||
        ended(b, st, p) < 0 || key(b, &f, "scripts") < 0 || scripts(b, p) < 0 ||
        num(b, &f, "scripts_other", p->scripts_other) < 0)
        return -1;
    return cgp_buf_append(b, "}", 1);
}

int runner_status_json(const runner_st *st, runner_buf *b)
{
    int f = 1;
    if (cgp_buf_append(b, "{\"runner\":{", 11) < 0 || num(b, &f, "pid", (uint64_t)st->pid) < 0 ||
        text(b, &f, "version", st->version) < 0 || num(b, &f, "uptime_ms", st->uptime_ms) < 0 ||
        num(b, &f, "protocol", CGP_VERSION) < 0 || num(b, &f, "workers", st->workers) < 0 ||
        num(b, &f, "max_workers_total", st->max_workers_total) < 0 ||
        num(b, &f, "kill_grace_ms", st->kill_grace) < 0 ||
        num(b, &f, "backoff_base_ms", st->backoff_base) < 0 ||
        num(b, &f, "backoff_max_ms", st->backoff_max) < 0 ||
        num(b, &f, "http_timeout_ms", st->http_timeout) < 0 ||
        num(b, &f, "slow_request_ms", st->slow_request) < 0 ||
        num(b, &f, "reloads", st->reloads) < 0 || boolean(b, &f, "stopping", st->stopping) < 0 ||
        num(b, &f, "queue_bytes", st->queue_bytes) < 0 ||
        num(b, &f, "queue_memory", st->queue_memory) < 0 ||
        num(b, &f, "queue_memory_pool", st->queue_memory_pool) < 0 ||
        num(b, &f, "unauthenticated", st->unauth) < 0 ||
        num(b, &f, "refused_connections", st->refused) < 0 ||
        cgp_buf_append(b, "},\"pools\":[", 11) < 0)
        return -1;
    for (unsigned i = 0; i < st->npools; i++)
        if ((i && cgp_buf_append(b, ",", 1) < 0) || pool(b, st, &st->pools[i]) < 0)
            return -1;
    /* the WebSocket pools' section (runner_ws_status.c) */
    if (cgp_buf_append(b, "]", 1) < 0 || runner_ws_status_json(b) < 0)
        return -1;
    return cgp_buf_append(b, "}\n", 2);
}
