/* runner_suexec.h: suEXEC's identity and checks for the scripts httpd runs
 * under SuexecUserGroup or UserDir (runner_suexec.c; docs/cgi-compat.md,
 * "suEXEC and per-user scripts"). */
#ifndef RUNNER_SUEXEC_H
#define RUNNER_SUEXEC_H

#include "runner_types.h"

/* What a pool's suexec field says: whose rules its user came under. */
enum runner_suexec_kind { RUNNER_SUEXEC_NONE, RUNNER_SUEXEC_VHOST, RUNNER_SUEXEC_USERDIR };

struct runner_set_over;
struct runner_pool_set;
/* BEGIN's "suexec" value, "UID:GID" (SuexecUserGroup) or "~UID:GID"
 * (UserDir), into o; -1 with *why when malformed. In runner_conf.c, with
 * the other BEGIN keys' parsers (t/fuzz/fuzz_conf). */
int runner_suexec_parse(struct runner_set_over *o, const char *v, size_t vl, const char **why);

/* The pool a start is for, of either kind (a request pool, a WebSocket
 * pool): the caller's, on its stack for the one call. */
typedef struct runner_suexec_pool {
    const char *script, *dir;
    const struct runner_pool_set *set;
    uint64_t id;
    unsigned *refused;        /* the pool's: the cgp_suexec_why of the last refusal, 0: none */
} runner_suexec_pool;

/* Before each start of a process of a suEXEC pool: suexec's checks on the
 * pool's user and script, in suexec's order, logged as suexec logs them.
 * 0 with the target user's groups (valid until the next call), or -1 with
 * *p->refused set to the cgp_suexec_why and errno EPERM. */
int runner_suexec_check(const runner_suexec_pool *p, const gid_t **groups, size_t *ngroups);

#endif
