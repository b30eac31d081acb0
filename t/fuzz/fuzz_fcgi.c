/* fuzz_fcgi.c: libFuzzer target for the FastCGI codec (common/cgp_fcgi.c):
 * bytes an application (or a server) controls. The input is parsed on both
 * sides, whole and in chunks (size from the first byte), name-value streams
 * decoded as they come; the events must be the same however reads split,
 * every piece in bounds and every record's pieces its content length, the
 * parser between records exactly after a whole one (padding read). Then
 * the input, cut into pairs, goes through cgp_fcgi_request_pack and back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_fcgi.h"
#include "fuzz_trace.h"

static int nv_type(uint8_t type)
{
    return type == CGP_FCGI_PARAMS || type == CGP_FCGI_GET_VALUES ||
           type == CGP_FCGI_GET_VALUES_RESULT;
}

/* Types whose body the parser decodes (no pieces). */
static int fixed(uint8_t type)
{
    return type == CGP_FCGI_BEGIN_REQUEST || type == CGP_FCGI_END_REQUEST ||
           type == CGP_FCGI_UNKNOWN_TYPE || type == CGP_FCGI_ABORT_REQUEST;
}

/* Parses in[0..n) fed chunk bytes at a time (0: whole); the trace holds
 * pairs, records (with a hash of their content) and the error. */
static void parse(int side, const uint8_t *in, size_t n, size_t chunk, struct trace *t)
{
    static unsigned char nvbuf[CGP_FCGI_NV_BUF];
    cgp_fcgi_parser p;
    cgp_fcgi_nv nv;
    cgp_fcgi_event ev;
    size_t pos = 0, fed = 0, content = 0;
    uint32_t hash = 2166136261u;  /* of the record's content: where reads split does not show */
    uint16_t next = 1;
    int rc, nv_lost = 0;  /* a bad pair loses the rest of its stream */

    cgp_fcgi_parser_init(&p, side);
    cgp_fcgi_parser_expect(&p, next, 1);
    cgp_fcgi_nv_init(&nv, nvbuf, sizeof nvbuf);
    do {
        fed = chunk && n - fed > chunk ? fed + chunk : n;
        while ((rc = cgp_fcgi_parse(&p, in, fed, &pos, &ev)) != CGP_FCGI_MORE) {
            CHECK(pos <= fed);
            if (rc < 0) {
                CHECK(rc >= CGP_FCGI_E_VALUE);
                put(t, "E", 1);
                put(t, &rc, sizeof rc);
                size_t p2 = pos;
                CHECK(cgp_fcgi_parse(&p, in, fed, &p2, &ev) == rc && p2 == pos);
                return;
            }
            if (rc == CGP_FCGI_PIECE) {
                CHECK(!cgp_fcgi_parser_between(&p)); /* inside a record */
                CHECK(ev.len > 0 && ev.data >= in && ev.data + ev.len <= in + fed);
                CHECK(!fixed(ev.hdr.type));
                content += ev.len;
                CHECK(content <= ev.hdr.clen);
                for (size_t i = 0; i < ev.len; i++)
                    hash = (hash ^ ev.data[i]) * 16777619u;
                if (nv_type(ev.hdr.type) && !nv_lost) {
                    const char *nm, *v;
                    size_t nl, vl, q = 0;
                    int r;
                    while ((r = cgp_fcgi_nv_next(&nv, ev.data, ev.len, &q, &nm, &nl, &v, &vl)) == 1) {
                        unsigned char re[CGP_FCGI_NV_BUF + 8];
                        size_t ro = 0;
                        CHECK(nl >= 1 && nl <= CGP_FCGI_MAX_NAME && vl <= CGP_FCGI_MAX_VALUE);
                        CHECK(cgp_fcgi_nv_pack(re, sizeof re, &ro, nm, nl, v, vl) == CGP_FCGI_OK);
                        put(t, "\0P", 2);
                        put(t, &nl, sizeof nl);
                        put(t, nm, nl);
                        put(t, &vl, sizeof vl);
                        put(t, v, vl);
                    }
                    CHECK(r == 0 || r == CGP_FCGI_E_LEN || r == CGP_FCGI_E_SPACE);
                    CHECK(r != 0 || q == ev.len);
                    if (r < 0) {
                        put(t, "\0V", 2);
                        put(t, &r, sizeof r);
                        nv_lost = 1;
                    }
                }
                continue;
            }
            CHECK(rc == CGP_FCGI_RECORD);
            /* a whole record read: between records unless padding follows */
            CHECK(cgp_fcgi_parser_between(&p) == (ev.hdr.plen == 0));
            CHECK(content == ev.hdr.clen || (content == 0 && fixed(ev.hdr.type)));
            content = 0;
            put(t, "\0R", 2);
            put(t, &ev.hdr, sizeof ev.hdr);
            put(t, &hash, sizeof hash);
            hash = 2166136261u;
            if (ev.hdr.type == CGP_FCGI_END_REQUEST) {
                CHECK(ev.u.end.pstatus <= CGP_FCGI_UNKNOWN_ROLE);
                put(t, &ev.u.end, sizeof ev.u.end);
                /* the next request on a kept connection */
                next = next == 0xffff ? 1 : next + 1;
                cgp_fcgi_parser_expect(&p, next, 1);
            } else if (ev.hdr.type == CGP_FCGI_BEGIN_REQUEST) {
                put(t, &ev.u.begin, sizeof ev.u.begin);
            } else if (ev.hdr.type == CGP_FCGI_UNKNOWN_TYPE) {
                put(t, &ev.u.unknown, 1);
            }
            if (nv_type(ev.hdr.type) && ev.hdr.clen == 0) {
                int f = cgp_fcgi_nv_finish(&nv);
                put(t, &f, sizeof f);
                cgp_fcgi_nv_init(&nv, nvbuf, sizeof nvbuf);
                nv_lost = 0;
            }
        }
    } while (fed < n);
}

static void both(int side, const uint8_t *d, size_t n, size_t chunk)
{
    struct trace whole = { 0 }, split = { 0 };

    parse(side, d, n, 0, &whole);
    parse(side, d, n, chunk, &split);
    trace_same(&whole, &split);
}

/* The input cut into pairs, packed as a request, parsed back. */
static void round_trip(const uint8_t *d, size_t n)
{
    static cgp_fcgi_pair pairs[64];
    static unsigned char out[1 << 20], nvbuf[CGP_FCGI_NV_BUF];
    size_t np = 0, off = 0, len, got = 0;

    while (np < 64 && n - off >= 2) {
        size_t nl = d[off] % 40 + 1, vl = (size_t)d[off + 1] * 3;
        off += 2;
        if (n - off < nl)
            break;
        pairs[np].name = (const char *)d + off;
        pairs[np].nlen = nl;
        off += nl;
        vl = vl < n - off ? vl : n - off;
        pairs[np].val = (const char *)d + off;
        pairs[np].vlen = vl;
        off += vl;
        np++;
    }
    size_t need = cgp_fcgi_request_size(pairs, np);
    CHECK(need > 0 && need <= sizeof out);
    CHECK(cgp_fcgi_request_pack(out, need - 1, &len, 9, 1, 0, pairs, np) == CGP_FCGI_E_SPACE);
    CHECK(cgp_fcgi_request_pack(out, need, &len, 9, 1, 0, pairs, np) == CGP_FCGI_OK && len == need);

    cgp_fcgi_parser p;
    cgp_fcgi_nv nv;
    cgp_fcgi_event ev;
    size_t pos = 0;
    int rc, eof = 0;
    cgp_fcgi_parser_init(&p, CGP_FCGI_FROM_SERVER);
    cgp_fcgi_nv_init(&nv, nvbuf, sizeof nvbuf);
    while ((rc = cgp_fcgi_parse(&p, out, len, &pos, &ev)) > 0) {
        if (rc == CGP_FCGI_RECORD) {
            if (ev.hdr.type == CGP_FCGI_PARAMS && ev.hdr.clen == 0)
                eof = cgp_fcgi_nv_finish(&nv) == CGP_FCGI_OK;
            continue;
        }
        CHECK(ev.hdr.type == CGP_FCGI_PARAMS && ev.hdr.reqid == 9);
        const char *nm, *v;
        size_t nl, vl, q = 0;
        while (cgp_fcgi_nv_next(&nv, ev.data, ev.len, &q, &nm, &nl, &v, &vl) == 1) {
            CHECK(got < np && nl == pairs[got].nlen && vl == pairs[got].vlen);
            CHECK(!memcmp(nm, pairs[got].name, nl) && (!vl || !memcmp(v, pairs[got].val, vl)));
            got++;
        }
    }
    CHECK(rc == CGP_FCGI_MORE && pos == len && got == np && eof);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    size_t chunk;

    if (n < 1)
        return 0;
    chunk = (size_t)d[0] % 64 + 1;
    if (d[0] >= 192)
        chunk = (size_t)(d[0] - 191) * 997;
    d++;
    n--;
    both(CGP_FCGI_FROM_APP, d, n, chunk);
    both(CGP_FCGI_FROM_SERVER, d, n, chunk);
    round_trip(d, n);
    return 0;
}
