/* runner_conf.h: the settings of pools and of the runner (runner_conf.c). */
#ifndef RUNNER_CONF_H
#define RUNNER_CONF_H

#include "runner_types.h"

#include <stdio.h>

#define RUNNER_DEFAULT_MAX_WORKERS 4u
#define RUNNER_MAX_WORKERS_CAP  4096u
/* Workers above min_idle stop after 5 min idle (mod_fcgid's FcgidIdleTimeout
 * default): a pool stays warm across ordinary gaps in traffic, and the
 * extra workers of a burst give their memory back within minutes. */
#define RUNNER_DEFAULT_IDLE_MS  300000u
#define RUNNER_ENV_MAX          64u     /* configured environment entries per pool */
#define RUNNER_DEFAULT_PATH     "/usr/local/bin:/usr/bin:/bin" /* every script's, unless env PATH */

typedef enum runner_mode { RUNNER_MODE_CGIPLUS, RUNNER_MODE_CGI } runner_mode;

/* Per-pool settings, in a fixed order (the field table in runner_conf.c
 * follows it). Times in ms and 0 means none (no limit); counts 0 means
 * unlimited unless noted. Every field is part of the pool key. */
enum runner_setting {
    RUNNER_S_MAX_WORKERS,    /* 1..4096 */
    RUNNER_S_MIN_IDLE,       /* idle workers kept warm */
    RUNNER_S_MAX_REQUESTS,   /* requests per worker */
    RUNNER_S_MAX_AGE,        /* ms a worker may live */
    RUNNER_S_IDLE_TIMEOUT,   /* ms idle before it is stopped (CGIplus LIFETIME) */
    RUNNER_S_SPAWN_RATE,     /* starts per second */
    RUNNER_S_QUEUE_DEPTH,    /* requests waiting; 0: none wait */
    RUNNER_S_QUEUE_WAIT,     /* ms a request may wait */
    RUNNER_S_TIMEOUT_OUTPUT, /* ms a request may take */
    RUNNER_S_TIMEOUT_NOPROGRESS, /* ms without output */
    RUNNER_S_RLIMIT_CPU,     /* s; 0: not set */
    RUNNER_S_RLIMIT_AS,      /* bytes */
    RUNNER_S_RLIMIT_NOFILE,
    RUNNER_S_RLIMIT_NPROC,
    RUNNER_S_USER,           /* uid << 32 | gid; 0: the runner's default user */
    RUNNER_S_N_
};

/* Resolved settings of one pool; env is owned (NUL-separated "N=v"). */
typedef struct runner_pool_set {
    uint64_t v[RUNNER_S_N_];
    char *env;
    size_t env_len;
} runner_pool_set;

/* Settings named at one level (defaults, a [pool] section, a BEGIN):
 * have bit i says v[i] was given. Owned by whoever holds it. */
typedef struct runner_set_over {
    runner_pool_set s;
    uint32_t have;
    int have_env;
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
    uint64_t max_workers_total;
    uint64_t kill_grace;      /* ms between SIGTERM and SIGKILL */
    uint64_t backoff_base, backoff_max; /* ms, crash-loop backoff */
    uint64_t http_timeout;    /* ms: httpd's Timeout; our timeouts stay below */
    uint64_t callout_timeout; /* ms a forwarded callout waits for its answer */
    uint64_t pool_idle;       /* ms without requests before a pool retires */
    uint64_t slow_request;    /* ms on a worker after which a request counts as slow */
    uint64_t allow[64];       /* uid << 32 | gid scripts may run as */
    unsigned nallow;
    runner_set_over defaults;
    runner_conf_pool *pools;
    unsigned npools;
    /* process settings: read at start only */
    uint64_t spool_max;       /* bytes one request body may hold in the spool file */
    char *socket, *user, *group, *pidfile, *log_level, *key_file, *spool_dir;
    int die_with_parent;
} runner_conf;

int runner_conf_load(const char *path, runner_conf *out, char *err, size_t errlen);
/* The parser alone, on an open file (runner_conf_load checks its owner). */
int runner_conf_read(FILE *f, runner_conf *out, char *err, size_t errlen);
void runner_conf_init(runner_conf *c);
void runner_conf_free(runner_conf *c);
/* Parses one setting into o; -1 with *why on a bad name or value. */
int runner_set_parse(runner_set_over *o, const char *name, size_t nlen, const char *val,
                     size_t vlen, const char **why);
void runner_set_over_free(runner_set_over *o);
/* Built-ins < [defaults] < the script's [pool] section < begin; a section
 * of the same mode sets begin aside (then 1 if begin named any). */
int runner_set_resolve(const char *script, runner_mode mode, const runner_set_over *begin,
                       runner_pool_set *out);
int runner_set_equal(const runner_pool_set *a, const runner_pool_set *b);
void runner_set_free(runner_pool_set *s);
int runner_set_copy(runner_pool_set *dst, const runner_pool_set *src);
const char *runner_set_name(unsigned i);
int runner_set_is_time(unsigned i);
int runner_user_allowed(uint64_t user);

#endif
