/* runner_conf.h: the settings of pools and of the runner (runner_conf.c). */
#ifndef RUNNER_CONF_H
#define RUNNER_CONF_H

#include "runner_types.h"
#include "runner_suexec.h"
#include "cgp_settings.h"

#include <stdio.h>

#define RUNNER_ENV_MAX          64u     /* configured environment entries per pool */
#define RUNNER_ENV_BYTES        4096u   /* ...and the bytes of one */
#define RUNNER_DEFAULT_PATH     CGP_DEFAULT_PATH /* every script's, unless env PATH */

/* How a pool's scripts run: persistent CGIplus workers, one plain CGI
 * process per request, or persistent FastCGI applications (runner_fcgi.c).
 * Indexes cgp_mode_names. A WebSocket upgrade (BEGIN's alone) goes to a
 * WebSocket pool (runner_ws.h), not to a runner_pool. */
typedef enum runner_mode {
    RUNNER_MODE_CGIPLUS = CGP_MODE_CGIPLUS,
    RUNNER_MODE_CGI = CGP_MODE_CGI,
    RUNNER_MODE_FASTCGI = CGP_MODE_FASTCGI,
    RUNNER_MODE_WEBSOCKET = CGP_MODE_WEBSOCKET
} runner_mode;

/* A pool's settings are the table's first rows (include/cgp_settings.def,
 * CGP_S_MAX_WORKERS... CGP_S_USER, CGP_S_POOL_N_ of them). Times in ms and
 * 0 means none (no limit); counts 0 means unlimited unless noted; the user
 * is uid << 32 | gid, 0: the runner's default user. Every one is part of
 * the pool key. */

_Static_assert(CGP_S_POOL_N_ <= 32, "runner_set_over.have has a bit per pool setting");

/* Resolved settings of one pool; env and args are owned (NUL-separated
 * "N=v", and the arguments after argv[0]). */
typedef struct runner_pool_set {
    uint64_t v[CGP_S_POOL_N_];
    char *env;
    size_t env_len;
    char *args;               /* BEGIN's arg entries (a FcgidWrapper command line) */
    size_t args_len;
    unsigned suexec;          /* runner_suexec_kind: v[USER] is suEXEC's target (BEGIN only),
                               * checked before each start (runner_suexec.c) */
} runner_pool_set;

/* Settings named at one level (defaults, a [pool] section, a BEGIN):
 * have bit i says v[i] was given. Owned by whoever holds it. */
typedef struct runner_set_over {
    runner_pool_set s;
    uint32_t have;
    int have_env;
    uint64_t suexec_user;     /* BEGIN's suEXEC identity, uid << 32 | gid (s.suexec: its kind) */
} runner_set_over;

/* A [pool SCRIPT] section of the configuration file. */
typedef struct runner_conf_pool {
    char *script;
    runner_mode mode;
    runner_set_over over;
} runner_conf_pool;

/* Runner-wide settings: built-ins, then the configuration file, then the
 * command line. Replaced as a whole on SIGHUP; lives in runner_g. */
typedef struct runner_conf {
    uint64_t v[CGP_S_N_];     /* runner-wide numbers by row (CGP_S_KILL_GRACE...): the
                               * table's default, or the file's */
    char *s[CGP_S_N_];        /* runner-wide text (CGP_S_SOCKET...), NULL: not given */
    uint64_t allow[64];       /* uid << 32 | gid scripts may run as (allow_user) */
    unsigned nallow;
    runner_set_over defaults;
    runner_conf_pool *pools;
    unsigned npools;
} runner_conf;

int runner_conf_load(const char *path, runner_conf *out, char *err, size_t errlen);
/* The parser alone, on an open file (runner_conf_load checks its owner). */
int runner_conf_read(FILE *f, runner_conf *out, char *err, size_t errlen);
void runner_conf_init(runner_conf *c);
void runner_conf_free(runner_conf *c);
/* Parses one pool setting into o: 0, 1 if name is none, -1 with *why on a
 * bad value. */
int runner_set_parse(runner_set_over *o, const char *name, size_t nlen, const char *val,
                     size_t vlen, const char **why);
void runner_set_over_free(runner_set_over *o);
/* BEGIN's arg: one more argument of the pool's program (after argv[0]),
 * into o; 0, or -1 with *why over the caps. */
int runner_arg_parse(runner_set_over *o, const char *v, size_t vl, const char **why);
struct runner_ctx;
/* Built-ins < [defaults] < the script's [pool] section < begin, with g's
 * settings, command line and user; a section of the same mode sets begin
 * aside (then 1 if begin named any). -1 and EPERM: a user g may not run
 * scripts as. */
int runner_set_resolve(const struct runner_ctx *g, const char *script, runner_mode mode,
                       const runner_set_over *begin, runner_pool_set *out);
/* max_workers when nobody sets it: from the CPUs, http_threads and
 * max_workers_total (include/cgp_defaults.h). */
unsigned runner_default_max_workers(const struct runner_ctx *g);
int runner_set_equal(const runner_pool_set *a, const runner_pool_set *b);
void runner_set_free(runner_pool_set *s);
int runner_set_copy(runner_pool_set *dst, const runner_pool_set *src);
/* A mode: a [pool] section's (CGIplusMode's names), or with begin set
 * BEGIN's (websocket too): 0, or -1 and *why. */
int runner_mode_parse(const char *v, size_t len, int begin, runner_mode *mode, const char **why);

#endif
