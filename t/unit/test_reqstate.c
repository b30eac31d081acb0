/* test_reqstate.c: the request state table (mod_cgiplus/cgiplus_reqstate.c):
 * every row as documented in docs/DESIGN.md, and every other pair refused. */
#include "tap.h"

#include "cgiplus_reqstate.h"

#define S(x) CGIPLUS_RS_##x
#define E(x) CGIPLUS_RE_##x
#define A(x) CGIPLUS_RA_##x

static const struct row {
    unsigned st, ev, act, next;
} rows[] = {
    { S(NEW), E(START), A(READ_BODY), S(BODY) },
    { S(NEW), E(ERROR), A(ANSWER), S(FAILED) },
    { S(BODY), E(BODY_READ), A(CLAIM), S(CLAIM) },
    { S(BODY), E(ERROR), A(ANSWER), S(FAILED) },
    { S(CLAIM), E(CLAIMED), A(WRITE), S(WAIT) },
    { S(CLAIM), E(NO_IDLE), A(RELAY), S(SEND) },
    { S(CLAIM), E(ERROR), A(ANSWER), S(FAILED) },
    { S(CLAIM), E(CLIENT_GONE), A(ABORT), S(GONE) },
    { S(SEND), E(SENT), A(WAIT), S(WAIT) },
    { S(SEND), E(RETRY), A(RESEND), S(SEND) },
    { S(SEND), E(LOST), A(ABANDON), S(FAILED) },
    { S(SEND), E(ERROR), A(ANSWER), S(FAILED) },
    { S(WAIT), E(GRANTED), A(WRITE), S(WAIT) },
    { S(WAIT), E(OUTPUT), A(PARSE), S(HEAD) },
    { S(WAIT), E(SENTINEL), A(END_STATUS), S(FAILED) },
    { S(WAIT), E(EOF), A(END_STATUS), S(FAILED) },
    { S(WAIT), E(TIMEOUT), A(END_STATUS), S(FAILED) },
    { S(WAIT), E(REFUSED), A(END_STATUS), S(FAILED) },
    { S(WAIT), E(LOST), A(ABANDON), S(FAILED) },
    { S(WAIT), E(RETRY), A(RESEND), S(SEND) },
    { S(WAIT), E(CLIENT_GONE), A(ABORT), S(GONE) },
    { S(WAIT), E(ACCEPTED), A(UPGRADE), S(UPGRADED) },
    { S(HEAD), E(HEADER), A(PASS), S(STREAM) },
    { S(HEAD), E(HEADER_HEAD), A(HOLD), S(HOLD) },
    { S(HEAD), E(DIVERT), A(DROP), S(DRAIN) },
    { S(HEAD), E(BAD_HEADER), A(ANSWER), S(FAILED) },
    { S(HEAD), E(EOF), A(END_STATUS), S(FAILED) },
    { S(HEAD), E(TIMEOUT), A(END_STATUS), S(FAILED) },
    { S(HEAD), E(REFUSED), A(END_STATUS), S(FAILED) },
    { S(HEAD), E(LOST), A(ABANDON), S(FAILED) },
    { S(HOLD), E(HOLD_OVER), A(PASS), S(STREAM) },
    { S(HOLD), E(SENTINEL), A(PASS), S(STREAM) },
    { S(HOLD), E(EOF), A(END_STATUS), S(FAILED) },
    { S(HOLD), E(TIMEOUT), A(END_STATUS), S(FAILED) },
    { S(HOLD), E(REFUSED), A(END_STATUS), S(FAILED) },
    { S(HOLD), E(LOST), A(ABANDON), S(FAILED) },
    { S(STREAM), E(SENTINEL), A(EOS), S(DONE) },
    { S(STREAM), E(EOF), A(CUT), S(CUT) },
    { S(STREAM), E(TIMEOUT), A(CUT), S(CUT) },
    { S(STREAM), E(REFUSED), A(CUT), S(CUT) },
    { S(STREAM), E(LOST), A(CUT), S(CUT) },
    { S(STREAM), E(CLIENT_GONE), A(ABORT), S(GONE) },
    { S(DRAIN), E(LOST), A(ABANDON), S(DRAIN) },
    { S(DRAIN), E(FINISH), A(REPLACE), S(DONE) },
    { S(DRAIN), E(ERROR), A(ANSWER), S(FAILED) },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

int main(void)
{
    unsigned st, ev, i, refused = 0, wrong = 0, reach[CGIPLUS_RS_N_] = { 0 };

    for (i = 0; i < NROWS; i++) {
        cgiplus_rnext n = cgiplus_req_next(rows[i].st, rows[i].ev);

        ok(n.action == rows[i].act && n.next == rows[i].next, "%s x %s -> %s, %s",
           cgiplus_rstate_name(rows[i].st), cgiplus_revent_name(rows[i].ev),
           cgiplus_raction_name(rows[i].act), cgiplus_rstate_name(rows[i].next));
        reach[rows[i].next] = 1;
    }
    /* Every pair not listed is refused, and a refusal keeps the state. */
    for (st = 0; st < CGIPLUS_RS_N_; st++) {
        for (ev = 0; ev < CGIPLUS_RE_N_; ev++) {
            cgiplus_rnext n = cgiplus_req_next(st, ev);
            int listed = 0;

            for (i = 0; i < NROWS; i++)
                listed |= rows[i].st == st && rows[i].ev == ev;
            if (listed)
                continue;
            refused++;
            if (n.action != CGIPLUS_RA_INVALID || n.next != st) {
                wrong++;
                printf("# %s x %s is not refused\n", cgiplus_rstate_name(st),
                       cgiplus_revent_name(ev));
            }
        }
    }
    is_int(refused, CGIPLUS_RS_N_ * CGIPLUS_RE_N_ - NROWS, "all other pairs checked");
    is_int(wrong, 0, "every pair not in the table is refused, the state kept");
    /* Out of range: refused, never read past the table. */
    ok(cgiplus_req_next(CGIPLUS_RS_N_, 0).action == CGIPLUS_RA_INVALID, "state out of range");
    ok(cgiplus_req_next(0, CGIPLUS_RE_N_).action == CGIPLUS_RA_INVALID, "event out of range");
    ok(cgiplus_req_next(~0u, ~0u).action == CGIPLUS_RA_INVALID, "both out of range");
    /* Final states take no event; every state but NEW is reached. */
    for (st = 0; st < CGIPLUS_RS_N_; st++) {
        unsigned any = 0;

        for (ev = 0; ev < CGIPLUS_RE_N_; ev++)
            any |= cgiplus_req_next(st, ev).action != CGIPLUS_RA_INVALID;
        if (cgiplus_rstate_final(st))
            ok(!any, "final state %s takes no event", cgiplus_rstate_name(st));
        else
            ok(any, "state %s has a way out", cgiplus_rstate_name(st));
        if (st != CGIPLUS_RS_NEW)
            ok(reach[st], "state %s is reached", cgiplus_rstate_name(st));
    }
    is_int(cgiplus_rstate_final(CGIPLUS_RS_DONE) + cgiplus_rstate_final(CGIPLUS_RS_FAILED) +
           cgiplus_rstate_final(CGIPLUS_RS_CUT) + cgiplus_rstate_final(CGIPLUS_RS_GONE) +
           cgiplus_rstate_final(CGIPLUS_RS_UPGRADED), 5,
           "DONE, FAILED, CUT, GONE, UPGRADED are final");
    ok(!strcmp(cgiplus_rstate_name(CGIPLUS_RS_N_), "?") &&
       !strcmp(cgiplus_revent_name(CGIPLUS_RE_N_), "?") &&
       !strcmp(cgiplus_raction_name(CGIPLUS_RA_N_), "?"), "names out of range are ?");
    for (ev = 0; ev < CGIPLUS_RE_N_; ev++)
        ok(strcmp(cgiplus_revent_name(ev), "?") != 0, "event %u has a name", ev);
    return tap_done();
}
