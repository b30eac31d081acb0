/* cgiplus_relay.h: the relay, the kind of worker every request can fall
 * back to (cgiplus_relay*.c): the request goes to the runner over one of
 * this child's connections (BEGIN, PARAMS, STDIN frames), the runner hands
 * it to a worker and relays its output (STDOUT, STDERR, END frames). */
#ifndef CGIPLUS_RELAY_H
#define CGIPLUS_RELAY_H

#include "cgiplus_xport.h"

extern const cgiplus_xport cgiplus_relay_xport;

struct cgiplus_req;

/* For an exchange built on the relay (q->on_frame, q->own_conn): reads the
 * payload of the frame on_frame was given (len bytes, all of it); and
 * takes the connection over once the runner is done with the request: a
 * close-on-exec duplicate of its socket (the relay forgets it), or -1 with
 * errno set. */
apr_status_t cgiplus_relay_payload(struct cgiplus_req *q, void *buf, apr_size_t len);
int cgiplus_relay_take(struct cgiplus_req *q);

#endif
