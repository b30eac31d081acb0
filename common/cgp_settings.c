/* cgp_settings.c: the settings table (rows in include/cgp_settings.def),
 * and reading and writing its values: one parser for the module's
 * directives, the runner's configuration file and BEGIN's pool keys. */
#include "cgp_settings.h"
#include "cgp_parse.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const cgp_enum cgp_mode_names[] = {
    { "cgiplus", "persistent workers" },
    { "cgi", "one process per request" },
    { "fastcgi", "FastCGI applications as persistent workers" },
    { "websocket", "a WebSocket upgrade to a persistent script" }, /* BEGIN's alone */
    { NULL, NULL },
};

const cgp_enum cgp_ws_overflow_names[] = {
    { "1008", "close: policy" },
    { "1011", "close: server error" },
    { "drop", "drop the message" },
    { NULL, NULL },
};

const cgp_enum cgp_fcgi_conn_names[] = {
    { "keep", "one connection for the worker's life (FCGI_KEEP_CONN)" },
    { "per-request", "a new connection for each request, as mod_fcgid" },
    { NULL, NULL },
};

#define CGP_SETTING(id, key_, directive_, type_, scope_, min_, max_, dflt_, flags_, form, set, \
                    most_, names_, help)                                                     \
    [CGP_S_##id] = { .key = key_, .directive = directive_, .type = CGP_ST_##type_,           \
                     .scope = CGP_SC_##scope_, .flags = flags_, .min = min_, .max = max_,   \
                     .dflt = dflt_, .most = most_, .names = names_ },
const cgp_setting cgp_settings[CGP_S_N_] = {
#include "cgp_settings.def"
};
#undef CGP_SETTING

int cgp_mode_find(const char *s, size_t len)
{
    for (int i = 0; cgp_mode_names[i].name; i++)
        if (strlen(cgp_mode_names[i].name) == len && strncasecmp(cgp_mode_names[i].name, s, len) == 0)
            return i;
    return -1;
}

int cgp_setting_find(const char *key, size_t len, cgp_sscope scope)
{
    for (int i = 0; i < CGP_S_N_; i++) {
        const cgp_setting *d = &cgp_settings[i];
        if (d->key && d->scope == scope && strlen(d->key) == len && memcmp(d->key, key, len) == 0)
            return i;
    }
    return -1;
}

static int is_none(const char *s, size_t len)
{
    return len == 4 && strncasecmp(s, "none", 4) == 0;
}

int cgp_setting_parse(cgp_setting_id id, const char *s, size_t len, int64_t *out)
{
    const cgp_setting *d;
    uint64_t u = 0;
    int64_t v;

    if ((unsigned)id >= CGP_S_N_)
        return CGP_SE_SYNTAX;
    d = &cgp_settings[id];
    if ((d->flags & CGP_SF_NONE) && is_none(s, len)) {
        *out = 0;
        return 0;
    }
    switch (d->type) {
    case CGP_ST_COUNT:
    case CGP_ST_SIZE: {
        int rc = d->type == CGP_ST_COUNT ? cgp_parse_u64(s, len, &u) : cgp_parse_size(s, len, &u);
        if (rc == -2)
            return CGP_SE_HIGH;
        if (rc < 0)
            return CGP_SE_SYNTAX;
        break;
    }
    case CGP_ST_DURATION: {
        int rc = cgp_parse_duration(s, len, 1000, &u);
        if (rc == -2)
            return CGP_SE_HIGH;
        if (rc < 0)
            return CGP_SE_SYNTAX;
        break;
    }
    case CGP_ST_FLAG:
        if (len == 3 && strncasecmp(s, "yes", 3) == 0)
            u = 1;
        else if (!(len == 2 && strncasecmp(s, "no", 2) == 0))
            return CGP_SE_SYNTAX;
        break;
    case CGP_ST_ENUM: /* the names up to the row's max */
        for (u = 0; d->names[u].name && u <= (uint64_t)d->max; u++)
            if (strlen(d->names[u].name) == len && strncasecmp(d->names[u].name, s, len) == 0)
                break;
        if (!d->names[u].name || u > (uint64_t)d->max)
            return CGP_SE_SYNTAX;
        break;
    default:
        return CGP_SE_SYNTAX; /* text: each side keeps its own */
    }
    if (u > (uint64_t)INT64_MAX)
        return CGP_SE_HIGH;
    v = (int64_t)u;
    if (d->type == CGP_ST_ENUM || d->type == CGP_ST_FLAG) {
        *out = v;
        return 0;
    }
    if (v < d->min)
        return CGP_SE_LOW;
    if (v > d->max)
        return CGP_SE_HIGH;
    *out = v;
    return 0;
}

void cgp_setting_format(cgp_setting_id id, int64_t v, char buf[24])
{
    const cgp_setting *d = (unsigned)id < CGP_S_N_ ? &cgp_settings[id] : NULL;

    buf[0] = '\0';
    if (!d || v < 0)
        return;
    switch (d->type) {
    case CGP_ST_COUNT:
    case CGP_ST_SIZE:
        if (v == 0 && (d->flags & CGP_SF_NONE))
            strcpy(buf, "none");
        else
            snprintf(buf, 24, "%lld", (long long)v);
        break;
    case CGP_ST_DURATION:
        /* the parser reads at most 12 digits before the unit */
        if (v == 0)
            strcpy(buf, "none");
        else if (v < INT64_C(1000000000000))
            snprintf(buf, 24, "%lldms", (long long)v);
        else
            snprintf(buf, 24, "%lld.%03llds", (long long)(v / 1000), (long long)(v % 1000));
        break;
    case CGP_ST_FLAG:
        strcpy(buf, v ? "yes" : "no");
        break;
    case CGP_ST_ENUM:
        for (int64_t i = 0; d->names[i].name; i++)
            if (i == v && strlen(d->names[i].name) < 24)
                strcpy(buf, d->names[i].name);
        break;
    default:
        break;
    }
}

void cgp_size_text(int64_t v, char buf[24])
{
    static const char units[] = "KMGT";
    int u = -1;

    while (u < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, 24, "%lld", (long long)v);
    else
        snprintf(buf, 24, "%lld%c", (long long)v, units[u]);
}
