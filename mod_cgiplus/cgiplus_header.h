/* cgiplus_header.h: the script's CGI header (cgiplus_header.c), read from
 * q->out through q's kind of worker. */
#ifndef CGIPLUS_HEADER_H
#define CGIPLUS_HEADER_H

#include "cgiplus_req.h"

/* CGIplusMaxHeaderSize (its row's setter in include/cgp_settings.def). */
const char *cgiplus_set_max_header(cmd_parms *cmd, void *dcv, const char *arg);
/* Collects the header block from q->out (reading more as needed; the body
 * stays in q->out, uncopied), checks it line by line and hands it to
 * httpd's scanner. Returns OK, an HTTP status from the scanner (304,
 * 412...), or 502 with *why set (malformed, folded, oversized, premature
 * end); a read that failed is in *io (504 if it timed out). */
int cgiplus_header_scan(cgiplus_req *q, const char **why, apr_status_t *io);
/* An nph- script's output must start with an HTTP status line
 * ("HTTP/d.d ddd"): reads until its first bytes are there (they stay in
 * q->out). OK, or 502 with *why set (a failed read in *io). */
int cgiplus_header_nph(cgiplus_req *q, const char **why, apr_status_t *io);
/* The header bytes collected so far (for the script log); may be NULL. */
const char *cgiplus_header_raw(cgiplus_req *q, apr_size_t *len);

#endif
