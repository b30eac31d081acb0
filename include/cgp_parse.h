/* cgp_parse.h: durations as the runner and the module both read them
 * (common/cgp_parse.c). Pure: no httpd or APR headers. */
#ifndef CGP_PARSE_H
#define CGP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "none" | N[.F][ms|s|m|h] (default unit: unit_ms) -> ms; 0 = none. A
 * positive value never rounds down to 0; over about 35 years is refused.
 * 0, or -1 if malformed. */
int cgp_parse_duration(const char *s, size_t len, uint64_t unit_ms, uint64_t *ms);
/* "minutes" | "none" | "0" -> -1 none, 0 default, >0 ms; -2 bad. */
int64_t cgp_parse_minutes(const char *p, size_t len);

#endif
