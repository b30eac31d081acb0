/* fuzz_conf.c: libFuzzer target for the settings parsers: the runner's
 * configuration file (runner_conf_read in runner/runner_conf.c: sections,
 * keys, numbers with units, durations, users, environment entries, suEXEC's
 * settings), one BEGIN pool key (runner_set_parse: "name=value",
 * unterminated), its value as BEGIN's suexec (runner_suexec_parse), the
 * input split on newlines as BEGIN's arg entries (runner_arg_parse), and
 * every row of the shared table (cgp_setting_parse in common/cgp_settings.c,
 * which the module's directives read too). The file
 * is the operator's, but it names users to run as, so a malformed one must
 * be refused cleanly: either parsed (every pool an absolute path) or
 * refused with a reason. A value the table reads is in its row's range, and
 * what the module writes for it (cgp_setting_format) reads back as the same
 * value. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_settings.h"
#include "../../runner/runner_conf.h"
#include "../../runner/runner_suexec.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* Every row's reading of the input as a value. */
static void table_rows(const char *s, size_t n)
{
    for (int id = 0; id < CGP_S_N_; id++) {
        const cgp_setting *d = &cgp_settings[id];
        int64_t v = -99, back = -99;
        char t[24];
        int rc = cgp_setting_parse((cgp_setting_id)id, s, n, &v);

        CHECK(rc == 0 || rc == CGP_SE_SYNTAX || rc == CGP_SE_LOW || rc == CGP_SE_HIGH);
        if (rc)
            continue;
        CHECK(v >= 0);
        if (d->type == CGP_ST_COUNT || d->type == CGP_ST_SIZE || d->type == CGP_ST_DURATION)
            CHECK(v <= d->max && (v >= d->min || (v == 0 && (d->flags & CGP_SF_NONE))));
        cgp_setting_format((cgp_setting_id)id, v, t);
        CHECK(memchr(t, '\0', sizeof t) && t[0]);
        CHECK(cgp_setting_parse((cgp_setting_id)id, t, strlen(t), &back) == 0 && back == v);
    }
}

/* One BEGIN entry, name=value, as the runner reads it (unterminated). */
static void begin_key(const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n), *why = NULL;
    runner_set_over o;
    int rc;

    if (!eq)
        return;
    memset(&o, 0, sizeof(o));
    rc = runner_set_parse(&o, s, (size_t)(eq - s), eq + 1, n - (size_t)(eq - s) - 1, &why);
    CHECK(rc == 0 || rc == 1 || (rc == -1 && why && *why));
    CHECK(rc != 0 || o.have || o.have_env);
    runner_set_over_free(&o);
    /* the value as BEGIN's suexec: a uid and gid httpd could name, or refused */
    memset(&o, 0, sizeof(o));
    why = NULL;
    rc = runner_suexec_parse(&o, eq + 1, n - (size_t)(eq - s) - 1, &why);
    CHECK(rc == 0 || (rc == -1 && why && *why));
    CHECK(rc != 0 || ((o.s.suexec == RUNNER_SUEXEC_VHOST || o.s.suexec == RUNNER_SUEXEC_USERDIR) &&
                      (o.suexec_user >> 32) <= INT_MAX && (o.suexec_user & 0xffffffffu) <= INT_MAX));
}

/* Each line as one more arg entry: what is kept is exactly the accepted
 * entries, in order, within the caps. */
static void begin_args(const char *s, size_t n)
{
    runner_set_over o;
    size_t at = 0, kept = 0, bytes = 0, count = 0;

    memset(&o, 0, sizeof(o));
    while (at <= n) {
        const char *nl = memchr(s + at, '\n', n - at), *why = NULL;
        size_t len = nl ? (size_t)(nl - (s + at)) : n - at;
        int rc = runner_arg_parse(&o, s + at, len, &why);

        CHECK(rc == 0 || (rc == -1 && why && *why));
        if (rc == 0) {
            CHECK(o.s.args_len == bytes + len + 1 && !memcmp(o.s.args + bytes, s + at, len));
            bytes += len + 1;
            kept++;
        }
        count++;
        at += len + 1;
    }
    for (size_t i = 0; i < o.s.args_len; i++)
        kept -= o.s.args[i] == '\0';
    CHECK(kept == 0 && o.s.args_len == bytes && count >= 1);
    runner_set_over_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    runner_conf c;
    char err[256];
    FILE *f;
    int rc;

    if (n == 0)
        return 0;
    table_rows((const char *)d, n);
    begin_key((const char *)d, n);
    begin_args((const char *)d, n);
    f = fmemopen((void *)d, n, "r");
    CHECK(f);
    err[0] = '\0';
    rc = runner_conf_read(f, &c, err, sizeof err);
    fclose(f);
    CHECK(rc == 0 || rc == -1);
    if (rc < 0) {
        CHECK(err[0] && memchr(err, '\0', sizeof err));
        return 0; /* freed by runner_conf_read */
    }
    CHECK(c.v[CGP_S_BACKOFF_MAX] >= c.v[CGP_S_BACKOFF_BASE] && c.nallow <= 64);
    /* suexec_*: a document root outside any home, a userdir inside one */
    const char *docroot = c.s[CGP_S_SUEXEC_DOCROOT], *userdir = c.s[CGP_S_SUEXEC_USERDIR];
    CHECK(!docroot || (docroot[0] == '/' && !strstr(docroot, "..")));
    CHECK(!userdir || (userdir[0] != '/' && !strstr(userdir, "..")));
    CHECK(c.v[CGP_S_SUEXEC_UID_MIN] >= 100 && c.v[CGP_S_SUEXEC_GID_MIN] >= 100);
    for (unsigned i = 0; i < c.npools; i++)
        CHECK(c.pools[i].script && c.pools[i].script[0] == '/');
    runner_conf_free(&c);
    return 0;
}
