/* runner_status.c: the STATUS frame. Gathers the runner's numbers into a
 * snapshot (runner_status_collect, the only place that reads pools and
 * workers for the page) and hands it to the renderer the module asked for:
 * JSON, HTML or Prometheus text (docs/RUNNER.md, "Status"). */
#include "runner_status.h"
#include "runner_ctx.h"
#include "runner_loop.h"
#include "cgp_parse.h"
#include "runner_pool.h"
#include "runner_req.h"
#include "runner_table.h"
#include "runner_twait.h"
#include "runner_worker.h"
#include "config.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const runner_st_outcome[CGP_C_MAX_ + 1] = {
    "ok", "overloaded", "timeout", "crashed", "spawn_failed", "not_found", "too_large",
    "bad_request", "aborted", "refused", "bad_header", "bad_body"
};

static const char *wstate(const runner_worker *w)
{
    switch (w->state) {
    case RUNNER_W_IDLE: return "idle";
    case RUNNER_W_BUSY: return "busy";
    case RUNNER_W_STOPPING: return "stopping";
    default: return "dead";
    }
}

static void collect_worker(const runner_worker *w, runner_st_worker *o, int show_query)
{
    uint64_t now = runner_g.now;
    memset(o, 0, sizeof(*o));
    o->pid = (long)w->pid;
    o->state = runner_worker_held(w) ? "busy" : wstate(w); /* busy on the direct path */
    o->gen = w->gen;
    o->requests = runner_worker_served(w);
    o->age_ms = now - w->started;
    o->retiring = w->retire != RUNNER_END_NONE;
    o->is_idle = w->state == RUNNER_W_IDLE && !runner_worker_held(w);
    if (o->is_idle)
        o->idle_ms = now - runner_worker_idle_since(w); /* a child's release too */
    if (runner_worker_held(w)) {
        o->busy_ms = runner_worker_direct_uri(w, o->uribuf, sizeof(o->uribuf));
        o->uri = o->uribuf;
    }
    if (w->req) {
        o->uri = w->req->uri;
        o->busy_ms = now - w->req->t_start;
        o->orphan = w->req->client == NULL;
    }
    /* A query string often carries tokens and personal data: the path
     * alone unless the operator asked (CGIplusStatusShowQuery on). */
    if (o->uri)
        o->urilen = show_query ? strlen(o->uri) : strcspn(o->uri, "?");
}

static void collect_pool(const runner_pool *p, runner_st_pool *o, runner_st_worker *wb,
                         int show_query)
{
    uint64_t now = runner_g.now;
    const runner_worker *w;
    memset(o, 0, sizeof(*o));
    o->id = p->id;
    o->script = p->script;
    o->mode = runner_mode_name(p->mode);
    o->site = p->site;
    o->retired = p->retired;
    o->direct = p->tidx >= 0;
    o->gen = p->gen;
    o->age_ms = now - p->created;
    uint64_t used = p->use.last_used;
    o->set = &p->set;
    o->w = wb;
    TAILQ_FOREACH(w, &p->workers, plink) {
        if (w->state == RUNNER_W_DEAD)
            continue;
        collect_worker(w, &wb[o->nw++], show_query);
        o->idle += w->state == RUNNER_W_IDLE && !runner_worker_held(w);
        o->busy += w->state == RUNNER_W_BUSY || runner_worker_held(w);
        o->stopping += w->state == RUNNER_W_STOPPING;
    }
    o->total = o->nw;
    o->qlen = runner_twait_depth(p, &o->qmax); /* children's waiting requests too */
    o->qbytes = p->held;
    o->fail_streak = p->fail_streak;
    o->backoff_ms = p->backoff_until > now ? p->backoff_until - now : 0;
    o->requests = p->requests;
    o->served = p->served + runner_table_pool_served(p); /* both paths */
    o->spawned = p->spawned;
    o->max_active = p->max_active;
    o->max_reached = p->max_reached + runner_twait_reached(p); /* the table's waiters */
    o->slow = p->slow;
    /* the direct path's share: its peak, slow requests, last use */
    runner_table_pool_status(p, &o->max_active, &o->slow, &used);
    o->unused_ms = now > used ? now - used : 0;
    memcpy(o->outcomes, p->outcomes, sizeof(o->outcomes));
    runner_table_pool_counts(p, &o->requests, o->outcomes, CGP_C_MAX_ + 1);
    o->nscripts = runner_table_pool_scripts(p, o->scripts, CGP_TSCRIPTS, &o->scripts_other);
    memcpy(o->deaths, p->deaths, sizeof(o->deaths));
    o->nended = p->nended < RUNNER_ENDS_KEPT ? p->nended : RUNNER_ENDS_KEPT;
    for (unsigned k = 0; k < o->nended; k++)
        o->ended[k] = p->ended[(p->nended - 1 - k) % RUNNER_ENDS_KEPT];
}

int runner_status_collect(runner_st *st, int show_query)
{
    const runner_conf *c = &runner_g.conf;
    const runner_pool *p;
    const runner_worker *w;
    size_t np = 0, nw = 0;

    memset(st, 0, sizeof(*st));
    runner_g.now = runner_now_ms();
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        np++;
        TAILQ_FOREACH(w, &p->workers, plink)
            nw++;
    }
    st->pools = calloc(np ? np : 1, sizeof(*st->pools));
    st->wbuf = calloc(nw ? nw : 1, sizeof(*st->wbuf));
    if (!st->pools || !st->wbuf) {
        runner_status_free(st);
        return -1;
    }
    nw = 0;
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        runner_st_pool *o = &st->pools[st->npools++];
        collect_pool(p, o, st->wbuf + nw, show_query);
        nw += o->nw;
    }
    st->now = runner_g.now;
    st->pid = (long)getpid();
    st->version = PACKAGE_VERSION;
    st->uptime_ms = runner_g.now - runner_g.started;
    st->workers = runner_g.nworkers;
    st->max_workers_total = c->v[CGP_S_MAX_WORKERS_TOTAL];
    st->kill_grace = c->v[CGP_S_KILL_GRACE];
    st->backoff_base = c->v[CGP_S_BACKOFF_BASE];
    st->backoff_max = c->v[CGP_S_BACKOFF_MAX];
    st->http_timeout = c->v[CGP_S_HTTP_TIMEOUT];
    st->slow_request = c->v[CGP_S_SLOW_REQUEST];
    st->reloads = runner_g.reloads;
    st->stopping = runner_g.stop != RUNNER_RUN;
    st->queue_bytes = runner_g.held;
    st->queue_memory = c->v[CGP_S_QUEUE_MEMORY];
    st->queue_memory_pool = c->v[CGP_S_QUEUE_MEMORY_POOL];
    st->unauth = runner_g.nunauth;
    st->refused = runner_g.refused;
    return 0;
}

void runner_status_free(runner_st *st)
{
    free(st->pools);
    free(st->wbuf);
    st->pools = NULL;
    st->wbuf = NULL;
}

/* STATUS payload: a kv list, format=json|html|metrics, pool=ID and
 * query=0|1; unknown keys are ignored (a newer module), a bad value is an
 * error. */
int runner_status_parse(const unsigned char *pl, size_t len, runner_st_query *q)
{
    size_t off = 0, nl, vl;
    const char *n, *v;
    int rc;

    q->format = RUNNER_ST_JSON;
    q->pool = 0;
    q->query = 0;
    while ((rc = cgp_kv_next(pl, len, &off, &n, &nl, &v, &vl)) == 1) {
        if (nl == 6 && !memcmp(n, "format", 6)) {
            if (vl == 4 && !memcmp(v, "json", 4))
                q->format = RUNNER_ST_JSON;
            else if (vl == 4 && !memcmp(v, "html", 4))
                q->format = RUNNER_ST_HTML;
            else if (vl == 7 && !memcmp(v, "metrics", 7))
                q->format = RUNNER_ST_METRICS;
            else
                return -1;
        } else if (nl == 4 && !memcmp(n, "pool", 4)) {
            if (cgp_parse_u64(v, vl, &q->pool) < 0)
                return -1;
        } else if (nl == 5 && !memcmp(n, "query", 5)) {
            if (vl != 1 || (v[0] != '0' && v[0] != '1'))
                return -1;
            q->query = v[0] == '1';
        }
    }
    return rc == 0 ? 0 : -1;
}

int runner_status_render(const runner_st_query *q, runner_buf *out)
{
    runner_st st;
    int rc;
    if (runner_status_collect(&st, q->query) < 0)
        return -1;
    rc = q->format == RUNNER_ST_HTML ? runner_status_html(&st, q->pool, out)
         : q->format == RUNNER_ST_METRICS ? runner_status_prom(&st, out)
         : runner_status_json(&st, out);
    runner_status_free(&st);
    return rc;
}

void runner_st_how(const runner_ended *e, char *out, size_t len)
{
    if (WIFEXITED(e->status))
        snprintf(out, len, "exited with code %d", WEXITSTATUS(e->status));
    else if (WIFSIGNALED(e->status))
        snprintf(out, len, "killed by signal %d", WTERMSIG(e->status));
    else
        snprintf(out, len, "status 0x%x", (unsigned)e->status);
}

/* Failures of a pool: every count but index 0 (ok, or "none"). */
static unsigned long sum_but_first(const unsigned long *v, unsigned n)
{
    unsigned long sum = 0;
    for (unsigned i = 1; i < n; i++)
        sum += v[i];
    return sum;
}

unsigned long runner_st_errors(const runner_st_pool *p)
{
    return sum_but_first(p->outcomes, CGP_C_MAX_ + 1);
}

unsigned long runner_st_deaths(const runner_st_pool *p)
{
    return sum_but_first(p->deaths, RUNNER_END_N_);
}

size_t runner_st_env_name(const char *entry)
{
    return strcspn(entry, "=");
}
