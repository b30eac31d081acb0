/* test_settings.c: the settings table (include/cgp_settings.def) and its
 * parser (common/cgp_settings.c): rows that fit together, every value the
 * writer of cgiplus-runner.conf and BEGIN writes read back as itself, and
 * the syntax both sides read. */
#include "tap.h"

#include "cgp_settings.h"
#include "cgp_wsr.h"

#include <string.h>

/* The rows again, with what the data table leaves out: the directive's form. */
#define CGP_SETTING(id, key, directive, type, scope, min, max, dflt, flags, form, set, most, \
                    names, help)                                                          \
    { CGP_S_##id, #id, directive, #form, help },
static const struct {
    int id;
    const char *name, *directive, *form, *help;
} rows[] = {
#include "cgp_settings.def"
};
#undef CGP_SETTING

static int parse(int id, const char *s, long long *out)
{
    int64_t v = -99;
    int rc = cgp_setting_parse((cgp_setting_id)id, s, strlen(s), &v);
    *out = (long long)v;
    return rc;
}

/* Parses s as row id; the result, or the error code (negative). */
static long long value(int id, const char *s)
{
    long long v;
    int rc = parse(id, s, &v);
    return rc ? rc : v;
}

static int is_number(const cgp_setting *d)
{
    return d->type == CGP_ST_COUNT || d->type == CGP_ST_SIZE || d->type == CGP_ST_DURATION ||
           d->type == CGP_ST_FLAG || d->type == CGP_ST_ENUM;
}

static void rows_fit(void)
{
    int bad = 0, nrows = (int)(sizeof(rows) / sizeof(rows[0]));

    is_int(nrows, CGP_S_N_, "one row per id");
    ok(CGP_S_POOL_N_ <= 32, "a pool's settings fit the runner's 32-bit have mask");
    for (int i = 0; i < nrows; i++) {
        const cgp_setting *d = &cgp_settings[rows[i].id];
        int entries = 0;

        if (rows[i].id != i)
            bad++, printf("# %s: out of order\n", rows[i].name);
        if ((d->scope == CGP_SC_POOL || d->scope == CGP_SC_RUNNER) != !!d->key)
            bad++, printf("# %s: a pool or runner-wide row has a key, the others none\n",
                          rows[i].name);
        if (d->key && cgp_setting_find(d->key, strlen(d->key), d->scope) != i)
            bad++, printf("# %s: its key is found as another row\n", rows[i].name);
        if (i < CGP_S_POOL_N_ && (d->scope != CGP_SC_POOL || !is_number(d)) &&
            d->type != CGP_ST_USER)
            bad++, printf("# %s: the runner's pool set holds numbers of pools\n",
                          rows[i].name);
        if (is_number(d) && d->dflt != CGP_UNSET && (d->dflt < 0 || d->dflt > d->max ||
                                                     (d->dflt && d->dflt < d->min)))
            bad++, printf("# %s: its default is outside its range\n", rows[i].name);
        if ((d->type == CGP_ST_ENUM) != !!d->names)
            bad++, printf("# %s: names are an enum's\n", rows[i].name);
        if (d->type == CGP_ST_ENUM) { /* max: the last name a directive takes */
            int64_t n = 0;
            while (d->names[n].name)
                n++;
            if (d->min != 0 || d->max < 0 || d->max >= n)
                bad++, printf("# %s: its max is not one of its names\n", rows[i].name);
        }
        if (i >= CGP_S_WS_FIRST_ && i < CGP_S_POOL_N_ && strncmp(d->key, "ws_", 3))
            bad++, printf("# %s: the pool rows from CGP_S_WS_FIRST_ on are a WebSocket "
                          "pool's (ws_)\n", rows[i].name);
        /* each directive has exactly one entry, with its help */
        for (int j = 0; j < nrows; j++)
            if (d->directive && rows[j].directive && !strcmp(d->directive, rows[j].directive) &&
                strcmp(rows[j].form, "NONE"))
                entries++;
        if (d->directive && (entries != 1 || (strcmp(rows[i].form, "NONE") && !rows[i].help)))
            bad++, printf("# %s: %d entries for %s\n", rows[i].name, entries, d->directive);
        if (!d->directive && strcmp(rows[i].form, "NONE"))
            bad++, printf("# %s: an entry without a directive\n", rows[i].name);
    }
    is_int(bad, 0, "the rows fit together");
}

/* What the module writes (format) the runner reads as the same value. */
static void round_trip(void)
{
    int bad = 0, n = 0;

    for (int i = 0; i < CGP_S_N_; i++) {
        const cgp_setting *d = &cgp_settings[i];
        int64_t vals[] = { d->min, d->max, d->dflt, d->min + 1, d->max - 1 };

        if (!is_number(d) || d->type == CGP_ST_ENUM || d->type == CGP_ST_FLAG)
            continue;
        for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
            char t[24];
            long long back;
            int64_t v = vals[k];

            if (v < 0 || v > d->max || (v < d->min && !(v == 0 && (d->flags & CGP_SF_NONE))))
                continue;
            cgp_setting_format((cgp_setting_id)i, v, t);
            n++;
            if (parse(i, t, &back) || back != v)
                bad++, printf("# %s: %lld written as '%s' reads %lld\n", d->key ? d->key
                              : d->directive, (long long)v, t, back);
        }
    }
    ok(n > 100, "%d values written", n);
    is_int(bad, 0, "every value written reads back as itself");
    for (int i = 0; cgp_mode_names[i].name; i++) {
        char t[24];
        long long back;
        cgp_setting_format(CGP_S_MODE, i, t);
        if (i <= cgp_settings[CGP_S_MODE].max)
            ok(!parse(CGP_S_MODE, t, &back) && back == i, "mode %s reads back", t);
        else /* BEGIN's alone: no directive or [pool] section names it */
            ok(parse(CGP_S_MODE, t, &back) == CGP_SE_SYNTAX, "mode %s is BEGIN's alone", t);
        is_int(cgp_mode_find(t, strlen(t)), i, "BEGIN's mode %s", t);
    }
}

static void syntax(void)
{
    /* counts: strict decimal in range */
    is_int(value(CGP_S_MAX_WORKERS, "4096"), 4096, "count: the most");
    is_int(value(CGP_S_MAX_WORKERS, "4097"), CGP_SE_HIGH, "count: past the most");
    is_int(value(CGP_S_MAX_WORKERS, "0"), CGP_SE_LOW, "count: below the least");
    is_int(value(CGP_S_MAX_WORKERS, "007"), 7, "count: leading zeros");
    is_int(value(CGP_S_MAX_WORKERS, "+7"), CGP_SE_SYNTAX, "count: no sign");
    is_int(value(CGP_S_MAX_WORKERS, " 7"), CGP_SE_SYNTAX, "count: no space");
    is_int(value(CGP_S_MAX_WORKERS, ""), CGP_SE_SYNTAX, "count: not empty");
    is_int(value(CGP_S_MAX_WORKERS, "7K"), CGP_SE_SYNTAX, "count: no unit");
    is_int(value(CGP_S_MAX_REQUESTS, "4294967295"), 4294967295LL, "count: 2^32 - 1");
    is_int(value(CGP_S_MAX_REQUESTS, "99999999999999999999"), CGP_SE_HIGH,
           "count: 20 digits are past the most, not a typo");
    /* sizes */
    is_int(value(CGP_S_RLIMIT_AS, "1K"), 1024, "size: K");
    is_int(value(CGP_S_RLIMIT_AS, "16m"), 16 << 20, "size: m");
    is_int(value(CGP_S_RLIMIT_AS, "2G"), 2LL << 30, "size: G");
    is_int(value(CGP_S_RLIMIT_AS, "1KB"), CGP_SE_SYNTAX, "size: KB");
    is_int(value(CGP_S_RLIMIT_AS, "K"), CGP_SE_SYNTAX, "size: a unit alone");
    is_int(value(CGP_S_RLIMIT_AS, "4294967296G"), 1LL << 62, "size: 2^62");
    is_int(value(CGP_S_RLIMIT_AS, "4294967297G"), CGP_SE_HIGH, "size: past 2^62");
    is_int(value(CGP_S_SPOOL_MAX, "99999999999999999999"), CGP_SE_HIGH, "size: 20 digits");
    is_int(value(CGP_S_BODY_BUFFER, "16M"), 16 << 20, "size: the most");
    is_int(value(CGP_S_BODY_BUFFER, "17M"), CGP_SE_HIGH, "size: past the most");
    is_int(value(CGP_S_ENGINE_MAX_RSS, "none"), 0, "size: none where it may be");
    is_int(value(CGP_S_ENGINE_MAX_RSS, "NONE"), 0, "size: none, any case");
    is_int(value(CGP_S_ENGINE_MAX_RSS, "0"), CGP_SE_LOW, "size: 0 is not none");
    is_int(value(CGP_S_SPOOL_MAX, "none"), CGP_SE_SYNTAX, "size: no none elsewhere");
    is_int(value(CGP_S_QUEUE_MEMORY, "1023K"), CGP_SE_LOW, "size: below the least");
    /* durations */
    is_int(value(CGP_S_MAX_AGE, "1.5"), 1500, "duration: seconds by default");
    is_int(value(CGP_S_MAX_AGE, "1500ms"), 1500, "duration: ms");
    is_int(value(CGP_S_MAX_AGE, "1.5m"), 90000, "duration: m");
    is_int(value(CGP_S_MAX_AGE, "2H"), 7200000, "duration: H");
    is_int(value(CGP_S_MAX_AGE, "none"), 0, "duration: none");
    is_int(value(CGP_S_MAX_AGE, "0"), 0, "duration: 0 is none");
    is_int(value(CGP_S_MAX_AGE, "0.0001"), 1, "duration: never rounds down to none");
    is_int(value(CGP_S_MAX_AGE, ".5"), CGP_SE_SYNTAX, "duration: a whole part");
    is_int(value(CGP_S_MAX_AGE, "5d"), CGP_SE_SYNTAX, "duration: no days");
    is_int(value(CGP_S_MAX_AGE, "999999999999s"), CGP_SE_HIGH, "duration: past 2^40 ms");
    is_int(value(CGP_S_MAX_AGE, "9999999999999"), CGP_SE_HIGH, "duration: 13 digits, too long");
    is_int(value(CGP_S_MAX_AGE, "9999999999999x"), CGP_SE_SYNTAX, "duration: and a bad unit");
    is_int(value(CGP_S_MAX_AGE, "0000000000000005"), 5000, "duration: leading zeros");
    is_int(value(CGP_S_KILL_GRACE, "none"), CGP_SE_LOW, "duration: no none where it may not");
    is_int(value(CGP_S_HTTP_TIMEOUT, "999ms"), CGP_SE_LOW, "duration: below the least");
    /* flags and enums */
    is_int(value(CGP_S_DIE_WITH_PARENT, "yes"), 1, "flag: yes");
    is_int(value(CGP_S_DIE_WITH_PARENT, "No"), 0, "flag: No");
    is_int(value(CGP_S_DIE_WITH_PARENT, "on"), CGP_SE_SYNTAX, "flag: not on");
    is_int(value(CGP_S_MODE, "cgi"), 1, "enum: cgi");
    is_int(value(CGP_S_MODE, "CGIplus"), 0, "enum: any case");
    is_int(value(CGP_S_MODE, "cgiplu"), CGP_SE_SYNTAX, "enum: a whole name");
    is_int(value(CGP_S_MODE, "websocket"), CGP_SE_SYNTAX, "enum: no name past its max");
    is_int(cgp_mode_find("WebSocket", 9), CGP_MODE_WEBSOCKET, "BEGIN's mode: any case");
    is_int(cgp_mode_find("web", 3), -1, "BEGIN's mode: a whole name");
    is_int(value(CGP_S_WS_OVERFLOW, "drop"), CGP_WS_OV_DROP, "enum: drop");
    is_int(value(CGP_S_WS_OVERFLOW, "1009"), CGP_SE_SYNTAX, "enum: not a close code it has");
    /* none where a row takes it: the word only, below the row's min */
    is_int(value(CGP_S_WS_MAX_CONNS, "none"), 0, "count: none where it may be");
    is_int(value(CGP_S_WS_MAX_CONNS, "0"), CGP_SE_LOW, "count: 0 is not none");
    is_int(value(CGP_S_MAX_WORKERS, "none"), CGP_SE_SYNTAX, "count: no none elsewhere");
    is_int(value(CGP_S_WS_PING, "None"), 0, "duration: none under a min");
    is_int(value(CGP_S_WS_PING, "0"), CGP_SE_LOW, "duration: 0 under a min is not none");
    is_int(value(CGP_S_WS_PING, "9ms"), CGP_SE_LOW, "duration: below the least");
    is_int(cgp_settings[CGP_S_WS_MAX_MESSAGE].max, CGP_WSR_MSG_MAX,
           "CGIplusWebSocketMaxMessage's most is the records' (cgp_wsr.h)");
    is_int(value(CGP_S_SPOOL_DIR, "/x"), CGP_SE_SYNTAX, "text rows are each side's");
    is_int(cgp_setting_parse(CGP_S_N_, "1", 1, &(int64_t){ 0 }), CGP_SE_SYNTAX, "no such row");
}

static void lookup_and_text(void)
{
    char t[24];

    is_int(cgp_setting_find("user", 4, CGP_SC_POOL), CGP_S_USER, "user: a pool's");
    is_int(cgp_setting_find("user", 4, CGP_SC_RUNNER), CGP_S_RUN_USER, "user: the runner's");
    is_int(cgp_setting_find("users", 4, CGP_SC_POOL), CGP_S_USER, "a key by its length");
    is_int(cgp_setting_find("mode", 4, CGP_SC_RUNNER), -1, "no runner-wide mode");
    is_int(cgp_setting_find("CGIplusMaxWorkers", 17, CGP_SC_POOL), -1, "directives are no keys");
    cgp_size_text(16 << 20, t);
    ok(!strcmp(t, "16M"), "size text 16M: %s", t);
    cgp_size_text(1LL << 40, t);
    ok(!strcmp(t, "1T"), "size text 1T: %s", t);
    cgp_size_text(1500, t);
    ok(!strcmp(t, "1500"), "size text 1500: %s", t);
    cgp_setting_format(CGP_S_MAX_AGE, 0, t);
    ok(!strcmp(t, "none"), "duration 0 is written none");
    cgp_setting_format(CGP_S_ENGINE_MAX_RSS, 0, t);
    ok(!strcmp(t, "none"), "a size that takes none writes 0 as none");
    cgp_setting_format(CGP_S_MAX_AGE, INT64_C(1) << 40, t);
    ok(!strcmp(t, "1099511627.776s"), "the longest duration in seconds: %s", t);
    cgp_setting_format(CGP_S_MAX_AGE, -1, t);
    ok(!strcmp(t, ""), "no value is written for CGP_UNSET");
}

int main(void)
{
    rows_fit();
    round_trip();
    syntax();
    lookup_and_text();
    return tap_done();
}
