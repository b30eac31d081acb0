/* runner_parse.h: the number and duration syntax shared by the
 * configuration, BEGIN keys, Script-Control and callouts (runner_parse.c). */
#ifndef RUNNER_PARSE_H
#define RUNNER_PARSE_H

#include "runner_types.h"

/* Strict decimal: 1-19 digits, no sign, no space (so no overflow). */
int runner_parse_u64(const char *s, size_t len, uint64_t *out);
/* "none" | N[.F][ms|s|m|h] (default unit: unit_ms) -> ms; 0 = none. */
int runner_parse_duration(const char *s, size_t len, uint64_t unit_ms, uint64_t *ms);
/* Parses "minutes" | "none" | "0" -> -1 none, 0 default, >0 ms; -2 bad. */
int64_t runner_parse_minutes(const char *p, size_t len);

#endif
