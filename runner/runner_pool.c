/* runner_pool.c: pools keyed by (script, mode, settings): which worker takes
 * a request, the FIFO queue when all are busy, lazy spawning on demand. */
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *runner_mode_name(runner_mode m)
{
    return m == RUNNER_MODE_CGI ? "cgi" : "cgiplus";
}

runner_pool *runner_pool_get(const char *script, size_t slen, runner_mode mode,
                             const runner_pool_set *set)
{
    runner_pool *p;
    TAILQ_FOREACH(p, &runner_g.pools, link)
        if (p->mode == mode && p->set.max_workers == set->max_workers &&
            strlen(p->script) == slen && memcmp(p->script, script, slen) == 0)
            return p;

    if (!(p = calloc(1, sizeof(*p))))
        return NULL;
    if (!(p->script = strndup(script, slen)) || !(p->dir = strndup(script, slen))) {
        free(p->script);
        free(p);
        return NULL;
    }
    char *slash = strrchr(p->dir, '/');
    slash[slash == p->dir ? 1 : 0] = '\0'; /* script is absolute: a '/' exists */
    p->mode = mode;
    p->set = *set;
    TAILQ_INIT(&p->workers);
    TAILQ_INIT(&p->queue);
    TAILQ_INSERT_TAIL(&runner_g.pools, p, link);
    runner_log(RUNNER_LOG_DEBUG, CGIPLUS_LOGNO(2006) "new pool %s (%s, max_workers %u)",
               p->script, runner_mode_name(mode), set->max_workers);
    return p;
}

static runner_worker *idle_worker(runner_pool *p)
{
    runner_worker *w;
    TAILQ_FOREACH(w, &p->workers, plink)
        if (w->state == RUNNER_W_IDLE)
            return w;
    return NULL;
}

/* Starts a new process for r, or ends r with spawn-failed. */
static void start_new(runner_pool *p, runner_req *r)
{
    runner_worker *w;
    if (p->mode == RUNNER_MODE_CGI) {
        if (runner_worker_spawn_cgi(p, r) < 0)
            runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)errno);
        return;
    }
    if (runner_worker_spawn(p, &w) < 0) {
        runner_req_end(r, CGP_O_SPAWN_FAILED, 1, 0, (uint32_t)errno);
        return;
    }
    runner_worker_assign(w, r);
}

/* The script must exist and be executable; checked per request so a removed
 * script answers 404 even while its workers still run. */
static int check_script(const runner_pool *p)
{
    struct stat st;
    if (stat(p->script, &st) < 0)
        return errno == EACCES ? EACCES : ENOENT;
    if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
        return EACCES;
    return 0;
}

void runner_pool_submit(runner_req *r)
{
    runner_pool *p = r->pool;
    int err = check_script(p);

    if (err) {
        runner_log(RUNNER_LOG_INFO, CGIPLUS_LOGNO(2007) "%s: %s (request %s)", p->script,
                   strerror(err), r->uri);
        runner_req_end(r, CGP_O_NOT_FOUND, 0, 0, (uint32_t)err);
        return;
    }
    if (runner_g.stop != RUNNER_RUN) {
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        return;
    }
    runner_worker *w = p->mode == RUNNER_MODE_CGIPLUS ? idle_worker(p) : NULL;
    if (w) {
        runner_worker_assign(w, r);
        return;
    }
    if (p->nworkers < p->set.max_workers && TAILQ_EMPTY(&p->queue)) {
        start_new(p, r);
        return;
    }
    if (p->qlen >= RUNNER_QUEUE_CAP) {
        runner_log(RUNNER_LOG_WARN, CGIPLUS_LOGNO(2008) "%s: queue full (%u waiting, %u "
                   "workers busy); answering overloaded", p->script, p->qlen, p->nworkers);
        runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        return;
    }
    r->state = RUNNER_R_QUEUED;
    TAILQ_INSERT_TAIL(&p->queue, r, qlink);
    p->qlen++;
}

void runner_pool_dequeue(runner_req *r)
{
    TAILQ_REMOVE(&r->pool->queue, r, qlink);
    r->pool->qlen--;
    r->state = RUNNER_R_PARAMS; /* no longer queued; the caller decides what next */
}

void runner_pool_dispatch(runner_pool *p)
{
    while (!TAILQ_EMPTY(&p->queue) && runner_g.stop == RUNNER_RUN) {
        runner_worker *w = p->mode == RUNNER_MODE_CGIPLUS ? idle_worker(p) : NULL;
        if (!w && p->nworkers >= p->set.max_workers)
            return;
        runner_req *r = TAILQ_FIRST(&p->queue);
        runner_pool_dequeue(r);
        if (w)
            runner_worker_assign(w, r);
        else
            start_new(p, r);
    }
}

void runner_pool_worker_idle(runner_worker *w)
{
    if (w->state != RUNNER_W_IDLE)
        return;
    if (runner_g.stop != RUNNER_RUN) {
        runner_worker_stop(w);
        return;
    }
    runner_pool_dispatch(w->pool);
}

/* Stop: queued requests are answered at once, idle workers are told to go. */
void runner_pool_stop(void)
{
    runner_pool *p;
    runner_worker *w, *wn;
    TAILQ_FOREACH(p, &runner_g.pools, link) {
        while (!TAILQ_EMPTY(&p->queue)) {
            runner_req *r = TAILQ_FIRST(&p->queue);
            runner_pool_dequeue(r);
            runner_req_end(r, CGP_O_OVERLOADED, 1, 0, 0);
        }
        for (w = TAILQ_FIRST(&p->workers); w; w = wn) {
            wn = TAILQ_NEXT(w, plink);
            if (w->state == RUNNER_W_IDLE)
                runner_worker_stop(w);
        }
    }
}

void runner_pool_free_all(void)
{
    runner_pool *p;
    while ((p = TAILQ_FIRST(&runner_g.pools))) {
        runner_worker *w;
        while ((w = TAILQ_FIRST(&p->workers))) {
            TAILQ_REMOVE(&p->workers, w, plink);
            TAILQ_REMOVE(&runner_g.workers, w, glink);
            runner_worker_free(w);
        }
        while (!TAILQ_EMPTY(&p->queue)) {
            runner_req *r = TAILQ_FIRST(&p->queue);
            runner_pool_dequeue(r);
            if (r->client)
                r->client->req = NULL;
            runner_req_free(r);
        }
        TAILQ_REMOVE(&runner_g.pools, p, link);
        free(p->script);
        free(p->dir);
        free(p);
    }
}
