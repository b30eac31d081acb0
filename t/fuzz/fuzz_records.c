/* fuzz_records.c: libFuzzer target for libcgiplus's request parser
 * (lib/cgp_records.c): the input is what a runner sends on CGIPLUSIN,
 * handed out in chunks of a size taken from the first byte. Checks that
 * every built environment is well formed. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/cgp_records.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* The fuzz input as a read(2)-like source. */
struct src {
    const uint8_t *p;
    size_t len, pos, chunk;
};

static ssize_t src_read(void *ctx, void *buf, size_t n)
{
    struct src *s = ctx;
    size_t left = s->len - s->pos;

    if (n > left)
        n = left;
    if (n > s->chunk)
        n = s->chunk;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (ssize_t)n;
}

static size_t name_len(const char *e)
{
    const char *eq = strchr(e, '=');
    return eq ? (size_t)(eq - e) : strlen(e);
}

static int same_name(const char *a, const char *b)
{
    size_t la = name_len(a);
    return la == name_len(b) && memcmp(a, b, la) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    static char *base[] = { "PATH=/bin", "CONTENT_LENGTH=base", "Z=z", NULL };
    struct src s;
    cgp_rd rd;
    cgp_vars v;
    cgp_buf line = { 0 };
    size_t sn;
    int why, rc;

    if (n < 1)
        return 0;
    memset(&s, 0, sizeof s);
    s.p = d + 1;
    s.len = n - 1;
    s.chunk = (size_t)d[0] * 37 + 1;
    memset(&rd, 0, sizeof rd);
    rd.fn = src_read;
    rd.ctx = &s;
    memset(&v, 0, sizeof v);

    while ((rc = cgp_req_read(&rd, &v, &why)) == 1) {
        CHECK(cgp_vars_merge(&v, base) == 0);
        size_t cnt = 0;
        for (; v.vec[cnt]; cnt++) {
            const char *e = v.vec[cnt];
            CHECK(cnt >= v.n || (strchr(e, '=') && e[0] != '='));
        }
        CHECK(cnt <= v.n + 3);
        if (cnt <= 512) {
            /* each name once, and a request's last entry of a name wins */
            for (size_t i = 0; i < cnt; i++)
                for (size_t k = 0; k < i; k++)
                    CHECK(!same_name(v.vec[i], v.vec[k]));
            for (size_t i = 0; i < v.n; i++) {
                const char *e = (const char *)v.arena.p + v.off[i];
                size_t k = 0;
                while (v.vec[k] && !same_name(v.vec[k], e))
                    k++;
                CHECK(v.vec[k] && v.vec[k] >= e);
            }
        }
    }
    CHECK(rc == 0 || (rc == -1 && why >= CGP_RQ_SYNC && why <= CGP_RQ_NOMEM));
    cgp_vars_free(&v);

    /* The line reader alone, with a small cap, to the end of the input. */
    memset(&s, 0, sizeof s);
    s.p = d;
    s.len = n;
    s.chunk = 7;
    memset(&rd, 0, sizeof rd);
    rd.fn = src_read;
    rd.ctx = &s;
    for (;;) {
        line.len = 0;
        rc = cgp_rd_line(&rd, &line, 64);
        if (rc == 1) {
            CHECK(line.len <= 64 && !memchr(line.p, '\n', line.len));
            if (cgp_rec_sync((const char *)line.p, line.len, &sn) == 1)
                CHECK(sn >= 2 && sn <= CGP_REC_MAX_BLOCK);
            int c = cgp_rec_check((const char *)line.p, line.len);
            CHECK(c < 0 || ((size_t)c < line.len && line.p[c] == '='));
        } else if (rc == 0 || errno != EMSGSIZE) {
            break;
        }
    }
    cgp_buf_free(&line);
    return 0;
}
