/* runner_record.h: what a script receives for one request: a worker's
 * CGIPLUSIN record, a plain CGI run's environment (runner_record.c) and
 * command line (runner_argv.c). Built from the request's PARAMS list
 * alone, and the pool's settings. */
#ifndef RUNNER_RECORD_H
#define RUNNER_RECORD_H

#include "runner_buf.h"
#include "runner_conf.h"

#define RUNNER_CGI_ARGS_MAX     4094u   /* ISINDEX arguments of a plain CGI run (mod_cgi's cap) */
#define RUNNER_CGI_ARG_BYTES    (64u * 1024u) /* ...and their bytes, escaped, with NULs */

/* The record of one request (params: validated PARAMS kv lists; cl: the
 * exact body length, given as CONTENT_LENGTH unless with_cl is 0) appended
 * to out; -1 with errno. */
int runner_record_build(const runner_buf *params, uint64_t cl, int with_cl, int struct_mode,
                        runner_buf *out);
/* The environment of a plain CGI run (cl_given: the request named a
 * length); NULL-ended, freed with runner_env_free. */
char **runner_record_env(const runner_buf *params, uint64_t cl, int cl_given,
                         const runner_pool_set *set);
void runner_env_free(char **env);
/* argv of a pool's process: path, set's arguments, then for a plain CGI
 * run (params: its PARAMS; NULL: a persistent worker) the ISINDEX words of
 * QUERY_STRING (runner_argv.c); freed with runner_env_free. */
char **runner_argv(const runner_buf *params, const char *path, const runner_pool_set *set);

#endif
