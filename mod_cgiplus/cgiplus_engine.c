/* cgiplus_engine.c: engines (WASD's Run-Time Environments). In a scope with
 * CGIplusEngine, a request's pool runs the engine program, not the script:
 * the pool is keyed by engine, user and settings, and each request names
 * its script in SCRIPT_FILENAME, which the engine compiles once and runs
 * per request (docs/DESIGN.md, "Engines"). */
#include "cgiplus_engine.h"

#include <stdlib.h>
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

int cgiplus_engine_builtin(const char *engine)
{
    return engine_language(engine) != NULL;
}

/* The #! line's switches an engine applies to one script's run: Perl's -w
 * (-T and -t too: the engine runs such a script without taint checks, as
 * docs/APPS.md says, and logs it once), Python's -u, -O, -W and -E; -q and
 * -R change nothing in a program python3 runs. Any other (Perl's -l, -0,
 * -n, -p, -s, -C, -I, -M, Python's -B, -I, -P, -S, -X ...) makes the
 * interpreter another for the whole file, which a persistent one cannot
 * be: the script runs as plain CGI, where the kernel applies its #! line.
 * Returns the first switch not applied, or NULL. The kernel gives the
 * line's rest as one argument: perl reads its words (a CR, a file saved
 * with Windows line ends, is a blank to it), python3 the one. */
static const char *engine_switch_other(const char *lang, const char *s, apr_size_t len)
{
    int perl = !strcmp(lang, "perl");
    apr_size_t i = 0;

    while (i < len) {
        if (s[i] == ' ' || s[i] == '\t' || (perl && s[i] == '\r')) {
            if (!perl)
                return s + i; /* python3: one argument, " -B" in it is no switch */
            i++;
            continue;
        }
        if (s[i] != '-')
            return s + i;     /* a word that is not a switch */
        if (perl && i + 1 < len && s[i + 1] == '-')
            return NULL;      /* "--": the switches end */
        for (i++; i < len && s[i] != ' ' && s[i] != '\t' && !(perl && s[i] == '\r'); i++) {
            if (perl ? !strchr("wTt*-", s[i]) : !strchr("uOEqRW", s[i]))
                return s + i;
            if (!perl && s[i] == 'W')
                return NULL;  /* -W's value is the rest */
        }
    }
    return NULL;
}

/* python3 -E (here the one switch word, applied: its letters before a W) */
static int python_ignores_env(const char *lang, const char *s, const char *end)
{
    if (strcmp(lang, "python") || !s || s == end || *s != '-')
        return 0;
    for (s++; s < end && *s != 'W'; s++)
        if (*s == 'E')
            return 1;
    return 0;
}

/* The variables perl and python3 read once, as they start (PERL5LIB,
 * PERL_HASH_SEED, PYTHONHASHSEED, PYTHONOPTIMIZE, PYTHONSAFEPATH...): the
 * engine started with its own (CGIplusSetEnv's), so a request whose
 * SetEnv or PassEnv gives one another value runs as plain CGI. Python's
 * PYTHONPATH, PYTHONIOENCODING, PYTHONUNBUFFERED and PYTHONWARNINGS the
 * engine applies to the run, and those read later, as they are used, need
 * nothing. Returns the first such variable's name, or NULL. */
static const char *engine_env_other(request_rec *r, const cgiplus_dir_conf *dc, const char *lang)
{
    static const char *const perl_vars[] = {
        "PERL5LIB", "PERLLIB", "PERL5OPT", "PERLIO", "PERLIO_DEBUG", "PERL_HASH_SEED",
        "PERL_PERTURB_KEYS", "PERL_HASH_SEED_DEBUG", "PERL_UNICODE", "PERL_SIGNALS",
        "PERL_DESTRUCT_LEVEL", "PERL_DL_NONLAZY", "PERL_ENCODING", "PERL_USE_UNSAFE_INC",
        "PERL_MEM_LOG", "PERL_RAND_SEED", "PERL_INTERNAL_RAND_SEED", "PERL_BADLANG",
        "PERL_SKIP_LOCALE_INIT", "PERL5DB", NULL
    };
    static const char *const python_later[] = {
        "PYTHONPATH", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "PYTHONWARNINGS",
        "PYTHONBREAKPOINT", "PYTHONASYNCIODEBUG", "PYTHONSTARTUP", "PYTHON_HISTORY",
        "PYTHON_BASIC_REPL", NULL
    };
    const apr_array_header_t *set = dc->v[CGP_S_ENV].n > 0 ? dc->v[CGP_S_ENV].p : NULL;
    const apr_array_header_t *arr = apr_table_elts(r->subprocess_env);
    const apr_table_entry_t *el = (const apr_table_entry_t *)arr->elts;
    int perl = !strcmp(lang, "perl");

    for (int i = 0; i < arr->nelts; i++) {
        const char *name = el[i].key, *val = el[i].val ? el[i].val : "", *own = "";
        apr_size_t nlen;
        int k;

        if (!name || !*val)
            continue;         /* empty: as if unset, for both */
        if (perl) {
            if (strncmp(name, "PERL", 4))
                continue;
            for (k = 0; perl_vars[k] && strcmp(perl_vars[k], name); k++)
                ;
            if (!perl_vars[k])
                continue;
        }
        else {
            if (strncmp(name, "PYTHON", 6))
                continue;
            for (k = 0; python_later[k] && strcmp(python_later[k], name); k++)
                ;
            if (python_later[k])
                continue;
        }
        nlen = strlen(name);
        for (k = 0; set && k < set->nelts; k++) {
            const char *e = APR_ARRAY_IDX(set, k, const char *);
            if (!strncmp(e, name, nlen) && e[nlen] == '=')
                own = e + nlen + 1; /* the last one is the engine's */
        }
        if (strcmp(own, val))
            return name;
    }
    return NULL;
}

/* A name for the log as an editor shows it: control characters in caret
 * notation (a CR is ^M), as cgp_shebang_explain writes them; no backslash,
 * which httpd's log would escape again. */
static const char *engine_caret(apr_pool_t *p, const char *s, apr_size_t len)
{
    char *out = apr_palloc(p, 2 * len + 1), *o = out;

    for (apr_size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c < 0x20 || c == 0x7f) {
            *o++ = '^';
            *o++ = (char)(c ^ 0x40);
        }
        else
            *o++ = (char)c;
    }
    *o = '\0';
    return out;
}

/* The file the kernel runs for a script's #! line, symbolic links
 * followed: the interpreter's path (name, len: as the line has it, a CR at
 * its end included), or under env the first executable file of that name
 * on the PATH the script's plain CGI run gets (the scope's CGIplusSetEnv
 * PATH, else the runner's fixed one). NULL: none, and mod_cgi's exec fails
 * (500). A relative name is not looked for (the engine's, as it was). */
static const char *engine_interp_file(request_rec *r, const cgiplus_dir_conf *dc,
                                      const char *name, apr_size_t len, int env)
{
    const apr_array_header_t *set = dc->v[CGP_S_ENV].n > 0 ? dc->v[CGP_S_ENV].p : NULL;
    const char *want = apr_pstrmemdup(r->pool, name, len), *path = CGP_DEFAULT_PATH, *dir, *file = NULL;
    char *rp, *last;
    apr_finfo_t fi;

    if (memchr(name, '\0', len))
        return NULL;
    if (!env) {
        if (*want != '/')
            return want;
        file = want;
    }
    else {
        for (int i = 0; set && i < set->nelts; i++) {
            const char *e = APR_ARRAY_IDX(set, i, const char *);
            if (!strncmp(e, "PATH=", 5))
                path = e + 5;
        }
        /* as env's execvp: each directory in turn, the first executable
         * file (an empty entry, the working directory, is not looked in) */
        for (dir = apr_strtok(apr_pstrdup(r->pool, path), ":", &last); dir && !file;
             dir = apr_strtok(NULL, ":", &last)) {
            const char *f = apr_pstrcat(r->pool, dir, "/", want, NULL);

            if (apr_stat(&fi, f, APR_FINFO_TYPE | APR_FINFO_PROT, r->pool) == APR_SUCCESS &&
                fi.filetype == APR_REG &&
                (fi.protection & (APR_FPROT_UEXECUTE | APR_FPROT_GEXECUTE | APR_FPROT_WEXECUTE)))
                file = f;
        }
        if (!file)
            return NULL;
    }
    if (!(rp = realpath(file, NULL)))
        return NULL;
    file = apr_pstrdup(r->pool, rp);
    free(rp);
    return file;
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
    const char *name, *end, *sw = NULL, *swend = NULL, *why, *real;

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
    if ((size_t)(end - name) < len || memcmp(name, lang, len))
        goto other;
    /* The program mod_cgi would run must be there, and for Python be a
     * python3 (the engine's): a python2, a python the system lacks
     * (#!/usr/bin/env python without python-is-python3), a name with a
     * CR (Windows line ends) fail under mod_cgi, 500, and ran here. */
    if (!(real = name == sb.arg ? engine_interp_file(r, dc, name, (apr_size_t)(end - name), 1)
                                : engine_interp_file(r, dc, sb.interp, sb.interp_len, 0)) ||
        (!strcmp(lang, "python") && *real == '/' &&
         strncmp(strrchr(real, '/') + 1, "python3", 7))) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(3760)
                      "%s: the interpreter its #! line names, '%s', %s: run as plain CGI, "
                      "as mod_cgi runs it, not on the engine", r->filename,
                      name == sb.arg ? engine_caret(r->pool, name, (apr_size_t)(end - name))
                                     : engine_caret(r->pool, sb.interp, sb.interp_len),
                      real ? apr_psprintf(r->pool, "is %s, not python3", ap_escape_logitem(r->pool, real))
                           : name == sb.arg ? "is not on the scope's PATH" : "does not exist");
        return 0;
    }
    /* Its switches, the line's rest. Under env, words after the name are
     * part of the name the kernel gives env (no such program: mod_cgi's
     * 500), never switches. */
    if (sb.arg) {
        sw = name == sb.arg ? end : sb.arg;
        swend = sb.arg + sb.arg_len;
    }
    if (sw && (why = name == sb.arg && sw < swend ? sw
                     : engine_switch_other(lang, sw, (apr_size_t)(swend - sw))) != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(3700)
                      "%s: its #! line's '%s' is not all the %s engine's to apply "
                      "(from '%s'): run as plain CGI, not on the engine", r->filename,
                      ap_escape_logitem(r->pool, apr_pstrmemdup(r->pool, sw, (apr_size_t)(swend - sw))),
                      lang, ap_escape_logitem(r->pool, apr_pstrmemdup(r->pool, why, (apr_size_t)(swend - why))));
        return 0;
    }
    if (!python_ignores_env(lang, sw, swend) &&
        (why = engine_env_other(r, dc, lang)) != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, CGIPLUS_LOGNO(3701)
                      "%s: the request's %s, which %s reads as it starts, is not the "
                      "engine's: run as plain CGI, not on the engine", r->filename, why, lang);
        return 0;
    }
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
