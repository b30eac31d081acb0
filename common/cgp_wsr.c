/* cgp_wsr.c: explicit pack/unpack of a WebSocket worker's channel records
 * and of the WebSocket wire payloads (cgp_wsr.h). No I/O, no allocation. */
#include "cgp_wsr.h"
#include "cgp_proto.h"
#include "cgp_ws.h"

#include <string.h>

const char *cgp_wsr_type_name(unsigned type)
{
    switch (type) {
    case CGP_WSR_OPEN: return "OPEN";
    case CGP_WSR_MESSAGE: return "MESSAGE";
    case CGP_WSR_CLOSED: return "CLOSED";
    case CGP_WSR_HELLO: return "HELLO";
    case CGP_WSR_ACCEPT: return "ACCEPT";
    case CGP_WSR_REFUSE: return "REFUSE";
    case CGP_WSR_SEND: return "SEND";
    case CGP_WSR_BROADCAST: return "BROADCAST";
    case CGP_WSR_CLOSE: return "CLOSE";
    default: return "?";
    }
}

static int from_of(unsigned type)
{
    return type < CGP_WSR_HELLO ? CGP_WSR_FROM_RUNNER : CGP_WSR_FROM_WORKER;
}

static int is_message(unsigned type)
{
    return type == CGP_WSR_MESSAGE || type == CGP_WSR_SEND || type == CGP_WSR_BROADCAST;
}

/* The type's rules: 0 if the header may be sent, else a CGP_E_* code. */
static int hdr_rules(const cgp_wsr_hdr *h, uint32_t max_message)
{
    uint32_t cap;

    switch (h->type) {
    case CGP_WSR_OPEN: cap = CGP_WSR_OPEN_MAX; break;
    case CGP_WSR_MESSAGE: case CGP_WSR_SEND: case CGP_WSR_BROADCAST:
        cap = max_message < CGP_WSR_MSG_MAX ? max_message : CGP_WSR_MSG_MAX;
        break;
    case CGP_WSR_CLOSED: case CGP_WSR_CLOSE: cap = CGP_WSR_CLOSE_MAX; break;
    case CGP_WSR_HELLO: cap = CGP_WSR_HELLO_LEN; break;
    case CGP_WSR_ACCEPT: cap = CGP_WSR_PROTO_MAX; break;
    case CGP_WSR_REFUSE: cap = CGP_WSR_REFUSE_MAX; break;
    default: return CGP_E_TYPE;
    }
    if (h->flags & ~(is_message(h->type) ? CGP_WSR_F_BINARY : 0u))
        return CGP_E_VALUE;
    /* Every record names its connection but HELLO (none) and BROADCAST
     * (0: nobody left out). */
    if (h->type == CGP_WSR_HELLO ? h->conn != 0 : h->type != CGP_WSR_BROADCAST && h->conn == 0)
        return CGP_E_VALUE;
    if (h->len > cap)
        return CGP_E_LEN;
    if ((h->type == CGP_WSR_HELLO && h->len != CGP_WSR_HELLO_LEN) ||
        (h->type == CGP_WSR_CLOSED && h->len < 2) || (h->type == CGP_WSR_CLOSE && h->len == 1) ||
        (h->type == CGP_WSR_REFUSE && h->len < 4))
        return CGP_E_LEN;
    return CGP_OK;
}

int cgp_wsr_hdr_pack(unsigned char out[CGP_WSR_HDR_LEN], const cgp_wsr_hdr *h,
                     uint32_t max_message)
{
    int rc = hdr_rules(h, max_message);
    if (rc != CGP_OK)
        return rc;
    out[0] = h->type;
    out[1] = h->flags;
    cgp_put16(out + 2, 0);
    cgp_put32(out + 4, h->conn);
    cgp_put32(out + 8, h->len);
    return CGP_OK;
}

int cgp_wsr_hdr_unpack(const unsigned char in[CGP_WSR_HDR_LEN], cgp_wsr_hdr *h, int from,
                       uint32_t max_message)
{
    h->type = in[0];
    h->flags = in[1];
    h->conn = cgp_get32(in + 4);
    h->len = cgp_get32(in + 8);
    if (cgp_wsr_type_name(h->type)[0] == '?' || from_of(h->type) != from)
        return CGP_E_TYPE;
    return hdr_rules(h, max_message);
}

int cgp_wsr_token(const char *s, size_t n)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c && strchr(extra, c))))
            return 0;
    }
    return 1;
}

void cgp_wsr_hello_pack(unsigned char out[CGP_WSR_HELLO_LEN])
{
    cgp_put16(out, CGP_WSR_VERSION);
    cgp_put16(out + 2, 0);
}

static int code_ok(unsigned code, int any)
{
    return cgp_ws_close_code_ok(code) || (any && (code == CGP_WS_NO_STATUS ||
                                                  code == CGP_WS_ABNORMAL));
}

int cgp_wsr_close_pack(unsigned char out[CGP_WSR_CLOSE_MAX], unsigned code, const char *reason,
                       size_t rlen, int any)
{
    if (!code_ok(code, any) || rlen > CGP_WSR_REASON_MAX ||
        (rlen && !cgp_utf8_valid((const unsigned char *)reason, rlen)))
        return CGP_E_VALUE;
    cgp_put16(out, (uint16_t)code);
    if (rlen)
        memcpy(out + 2, reason, rlen);
    return (int)(2 + rlen);
}

int cgp_wsr_close_unpack(const unsigned char *pl, size_t len, int any, unsigned *code,
                         const char **reason, size_t *rlen)
{
    *reason = "";
    *rlen = 0;
    if (len == 0) {
        *code = any ? CGP_WS_NO_STATUS : CGP_WS_NORMAL;
        return CGP_OK;
    }
    if (len < 2 || len > CGP_WSR_CLOSE_MAX)
        return CGP_E_LEN;
    *code = cgp_get16(pl);
    if (!code_ok(*code, any) || !cgp_utf8_valid(pl + 2, len - 2))
        return CGP_E_VALUE;
    *reason = (const char *)pl + 2;
    *rlen = len - 2;
    return CGP_OK;
}

/* The one name a refusal may not set: the status is its own field. */
static int is_status(const char *s, size_t n)
{
    static const char st[] = "status";
    if (n != 6)
        return 0;
    for (size_t i = 0; i < 6; i++)
        if ((s[i] | 0x20) != st[i])
            return 0;
    return 1;
}

/* A header value: visible characters, spaces and tabs, obs-text. */
static int value_ok(const unsigned char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((v[i] < 0x20 && v[i] != '\t') || v[i] == 0x7f)
            return 0;
    return 1;
}

int cgp_wsr_refuse_unpack(const unsigned char *pl, size_t len, cgp_wsr_refuse *r)
{
    size_t off = 4;

    if (len < 4 || len > CGP_WSR_REFUSE_MAX)
        return CGP_E_LEN;
    r->status = cgp_get16(pl);
    r->nhdr = cgp_get16(pl + 2);
    if (r->status < 200 || r->status > 599 || r->nhdr > CGP_WSR_HDRS_MAX)
        return CGP_E_VALUE;
    for (unsigned i = 0; i < r->nhdr; i++) {
        size_t nl, vl;
        if (len - off < 4)
            return CGP_E_LEN;
        nl = cgp_get16(pl + off);
        vl = cgp_get16(pl + off + 2);
        off += 4;
        if (nl == 0 || nl > CGP_WSR_HNAME_MAX || vl > CGP_WSR_HVAL_MAX)
            return CGP_E_VALUE;
        if (len - off < nl + vl)
            return CGP_E_LEN;
        if (!cgp_wsr_token((const char *)pl + off, nl) ||
            is_status((const char *)pl + off, nl) ||
            !value_ok(pl + off + nl, vl))
            return CGP_E_VALUE;
        off += nl + vl;
    }
    r->hdrs = pl + 4;
    r->hlen = off - 4;
    r->body = pl + off;
    r->blen = len - off;
    return CGP_OK;
}

int cgp_wsr_refuse_next(const cgp_wsr_refuse *r, size_t *off, const char **name, size_t *nlen,
                        const char **val, size_t *vlen)
{
    if (*off + 4 > r->hlen)
        return 0;
    *nlen = cgp_get16(r->hdrs + *off);
    *vlen = cgp_get16(r->hdrs + *off + 2);
    *name = (const char *)r->hdrs + *off + 4;
    *val = *name + *nlen;
    *off += 4 + *nlen + *vlen;
    return 1;
}

int cgp_wsr_refuse_pack(unsigned char *out, size_t cap, unsigned status, const char *const *hdrs,
                        unsigned n, const void *body, size_t blen)
{
    size_t off = 4;

    if (status < 200 || status > 599 || n > CGP_WSR_HDRS_MAX)
        return CGP_E_VALUE;
    if (cap < 4)
        return CGP_E_SPACE;
    cgp_put16(out, (uint16_t)status);
    cgp_put16(out + 2, (uint16_t)n);
    for (unsigned i = 0; i < n; i++) {
        size_t nl = strlen(hdrs[2 * i]), vl = strlen(hdrs[2 * i + 1]);
        if (nl == 0 || nl > CGP_WSR_HNAME_MAX || vl > CGP_WSR_HVAL_MAX ||
            !cgp_wsr_token(hdrs[2 * i], nl) || is_status(hdrs[2 * i], nl) ||
            !value_ok((const unsigned char *)hdrs[2 * i + 1], vl))
            return CGP_E_VALUE;
        if (cap - off < 4 + nl + vl)
            return CGP_E_SPACE;
        cgp_put16(out + off, (uint16_t)nl);
        cgp_put16(out + off + 2, (uint16_t)vl);
        memcpy(out + off + 4, hdrs[2 * i], nl);
        memcpy(out + off + 4 + nl, hdrs[2 * i + 1], vl);
        off += 4 + nl + vl;
    }
    if (cap - off < blen)
        return CGP_E_SPACE;
    if (blen)
        memcpy(out + off, body, blen);
    off += blen;
    if (off > CGP_WSR_REFUSE_MAX)
        return CGP_E_LEN;
    return (int)off;
}

int cgp_wsr_check(const cgp_wsr_hdr *h, const unsigned char *pl)
{
    const char *s;
    size_t n;
    unsigned code;

    switch (h->type) {
    case CGP_WSR_HELLO:
        return cgp_get16(pl) == CGP_WSR_VERSION ? CGP_OK : CGP_E_VERSION;
    case CGP_WSR_ACCEPT:
        return h->len == 0 || cgp_wsr_token((const char *)pl, h->len) ? CGP_OK : CGP_E_VALUE;
    case CGP_WSR_CLOSE: case CGP_WSR_CLOSED:
        return cgp_wsr_close_unpack(pl, h->len, h->type == CGP_WSR_CLOSED, &code, &s, &n) ==
               CGP_OK ? CGP_OK : CGP_E_VALUE;
    case CGP_WSR_REFUSE: {
        cgp_wsr_refuse r;
        return cgp_wsr_refuse_unpack(pl, h->len, &r) == CGP_OK ? CGP_OK : CGP_E_VALUE;
    }
    case CGP_WSR_OPEN: {
        size_t off = 0, nl, vl;
        const char *nm, *v;
        int rc;
        while ((rc = cgp_kv_next(pl, h->len, &off, &nm, &nl, &v, &vl)) == 1)
            ;
        return rc == 0 ? CGP_OK : CGP_E_VALUE;
    }
    default: /* a message: a text one must be UTF-8 */
        return (h->flags & CGP_WSR_F_BINARY) || cgp_utf8_valid(pl, h->len) ? CGP_OK
                                                                            : CGP_E_VALUE;
    }
}

int cgp_ws_accept_pack(unsigned char out[CGP_WS_ACCEPT_MAX], const cgp_ws_accept_msg *m)
{
    if (m->conn == 0 || m->pid == 0 || m->plen > CGP_WSR_PROTO_MAX ||
        (m->plen && !cgp_wsr_token(m->proto, m->plen)))
        return CGP_E_VALUE;
    cgp_put32(out, m->conn);
    cgp_put32(out + 4, m->pid);
    out[8] = (unsigned char)m->plen;
    if (m->plen)
        memcpy(out + 9, m->proto, m->plen);
    return (int)(CGP_WS_ACCEPT_FIXED + m->plen);
}

int cgp_ws_accept_unpack(const unsigned char *in, size_t len, cgp_ws_accept_msg *m)
{
    if (len < CGP_WS_ACCEPT_FIXED || len != CGP_WS_ACCEPT_FIXED + in[8])
        return CGP_E_LEN;
    m->conn = cgp_get32(in);
    m->pid = cgp_get32(in + 4);
    m->plen = in[8];
    m->proto = (const char *)in + 9;
    if (m->conn == 0 || m->pid == 0 || (m->plen && !cgp_wsr_token(m->proto, m->plen)))
        return CGP_E_VALUE;
    return CGP_OK;
}
