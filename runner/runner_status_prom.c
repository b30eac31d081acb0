/* runner_status_prom.c: the status snapshot as Prometheus text (?metrics).
 * Series are labelled by script and mode only, never by pool id or pid,
 * which change on every reload and recycle: the pools of one script (a
 * retired one and its successor, or pools with different settings) are
 * summed (counts) or maxed (limits and peaks) into one series. */
#include "runner_status.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum agg { SUM, MAX };

/* One per-script series family: the value of one pool, and how pools of
 * the same script combine. */
typedef struct family {
    const char *name, *type, *help;
    enum agg agg;
    uint64_t (*get)(const runner_st_pool *p, unsigned i);
    unsigned from, n;         /* label values i in [from, n) */
    const char *label;        /* NULL: one series per script */
    const char *(*label_value)(unsigned i);
} family;

static const char *const states[] = { "idle", "busy", "stopping" };
static const char *state_name(unsigned i) { return states[i]; }
static uint64_t g_state(const runner_st_pool *p, unsigned i)
{
    return i == 0 ? p->idle : i == 1 ? p->busy : p->stopping;
}
static uint64_t g_limit(const runner_st_pool *p, unsigned i)
{
    (void)i;
    return p->retired ? 0 : p->set->v[CGP_S_MAX_WORKERS];
}
static uint64_t g_max_active(const runner_st_pool *p, unsigned i) { (void)i; return p->max_active; }
static uint64_t g_reached(const runner_st_pool *p, unsigned i) { (void)i; return p->max_reached; }
static uint64_t g_qlen(const runner_st_pool *p, unsigned i) { (void)i; return p->qlen; }
static uint64_t g_qmax(const runner_st_pool *p, unsigned i) { (void)i; return p->qmax; }
static uint64_t g_qlimit(const runner_st_pool *p, unsigned i)
{
    (void)i;
    return p->retired ? 0 : p->set->v[CGP_S_QUEUE_DEPTH];
}
static uint64_t g_requests(const runner_st_pool *p, unsigned i) { (void)i; return p->requests; }
static uint64_t g_served(const runner_st_pool *p, unsigned i) { (void)i; return p->served; }
static uint64_t g_slow(const runner_st_pool *p, unsigned i) { (void)i; return p->slow; }
static uint64_t g_spawns(const runner_st_pool *p, unsigned i) { (void)i; return p->spawned; }
static uint64_t g_failures(const runner_st_pool *p, unsigned i) { (void)i; return p->fail_streak; }
static uint64_t g_pools(const runner_st_pool *p, unsigned i) { (void)p; (void)i; return 1; }
static uint64_t g_error(const runner_st_pool *p, unsigned i) { return p->outcomes[i]; }
static uint64_t g_death(const runner_st_pool *p, unsigned i) { return p->deaths[i]; }
static const char *outcome_name(unsigned i) { return runner_st_outcome[i]; }
static const char *wend_name(unsigned i) { return runner_wend_name((runner_wend)i); }

static const family families[] = {
    { "cgiplus_pool_workers", "gauge", "Worker processes by state (php-fpm: idle/active processes).",
      SUM, g_state, 0, 3, "state", state_name },
    { "cgiplus_pool_workers_limit", "gauge", "The most workers (max_workers; php-fpm: pm.max_children).",
      MAX, g_limit, 0, 1, NULL, NULL },
    { "cgiplus_pool_workers_active_max", "gauge",
      "The most workers busy at once since the pool started (php-fpm: max active processes).",
      MAX, g_max_active, 0, 1, NULL, NULL },
    { "cgiplus_pool_workers_limit_reached_total", "counter",
      "Times a request found every worker busy at the limit (php-fpm: max children reached).",
      SUM, g_reached, 0, 1, NULL, NULL },
    { "cgiplus_pool_queue_depth", "gauge", "Requests waiting for a worker now (php-fpm: listen queue).",
      SUM, g_qlen, 0, 1, NULL, NULL },
    { "cgiplus_pool_queue_depth_max", "gauge",
      "The most requests that waited at once (php-fpm: max listen queue).", MAX, g_qmax, 0, 1, NULL,
      NULL },
    { "cgiplus_pool_queue_depth_limit", "gauge",
      "The most requests that may wait (queue_depth; php-fpm: listen queue len).", MAX, g_qlimit, 0, 1,
      NULL, NULL },
    { "cgiplus_pool_requests_total", "counter", "Requests accepted by the pool (php-fpm: accepted conn).",
      SUM, g_requests, 0, 1, NULL, NULL },
    { "cgiplus_pool_served_total", "counter", "Requests answered without error.", SUM, g_served, 0, 1,
      NULL, NULL },
    { "cgiplus_pool_slow_requests_total", "counter",
      "Requests that ran longer than slow_request (php-fpm: slow requests).", SUM, g_slow, 0, 1, NULL,
      NULL },
    { "cgiplus_pool_errors_total", "counter", "Failed requests, by cause.", SUM, g_error, 1,
      CGP_C_MAX_ + 1, "cause", outcome_name },
    { "cgiplus_pool_spawns_total", "counter", "Worker processes started.", SUM, g_spawns, 0, 1, NULL,
      NULL },
    { "cgiplus_pool_deaths_total", "counter", "Workers ended, by reason.", SUM, g_death, 1,
      RUNNER_END_N_, "reason", wend_name },
    { "cgiplus_pool_backoff_failures", "gauge",
      "Workers in a row that ended before serving (crash loop).", MAX, g_failures, 0, 1, NULL, NULL },
    { "cgiplus_pool_instances", "gauge",
      "Pools of the script (more than one after a settings change, until the old one retires).",
      SUM, g_pools, 0, 1, NULL, NULL },
};

static int series(runner_buf *b, const runner_st *st, const unsigned *grp, const family *f)
{
    for (unsigned g = 0; g < st->npools; g++) {
        if (grp[g] != g)
            continue;
        for (unsigned i = f->from; i < f->n; i++) {
            uint64_t v = 0;
            for (unsigned k = g; k < st->npools; k++)
                if (grp[k] == g) {
                    uint64_t x = f->get(&st->pools[k], i);
                    v = f->agg == SUM ? v + x : x > v ? x : v;
                }
            if (runner_buf_printf(b, "%s{script=\"", f->name) < 0 ||
                runner_buf_label(b, st->pools[g].script) < 0 ||
                runner_buf_printf(b, "\",mode=\"%s\"", st->pools[g].mode) < 0)
                return -1;
            if (f->label && runner_buf_printf(b, ",%s=\"%s\"", f->label, f->label_value(i)) < 0)
                return -1;
            if (runner_buf_printf(b, "} %" PRIu64 "\n", v) < 0)
                return -1;
        }
    }
    return 0;
}

static int head(runner_buf *b, const char *name, const char *type, const char *help)
{
    return runner_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

int runner_status_prom(const runner_st *st, runner_buf *b)
{
    unsigned *grp = calloc(st->npools ? st->npools : 1, sizeof(*grp));
    int rc = -1;
    if (!grp)
        return -1;
    /* grp[i]: the first pool of the same script and mode */
    for (unsigned i = 0; i < st->npools; i++) {
        grp[i] = i;
        for (unsigned j = 0; j < i; j++)
            if (grp[j] == j && !strcmp(st->pools[j].mode, st->pools[i].mode) &&
                !strcmp(st->pools[j].script, st->pools[i].script)) {
                grp[i] = j;
                break;
            }
    }
    if (head(b, "cgiplus_runner_info", "gauge", "The runner's version; always 1.") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_info{version=\"%s\"} 1\n", st->version) < 0 ||
        head(b, "cgiplus_runner_uptime_seconds", "gauge", "Seconds since the runner started.") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_uptime_seconds %.3f\n", (double)st->uptime_ms / 1000) < 0 ||
        head(b, "cgiplus_runner_workers", "gauge", "Live worker processes of the runner.") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_workers %u\n", st->workers) < 0 ||
        head(b, "cgiplus_runner_workers_limit", "gauge",
             "The runner's cap on workers (max_workers_total).") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_workers_limit %" PRIu64 "\n", st->max_workers_total) < 0 ||
        head(b, "cgiplus_runner_pools", "gauge", "Pools the runner holds.") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_pools %u\n", st->npools) < 0 ||
        head(b, "cgiplus_runner_reloads_total", "counter", "Settings reloads (SIGHUP).") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_reloads_total %lu\n", st->reloads) < 0 ||
        head(b, "cgiplus_runner_queue_bytes", "gauge",
             "Bytes of CGI variables held for requests not yet on a worker.") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_queue_bytes %" PRIu64 "\n", st->queue_bytes) < 0 ||
        head(b, "cgiplus_runner_connections_refused_total", "counter",
             "Connections closed before they proved the key.") < 0 ||
        runner_buf_printf(b, "cgiplus_runner_connections_refused_total %lu\n", st->refused) < 0)
        goto out;
    for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
        if (head(b, families[f].name, families[f].type, families[f].help) < 0 ||
            series(b, st, grp, &families[f]) < 0)
            goto out;
    if (runner_ws_status_prom(b) < 0) /* runner_ws_status.c */
        goto out;
    rc = 0;
out:
    free(grp);
    return rc;
}
