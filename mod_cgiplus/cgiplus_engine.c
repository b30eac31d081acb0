/* cgiplus_engine.c: engines (WASD's Run-Time Environments). In a scope with
 * CGIplusEngine, a request's pool runs the engine program, not the script:
 * the pool is keyed by engine, user and settings, and each request names
 * its script in SCRIPT_FILENAME, which the engine compiles once and runs
 * per request (docs/DESIGN.md, "Engines"). */
#include "cgiplus_engine.h"

#include <string.h>

#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_strings.h"
#include "apr_file_io.h"

#include "cgiplus_logno.h"
#include "cgp_shebang.h"

APLOG_USE_MODULE(cgiplus);

#ifndef CGIPLUS_ENGINE_DIR
#define CGIPLUS_ENGINE_DIR "/usr/local/libexec/cgiplus"
#endif
#ifndef CGIPLUS_PHP_CGI
#define CGIPLUS_PHP_CGI "/usr/bin/php-cgi" /* Debian's php-cgi package */
#endif
/* The engines shipped in lib/, by name: where make install puts them; and
 * php-cgi, a FastCGI engine (docs/APPS.md, "PHP"). */
static const struct {
    const char *name, *file, *package;
    int fastcgi;
} engine_builtin[] = {
    { "perl", CGIPLUS_ENGINE_DIR "/cgiplus-engine-perl", "libcgiplus-perl", 0 },
    { "python", CGIPLUS_ENGINE_DIR "/cgiplus-engine-python", "python3-cgiplus", 0 },
    { "php", CGIPLUS_PHP_CGI, "php-cgi", 1 },
};

/* CGIplusEngine perl|python|/path|none: the engine must be an executable
 * file now, so that a typo or a missing package stops httpd at start. */
const char *cgiplus_set_engine(cmd_parms *cmd, void *dcv, const char *arg)
{
    const char *path = NULL, *pkg = NULL;
    const char *err;
    apr_finfo_t fi;
    apr_size_t i;
    int fastcgi = 0;

    if (!strcasecmp(arg, "none")) {
        cgiplus_conf_store(cmd, dcv, CGP_S_ENGINE_FASTCGI, 0, NULL);
        return cgiplus_conf_store(cmd, dcv, CGP_S_ENGINE, 0, NULL);
    }
    for (i = 0; i < sizeof(engine_builtin) / sizeof(engine_builtin[0]); i++)
        if (!strcasecmp(arg, engine_builtin[i].name)) {
            path = engine_builtin[i].file;
            pkg = engine_builtin[i].package;
            fastcgi = engine_builtin[i].fastcgi;
        }
    if (!path) {
        if (arg[0] != '/')
            return apr_psprintf(cmd->pool, "CGIplusEngine takes perl, python, php, the "
                                "absolute path of an engine program, or none; not '%s'",
                                arg);
        path = arg;
    }
    if (apr_stat(&fi, path, APR_FINFO_TYPE | APR_FINFO_PROT, cmd->temp_pool) != APR_SUCCESS ||
        fi.filetype != APR_REG ||
        !(fi.protection & (APR_FPROT_UEXECUTE | APR_FPROT_GEXECUTE | APR_FPROT_WEXECUTE)))
        return apr_psprintf(cmd->pool, "CGIplusEngine %s: '%s' is not an executable "
                            "file%s%s%s", arg, path, pkg ? " (install the package " : "",
                            pkg ? pkg : "", pkg ? ", or name the engine's path)" : "");
    /* both rows, so that a scope inherits neither from another */
    if ((err = cgiplus_conf_store(cmd, dcv, CGP_S_ENGINE_FASTCGI, fastcgi, NULL)))
        return err;
    return cgiplus_conf_store(cmd, dcv, CGP_S_ENGINE, 1, path);
}

const char *cgiplus_engine_path(const cgiplus_dir_conf *dc)
{
    return cgiplus_conf_gets(dc, CGP_S_ENGINE);
}

/* Debian's php-fpm and mod_php run what <FilesMatch ".+\.ph(?:ar|p|tml)$">
 * names: the same files here. */
static int engine_php_file(const char *filename)
{
    static const char *const ext[] = { ".php", ".phtml", ".phar" };
    const char *base = strrchr(filename, '/');
    apr_size_t n, e;

    base = base ? base + 1 : filename;
    n = strlen(base);
    for (apr_size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        e = strlen(ext[i]);
        if (n > e && !strcmp(base + n - e, ext[i]))
            return 1;
    }
    return 0;
}

int cgiplus_engine_fixups(request_rec *r)
{
    const cgiplus_dir_conf *dc;
    const char *path;

    /* a handler named in the configuration (AddHandler, SetHandler) wins */
    if (r->handler || !r->filename)
        return DECLINED;
    dc = ap_get_module_config(r->per_dir_config, &cgiplus_module);
    path = dc ? cgiplus_engine_path(dc) : NULL;
    /* CGIplusEngine php serves its scope's PHP files, as an admin reads it:
     * without this a missing AddHandler sent their source to the client */
    if (path && !strcmp(path, CGIPLUS_PHP_CGI) && engine_php_file(r->filename))
        r->handler = CGIPLUS_HANDLER;
    return DECLINED;
}

int cgiplus_engine_fastcgi(const cgiplus_dir_conf *dc)
{
    return cgiplus_engine_path(dc) && cgiplus_conf_geti(dc, CGP_S_ENGINE_FASTCGI) == 1;
}

/* Debian's php-fpm set-up (php8.2-fpm.conf's SetEnvIfNoCase line) and
 * mod_php give PHP the Authorization header (PHP_AUTH_USER and _PW, bearer
 * tokens): a php pool does too, unless CGIPassAuth Off hides it. */
void cgiplus_engine_php_auth(request_rec *r, const cgiplus_dir_conf *dc)
{
    const core_dir_config *cd = ap_get_core_module_config(r->per_dir_config);
    const char *path = cgiplus_engine_path(dc), *a;

    if (!path || strcmp(path, CGIPLUS_PHP_CGI) || cd->cgi_pass_auth == AP_CGI_PASS_AUTH_OFF)
        return;
    a = apr_table_get(r->headers_in, "Authorization");
    if (a && !apr_table_get(r->subprocess_env, "HTTP_AUTHORIZATION"))
        apr_table_setn(r->subprocess_env, "HTTP_AUTHORIZATION", a);
}

int cgiplus_engine_php(const char *engine, int fcgid)
{
    return !fcgid && engine && !strcmp(engine, CGIPLUS_PHP_CGI);
}

int cgiplus_engine_php_pool(const char *engine, const char *mode, int fcgid)
{
    return cgiplus_engine_php(engine, fcgid) && mode && !strcmp(mode, "fastcgi");
}

int cgiplus_engine_begin(request_rec *r, const cgiplus_dir_conf *dc, int php_pool,
                         const char **names, const char **vals, int max)
{
    /* RSS past which an engine retires itself after its request (0: none) */
    apr_int64_t rss = cgiplus_conf_geti(dc, CGP_S_ENGINE_MAX_RSS);

    if (!cgiplus_engine_path(dc) || max < 1)
        return 0;
    if (cgiplus_engine_fastcgi(dc)) {
        int n = 0;

        /* No max_requests: a php pool is not recycled unless the scope
         * says, as php-fpm (runner_fcgi.c turns php-cgi's own off). */
        /* as php-fpm behind mod_proxy_fcgi: up to Timeout
         * (cgiplus_conf_server_post_config), unless CGIplusQueueWait says */
        if (php_pool && !cgiplus_conf_named(dc, CGP_S_QUEUE_WAIT) && n < max) {
            const cgiplus_server_conf *sc = ap_get_module_config(r->server->module_config,
                                                                  &cgiplus_module);

            if (sc->php_queue_wait) {
                names[n] = cgp_settings[CGP_S_QUEUE_WAIT].key;
                vals[n++] = sc->php_queue_wait;
            }
        }
        return n;
    }
    names[0] = "env";
    vals[0] = apr_psprintf(r->pool, "CGIPLUS_ENGINE_MAX_RSS=%" APR_INT64_T_FMT, rss);
    return 1;
}

/* mod_cgi runs only a file that may be executed; so does an engine, or an
 * upload that lands in a script directory would run. */
int cgiplus_engine_runnable(request_rec *r)
{
    apr_finfo_t fi;
    const apr_finfo_t *f = &r->finfo;

    if (!(f->valid & APR_FINFO_PROT)) {
        if (apr_stat(&fi, r->filename, APR_FINFO_PROT, r->pool) != APR_SUCCESS)
            return 0;
        f = &fi;
    }
    return (f->protection & (APR_FPROT_UEXECUTE | APR_FPROT_GEXECUTE | APR_FPROT_WEXECUTE)) != 0;
}

/* The interpreter a built-in engine is (perl, python), by its program's
 * name (cgiplus-engine-perl, wherever it is installed or built); NULL for
 * php and any other program, which run whatever they are given. */
static const char *engine_language(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;

    for (apr_size_t i = 0; base && i < sizeof(engine_builtin) / sizeof(engine_builtin[0]); i++)
        if (!engine_builtin[i].fastcgi && !strcmp(base, strrchr(engine_builtin[i].file, '/')))
            return engine_builtin[i].name;
    return NULL;
}

/* A /cgi-bin/ holds programs of every kind: a shell wrapper, a Python
 * script, a compiled program beside the Perl ones. The Perl engine would
 * fail to compile them (500); mod_cgi runs them. So a file whose "#!" line
 * names another interpreter, or a compiled program, runs as plain CGI; a
 * file with no "#!" line (a .pl given to a handler) stays the engine's,
 * and so does one httpd cannot read (the engine reports it). */
int cgiplus_engine_runs(request_rec *r, const cgiplus_dir_conf *dc)
{
    const char *lang = engine_language(cgiplus_engine_path(dc));
    char head[CGP_SHEBANG_MAX];
    apr_size_t n = sizeof(head), len;
    apr_file_t *f;
    apr_status_t rv;
    cgp_shebang sb;
    const char *name, *end;

    if (!lang || apr_file_open(&f, r->filename, APR_FOPEN_READ, 0, r->pool) != APR_SUCCESS)
        return 1;
    rv = apr_file_read(f, head, &n);
    apr_file_close(f);
    if (rv != APR_SUCCESS)
        return 1;
    if (n >= 4 && !memcmp(head, "\177ELF", 4))
        goto other;
    cgp_shebang_parse(head, n, &sb);
    if (!sb.interp)
        return 1;
    /* the program's name; under env (#!/usr/bin/env perl), its argument's */
    end = sb.interp + sb.interp_len;
    for (name = end; name > sb.interp && name[-1] != '/'; name--)
        ;
    if ((size_t)(end - name) == 3 && !memcmp(name, "env", 3) && sb.arg) {
        name = sb.arg;
        end = sb.arg + strcspn(sb.arg, " \t");
        if (end > sb.arg + sb.arg_len)
            end = sb.arg + sb.arg_len;
    }
    len = strlen(lang);
    if ((size_t)(end - name) >= len && !memcmp(name, lang, len))
        return 1;
other:
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(1360)
                  "%s is not a %s script (its #! line, or a compiled program): "
                  "run as plain CGI, not on the engine", r->filename, lang);
    return 0;
}

/* As mod_fcgid keys its process classes by virtual host: the vhost's name
 * and port and, for one of its own, the addresses it listens on (IP-based
 * hosts may share a name). */
const char *cgiplus_engine_site(apr_pool_t *p, const server_rec *s)
{
    const char *site = apr_psprintf(p, "%s:%u", s->server_hostname ? s->server_hostname : "",
                                    (unsigned)s->port);
    const server_addr_rec *a;

    for (a = s->is_virtual ? s->addrs : NULL; a; a = a->next)
        site = apr_psprintf(p, "%s %s:%u", site, a->virthost ? a->virthost : "*",
                            (unsigned)a->host_port);
    return site;
}
