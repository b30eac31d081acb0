/* cgiplus_resp.h: the request from its first output on (cgiplus_response.c):
 * the actions of the state machine's rows from HEAD to the final states
 * (docs/DESIGN.md, "A request's states"; cgiplus_handler.c wires them). */
#ifndef CGIPLUS_RESP_H
#define CGIPLUS_RESP_H

#include "cgiplus_req.h"

/* WAIT -output-> HEAD: the script's header, parsed; what follows it. */
unsigned cgiplus_resp_act_parse(cgiplus_req *q, unsigned ev);
/* -> STREAM: the body to the client as it comes. */
unsigned cgiplus_resp_act_pass(cgiplus_req *q, unsigned ev);
/* HEAD -header-head-> HOLD: a HEAD response waits for its length. */
unsigned cgiplus_resp_act_hold(cgiplus_req *q, unsigned ev);
/* HEAD -divert-> DRAIN: the rest of the output is dropped. */
unsigned cgiplus_resp_act_drop(cgiplus_req *q, unsigned ev);
/* The final actions: DONE by what replaced the body, DONE by the end of
 * the body, FAILED by what END says, FAILED by the module's own status,
 * FAILED (or DRAIN) with the worker given up, CUT, GONE. */
unsigned cgiplus_resp_act_replace(cgiplus_req *q, unsigned ev);
unsigned cgiplus_resp_act_eos(cgiplus_req *q, unsigned ev);
unsigned cgiplus_resp_act_end_status(cgiplus_req *q, unsigned ev);
unsigned cgiplus_resp_act_answer(cgiplus_req *q, unsigned ev);
unsigned cgiplus_resp_act_abandon(cgiplus_req *q, unsigned ev);
unsigned cgiplus_resp_act_cut(cgiplus_req *q, unsigned ev);
unsigned cgiplus_resp_act_abort(cgiplus_req *q, unsigned ev);

#endif
