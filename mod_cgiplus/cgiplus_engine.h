/* cgiplus_engine.h: engines (CGIplusEngine; cgiplus_engine.c): one
 * persistent interpreter running unmodified scripts. */
#ifndef CGIPLUS_ENGINE_H
#define CGIPLUS_ENGINE_H

#include "cgiplus_conf.h"
#include "cgiplus_module.h"

/* CGIplusEngine (its row's setter in include/cgp_settings.def). */
const char *cgiplus_set_engine(cmd_parms *cmd, void *dcv, const char *arg);
/* The engine program of this scope, NULL: none (scripts run as themselves). */
const char *cgiplus_engine_path(const cgiplus_dir_conf *dc);
/* Fixups: in a CGIplusEngine php scope, a .php, .phtml or .phar file that
 * the configuration gives no handler is the engine's (cgiplus-script). */
int cgiplus_engine_fixups(request_rec *r);
/* Nonzero if it is a FastCGI engine (CGIplusEngine php): its scope's mode is
 * fastcgi unless CGIplusMode says otherwise. */
int cgiplus_engine_fastcgi(const cgiplus_dir_conf *dc);
/* A php pool's request (mode fastcgi) gets HTTP_AUTHORIZATION as under
 * Debian's php-fpm and mod_php, unless CGIPassAuth Off. */
void cgiplus_engine_php_auth(request_rec *r, const cgiplus_dir_conf *dc);
/* Nonzero for a request of the php engine, in either mode (not the
 * fcgid-script drop-in, whose FcgidWrapper may be php-cgi too). */
int cgiplus_engine_php(const char *engine, int fcgid);
/* Nonzero for a request of a php pool: the php engine in mode fastcgi. */
int cgiplus_engine_php_pool(const char *engine, const char *mode, int fcgid);
/* BEGIN entries an engine pool adds (its settings in the workers'
 * environment; a php pool's queue wait, php-fpm's, unless the scope sets
 * one); returns how many, at most max. */
int cgiplus_engine_begin(request_rec *r, const cgiplus_dir_conf *dc, int php_pool,
                         const char **names, const char **vals, int max);
/* Zero if the scope's engine is perl or python and r's script is not of
 * its language (another interpreter on its #! line, a compiled program):
 * it runs as plain CGI instead, as mod_cgi would run it. */
int cgiplus_engine_runs(request_rec *r, const cgiplus_dir_conf *dc);
/* Nonzero if engine is a built-in one (perl, python): its libraries read
 * struct-mode records from the first. */
int cgiplus_engine_builtin(const char *engine);
/* Nonzero if r's script has an execute bit, as plain CGI needs. */
int cgiplus_engine_runnable(request_rec *r);
/* The virtual host s, as its engine pools are keyed: BEGIN's site (made
 * once per server, cgiplus_conf_server_post_config). */
const char *cgiplus_engine_site(apr_pool_t *p, const server_rec *s);

#endif
