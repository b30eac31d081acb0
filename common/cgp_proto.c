/* cgp_proto.c: explicit pack/unpack of the module<->runner wire protocol
 * and of the script protocol's struct-mode records. No I/O, no allocation. */
#include "cgp_proto.h"
#include "cgp_table.h"

#include <string.h>

void cgp_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

void cgp_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

uint16_t cgp_get16(const unsigned char *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

uint32_t cgp_get32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

const char *cgp_strerror(int rc)
{
    switch (rc) {
    case CGP_OK:        return "ok";
    case CGP_E_MAGIC:   return "bad frame magic";
    case CGP_E_VERSION: return "unsupported protocol version";
    case CGP_E_TYPE:    return "unknown frame type";
    case CGP_E_LEN:     return "length over its cap or past the buffer";
    case CGP_E_SPACE:   return "output buffer too small";
    case CGP_E_VALUE:   return "field value out of range";
    default:            return "unknown error";
    }
}

int cgp_type_valid(unsigned type)
{
    return (type >= 1 && type <= CGP_T_MAX_) ||
           (type >= CGP_T_WS_FIRST_ && type <= CGP_T_WS_LAST_);
}

const char *cgp_type_name(unsigned type)
{
    static const char *const names[] = {
        "?", "HELLO", "HELLO_ACK", "BEGIN", "PARAMS", "STDIN", "STDOUT",
        "STDERR", "END", "ABORT", "CALLOUT", "CALLOUT_ANSWER", "STATUS",
        "STATUS_REPLY", "STARTED", "PROGRESS", "DIRECT", "DIRECT_ACK", "CHANNEL",
        "CHANNEL_ACK", "KICK", "POOL", "GRANT", "FCGI_CHANNEL", "FCGI_CHANNEL_ACK"
    };
    static const char *const ws[] = { "WS_ACCEPT", "WS_MSG", "WS_CLOSE" };
    if (type >= CGP_T_WS_FIRST_ && type <= CGP_T_WS_LAST_)
        return ws[type - CGP_T_WS_FIRST_];
    return type <= CGP_T_MAX_ ? names[type] : "?";
}

const char *cgp_outcome_name(unsigned outcome)
{
    static const char *const names[] = {
        "ok", "overloaded", "timeout", "crashed", "spawn-failed",
        "not-found", "too-large", "bad-request", "aborted", "refused"
    };
    return outcome <= CGP_O_MAX_ ? names[outcome] : "?";
}

const char *cgp_cause_name(unsigned cause)
{
    return cause == CGP_C_BAD_HEADER ? "bad-header" : cause == CGP_C_BAD_BODY ? "bad-body"
                                                                              : cgp_outcome_name(cause);
}

int cgp_abort_pack(unsigned char out[CGP_ABORT_LEN], unsigned cause)
{
    if (cause == 0 || cause > CGP_C_MAX_)
        return CGP_E_VALUE;
    out[0] = (unsigned char)cause;
    return CGP_OK;
}

int cgp_abort_unpack(const unsigned char *in, size_t len, unsigned *cause)
{
    if (len == 0) {
        *cause = CGP_O_ABORTED;
        return CGP_OK;
    }
    if (len != CGP_ABORT_LEN)
        return CGP_E_LEN;
    if (in[0] == 0 || in[0] > CGP_C_MAX_)
        return CGP_E_VALUE;
    *cause = in[0];
    return CGP_OK;
}

int cgp_hdr_pack(unsigned char out[CGP_HDR_LEN], const cgp_hdr *h)
{
    if (h->len > CGP_MAX_PAYLOAD)
        return CGP_E_LEN;
    if (!cgp_type_valid(h->type))
        return CGP_E_TYPE;
    out[0] = CGP_MAGIC0;
    out[1] = CGP_MAGIC1;
    out[2] = CGP_VERSION;
    out[3] = h->type;
    cgp_put16(out + 4, h->flags);
    cgp_put16(out + 6, 0);
    cgp_put32(out + 8, h->reqid);
    cgp_put32(out + 12, h->len);
    return CGP_OK;
}

int cgp_hdr_unpack(const unsigned char in[CGP_HDR_LEN], cgp_hdr *h)
{
    if (in[0] != CGP_MAGIC0 || in[1] != CGP_MAGIC1)
        return CGP_E_MAGIC;
    if (in[2] != CGP_VERSION)
        return CGP_E_VERSION;
    if (!cgp_type_valid(in[3]))
        return CGP_E_TYPE;
    h->version = in[2];
    h->type = in[3];
    h->flags = cgp_get16(in + 4);
    h->reqid = cgp_get32(in + 8);
    h->len = cgp_get32(in + 12);
    if (h->len > CGP_MAX_PAYLOAD)
        return CGP_E_LEN;
    return CGP_OK;
}

int cgp_hello_ack_pack(unsigned char out[CGP_HELLO_ACK_LEN], const cgp_hello *m)
{
    cgp_put16(out, m->version);
    cgp_put16(out + 2, 0);
    cgp_put32(out + 4, m->pid);
    return CGP_OK;
}

int cgp_hello_ack_unpack(const unsigned char *in, size_t len, cgp_hello *m)
{
    if (len != CGP_HELLO_ACK_LEN)
        return CGP_E_LEN;
    m->version = cgp_get16(in);
    m->pid = cgp_get32(in + 4);
    memset(m->key, 0, CGP_KEY_LEN);
    return CGP_OK;
}

int cgp_hello_pack(unsigned char out[CGP_HELLO_LEN], const cgp_hello *m)
{
    cgp_hello_ack_pack(out, m);
    memcpy(out + CGP_HELLO_ACK_LEN, m->key, CGP_KEY_LEN);
    return CGP_OK;
}

int cgp_hello_unpack(const unsigned char *in, size_t len, cgp_hello *m)
{
    if (len != CGP_HELLO_LEN)
        return CGP_E_LEN;
    cgp_hello_ack_unpack(in, CGP_HELLO_ACK_LEN, m);
    memcpy(m->key, in + CGP_HELLO_ACK_LEN, CGP_KEY_LEN);
    return CGP_OK;
}

int cgp_key_equal(const unsigned char a[CGP_KEY_LEN], const unsigned char b[CGP_KEY_LEN])
{
    /* volatile: the compiler may not turn the loop into an early exit. */
    volatile unsigned char diff = 0;

    for (size_t i = 0; i < CGP_KEY_LEN; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int cgp_key_parse(const char *text, size_t len, unsigned char key[CGP_KEY_LEN])
{
    if (len > 2 * CGP_KEY_LEN && text[len - 1] == '\n')
        len--;
    if (len > 2 * CGP_KEY_LEN && text[len - 1] == '\r')
        len--;
    if (len != 2 * CGP_KEY_LEN)
        return CGP_E_VALUE;
    for (size_t i = 0; i < CGP_KEY_LEN; i++) {
        int hi = hex_val(text[2 * i]), lo = hex_val(text[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return CGP_E_VALUE;
        key[i] = (unsigned char)(hi << 4 | lo);
    }
    return CGP_OK;
}

int cgp_end_pack(unsigned char out[CGP_END_LEN], const cgp_end *e)
{
    if (e->outcome > CGP_O_MAX_)
        return CGP_E_VALUE;
    out[0] = e->outcome;
    out[1] = 0;
    cgp_put16(out + 2, e->retry_after);
    cgp_put32(out + 4, e->pid);
    cgp_put32(out + 8, e->detail);
    return CGP_OK;
}

int cgp_end_unpack(const unsigned char *in, size_t len, cgp_end *e)
{
    if (len != CGP_END_LEN)
        return CGP_E_LEN;
    if (in[0] > CGP_O_MAX_)
        return CGP_E_VALUE;
    e->outcome = in[0];
    e->retry_after = cgp_get16(in + 2);
    e->pid = cgp_get32(in + 4);
    e->detail = cgp_get32(in + 8);
    return CGP_OK;
}

int cgp_started_pack(unsigned char out[CGP_STARTED_LEN], const cgp_started *s)
{
    if (s->pid == 0)
        return CGP_E_VALUE;
    cgp_put32(out, s->pid);
    return CGP_OK;
}

int cgp_started_unpack(const unsigned char *in, size_t len, cgp_started *s)
{
    if (len != CGP_STARTED_LEN)
        return CGP_E_LEN;
    s->pid = cgp_get32(in);
    if (s->pid == 0)
        return CGP_E_VALUE;
    return CGP_OK;
}

size_t cgp_kv_size(size_t nlen, size_t vlen)
{
    return 6 + nlen + vlen;
}

int cgp_kv_pack(unsigned char *out, size_t cap, size_t *off,
                const char *name, size_t nlen, const char *val, size_t vlen)
{
    if (nlen == 0 || nlen > CGP_MAX_NAME || vlen > CGP_MAX_PAYLOAD)
        return CGP_E_LEN;
    if (*off > cap || cap - *off < cgp_kv_size(nlen, vlen))
        return CGP_E_SPACE;
    unsigned char *p = out + *off;
    cgp_put16(p, (uint16_t)nlen);
    cgp_put32(p + 2, (uint32_t)vlen);
    memcpy(p + 6, name, nlen);
    if (vlen)
        memcpy(p + 6 + nlen, val, vlen);
    *off += cgp_kv_size(nlen, vlen);
    return CGP_OK;
}

int cgp_kv_next(const unsigned char *buf, size_t len, size_t *off,
                const char **name, size_t *nlen, const char **val, size_t *vlen)
{
    if (*off == len)
        return 0;
    if (*off > len || len - *off < 6)
        return CGP_E_LEN;
    const unsigned char *p = buf + *off;
    size_t n = cgp_get16(p);
    size_t v = cgp_get32(p + 2);
    if (n == 0 || n > CGP_MAX_NAME || v > CGP_MAX_PAYLOAD)
        return CGP_E_LEN;
    if (len - *off - 6 < n || len - *off - 6 - n < v)
        return CGP_E_LEN;
    *name = (const char *)p + 6;
    *nlen = n;
    *val = (const char *)p + 6 + n;
    *vlen = v;
    *off += 6 + n + v;
    return 1;
}

int cgp_struct_pack(unsigned char *out, size_t cap, size_t *off,
                    const char *entry, size_t len)
{
    if (len == 0 || len > 0xffffu)
        return CGP_E_LEN;
    if (*off > cap || cap - *off < 2 + len)
        return CGP_E_SPACE;
    cgp_put16(out + *off, (uint16_t)len);
    memcpy(out + *off + 2, entry, len);
    *off += 2 + len;
    return CGP_OK;
}

int cgp_struct_end(unsigned char *out, size_t cap, size_t *off)
{
    if (*off > cap || cap - *off < 2)
        return CGP_E_SPACE;
    cgp_put16(out + *off, 0);
    *off += 2;
    return CGP_OK;
}

int cgp_struct_next(const unsigned char *buf, size_t len, size_t *off,
                    const char **entry, size_t *elen)
{
    if (*off > len || len - *off < 2)
        return CGP_E_LEN;
    size_t n = cgp_get16(buf + *off);
    if (n == 0) {
        *off += 2;
        return 0;
    }
    if (len - *off - 2 < n)
        return CGP_E_LEN;
    *entry = (const char *)buf + *off + 2;
    *elen = n;
    *off += 2 + n;
    return 1;
}

int cgp_pair_pack(unsigned char out[CGP_PAIR_LEN], const cgp_pair *p)
{
    cgp_put32(out, p->a);
    cgp_put32(out + 4, p->b);
    return CGP_OK;
}

int cgp_pair_unpack(const unsigned char *in, size_t len, cgp_pair *p)
{
    if (len != CGP_PAIR_LEN)
        return CGP_E_LEN;
    p->a = cgp_get32(in);
    p->b = cgp_get32(in + 4);
    return CGP_OK;
}

int cgp_grant_pack(unsigned char out[CGP_GRANT_LEN], const cgp_grant *g)
{
    if (g->slot >= CGP_TABLE_SLOTS || g->pidx >= CGP_TABLE_POOLS)
        return CGP_E_VALUE;
    cgp_put32(out, g->slot);
    cgp_put32(out + 4, g->sgen);
    cgp_put32(out + 8, g->pidx);
    cgp_put32(out + 12, g->pgen);
    return CGP_OK;
}

int cgp_grant_unpack(const unsigned char *in, size_t len, cgp_grant *g)
{
    if (len != CGP_GRANT_LEN)
        return CGP_E_LEN;
    g->slot = cgp_get32(in);
    g->sgen = cgp_get32(in + 4);
    g->pidx = cgp_get32(in + 8);
    g->pgen = cgp_get32(in + 12);
    if (g->slot >= CGP_TABLE_SLOTS || g->pidx >= CGP_TABLE_POOLS)
        return CGP_E_VALUE;
    return CGP_OK;
}

/* "CGIPLUS-" + 3 capitals + "-" + 32 lower-case hex digits. */
static int mark_ok(const char *m)
{
    size_t i;

    if (memcmp(m, "CGIPLUS-", 8) != 0 || m[11] != '-')
        return 0;
    for (i = 8; i < 11; i++)
        if (m[i] < 'A' || m[i] > 'Z')
            return 0;
    for (i = 12; i < CGP_MARK_LEN; i++)
        if (!((m[i] >= '0' && m[i] <= '9') || (m[i] >= 'a' && m[i] <= 'f')))
            return 0;
    return 1;
}

int cgp_channel_pack(unsigned char out[CGP_CHANNEL_LEN], const cgp_channel *c)
{
    if (c->gen && (strlen(c->eof) != CGP_MARK_LEN || strlen(c->esc) != CGP_MARK_LEN ||
                   strlen(c->eot) != CGP_MARK_LEN || !mark_ok(c->eof) ||
                   !mark_ok(c->esc) || !mark_ok(c->eot)))
        return CGP_E_VALUE;
    cgp_put32(out, c->slot);
    cgp_put32(out + 4, c->gen);
    cgp_put32(out + 8, c->pid);
    memset(out + 12, 0, 3 * CGP_MARK_LEN);
    if (c->gen) {
        memcpy(out + 12, c->eof, CGP_MARK_LEN);
        memcpy(out + 12 + CGP_MARK_LEN, c->esc, CGP_MARK_LEN);
        memcpy(out + 12 + 2 * CGP_MARK_LEN, c->eot, CGP_MARK_LEN);
    }
    return CGP_OK;
}

int cgp_channel_unpack(const unsigned char *in, size_t len, cgp_channel *c)
{
    if (len != CGP_CHANNEL_LEN)
        return CGP_E_LEN;
    c->slot = cgp_get32(in);
    c->gen = cgp_get32(in + 4);
    c->pid = cgp_get32(in + 8);
    memcpy(c->eof, in + 12, CGP_MARK_LEN);
    memcpy(c->esc, in + 12 + CGP_MARK_LEN, CGP_MARK_LEN);
    memcpy(c->eot, in + 12 + 2 * CGP_MARK_LEN, CGP_MARK_LEN);
    c->eof[CGP_MARK_LEN] = c->esc[CGP_MARK_LEN] = c->eot[CGP_MARK_LEN] = '\0';
    if (c->gen == 0)
        return CGP_OK;
    if (c->pid == 0 || !mark_ok(c->eof) || !mark_ok(c->esc) || !mark_ok(c->eot))
        return CGP_E_VALUE;
    return CGP_OK;
}
