/* runner_fcgi.h: FastCGI applications as pool workers (runner_fcgi.c;
 * docs/PROTOCOL.md, "FastCGI workers"). A third kind of worker beside
 * CGIplus workers and plain CGI runs (runner_kind_fcgi, runner_worker.h):
 * started the way mod_fcgid starts one (a listening UNIX socket as
 * descriptor 0), spoken to over one connection the runner opens and keeps
 * (FCGI_KEEP_CONN), which the direct path hands to httpd children as it
 * hands them a CGIplus worker's pipes. */
#ifndef RUNNER_FCGI_H
#define RUNNER_FCGI_H

#include "runner_types.h"
#include "cgp_fcgi.h"

/* Framed body queued for the socket before more is taken from the spool:
 * the rest waits there, and the module's reads pause past RUNNER_BODY_HIGH. */
#define RUNNER_FCGI_QUEUE_HIGH  (64u * 1024u)

/* FCGI_CHANNEL: the connection of the FastCGI worker in that slot, for a
 * child (runner_client.c's dispatch). */
void runner_fcgi_on_channel(runner_client *c, uint32_t reqid, const unsigned char *pl,
                            size_t len);

/* At start: removes the socket names of FastCGI workers of runners no
 * longer alive (killed, crashed) from the spool directory. */
void runner_fcgi_sweep(void);

#endif
