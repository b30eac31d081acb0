/* fuzz_record.c: libFuzzer target for the runner's request records
 * (runner/runner_record.c): the PARAMS key-value list httpd sends (parsed
 * with cgp_kv_next) turned into a worker's CGIPLUSIN record, in line and in
 * struct mode, and into a plain CGI run's environment. Every record built
 * must parse back with libcgiplus's reader (lib/cgp_records.c) into the
 * same variables: the last value of each name (line mode: line ends and
 * NULs as spaces), CONTENT_LENGTH the runner's own. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../runner/runner_record.h"
#include "../../runner/runner_log.h"
#include "cgp_proto.h"
#include "../../lib/cgp_records.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* What the runner builds a record from. */
struct input {
    runner_buf params;
    uint64_t cl;
    int cl_given;
};

struct src {
    const unsigned char *p;
    size_t len, pos;
};

static ssize_t src_read(void *ctx, void *buf, size_t n)
{
    struct src *s = ctx;
    if (n > s->len - s->pos)
        n = s->len - s->pos;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (ssize_t)n;
}

static int name_ok(const char *n, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (n[i] == '=' || n[i] == '\n' || n[i] == '\r' || n[i] == '\0')
            return 0;
    return len > 0;
}

/* The entry of vec named n, or NULL. */
static const char *lookup(char **vec, const char *n, size_t nl)
{
    for (; *vec; vec++)
        if (!strncmp(*vec, n, nl) && (*vec)[nl] == '=')
            return *vec + nl + 1;
    return NULL;
}

/* Parses the record back and compares it with the params. */
static void check_record(const struct input *r, const runner_buf *rec, int struct_mode)
{
    struct src s = { rec->p + rec->off, cgp_buf_used(rec), 0 };
    cgp_rd rd;
    cgp_vars v;
    const char *n, *val;
    size_t nl, vl, off = 0;
    char cl[32];
    int why = 0;

    memset(&rd, 0, sizeof rd);
    rd.fn = src_read;
    rd.ctx = &s;
    memset(&v, 0, sizeof v);
    CHECK(cgp_req_read(&rd, &v, &why) == 1);
    CHECK(s.pos == s.len); /* exactly one request */
    CHECK(cgp_vars_merge(&v, NULL) == 0);
    snprintf(cl, sizeof cl, "%llu", (unsigned long long)r->cl);
    CHECK(lookup(v.vec, "CONTENT_LENGTH", 14) && !strcmp(lookup(v.vec, "CONTENT_LENGTH", 14), cl));
    while (cgp_kv_next(r->params.p, r->params.len, &off, &n, &nl, &val, &vl) == 1) {
        const char *got;
        size_t o2 = off, nl2, vl2;
        const char *n2, *val2;
        int later = 0;

        if (!name_ok(n, nl) || (nl == 14 && !memcmp(n, "CONTENT_LENGTH", 14)))
            continue;
        if (struct_mode && nl + 1 + vl > 0xffff)
            continue; /* too long for struct mode: left out, logged */
        while (cgp_kv_next(r->params.p, r->params.len, &o2, &n2, &nl2, &val2, &vl2) == 1)
            later |= nl2 == nl && !memcmp(n2, n, nl) && (!struct_mode || nl2 + 1 + vl2 <= 0xffff);
        if (later)
            continue; /* the last one wins */
        CHECK((got = lookup(v.vec, n, nl)) != NULL);
        CHECK(strlen(got) == vl);
        for (size_t i = 0; i < vl; i++) {
            unsigned char c = (unsigned char)val[i];
            if (!struct_mode && (c == '\r' || c == '\n'))
                c = ' ';
            if (c == '\0')
                c = ' ';
            CHECK((unsigned char)got[i] == c);
        }
    }
    cgp_vars_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    static const runner_pool_set set; /* no configured environment */
    struct input r;
    runner_buf rec = { 0 };
    char **env;
    int mode;

    if (n < 2)
        return 0;
    memset(&r, 0, sizeof r);
    r.cl = d[0] * 1000003ull;
    r.cl_given = d[1] & 1;
    d += 2;
    n -= 2;
    if (n > CGP_MAX_PARAMS)
        return 0;
    CHECK(cgp_buf_append(&r.params, d, n) == 0 || n == 0);
    for (mode = 0; mode < 2; mode++) {
        rec.off = rec.len = 0;
        if (runner_record_build(&r.params, r.cl, 1, mode, &rec) == 0)
            check_record(&r, &rec, mode);
        else
            CHECK(errno == EINVAL || errno == ENOMEM);
    }
    if ((env = runner_record_env(&r.params, r.cl, r.cl_given, &set)) != NULL) {
        for (char **e = env; *e; e++)
            CHECK(strchr(*e, '=') && **e != '=');
        runner_env_free(env);
    }
    cgp_buf_free(&rec);
    cgp_buf_free(&r.params);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    runner_log_level = RUNNER_LOG_ERROR; /* an over-long variable logs a warning */
    return 0;
}
