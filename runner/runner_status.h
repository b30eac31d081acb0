/* runner_status.h: the status page's view of the runner. One function
 * (runner_status_collect) gathers the numbers into a snapshot; the
 * renderers (JSON, HTML, Prometheus) read only the snapshot, so the numbers
 * can later come from elsewhere (a shared table) without touching them. */
#ifndef RUNNER_STATUS_H
#define RUNNER_STATUS_H

#include "runner_buf.h"
#include "runner_conf.h"
#include "runner_end.h"
#include "runner_table.h"
#include "cgp_proto.h"
#include "cgp_table.h"

enum runner_st_format { RUNNER_ST_JSON, RUNNER_ST_HTML, RUNNER_ST_METRICS };

/* One worker; strings point into the runner's objects (valid while the
 * snapshot is rendered, in the same loop turn). */
typedef struct runner_st_worker {
    long pid;
    const char *state;        /* idle, busy, stopping */
    unsigned gen;
    unsigned long requests;
    uint64_t age_ms, idle_ms, busy_ms;
    int is_idle, retiring, orphan;
    const char *uri;          /* NULL unless running a request */
    size_t urilen;            /* what to show of it: up to its query unless asked */
    char uribuf[CGP_TSLOT_URI + 1]; /* a direct request's, from the table */
} runner_st_worker;

/* One pool, with its workers (w[0..nw)). */
typedef struct runner_st_pool {
    uint64_t id;
    const char *script, *mode;
    const char *site;         /* an engine pool's virtual host (BEGIN's site); NULL: none */
    int retired;
    int direct;               /* in the direct path's table (2501 when not) */
    unsigned gen;
    uint64_t age_ms, unused_ms;
    const runner_pool_set *set;
    unsigned idle, busy, stopping, total;
    runner_st_worker *w;
    unsigned nw;
    unsigned qlen, qmax;
    uint64_t qbytes;          /* PARAMS bytes of its requests not on a worker */
    unsigned fail_streak;
    uint64_t backoff_ms;
    unsigned long requests, served, spawned, max_active, max_reached, slow;
    unsigned long outcomes[CGP_C_MAX_ + 1]; /* by cause (cgp_cause) */
    unsigned long deaths[RUNNER_END_N_];
    runner_ended ended[RUNNER_ENDS_KEPT]; /* newest first */
    unsigned nended;
    runner_st_script scripts[CGP_TSCRIPTS]; /* an engine pool's, both paths */
    unsigned nscripts;
    unsigned long scripts_other; /* requests of scripts past those */
} runner_st_pool;

/* The whole runner. Owned by the caller of runner_status_collect; freed
 * with runner_status_free. */
typedef struct runner_st {
    uint64_t now;             /* monotonic ms: ended[].at is against it */
    long pid;
    const char *version;
    uint64_t uptime_ms;
    unsigned workers;
    uint64_t max_workers_total, kill_grace, backoff_base, backoff_max, http_timeout;
    uint64_t slow_request;
    unsigned long reloads;
    int stopping;
    uint64_t queue_bytes, queue_memory, queue_memory_pool; /* held, and its caps */
    unsigned unauth;          /* connections that have not proved the key */
    unsigned long refused;    /* connections closed before they did */
    runner_st_pool *pools;
    unsigned npools;
    runner_st_worker *wbuf;   /* every pool's workers, one allocation */
} runner_st;

/* What the module asked for (the STATUS frame's kv list). */
typedef struct runner_st_query {
    enum runner_st_format format;
    uint64_t pool;            /* HTML: show this pool's workers; 0: the list */
    int query;                /* query=1 (CGIplusStatusShowQuery on): URIs with their query */
} runner_st_query;

/* show_query: busy workers' URIs with their query strings (else cut at '?'). */
int runner_status_collect(runner_st *st, int show_query);
void runner_status_free(runner_st *st);
int runner_status_parse(const unsigned char *pl, size_t len, runner_st_query *q);
int runner_status_render(const runner_st_query *q, runner_buf *out);

/* the WebSocket pools' parts of each (runner_ws_status.c) */
int runner_ws_status_json(runner_buf *b);
int runner_ws_status_html(runner_buf *b);
int runner_ws_status_prom(runner_buf *b);

/* the renderers (runner_status_json.c, _html.c, _prom.c) */
int runner_status_json(const runner_st *st, runner_buf *b);
int runner_status_html(const runner_st *st, uint64_t pool, runner_buf *b);
int runner_status_prom(const runner_st *st, runner_buf *b);

/* shared by the renderers (runner_status.c) */
extern const char *const runner_st_outcome[CGP_C_MAX_ + 1];
void runner_st_how(const runner_ended *e, char *out, size_t len);
unsigned long runner_st_errors(const runner_st_pool *p);
unsigned long runner_st_deaths(const runner_st_pool *p);
/* The name of a pool's env entry ("NAME=value"): its length. The page
 * never shows a value: CGIplusSetEnv holds secrets (database passwords),
 * and a script that reaches the page must not learn another pool's. */
size_t runner_st_env_name(const char *entry);

#endif
