/* cgp_parse.h: numbers, sizes and durations as the runner and the module
 * both read them (common/cgp_parse.c). Pure: no httpd or APR headers. */
#ifndef CGP_PARSE_H
#define CGP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The longest duration (ms, about 35 years: no overflow when added to a
 * time) and the largest size (bytes: fits a signed 64-bit offset). */
#define CGP_MS_MAX (INT64_C(1) << 40)
#define CGP_SIZE_MAX (INT64_C(1) << 62)

/* Strict decimal: 1-19 digits, no sign, no space (so no overflow). 0, -1
 * if malformed, -2 if more digits (too big). */
int cgp_parse_u64(const char *s, size_t len, uint64_t *out);
/* A decimal count of bytes, K, M or G (1024 based) allowed; at most
 * CGP_SIZE_MAX. 0, -1 if malformed, -2 if past CGP_SIZE_MAX. */
int cgp_parse_size(const char *s, size_t len, uint64_t *out);
/* "none" | N[.F][ms|s|m|h] (default unit: unit_ms) -> ms; 0 = none. A
 * positive value never rounds down to 0. 0, -1 if malformed, -2 if over
 * CGP_MS_MAX. */
int cgp_parse_duration(const char *s, size_t len, uint64_t unit_ms, uint64_t *ms);
/* "minutes" | "none" | "0" -> -1 none, 0 default, >0 ms; -2 bad. */
int64_t cgp_parse_minutes(const char *p, size_t len);

#endif
