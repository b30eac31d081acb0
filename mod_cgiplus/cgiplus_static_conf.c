/* cgiplus_static_conf.c: the directives of the static fast path
 * (CGIplusStatic, CGIplusOffloadRoot, CGIplusStaticCache*), their checks and
 * defaults. Every value is checked when it is read; a bad one stops httpd
 * with a sentence that says why. The README's directive table lists
 * them. */
#include "cgiplus_static_private.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_lib.h"
#include "apr_strings.h"


APLOG_USE_MODULE(cgiplus);

static struct cgiplus_static_sconf *sconf_create(apr_pool_t *p)
{
    struct cgiplus_static_sconf *c = apr_pcalloc(p, sizeof(*c));

    c->mounts = apr_array_make(p, 2, sizeof(cgiplus_static_mount *));
    c->offload = apr_array_make(p, 1, sizeof(cgiplus_static_mount *));
    c->cache_entries = CGP_UNSET;
    c->cache_bytes = CGP_UNSET;
    c->max_mem_file = CGP_UNSET;
    c->revalidate_ms = CGP_UNSET;
    c->evict_lru = CGP_UNSET;
    return c;
}

/* The settings of server s, made on first use by a directive. */
static struct cgiplus_static_sconf *sconf_of(cmd_parms *cmd)
{
    cgiplus_server_conf *sc = ap_get_module_config(cmd->server->module_config,
                                                   &cgiplus_module);

    if (!sc->static_sc)
        sc->static_sc = sconf_create(cmd->pool);
    return sc->static_sc;
}

struct cgiplus_static_sconf *cgiplus_static_sconf_get(server_rec *s)
{
    cgiplus_server_conf *sc = ap_get_module_config(s->module_config,
                                                   &cgiplus_module);

    return sc ? sc->static_sc : NULL;
}

struct cgiplus_static_sconf *cgiplus_static_merge_sconf(
    apr_pool_t *p, const struct cgiplus_static_sconf *base,
    const struct cgiplus_static_sconf *add)
{
    struct cgiplus_static_sconf *c;

    if (!add || !base)
        return (struct cgiplus_static_sconf *)(add ? add : base);
    c = sconf_create(p);
    /* The vhost's own mounts first: on equal prefixes they win. */
    c->mounts = apr_array_append(p, add->mounts, base->mounts);
    c->offload = apr_array_append(p, add->offload, base->offload);
    c->cache_entries = add->cache_entries != CGP_UNSET ? add->cache_entries : base->cache_entries;
    c->cache_bytes = add->cache_bytes != CGP_UNSET ? add->cache_bytes : base->cache_bytes;
    c->max_mem_file = add->max_mem_file != CGP_UNSET ? add->max_mem_file : base->max_mem_file;
    c->revalidate_ms = add->revalidate_ms != CGP_UNSET ? add->revalidate_ms : base->revalidate_ms;
    c->evict_lru = add->evict_lru != CGP_UNSET ? add->evict_lru : base->evict_lru;
    return c;
}

void cgiplus_static_conf_limits(server_rec *main_s, cgiplus_static_limits *out)
{
    const struct cgiplus_static_sconf *c = cgiplus_static_sconf_get(main_s);

    out->entries = c && c->cache_entries != CGP_UNSET ? c->cache_entries
                                              : CGIPLUS_STATIC_DEF_ENTRIES;
    out->bytes = c && c->cache_bytes != CGP_UNSET ? c->cache_bytes
                                          : CGIPLUS_STATIC_DEF_BYTES;
    out->max_mem_file = c && c->max_mem_file != CGP_UNSET ? c->max_mem_file
                                                   : CGIPLUS_STATIC_DEF_MAX_MEM;
    out->revalidate = apr_time_from_msec(c && c->revalidate_ms != CGP_UNSET
                                         ? c->revalidate_ms
                                         : CGIPLUS_STATIC_DEF_REVALIDATE);
    out->lru = c && c->evict_lru > 0;
}

/* A whole number from lo to hi; NULL, or why not. */
static const char *parse_long(cmd_parms *cmd, const char *arg, long lo, long hi,
                              long *out)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(arg, &end, 10);
    if (!apr_isdigit(*arg) || *end || errno || n < lo || n > hi)
        return apr_psprintf(cmd->pool, "%s takes a whole number from %ld to %ld, "
                            "not '%s'", cmd->cmd->name, lo, hi, arg);
    *out = n;
    return NULL;
}

/* A size in bytes with an optional K, M or G (binary) suffix, at most hi. */
static const char *parse_size(cmd_parms *cmd, const char *arg, apr_off_t hi,
                              apr_off_t *out)
{
    char *end;
    apr_off_t n, unit = 1;

    errno = 0;
    n = (apr_off_t)strtoll(arg, &end, 10);
    if (apr_isdigit(*arg) && !errno && end[0] && !end[1]) {
        switch (apr_toupper(*end)) {
        case 'K': unit = 1024; end++; break;
        case 'M': unit = 1024 * 1024; end++; break;
        case 'G': unit = 1024 * 1024 * 1024; end++; break;
        default: break;
        }
    }
    if (!apr_isdigit(*arg) || *end || errno || n < 0 || n > hi / unit)
        return apr_psprintf(cmd->pool, "%s takes a size in bytes, optionally "
                            "with K, M or G, from 0 to %" APR_OFF_T_FMT
                            " bytes, not '%s'", cmd->cmd->name, hi, arg);
    *out = n * unit;
    return NULL;
}

/* An existing directory, ServerRoot-relative, without trailing '/'. */
static const char *conf_dir(cmd_parms *cmd, const char *arg, const char **dir,
                            const char **real)
{
    const char *d;
    char *rp, *t;
    apr_finfo_t fi;
    apr_status_t rv;

    if (!*arg)
        return apr_psprintf(cmd->pool, "%s needs a directory, not an empty "
                            "string", cmd->cmd->name);
    if (!(d = ap_server_root_relative(cmd->pool, arg)))
        return apr_psprintf(cmd->pool, "%s: '%s' is not a valid path",
                            cmd->cmd->name, arg);
    t = apr_pstrdup(cmd->pool, d);
    while (strlen(t) > 1 && t[strlen(t) - 1] == '/')
        t[strlen(t) - 1] = '\0';
    if (!strcmp(t, "/"))
        return apr_psprintf(cmd->pool, "%s: serving the whole file system "
                            "('/') is refused; name the directory to serve",
                            cmd->cmd->name);
    rv = apr_stat(&fi, t, APR_FINFO_TYPE, cmd->temp_pool);
    if (rv != APR_SUCCESS || fi.filetype != APR_DIR)
        return apr_psprintf(cmd->pool, "%s: '%s' is not an existing directory",
                            cmd->cmd->name, t);
    if (!(rp = realpath(t, NULL)))
        return apr_psprintf(cmd->pool, "%s: cannot resolve '%s': %s",
                            cmd->cmd->name, t, strerror(errno));
    *real = apr_pstrdup(cmd->pool, rp);
    free(rp);
    *dir = t;
    return NULL;
}

static cgiplus_static_mount *mount_create(apr_pool_t *p)
{
    cgiplus_static_mount *m = apr_pcalloc(p, sizeof(*m));

    m->index = apr_array_make(p, 1, sizeof(const char *));
    m->precompressed = 1;
    m->root_fd = -1;
    return m;
}

/* One name=value option of a CGIplusStatic line. */
static const char *mount_option(cmd_parms *cmd, cgiplus_static_mount *m,
                                const char *opt)
{
    const char *eq = strchr(opt, '=');
    const char *val;
    char *name;

    if (!eq)
        return apr_psprintf(cmd->pool, "CGIplusStatic: '%s' is not an option; "
                            "options are name=value: phase=, index=, symlinks=, "
                            "dotfiles=, precompressed=", opt);
    name = apr_pstrmemdup(cmd->temp_pool, opt, (apr_size_t)(eq - opt));
    val = eq + 1;
    if (!strcasecmp(name, "phase")) {
        if (!strcasecmp(val, "quick"))
            m->handler_phase = 0;
        else if (!strcasecmp(val, "handler"))
            m->handler_phase = 1;
        else
            return apr_psprintf(cmd->pool, "CGIplusStatic: phase= takes 'quick' "
                                "(before access control: public files only) or "
                                "'handler' (after access control), not '%s'", val);
    }
    else if (!strcasecmp(name, "index")) {
        char *list = apr_pstrdup(cmd->pool, val), *tok, *state;

        apr_array_clear(m->index);
        m->index_set = 1;
        if (!strcasecmp(val, "none"))
            return NULL;
        for (tok = apr_strtok(list, ",", &state); tok;
             tok = apr_strtok(NULL, ",", &state)) {
            if (strchr(tok, '/') || tok[0] == '.')
                return apr_psprintf(cmd->pool, "CGIplusStatic: index= takes file "
                                    "names without '/' that do not start with "
                                    "'.', not '%s'", tok);
            APR_ARRAY_PUSH(m->index, const char *) = tok;
        }
        if (m->index->nelts == 0)
            return "CGIplusStatic: index= needs at least one file name, or 'none'";
    }
    else if (!strcasecmp(name, "symlinks")) {
        if (!strcasecmp(val, "inside"))
            m->symlinks = CGIPLUS_SYMLINKS_INSIDE;
        else if (!strcasecmp(val, "any"))
            m->symlinks = CGIPLUS_SYMLINKS_ANY;
        else if (!strcasecmp(val, "none"))
            m->symlinks = CGIPLUS_SYMLINKS_NONE;
        else
            return apr_psprintf(cmd->pool, "CGIplusStatic: symlinks= takes 'inside' "
                                "(links that stay in the directory), 'any' or "
                                "'none', not '%s'", val);
    }
    else if (!strcasecmp(name, "dotfiles")) {
        if (!strcasecmp(val, "deny"))
            m->dotfiles = 0;
        else if (!strcasecmp(val, "allow"))
            m->dotfiles = 1;
        else
            return apr_psprintf(cmd->pool, "CGIplusStatic: dotfiles= takes 'deny' "
                                "or 'allow', not '%s'", val);
    }
    else if (!strcasecmp(name, "precompressed")) {
        if (!strcasecmp(val, "on"))
            m->precompressed = 1;
        else if (!strcasecmp(val, "off"))
            m->precompressed = 0;
        else
            return apr_psprintf(cmd->pool, "CGIplusStatic: precompressed= takes "
                                "'on' or 'off', not '%s'", val);
    }
    else {
        return apr_psprintf(cmd->pool, "CGIplusStatic: unknown option '%s'; "
                            "options are phase=, index=, symlinks=, dotfiles=, "
                            "precompressed=", name);
    }
    return NULL;
}

/* CGIplusStatic URL-prefix directory [options] */
const char *cgiplus_static_set_mount(cmd_parms *cmd, void *dummy, const char *args)
{
    struct cgiplus_static_sconf *c;
    cgiplus_static_mount *m;
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_CONTEXT);
    char *prefix, *dirarg, *opt, *norm;
    const char *seen = ""; /* " name " of each option given */
    int i;

    if (err)
        return err;
    prefix = ap_getword_conf(cmd->pool, &args);
    dirarg = ap_getword_conf(cmd->temp_pool, &args);
    if (!*prefix || !*dirarg)
        return "CGIplusStatic takes a URL prefix and a directory, then options";
    if (prefix[0] != '/' || strchr(prefix, '%') || strchr(prefix, '?') ||
        strchr(prefix, '#'))
        return apr_psprintf(cmd->pool, "CGIplusStatic: the URL prefix must start "
                            "with '/' and have no '%%', '?' or '#', not '%s'",
                            prefix);
    norm = apr_pstrdup(cmd->temp_pool, prefix);
    if (!ap_normalize_path(norm, AP_NORMALIZE_NOT_ABOVE_ROOT |
                                 AP_NORMALIZE_MERGE_SLASHES) || strcmp(norm, prefix))
        return apr_psprintf(cmd->pool, "CGIplusStatic: the URL prefix '%s' is not "
                            "in normal form (no '//', '.' or '..' segments)", prefix);

    m = mount_create(cmd->pool);
    while (strlen(prefix) > 0 && prefix[strlen(prefix) - 1] == '/')
        prefix[strlen(prefix) - 1] = '\0';
    m->prefix = prefix;
    m->prefix_len = strlen(prefix);
    if ((err = conf_dir(cmd, dirarg, &m->dir, &m->dir_real)))
        return err;
    APR_ARRAY_PUSH(m->index, const char *) = "index.html";
    while (*(opt = ap_getword_conf(cmd->temp_pool, &args))) {
        const char *eq = strchr(opt, '=');

        /* an option twice is a typo, not "the last wins" */
        if (eq && eq > opt) {
            char *key = apr_pstrcat(cmd->temp_pool, " ",
                                    apr_pstrmemdup(cmd->temp_pool, opt, (apr_size_t)(eq - opt)),
                                    " ", NULL);
            ap_str_tolower(key);
            if (ap_strstr_c(seen, key))
                return apr_psprintf(cmd->pool, "CGIplusStatic: the option %.*s= is given "
                                    "twice", (int)(eq - opt), opt);
            seen = apr_pstrcat(cmd->temp_pool, seen, key, NULL);
        }
        if ((err = mount_option(cmd, m, opt)))
            return err;
    }

    c = sconf_of(cmd);
    for (i = 0; i < c->mounts->nelts; i++) {
        if (!strcmp(APR_ARRAY_IDX(c->mounts, i, cgiplus_static_mount *)->prefix,
                    m->prefix))
            return apr_psprintf(cmd->pool, "CGIplusStatic: the URL prefix '%s/' is "
                                "already mapped in this server", m->prefix);
    }
    APR_ARRAY_PUSH(c->mounts, cgiplus_static_mount *) = m;
    return NULL;
}

/* CGIplusOffloadRoot directory... */
const char *cgiplus_static_set_offload_root(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_CONTEXT);
    cgiplus_static_mount *m;

    if (err)
        return err;
    m = mount_create(cmd->pool);
    if ((err = conf_dir(cmd, arg, &m->dir, &m->dir_real)))
        return err;
    m->offload = 1;
    m->server = cmd->server;
    m->dotfiles = 1; /* the script chose the file */
    APR_ARRAY_PUSH(sconf_of(cmd)->offload, cgiplus_static_mount *) = m;
    return NULL;
}

const char *cgiplus_static_set_cache_entries(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    return err ? err : parse_long(cmd, arg, 0, CGIPLUS_STATIC_MAX_ENTRIES,
                                  &sconf_of(cmd)->cache_entries);
}

const char *cgiplus_static_set_cache_bytes(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    return err ? err : parse_size(cmd, arg, (apr_off_t)1 << 40,
                                  &sconf_of(cmd)->cache_bytes);
}

const char *cgiplus_static_set_max_mem_file(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    return err ? err : parse_size(cmd, arg, (apr_off_t)1 << 30,
                                  &sconf_of(cmd)->max_mem_file);
}

const char *cgiplus_static_set_revalidate(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    return err ? err : parse_long(cmd, arg, 0, CGIPLUS_STATIC_MAX_REVALIDATE,
                                  &sconf_of(cmd)->revalidate_ms);
}

const char *cgiplus_static_set_eviction(cmd_parms *cmd, void *dummy, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err)
        return err;
    if (!strcasecmp(arg, "clock"))
        sconf_of(cmd)->evict_lru = 0;
    else if (!strcasecmp(arg, "lru"))
        sconf_of(cmd)->evict_lru = 1;
    else
        return apr_psprintf(cmd->pool, "CGIplusStaticCacheEviction takes 'clock' "
                            "or 'lru', not '%s'", arg);
    return NULL;
}


int cgiplus_static_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s)
{
    cgiplus_static_limits lim;

    cgiplus_static_conf_limits(s, &lim);
    if (lim.max_mem_file > lim.bytes) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     CGIPLUS_LOGNO(1500) "CGIplusStaticMaxMemFile (%" APR_OFF_T_FMT
                     " bytes) is larger than CGIplusStaticCacheBytes (%"
                     APR_OFF_T_FMT " bytes): a file served from memory must fit "
                     "in the cache; lower the one or raise the other",
                     lim.max_mem_file, lim.bytes);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}
