/* cgiplus_callout.h: the script callouts only httpd can answer (MAP-PATH,
 * MAP-FILE, AUTH-FILE, LOG, WATCH; cgiplus_callout.c), for every kind of worker. */
#ifndef CGIPLUS_CALLOUT_H
#define CGIPLUS_CALLOUT_H

#include "cgiplus_module.h"

/* The answer to such a callout line (NUL-ended) of r's script;
 * any other keyword: 501. */
const char *cgiplus_callout_answer(request_rec *r, const char *line);

#endif
