/* cgp_settings.h: the one table of settings, shared by the module and the
 * runner (common/cgp_settings.c). Pure: no httpd or APR headers.
 *
 * Every setting is one row of include/cgp_settings.def: its key in the
 * runner's configuration file and in BEGIN, its httpd directive, its type,
 * range, default and scope. From the rows come the ids below (CGP_S_*),
 * the runner's parser of cgiplus-runner.conf and of BEGIN's pool keys, the
 * module's directives (command_rec entries, parsing, refusals, merging,
 * getters with defaults) and the module's writer of cgiplus-runner.conf.
 *
 * To add a setting: add one row to cgp_settings.def (in the part of its
 * scope), a line to README's directive table (t/unit/docs_check.pl checks
 * it) and, if the runner reads it, to docs/RUNNER.md. The module then reads
 * it with cgiplus_conf_geti()/cgiplus_conf_gets() (per directory) or
 * cgiplus_conf_sgeti()/cgiplus_conf_sgets() (runner-wide), the runner with
 * runner_g.conf.v[CGP_S_...] or a pool's set.v[CGP_S_...]. A new type or
 * syntax goes in cgp_setting_parse() and cgp_setting_format(). */
#ifndef CGP_SETTINGS_H
#define CGP_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "cgp_parse.h" /* CGP_MS_MAX, CGP_SIZE_MAX */

/* Every script's PATH unless its pool's env sets one (Debian's default
 * for users): the runner gives it to workers; the module to a FastCGI
 * application's requests, whose variables replace its environment. */
#define CGP_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* What a scope did not name: the module's one "unset" value, every type. */
#define CGP_UNSET INT64_C(-1)

typedef enum cgp_stype {
    CGP_ST_COUNT,    /* decimal whole number */
    CGP_ST_SIZE,     /* bytes: a count, K, M or G allowed (1024 based) */
    CGP_ST_DURATION, /* ms: N[.F] seconds or with ms, s, m, h; "none" is 0 */
    CGP_ST_FLAG,     /* 0 or 1: httpd's On|Off, the file's yes|no */
    CGP_ST_ENUM,     /* an index into the row's names */
    CGP_ST_STRING,   /* text, as written */
    CGP_ST_PATH,     /* a file or directory (httpd: under ServerRoot) */
    CGP_ST_USER,     /* who scripts run as (syntax of each side: see the row) */
    CGP_ST_ENV       /* NAME=value, repeated */
} cgp_stype;

typedef enum cgp_sscope {
    CGP_SC_POOL,   /* a pool's: BEGIN key, [defaults]/[pool], a directive per directory */
    CGP_SC_RUNNER, /* runner-wide: the file's global part, a main-server directive */
    CGP_SC_DIR,    /* httpd's alone, per directory */
    CGP_SC_SERVER  /* httpd's alone, main server */
} cgp_sscope;

#define CGP_SF_NONE 1u /* the word "none" (any case) is accepted and means 0,
                        * below the row's min (a count's "0" is still refused) */
#define CGP_SF_LIST 2u /* a list: an inner section's entries follow the outer's */

/* One name of an enum setting, and what it means (httpd's refusal says it). */
typedef struct cgp_enum {
    const char *name, *what;
} cgp_enum;

/* A row of the table; static, lives for the process. */
typedef struct cgp_setting {
    const char *key;        /* in cgiplus-runner.conf and BEGIN; NULL: httpd's alone */
    const char *directive;  /* httpd's directive; NULL: none */
    unsigned char type;     /* cgp_stype */
    unsigned char scope;    /* cgp_sscope */
    unsigned char flags;    /* CGP_SF_* */
    int64_t min, max;       /* numbers: the range; enums: max is the last name a
                             * directive or the runner's file takes */
    int64_t dflt;           /* numbers: the built-in default (CGP_UNSET: none) */
    const char *most;       /* sizes: the maximum as httpd's refusal says it; NULL: bytes */
    const cgp_enum *names;  /* enums: the names, NULL-ended; index = value */
} cgp_setting;

/* The ids: first the settings a runner's pool holds as numbers
 * (runner_pool_set.v, BEGIN keys), CGP_S_POOL_N_ of them, then every other
 * row (numbered on from CGP_S_POOL_N_). */
#define CGP_SETTING(id, ...) CGP_S_##id,
#define CGP_SETTINGS_POOL_END CGP_S_POOL_N_, CGP_S_POOL_NEXT_ = CGP_S_POOL_N_ - 1,
typedef enum cgp_setting_id {
#include "cgp_settings.def"
    CGP_S_N_
} cgp_setting_id;
#undef CGP_SETTING
#undef CGP_SETTINGS_POOL_END

/* A WebSocket pool's settings: the last pool rows, from this one on (the
 * module sends them for an upgrade only). */
#define CGP_S_WS_FIRST_ CGP_S_WS_MAX_MESSAGE

extern const cgp_setting cgp_settings[CGP_S_N_];
/* BEGIN's modes, one list: CGIplusMode's names (up to the MODE row's max),
 * then those only BEGIN names (websocket: an upgrade, CGIplusWebSocket).
 * runner_mode and the module's mode follow them. */
extern const cgp_enum cgp_mode_names[];
enum { CGP_MODE_CGIPLUS, CGP_MODE_CGI, CGP_MODE_FASTCGI, CGP_MODE_WEBSOCKET };
/* Any mode BEGIN may name: its index in cgp_mode_names, or -1. */
int cgp_mode_find(const char *s, size_t len);
/* CGIplusWebSocketOverflow's names, indexed by these. */
extern const cgp_enum cgp_ws_overflow_names[];
enum { CGP_WS_OV_1008, CGP_WS_OV_1011, CGP_WS_OV_DROP };

/* CGIplusFastCGIConnection's names, indexed by these. */
extern const cgp_enum cgp_fcgi_conn_names[];
enum { CGP_FCGI_CONN_KEEP, CGP_FCGI_CONN_PER_REQUEST };

/* The id of the row of this scope with this key, or -1. */
int cgp_setting_find(const char *key, size_t len, cgp_sscope scope);

/* cgp_setting_parse: 0 and *out; or why not. */
#define CGP_SE_SYNTAX (-1) /* not the row's syntax */
#define CGP_SE_LOW    (-2) /* below its minimum ("none" where it takes none) */
#define CGP_SE_HIGH   (-3) /* above its maximum */
/* Reads a value of a number row (count, size, duration, flag, enum). */
int cgp_setting_parse(cgp_setting_id id, const char *s, size_t len, int64_t *out);
/* Writes a number row's value as the file and BEGIN read it (NUL-ended,
 * always fits 24 bytes); "" for a value the row cannot have. */
void cgp_setting_format(cgp_setting_id id, int64_t v, char buf[24]);
/* A size the way people write it: "16M", "1T", or bytes ("1500"). */
void cgp_size_text(int64_t v, char buf[24]);

#endif
