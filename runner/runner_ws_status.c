/* runner_ws_status.c: the WebSocket pools on the status page: a section
 * of the JSON object, a table of the HTML page, and metric families
 * (docs/RUNNER.md, "Status"): open connections per pool and per worker,
 * messages in and out, upgrades and why some were refused. */
#include "runner_ws.h"
#include "runner_status.h"
#include "runner_ctx.h"
#include "runner_client.h"
#include "runner_conf.h"
#include "runner_log.h"
#include "runner_loop.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const limit_names[RUNNER_WS_L_N_] = { "pool", "address", "memory", "queue",
                                                         "wait", "no_worker" };

static const char *wstate(const runner_ws_worker *w)
{
    switch (w->state) {
    case RUNNER_WS_W_STARTING: return "starting";
    case RUNNER_WS_W_READY: return "ready";
    case RUNNER_WS_W_DRAINING: return "draining";
    case RUNNER_WS_W_STOPPING: return "stopping";
    default: return "dead";
    }
}

int runner_ws_status_json(runner_buf *b)
{
    const runner_ws_pool *p;
    const runner_ws_worker *w;
    int fp = 1;

    if (runner_buf_printf(b, ",\"websocket\":{\"connections\":%u,\"memory\":%" PRIu64
                          ",\"memory_max\":%" PRIu64 ",\"pools\":[", runner_ws_g.nconns,
                          runner_ws_g.mem, RUNNER_WS_MEMORY) < 0)
        return -1;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link) {
        int fw = 1;
        if ((!fp && cgp_buf_append(b, ",", 1) < 0) ||
            runner_buf_printf(b, "{\"id\":%" PRIu64 ",\"script\":", p->id) < 0 ||
            runner_buf_json(b, p->script, strlen(p->script)) < 0 ||
            runner_buf_printf(b, ",\"generation\":%u,\"retired\":%s,\"not_websocket\":%s,"
                              "\"connections\":%u,\"queue\":%u,\"settings\":{\"max_workers\":%"
                              PRIu64 ",\"max_message\":%" PRIu64 ",\"queue\":%" PRIu64
                              ",\"overflow\":\"%s\",\"max_connections\":%" PRIu64
                              ",\"per_address\":%" PRIu64 ",\"drain_ms\":%" PRIu64 "},",
                              p->gen, p->retired ? "true" : "false",
                              p->not_ws ? "true" : "false", p->nconns, p->qlen,
                              p->set.v[CGP_S_MAX_WORKERS], p->set.v[CGP_S_WS_MAX_MESSAGE],
                              p->set.v[CGP_S_WS_QUEUE],
                              cgp_ws_overflow_names[p->set.v[CGP_S_WS_OVERFLOW]].name,
                              p->set.v[CGP_S_WS_MAX_CONNS], p->set.v[CGP_S_WS_PER_ADDR],
                              p->set.v[CGP_S_WS_DRAIN]) < 0 ||
            runner_buf_printf(b, "\"counters\":{\"upgrades\":%lu,\"accepted\":%lu,\"refused\":%lu,"
                              "\"failed\":%lu,\"closed\":%lu,\"messages_in\":%lu,"
                              "\"messages_out\":%lu,\"bytes_in\":%lu,\"bytes_out\":%lu,"
                              "\"broadcasts\":%lu,\"dropped\":%lu,\"spawns\":%lu,\"limited\":{",
                              p->opens, p->accepted, p->refused, p->failed, p->closed, p->msgs_in,
                              p->msgs_out, p->bytes_in, p->bytes_out, p->broadcasts, p->dropped,
                              p->spawned) < 0)
            return -1;
        fp = 0;
        for (unsigned i = 0; i < RUNNER_WS_L_N_; i++)
            if (runner_buf_printf(b, "%s\"%s\":%lu", i ? "," : "", limit_names[i],
                                  p->limited[i]) < 0)
                return -1;
        if (cgp_buf_append(b, "}},\"workers\":[", 14) < 0)
            return -1;
        TAILQ_FOREACH(w, &p->workers, link) {
            if ((!fw && cgp_buf_append(b, ",", 1) < 0) ||
                runner_buf_printf(b, "{\"pid\":%ld,\"state\":\"%s\",\"generation\":%u,"
                                  "\"connections\":%u,\"opening\":%u,\"messages_in\":%lu,"
                                  "\"messages_out\":%lu,\"age_ms\":%" PRIu64 "}", (long)w->pid,
                                  wstate(w), w->gen, w->nconns, w->nsent, w->msgs_in,
                                  w->msgs_out, runner_g.now - w->started) < 0)
                return -1;
            fw = 0;
        }
        if (cgp_buf_append(b, "]}", 2) < 0)
            return -1;
    }
    return cgp_buf_append(b, "]}", 2);
}

int runner_ws_status_html(runner_buf *b)
{
    const runner_ws_pool *p;
    const runner_ws_worker *w;

    if (TAILQ_EMPTY(&runner_ws_g.pools))
        return 0;
    if (runner_buf_printf(b, "<h2>WebSocket pools</h2>\n<p>%u connections open; %" PRIu64
                          " of at most %" PRIu64 " bytes of WebSocket buffers in use.</p>\n"
                          "<table>\n<tr><th>id</th><th>script</th><th>connections</th>"
                          "<th>workers (pid: connections)</th><th>upgrades</th><th>accepted</th>"
                          "<th>refused</th><th>limited</th><th>messages in</th>"
                          "<th>messages out</th><th>broadcasts</th><th>dropped</th></tr>\n",
                          runner_ws_g.nconns, runner_ws_g.mem, RUNNER_WS_MEMORY) < 0)
        return -1;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link) {
        unsigned long limited = 0;
        for (unsigned i = 0; i < RUNNER_WS_L_N_; i++)
            limited += p->limited[i];
        if (runner_buf_printf(b, "<tr%s><td>%" PRIu64 "</td><td>", p->retired
                              ? " class=\"retired\"" : "", p->id) < 0 ||
            runner_buf_html(b, p->script, strlen(p->script)) < 0 ||
            runner_buf_printf(b, "%s</td><td>%u</td><td>", p->not_ws
                              ? " (does not speak WebSocket)" : "", p->nconns) < 0)
            return -1;
        TAILQ_FOREACH(w, &p->workers, link)
            if (runner_buf_printf(b, "%ld: %u%s%s ", (long)w->pid, w->nconns,
                                  w->state == RUNNER_WS_W_READY ? "" : " ",
                                  w->state == RUNNER_WS_W_READY ? "" : wstate(w)) < 0)
                return -1;
        if (runner_buf_printf(b, "</td><td>%lu</td><td>%lu</td><td>%lu</td><td>%lu</td>"
                              "<td>%lu</td><td>%lu</td><td>%lu</td><td>%lu</td></tr>\n", p->opens,
                              p->accepted, p->refused, limited, p->msgs_in, p->msgs_out,
                              p->broadcasts, p->dropped) < 0)
            return -1;
    }
    return cgp_buf_append(b, "</table>\n", 9);
}

/* One series per script (its pools added up), with an optional label. */
static int series(runner_buf *b, const char *name, const char *label, const char *value,
                  size_t off)
{
    const runner_ws_pool *p, *q;
    TAILQ_FOREACH(p, &runner_ws_g.pools, link) {
        unsigned long v = 0;
        int first = 1;
        TAILQ_FOREACH(q, &runner_ws_g.pools, link) {
            if (strcmp(q->script, p->script))
                continue;
            if (q != p && first)
                break; /* an earlier pool of this script said it */
            first = 0;
            v += off == (size_t)-1 ? q->nconns : *(const unsigned long *)((const char *)q + off);
        }
        if (first)
            continue;
        if (runner_buf_printf(b, "%s{script=\"", name) < 0 || runner_buf_label(b, p->script) < 0 ||
            (label && runner_buf_printf(b, "\",%s=\"%s", label, value) < 0) ||
            runner_buf_printf(b, "\"} %lu\n", v) < 0)
            return -1;
    }
    return 0;
}

static int head(runner_buf *b, const char *name, const char *type, const char *help)
{
    return runner_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

#define OFF(f) offsetof(runner_ws_pool, f)

int runner_ws_status_prom(runner_buf *b)
{
    if (head(b, "cgiplus_ws_connections", "gauge", "Open WebSocket connections.") < 0 ||
        series(b, "cgiplus_ws_connections", NULL, NULL, (size_t)-1) < 0 ||
        head(b, "cgiplus_ws_upgrades_total", "counter",
             "WebSocket upgrades, by what became of them.") < 0 ||
        series(b, "cgiplus_ws_upgrades_total", "outcome", "accepted", OFF(accepted)) < 0 ||
        series(b, "cgiplus_ws_upgrades_total", "outcome", "refused", OFF(refused)) < 0 ||
        series(b, "cgiplus_ws_upgrades_total", "outcome", "failed", OFF(failed)) < 0 ||
        head(b, "cgiplus_ws_limited_total", "counter",
             "WebSocket upgrades refused by a limit, before a worker saw them.") < 0)
        return -1;
    for (unsigned i = 0; i < RUNNER_WS_L_N_; i++)
        if (series(b, "cgiplus_ws_limited_total", "limit", limit_names[i],
                   OFF(limited) + i * sizeof(unsigned long)) < 0)
            return -1;
    if (head(b, "cgiplus_ws_messages_total", "counter", "WebSocket messages, in from clients "
             "and out to them (a broadcast counts once per connection).") < 0 ||
        series(b, "cgiplus_ws_messages_total", "direction", "in", OFF(msgs_in)) < 0 ||
        series(b, "cgiplus_ws_messages_total", "direction", "out", OFF(msgs_out)) < 0 ||
        head(b, "cgiplus_ws_bytes_total", "counter", "Bytes of those messages.") < 0 ||
        series(b, "cgiplus_ws_bytes_total", "direction", "in", OFF(bytes_in)) < 0 ||
        series(b, "cgiplus_ws_bytes_total", "direction", "out", OFF(bytes_out)) < 0 ||
        head(b, "cgiplus_ws_broadcasts_total", "counter", "Broadcasts workers sent.") < 0 ||
        series(b, "cgiplus_ws_broadcasts_total", NULL, NULL, OFF(broadcasts)) < 0 ||
        head(b, "cgiplus_ws_dropped_total", "counter",
             "Messages dropped: full queues, the memory cap, closed connections.") < 0 ||
        series(b, "cgiplus_ws_dropped_total", NULL, NULL, OFF(dropped)) < 0 ||
        head(b, "cgiplus_ws_memory_bytes", "gauge", "Bytes the runner holds for WebSockets.") < 0 ||
        runner_buf_printf(b, "cgiplus_ws_memory_bytes %" PRIu64 "\n", runner_ws_g.mem) < 0 ||
        head(b, "cgiplus_ws_memory_limit_bytes", "gauge", "ws_memory (CGIplusWebSocketMemory).") < 0 ||
        runner_buf_printf(b, "cgiplus_ws_memory_limit_bytes %" PRIu64 "\n",
                          RUNNER_WS_MEMORY) < 0)
        return -1;
    return 0;
}
