/* test_states.c: the runner's state tables and the slot's
 * (docs/ARCHITECTURE.md, "State machines"): a request's (runner_rnext), a
 * worker's (runner_wnext), a WebSocket worker's and upgrade's
 * (runner_ws_wnext, runner_ws_onext), the shared table's slot (cgp_tnext, and
 * cgp_tslot_step's CAS and generations) and waiter entry (cgp_twnext, and
 * cgp_tw_step's CAS): every row as documented, every
 * other pair refused; and an engine pool's script entries (cgp_tscript_add).
 * Pure: the tables are inline in their headers. */
#include "tap.h"

#include "runner_req.h"
#include "runner_worker.h"
#include "runner_ws.h"
#include "cgp_table.h"
#include "cgp_twait.h"

#include <stdlib.h>
#include <string.h>

#define X 0xffu

/* Entry e's name as the runner reads it. */
static void tscript_name(cgp_tscript *e, char *out)
{
    for (unsigned j = 0; j < CGP_TSCRIPT_NAME / 8; j++) {
        uint64_t w = atomic_load(&e->name[j]);
        for (unsigned b = 0; b < 8; b++)
            out[j * 8 + b] = (char)(w >> (8 * b));
    }
}

/* Counting by script: an entry made and named at a file's first request,
 * found again by its key, taken back by -1; a long path keeps its tail;
 * past CGP_TSCRIPTS files, scripts_other; each pool its own entries. */
static void tscripts(void)
{
    void *base = calloc(1, CGP_TABLE_SIZE);
    cgp_tscript *e = cgp_table_scripts(base, 3), *e4 = cgp_table_scripts(base, 4);
    char name[CGP_TSCRIPT_NAME], path[300], want[CGP_TSCRIPT_NAME];

    cgp_tscript_add(base, 3, "/srv/a.pl", 9, 1);
    cgp_tscript_add(base, 3, "/srv/a.pl", 9, 1);
    cgp_tscript_add(base, 3, "/srv/b.pl", 9, 1);
    tscript_name(&e[0], name);
    ok(atomic_load(&e[0].requests) == 2 && atomic_load(&e[0].named) == 1 &&
       !strcmp(name, "/srv/a.pl") && atomic_load(&e[0].key) == cgp_tscript_key("/srv/a.pl", 9),
       "a script's first request makes and names its entry, the next finds it");
    tscript_name(&e[1], name);
    ok(atomic_load(&e[1].requests) == 1 && !strcmp(name, "/srv/b.pl"), "another script, the next entry");
    cgp_tscript_add(base, 3, "/srv/a.pl", 9, -1);
    ok(atomic_load(&e[0].requests) == 1, "-1 takes a request back (handed back unrun)");
    memset(path, 'p', sizeof(path));
    path[0] = '/';
    memcpy(path + sizeof(path) - 4, ".pl", 3);
    path[sizeof(path) - 1] = 'x';
    cgp_tscript_add(base, 3, path, sizeof(path), 1);
    tscript_name(&e[2], name);
    memcpy(want, path + sizeof(path) - (CGP_TSCRIPT_NAME - 1), CGP_TSCRIPT_NAME - 1);
    want[CGP_TSCRIPT_NAME - 1] = '\0';
    ok(atomic_load(&e[2].named) == 2 && !strcmp(name, want), "a path past the entry keeps its last 103 bytes");
    for (int i = 3; i < (int)CGP_TSCRIPTS + 2; i++) {
        char p[16];
        int n = snprintf(p, sizeof(p), "/s%d", i);
        cgp_tscript_add(base, 3, p, (size_t)n, 1);
    }
    ok(atomic_load(&e[CGP_TSCRIPTS - 1].requests) == 1 &&
       atomic_load(&cgp_table_pool(base, 3)->scripts_other) == 2,
       "past 16 scripts, the pool's scripts_other counts them");
    cgp_tscript_add(base, 4, "/srv/a.pl", 9, 1);
    ok(atomic_load(&e4[0].requests) == 1 && atomic_load(&e[0].requests) == 1,
       "another pool's entries are its own");
    free(base);
}

struct row {
    unsigned st, ev, next;
};

/* Each listed pair gives its next state; every other pair is refused. */
static void check(const char *what, unsigned (*next)(unsigned, unsigned), unsigned nst,
                  unsigned nev, const struct row *rows, unsigned n)
{
    unsigned st, ev, i, wrong = 0;

    for (i = 0; i < n; i++)
        ok(next(rows[i].st, rows[i].ev) == rows[i].next, "%s: %u x %u -> %u", what, rows[i].st,
           rows[i].ev, rows[i].next);
    for (st = 0; st < nst; st++) {
        for (ev = 0; ev < nev; ev++) {
            int listed = 0;
            for (i = 0; i < n; i++)
                listed |= rows[i].st == st && rows[i].ev == ev;
            if (!listed && next(st, ev) != X) {
                wrong++;
                printf("# %s: %u x %u is not refused\n", what, st, ev);
            }
        }
    }
    is_int(wrong, 0, "%s: every pair not in the table is refused", what);
    ok(next(nst, 0) == X && next(0, nev) == X && next(~0u, ~0u) == X,
       "%s: out of range refused", what);
}

#define R(x) RUNNER_R_##x
#define RE(x) RUNNER_RE_##x
static const struct row req_rows[] = {
    { R(PARAMS), RE(COUNT), R(SPOOL) },     { R(PARAMS), RE(SUBMIT), R(READY) },
    { R(PARAMS), RE(END), R(DONE) },        { R(PARAMS), RE(DRAIN), R(ORPHAN) },
    { R(SPOOL), RE(SUBMIT), R(READY) },     { R(SPOOL), RE(END), R(DONE) },
    { R(READY), RE(QUEUE), R(QUEUED) },     { R(READY), RE(ASSIGN), R(RUNNING) },
    { R(READY), RE(END), R(DONE) },         { R(QUEUED), RE(DEQUEUE), R(READY) },
    { R(QUEUED), RE(END), R(DONE) },        { R(RUNNING), RE(DETACH), R(READY) },
    { R(RUNNING), RE(END), R(ORPHAN) },     { R(ORPHAN), RE(DETACH), R(DONE) },
};

#define W(x) RUNNER_W_##x
#define WE(x) RUNNER_WE_##x
static const struct row worker_rows[] = {
    { W(IDLE), WE(ASSIGN), W(BUSY) },       { W(IDLE), WE(BREAK), W(STOPPING) },
    { W(IDLE), WE(REAP), W(DEAD) },         { W(BUSY), WE(DONE), W(IDLE) },
    { W(BUSY), WE(BREAK), W(STOPPING) },    { W(BUSY), WE(REAP), W(DEAD) },
    { W(STOPPING), WE(REAP), W(DEAD) },
};

#define T(x) CGP_TS_##x
#define TE(x) CGP_TE_##x
static const struct row slot_rows[] = {
    { T(EMPTY), TE(FILL), T(RUNNER) },       { T(EMPTY), TE(CLEAR), T(EMPTY) },
    { T(IDLE), TE(CLAIM_CHILD), T(CHILD) },  { T(IDLE), TE(CLAIM_RUNNER), T(RUNNER) },
    { T(IDLE), TE(REAP), T(DEAD) },          { T(CHILD), TE(RELEASE), T(IDLE) },
    { T(CHILD), TE(HAND_BACK), T(RETURNED) }, { T(CHILD), TE(TAKE_BACK), T(RUNNER) },
    { T(CHILD), TE(REAP), T(DEAD) },         { T(RUNNER), TE(PUBLISH), T(IDLE) },
    { T(RUNNER), TE(REAP), T(DEAD) },        { T(RETURNED), TE(TAKE_BACK), T(RUNNER) },
    { T(RETURNED), TE(REAP), T(DEAD) },      { T(DEAD), TE(FILL), T(RUNNER) },
    { T(DEAD), TE(CLEAR), T(EMPTY) },        { T(CHILD), TE(OFFER), T(OFFERED) },
    { T(RUNNER), TE(OFFER), T(OFFERED) },    { T(OFFERED), TE(ACCEPT), T(CHILD) },
    { T(OFFERED), TE(TAKE_BACK), T(RUNNER) }, { T(OFFERED), TE(REAP), T(DEAD) },
};

#define TW(x) CGP_TW_##x
#define TWE(x) CGP_TWE_##x
static const struct row wait_rows[] = {
    { TW(FREE), TWE(TAKE), TW(WAITING) },    { TW(WAITING), TWE(CANCEL), TW(FREE) },
    { TW(WAITING), TWE(HAND), TW(HANDED) },  { TW(WAITING), TWE(RELAY), TW(RELAY) },
    { TW(HANDED), TWE(DONE), TW(FREE) },     { TW(RELAY), TWE(DONE), TW(FREE) },
};

#define WS(x) RUNNER_WS_W_##x
#define WSE(x) RUNNER_WS_WE_##x
static const struct row ws_worker_rows[] = {
    { WS(STARTING), WSE(HELLO), WS(READY) },   { WS(STARTING), WSE(STOP), WS(STOPPING) },
    { WS(STARTING), WSE(REAP), WS(DEAD) },     { WS(READY), WSE(DRAIN), WS(DRAINING) },
    { WS(READY), WSE(STOP), WS(STOPPING) },    { WS(READY), WSE(REAP), WS(DEAD) },
    { WS(DRAINING), WSE(STOP), WS(STOPPING) }, { WS(DRAINING), WSE(REAP), WS(DEAD) },
    { WS(STOPPING), WSE(REAP), WS(DEAD) },
};

static const struct row ws_open_rows[] = {
    { RUNNER_WS_O_PARAMS, RUNNER_WS_OE_QUEUE, RUNNER_WS_O_QUEUED },
    { RUNNER_WS_O_QUEUED, RUNNER_WS_OE_SEND, RUNNER_WS_O_SENT },
};

#define N(a) (unsigned)(sizeof(a) / sizeof(a[0]))

int main(void)
{
    cgp_tslot s;

    check("request", runner_rnext, RUNNER_R_N_, RUNNER_RE_N_, req_rows, N(req_rows));
    check("worker", runner_wnext, RUNNER_W_N_, RUNNER_WE_N_, worker_rows, N(worker_rows));
    check("WebSocket worker", runner_ws_wnext, RUNNER_WS_W_N_, RUNNER_WS_WE_N_, ws_worker_rows,
          N(ws_worker_rows));
    check("WebSocket upgrade", runner_ws_onext, RUNNER_WS_O_N_, RUNNER_WS_OE_N_, ws_open_rows,
          N(ws_open_rows));
    check("slot", cgp_tnext, 7, CGP_TE_N_, slot_rows, N(slot_rows));
    check("waiter entry", cgp_twnext, 4, CGP_TWE_N_, wait_rows, N(wait_rows));

    /* The slot's step: a CAS from the exact word, FILL alone bumps the
     * generation (1 after the mask, never 0), a stale view changes nothing. */
    memset(&s, 0, sizeof(s));
    atomic_store(&s.word, cgp_tword(CGP_TS_EMPTY, 0, 0));
    ok(cgp_tslot_step(&s, CGP_TS_EMPTY, 0, 0, CGP_TE_FILL, 0) &&
       atomic_load(&s.word) == cgp_tword(CGP_TS_RUNNER, 1, 0), "FILL: RUNNER, generation 1");
    ok(cgp_tslot_step(&s, CGP_TS_RUNNER, 1, 0, CGP_TE_PUBLISH, 0) &&
       atomic_load(&s.word) == cgp_tword(CGP_TS_IDLE, 1, 0), "PUBLISH keeps the generation");
    ok(!cgp_tslot_step(&s, CGP_TS_IDLE, 2, 0, CGP_TE_CLAIM_CHILD, 42), "a stale generation fails");
    ok(cgp_tslot_step(&s, CGP_TS_IDLE, 1, 0, CGP_TE_CLAIM_CHILD, 42) &&
       atomic_load(&s.word) == cgp_tword(CGP_TS_CHILD, 1, 42), "CLAIM_CHILD: the holder's pid");
    ok(!cgp_tslot_step(&s, CGP_TS_CHILD, 1, 43, CGP_TE_RELEASE, 0), "another holder's release fails");
    ok(!cgp_tslot_step(&s, CGP_TS_CHILD, 1, 42, CGP_TE_PUBLISH, 0) &&
       atomic_load(&s.word) == cgp_tword(CGP_TS_CHILD, 1, 42), "a refused event changes nothing");
    ok(cgp_tslot_step(&s, CGP_TS_CHILD, 1, 42, CGP_TE_REAP, 0) &&
       atomic_load(&s.word) == cgp_tword(CGP_TS_DEAD, 1, 0), "REAP from a holder: DEAD, same generation");
    ok(cgp_tslot_step(&s, CGP_TS_DEAD, 1, 0, CGP_TE_FILL, 0) &&
       cgp_tword_gen(atomic_load(&s.word)) == 2, "FILL again: generation 2");
    atomic_store(&s.word, cgp_tword(CGP_TS_DEAD, CGP_TGEN_MASK, 0));
    ok(cgp_tslot_step(&s, CGP_TS_DEAD, CGP_TGEN_MASK, 0, CGP_TE_FILL, 0) &&
       cgp_tword_gen(atomic_load(&s.word)) == 1, "FILL past the mask: generation 1");
    ok(cgp_tslot_step(&s, CGP_TS_RUNNER, 1, 0, CGP_TE_REAP, 0) &&
       cgp_tslot_step(&s, CGP_TS_DEAD, 1, 0, CGP_TE_CLEAR, 0) &&
       atomic_load(&s.word) == cgp_tword(CGP_TS_EMPTY, 1, 0), "CLEAR: EMPTY, generation kept");
    tscripts();
    return tap_done();
}
