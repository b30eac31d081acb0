/* cgiplus_runner.h: the runner process as httpd sees it: starting and
 * watching it (cgiplus_runner.c), its connection key (cgiplus_key.c), and
 * the module's version line (cgiplus_version.c). */
#ifndef CGIPLUS_RUNNER_H
#define CGIPLUS_RUNNER_H

#include "cgiplus_module.h"

#include "apr_network_io.h"

#ifndef CGIPLUS_RUNNER_PATH
#define CGIPLUS_RUNNER_PATH "/usr/local/sbin/cgiplus-runner"
#endif

#define CGIPLUS_SOCK_NAME    "cgiplus-runner.sock"
#define CGIPLUS_PID_NAME     "cgiplus-runner.pid"

int cgiplus_runner_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s);
int cgiplus_runner_monitor(apr_pool_t *p, server_rec *s);

/* The socket path the children connect to (set by post_config). */
const char *cgiplus_runner_socket_path(void);
/* Before HELLO: APR_SUCCESS if the process listening on sock may have the
 * connection key (the runner httpd started, or one of root or
 * CGIplusRunnerUser), else logged and APR_EACCES. */
apr_status_t cgiplus_runner_peer_check(request_rec *r, apr_socket_t *sock);
/* check_config: the runner's settings hold together and its binary and
 * socket directory are usable; else logged and HTTP_INTERNAL_SERVER_ERROR. */
int cgiplus_runner_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s);
/* check_config: refuses (logged) a socket whose directory httpd's User
 * could write, or an ancestor of it where it could replace what is below. */
int cgiplus_runner_check_dir(apr_pool_t *p, server_rec *s, const char *sock,
                             const char *directive);

/* The version in the Server banner and the startup line. */
int cgiplus_version_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s);

/* The runner's connection key: made (or read from file, if not NULL) for
 * this generation. */
/* The key file read and checked, the key not kept: at check_config, so
 * that httpd -t (apache2ctl configtest before a graceful restart) refuses
 * a file the restart itself would fail on. */
apr_status_t cgiplus_key_check(apr_pool_t *ptemp, server_rec *s, const char *file);
apr_status_t cgiplus_key_post_config(apr_pool_t *ptemp, server_rec *s, const char *file);
void cgiplus_key_child_init(apr_pool_t *pchild, server_rec *s);
/* CGP_KEY_LEN bytes, NULL before post_config made it. */
const unsigned char *cgiplus_key(void);
/* A pipe holding the key for the runner to inherit: its read end, not
 * close-on-exec (the caller closes it), or -1 with errno set. */
int cgiplus_key_pipe(void);

#endif
