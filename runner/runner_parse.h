/* runner_parse.h: the number and duration syntax shared by the
 * configuration, BEGIN keys, Script-Control and callouts (runner_parse.c). */
#ifndef RUNNER_PARSE_H
#define RUNNER_PARSE_H

#include "runner_types.h"
#include "cgp_parse.h"

/* Strict decimal: 1-19 digits, no sign, no space (so no overflow). */
int runner_parse_u64(const char *s, size_t len, uint64_t *out);
/* Durations: cgp_parse_duration, cgp_parse_minutes (common, shared with the
 * module). */

#endif
