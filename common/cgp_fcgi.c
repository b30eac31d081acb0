/* cgp_fcgi.c: FastCGI 1.0 records, name-value pairs and an incremental
 * record parser. No I/O, no allocation: the caller owns every buffer. */
#include "cgp_fcgi.h"

#include <string.h>

enum { S_HDR = 0, S_BODY, S_PAD };

const char *cgp_fcgi_strerror(int rc)
{
    switch (rc) {
    case CGP_FCGI_OK:        return "ok";
    case CGP_FCGI_E_VERSION: return "FastCGI version not 1";
    case CGP_FCGI_E_TYPE:    return "FastCGI record type not allowed from this side";
    case CGP_FCGI_E_REQID:   return "FastCGI request id not the one in flight";
    case CGP_FCGI_E_LEN:     return "FastCGI length over its cap or not the fixed one";
    case CGP_FCGI_E_STATE:   return "FastCGI record not allowed in the request's state";
    case CGP_FCGI_E_SPACE:   return "buffer too small";
    case CGP_FCGI_E_VALUE:   return "FastCGI field value out of range";
    default:                 return "unknown error";
    }
}

const char *cgp_fcgi_type_name(unsigned type)
{
    static const char *const names[] = {
        "?", "BEGIN_REQUEST", "ABORT_REQUEST", "END_REQUEST", "PARAMS", "STDIN",
        "STDOUT", "STDERR", "DATA", "GET_VALUES", "GET_VALUES_RESULT", "UNKNOWN_TYPE"
    };
    return type <= CGP_FCGI_UNKNOWN_TYPE ? names[type] : "?";
}

/* ------------------------------------------------------------ records */

void cgp_fcgi_hdr_pack(unsigned char out[CGP_FCGI_HDR_LEN], const cgp_fcgi_hdr *h)
{
    out[0] = CGP_FCGI_VERSION;
    out[1] = h->type;
    out[2] = (unsigned char)(h->reqid >> 8);
    out[3] = (unsigned char)h->reqid;
    out[4] = (unsigned char)(h->clen >> 8);
    out[5] = (unsigned char)h->clen;
    out[6] = h->plen;
    out[7] = 0;
}

int cgp_fcgi_hdr_unpack(const unsigned char in[CGP_FCGI_HDR_LEN], cgp_fcgi_hdr *h)
{
    if (in[0] != CGP_FCGI_VERSION)
        return CGP_FCGI_E_VERSION;
    h->type = in[1];
    h->reqid = (uint16_t)(in[2] << 8 | in[3]);
    h->clen = (uint16_t)(in[4] << 8 | in[5]);
    h->plen = in[6];
    return CGP_FCGI_OK;
}

void cgp_fcgi_begin_pack(unsigned char out[CGP_FCGI_BODY_LEN], const cgp_fcgi_begin *b)
{
    memset(out, 0, CGP_FCGI_BODY_LEN);
    out[0] = (unsigned char)(b->role >> 8);
    out[1] = (unsigned char)b->role;
    out[2] = b->flags;
}

void cgp_fcgi_begin_unpack(const unsigned char in[CGP_FCGI_BODY_LEN], cgp_fcgi_begin *b)
{
    b->role = (uint16_t)(in[0] << 8 | in[1]);
    b->flags = in[2];
}

int cgp_fcgi_end_pack(unsigned char out[CGP_FCGI_BODY_LEN], const cgp_fcgi_end *e)
{
    if (e->pstatus > CGP_FCGI_UNKNOWN_ROLE)
        return CGP_FCGI_E_VALUE;
    out[0] = (unsigned char)(e->app_status >> 24);
    out[1] = (unsigned char)(e->app_status >> 16);
    out[2] = (unsigned char)(e->app_status >> 8);
    out[3] = (unsigned char)e->app_status;
    out[4] = e->pstatus;
    out[5] = out[6] = out[7] = 0;
    return CGP_FCGI_OK;
}

int cgp_fcgi_end_unpack(const unsigned char in[CGP_FCGI_BODY_LEN], cgp_fcgi_end *e)
{
    e->app_status = (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 |
                    (uint32_t)in[2] << 8 | in[3];
    e->pstatus = in[4];
    return e->pstatus > CGP_FCGI_UNKNOWN_ROLE ? CGP_FCGI_E_VALUE : CGP_FCGI_OK;
}

void cgp_fcgi_unknown_pack(unsigned char out[CGP_FCGI_BODY_LEN], uint8_t type)
{
    memset(out, 0, CGP_FCGI_BODY_LEN);
    out[0] = type;
}

int cgp_fcgi_record_pack(unsigned char *out, size_t cap, size_t *off, uint8_t type,
                         uint16_t reqid, const void *content, size_t clen, uint8_t plen)
{
    cgp_fcgi_hdr h = { .type = type, .reqid = reqid, .clen = (uint16_t)clen, .plen = plen };

    if (clen > CGP_FCGI_MAX_CONTENT)
        return CGP_FCGI_E_LEN;
    if (*off > cap || cap - *off < CGP_FCGI_HDR_LEN + clen + plen)
        return CGP_FCGI_E_SPACE;
    cgp_fcgi_hdr_pack(out + *off, &h);
    if (clen)
        memcpy(out + *off + CGP_FCGI_HDR_LEN, content, clen);
    memset(out + *off + CGP_FCGI_HDR_LEN + clen, 0, plen);
    *off += CGP_FCGI_HDR_LEN + clen + plen;
    return CGP_FCGI_OK;
}

/* ------------------------------------------------------------ name-value pairs */

static size_t len_bytes(size_t n)
{
    return n < 128 ? 1 : 4;
}

size_t cgp_fcgi_nv_size(size_t nlen, size_t vlen)
{
    return len_bytes(nlen) + len_bytes(vlen) + nlen + vlen;
}

static unsigned char *put_len(unsigned char *p, size_t n)
{
    if (n < 128) {
        *p++ = (unsigned char)n;
        return p;
    }
    *p++ = (unsigned char)(0x80 | (n >> 24));
    *p++ = (unsigned char)(n >> 16);
    *p++ = (unsigned char)(n >> 8);
    *p++ = (unsigned char)n;
    return p;
}

static int pair_ok(size_t nlen, size_t vlen)
{
    return nlen >= 1 && nlen <= CGP_FCGI_MAX_NAME && vlen <= CGP_FCGI_MAX_VALUE;
}

int cgp_fcgi_nv_pack(unsigned char *out, size_t cap, size_t *off,
                     const char *name, size_t nlen, const char *val, size_t vlen)
{
    if (!pair_ok(nlen, vlen))
        return CGP_FCGI_E_LEN;
    if (*off > cap || cap - *off < cgp_fcgi_nv_size(nlen, vlen))
        return CGP_FCGI_E_SPACE;
    unsigned char *p = put_len(put_len(out + *off, nlen), vlen);
    memcpy(p, name, nlen);
    if (vlen)
        memcpy(p + nlen, val, vlen);
    *off += cgp_fcgi_nv_size(nlen, vlen);
    return CGP_FCGI_OK;
}

void cgp_fcgi_nv_init(cgp_fcgi_nv *d, unsigned char *buf, size_t cap)
{
    memset(d, 0, sizeof *d);
    d->buf = buf;
    d->cap = buf ? cap : 0;
}

/* Length bytes the pair in hand needs, from those gathered so far. */
static unsigned lb_need(const cgp_fcgi_nv *d)
{
    unsigned first = d->lbn && (d->lb[0] & 0x80) ? 4 : 1;

    if (d->lbn <= first)
        return first + 1;
    return first + ((d->lb[first] & 0x80) ? 4 : 1);
}

static uint32_t lb_get(const unsigned char *p, unsigned *i)
{
    if (!(p[*i] & 0x80))
        return p[(*i)++];
    uint32_t n = (uint32_t)(p[*i] & 0x7f) << 24 | (uint32_t)p[*i + 1] << 16 |
                 (uint32_t)p[*i + 2] << 8 | p[*i + 3];
    *i += 4;
    return n;
}

static int nv_fail(cgp_fcgi_nv *d, int rc)
{
    d->err = rc;
    return rc;
}

int cgp_fcgi_nv_next(cgp_fcgi_nv *d, const unsigned char *in, size_t len, size_t *pos,
                     const char **name, size_t *nlen, const char **val, size_t *vlen)
{
    if (d->err)
        return d->err;
    if (d->lbn == 0 || d->lbn < lb_need(d)) {
        while (*pos < len && d->lbn < lb_need(d))
            d->lb[d->lbn++] = in[(*pos)++];
        if (d->lbn < lb_need(d))
            return 0;
        unsigned i = 0;
        d->nlen = lb_get(d->lb, &i);
        d->vlen = lb_get(d->lb, &i);
        if (!pair_ok(d->nlen, d->vlen))
            return nv_fail(d, CGP_FCGI_E_LEN);
        size_t pair = d->lbn + (size_t)d->nlen + d->vlen;
        if (pair > CGP_FCGI_MAX_PARAMS - d->total)
            return nv_fail(d, CGP_FCGI_E_LEN);
        d->total += pair;
        d->have = 0;
    }
    size_t need = (size_t)d->nlen + d->vlen;
    const unsigned char *p;

    if (d->have == 0 && len - *pos >= need) {
        p = in + *pos;  /* whole in this read: no copy */
        *pos += need;
    } else {
        if (need > d->cap)
            return nv_fail(d, CGP_FCGI_E_SPACE);
        size_t k = len - *pos < need - d->have ? len - *pos : need - d->have;
        memcpy(d->buf + d->have, in + *pos, k);
        d->have += k;
        *pos += k;
        if (d->have < need)
            return 0;
        p = d->buf;
    }
    *name = (const char *)p;
    *nlen = d->nlen;
    *val = (const char *)p + d->nlen;
    *vlen = d->vlen;
    d->lbn = 0;
    d->have = 0;
    return 1;
}

int cgp_fcgi_nv_finish(const cgp_fcgi_nv *d)
{
    if (d->err)
        return d->err;
    return d->lbn ? CGP_FCGI_E_LEN : CGP_FCGI_OK;
}

/* ------------------------------------------------------------ the record parser */

void cgp_fcgi_parser_init(cgp_fcgi_parser *p, int side)
{
    memset(p, 0, sizeof *p);
    p->side = side;
    p->state = S_HDR;
}

void cgp_fcgi_parser_expect(cgp_fcgi_parser *p, uint16_t reqid, int one)
{
    p->reqid = reqid;
    p->eof = 0;
    p->one = one != 0;
}

static int fixed_body(uint8_t type)
{
    return type == CGP_FCGI_BEGIN_REQUEST || type == CGP_FCGI_END_REQUEST ||
           type == CGP_FCGI_UNKNOWN_TYPE || type == CGP_FCGI_ABORT_REQUEST;
}

/* Is this header one the side may receive now? (The specification's rules:
 * management records carry request id 0, application records another; each
 * side sends its own types; fixed bodies have their fixed length.) */
static int check_hdr(const cgp_fcgi_parser *p, const cgp_fcgi_hdr *h)
{
    int app_rec;  /* an application record (not management) */

    if (p->side == CGP_FCGI_FROM_APP) {
        switch (h->type) {
        case CGP_FCGI_STDOUT: case CGP_FCGI_STDERR: case CGP_FCGI_END_REQUEST:
            app_rec = 1;
            break;
        case CGP_FCGI_GET_VALUES_RESULT: case CGP_FCGI_UNKNOWN_TYPE:
            app_rec = 0;
            break;
        default:
            return CGP_FCGI_E_TYPE;
        }
    } else {
        switch (h->type) {
        case CGP_FCGI_BEGIN_REQUEST: case CGP_FCGI_ABORT_REQUEST: case CGP_FCGI_PARAMS:
        case CGP_FCGI_STDIN: case CGP_FCGI_DATA:
            app_rec = 1;
            break;
        case CGP_FCGI_GET_VALUES:
            app_rec = 0;
            break;
        default:
            /* a management record of a type unknown to us: the application
             * answers UNKNOWN_TYPE, so it is read like any other */
            if ((h->type <= CGP_FCGI_UNKNOWN_TYPE && h->type != 0) || h->reqid != 0)
                return CGP_FCGI_E_TYPE;
            app_rec = 0;
            break;
        }
    }
    if (app_rec != (h->reqid != 0))
        return CGP_FCGI_E_REQID;
    if (h->type == CGP_FCGI_ABORT_REQUEST ? h->clen != 0
        : fixed_body(h->type) && h->clen != CGP_FCGI_BODY_LEN)
        return CGP_FCGI_E_LEN;
    if (p->side == CGP_FCGI_FROM_APP && app_rec) {
        if (p->reqid == 0)
            return CGP_FCGI_E_STATE;
        /* 1 is never asked (cgp_fcgi_reqid_next): it is an application
         * that answers 1 whatever it is asked, as nginx and mod_fcgid ask,
         * if the caller learnt so. */
        if (h->reqid != p->reqid && !(h->reqid == 1 && p->one))
            return CGP_FCGI_E_REQID;
        if (p->eof & (1u << (h->type & 7)))
            return CGP_FCGI_E_STATE;  /* STDOUT or STDERR after its end */
    }
    return CGP_FCGI_OK;
}

static int fail(cgp_fcgi_parser *p, int rc)
{
    p->err = rc;
    return rc;
}

/* The record is complete: its effect on the request's state, its event. */
static int record_done(cgp_fcgi_parser *p, cgp_fcgi_event *ev)
{
    ev->hdr = p->cur;
    ev->data = NULL;
    ev->len = 0;
    switch (p->cur.type) {
    case CGP_FCGI_BEGIN_REQUEST:
        cgp_fcgi_begin_unpack(p->body, &ev->u.begin);
        break;
    case CGP_FCGI_END_REQUEST:
        if (cgp_fcgi_end_unpack(p->body, &ev->u.end) != CGP_FCGI_OK)
            return fail(p, CGP_FCGI_E_VALUE);
        if (p->side == CGP_FCGI_FROM_APP)
            cgp_fcgi_parser_expect(p, 0, 0);
        break;
    case CGP_FCGI_UNKNOWN_TYPE:
        ev->u.unknown = p->body[0];
        break;
    case CGP_FCGI_STDOUT: case CGP_FCGI_STDERR:
        if (p->side == CGP_FCGI_FROM_APP && p->cur.clen == 0)
            p->eof |= (uint8_t)(1u << (p->cur.type & 7));
        break;
    default:
        break;
    }
    p->state = S_PAD;
    return CGP_FCGI_RECORD;
}

int cgp_fcgi_parse(cgp_fcgi_parser *p, const unsigned char *in, size_t len, size_t *pos,
                   cgp_fcgi_event *ev)
{
    int rc;

    if (p->err)
        return p->err;
    for (;;) {
        size_t avail = len - *pos, k;

        switch (p->state) {
        case S_HDR:
            k = CGP_FCGI_HDR_LEN - p->hlen;
            k = avail < k ? avail : k;
            memcpy(p->hdr + p->hlen, in + *pos, k);
            p->hlen = (uint8_t)(p->hlen + k);
            *pos += k;
            if (p->hlen < CGP_FCGI_HDR_LEN)
                return CGP_FCGI_MORE;
            if ((rc = cgp_fcgi_hdr_unpack(p->hdr, &p->cur)) != CGP_FCGI_OK ||
                (rc = check_hdr(p, &p->cur)) != CGP_FCGI_OK)
                return fail(p, rc);
            p->done = 0;
            p->pad = 0;
            p->state = S_BODY;
            break;
        case S_BODY:
            k = (size_t)p->cur.clen - p->done;
            k = avail < k ? avail : k;
            if (fixed_body(p->cur.type)) {
                memcpy(p->body + p->done, in + *pos, k);
                p->done = (uint16_t)(p->done + k);
                *pos += k;
                if (p->done < p->cur.clen)
                    return CGP_FCGI_MORE;
                return record_done(p, ev);
            }
            if (p->done == p->cur.clen)
                return record_done(p, ev);
            if (k == 0)
                return CGP_FCGI_MORE;
            ev->hdr = p->cur;
            ev->data = in + *pos;
            ev->len = k;
            p->done = (uint16_t)(p->done + k);
            *pos += k;
            return CGP_FCGI_PIECE;
        default: /* S_PAD */
            k = (size_t)p->cur.plen - p->pad;
            k = avail < k ? avail : k;
            p->pad = (uint8_t)(p->pad + k);
            *pos += k;
            if (p->pad < p->cur.plen)
                return CGP_FCGI_MORE;
            p->hlen = 0;
            p->state = S_HDR;
            break;
        }
    }
}

int cgp_fcgi_parser_between(const cgp_fcgi_parser *p)
{
    if (p->err)
        return 0;
    return p->state == S_HDR ? p->hlen == 0 : p->state == S_PAD && p->pad == p->cur.plen;
}

/* ------------------------------------------------------------ the server's side */

/* A pair that fits in one record never spans two: PHP's FastCGI (php-cgi,
 * php-fpm) decodes each PARAMS record on its own and drops the connection at
 * a pair cut by a record boundary (mod_proxy_fcgi starts a new record
 * instead). Only a pair over CGP_FCGI_MAX_CONTENT is split. Whether the
 * open record, clen bytes full, must be closed before a pair of sz bytes. */
static int params_break(int open, size_t clen, size_t sz)
{
    return open && sz <= CGP_FCGI_MAX_CONTENT && CGP_FCGI_MAX_CONTENT - clen < sz;
}

size_t cgp_fcgi_request_size(const cgp_fcgi_pair *pairs, size_t n)
{
    size_t total = 0, records = 0, clen = 0;
    int open = 0;

    for (size_t i = 0; i < n; i++) {
        if (!pair_ok(pairs[i].nlen, pairs[i].vlen))
            return 0;
        size_t sz = cgp_fcgi_nv_size(pairs[i].nlen, pairs[i].vlen);
        total += sz;
        if (total > CGP_FCGI_MAX_PARAMS)
            return 0;
        /* the records request_pack's writer opens for it */
        if (params_break(open, clen, sz))
            open = 0;
        while (sz) {
            if (open && clen == CGP_FCGI_MAX_CONTENT)
                open = 0;
            if (!open) {
                records++;
                clen = 0;
                open = 1;
            }
            size_t k = CGP_FCGI_MAX_CONTENT - clen < sz ? CGP_FCGI_MAX_CONTENT - clen : sz;
            clen += k;
            sz -= k;
        }
    }
    return 2 * CGP_FCGI_HDR_LEN + CGP_FCGI_BODY_LEN + records * CGP_FCGI_HDR_LEN + total;
}

/* Writes a byte stream as PARAMS records, opening a new one at each cap. */
struct params_writer {
    unsigned char *out;
    size_t cap, off;
    size_t hdr;      /* offset of the open record's header */
    size_t clen;     /* its content so far */
    int open;
    uint16_t reqid;
};

static void pw_close(struct params_writer *w)
{
    cgp_fcgi_hdr h = { .type = CGP_FCGI_PARAMS, .reqid = w->reqid, .clen = (uint16_t)w->clen };

    if (w->open)
        cgp_fcgi_hdr_pack(w->out + w->hdr, &h);
    w->open = 0;
}

static int pw_put(struct params_writer *w, const void *src, size_t n)
{
    const unsigned char *s = src;

    while (n) {
        if (w->open && w->clen == CGP_FCGI_MAX_CONTENT)
            pw_close(w);
        if (!w->open) {
            if (w->cap - w->off < CGP_FCGI_HDR_LEN)
                return CGP_FCGI_E_SPACE;
            w->hdr = w->off;
            w->off += CGP_FCGI_HDR_LEN;
            w->clen = 0;
            w->open = 1;
        }
        size_t k = CGP_FCGI_MAX_CONTENT - w->clen;
        k = n < k ? n : k;
        if (w->cap - w->off < k)
            return CGP_FCGI_E_SPACE;
        memcpy(w->out + w->off, s, k);
        w->off += k;
        w->clen += k;
        s += k;
        n -= k;
    }
    return CGP_FCGI_OK;
}

int cgp_fcgi_request_pack(unsigned char *out, size_t cap, size_t *len, uint16_t reqid,
                          uint16_t role, uint8_t flags, const cgp_fcgi_pair *pairs, size_t n)
{
    unsigned char body[CGP_FCGI_BODY_LEN], lens[8];
    cgp_fcgi_begin b = { .role = role, .flags = flags };
    struct params_writer w = { .out = out, .cap = cap, .reqid = reqid };
    size_t off = 0, total = 0;
    int rc;

    if (reqid == 0)
        return CGP_FCGI_E_VALUE;
    cgp_fcgi_begin_pack(body, &b);
    if ((rc = cgp_fcgi_record_pack(out, cap, &off, CGP_FCGI_BEGIN_REQUEST, reqid, body,
                                   sizeof body, 0)) != CGP_FCGI_OK)
        return rc;
    w.off = off;
    for (size_t i = 0; i < n; i++) {
        const cgp_fcgi_pair *pr = &pairs[i];

        if (!pair_ok(pr->nlen, pr->vlen))
            return CGP_FCGI_E_LEN;
        total += cgp_fcgi_nv_size(pr->nlen, pr->vlen);
        if (total > CGP_FCGI_MAX_PARAMS)
            return CGP_FCGI_E_LEN;
        size_t nl = (size_t)(put_len(put_len(lens, pr->nlen), pr->vlen) - lens);
        if (params_break(w.open, w.clen, cgp_fcgi_nv_size(pr->nlen, pr->vlen)))
            pw_close(&w);
        if ((rc = pw_put(&w, lens, nl)) != CGP_FCGI_OK ||
            (rc = pw_put(&w, pr->name, pr->nlen)) != CGP_FCGI_OK ||
            (pr->vlen && (rc = pw_put(&w, pr->val, pr->vlen)) != CGP_FCGI_OK))
            return rc;
    }
    pw_close(&w);
    off = w.off;
    if ((rc = cgp_fcgi_record_pack(out, cap, &off, CGP_FCGI_PARAMS, reqid, NULL, 0, 0))
        != CGP_FCGI_OK)
        return rc;
    *len = off;
    return CGP_FCGI_OK;
}

size_t cgp_fcgi_stream_iov(uint8_t type, uint16_t reqid, const void *data, size_t len,
                           unsigned char (*hdrs)[CGP_FCGI_HDR_LEN], size_t nrec,
                           struct iovec *iov, size_t *taken)
{
    const unsigned char *d = data;
    size_t i = 0, off = 0;

    *taken = 0;
    if (nrec == 0)
        return 0;
    if (len == 0) {
        cgp_fcgi_hdr h = { .type = type, .reqid = reqid };
        cgp_fcgi_hdr_pack(hdrs[0], &h);
        iov[0].iov_base = hdrs[0];
        iov[0].iov_len = CGP_FCGI_HDR_LEN;
        return 1;
    }
    for (; off < len && i < nrec; i++) {
        size_t k = len - off < CGP_FCGI_MAX_CONTENT ? len - off : CGP_FCGI_MAX_CONTENT;
        cgp_fcgi_hdr h = { .type = type, .reqid = reqid, .clen = (uint16_t)k };

        cgp_fcgi_hdr_pack(hdrs[i], &h);
        iov[2 * i].iov_base = hdrs[i];
        iov[2 * i].iov_len = CGP_FCGI_HDR_LEN;
        iov[2 * i + 1].iov_base = (void *)(d + off);
        iov[2 * i + 1].iov_len = k;
        off += k;
    }
    *taken = off;
    return 2 * i;
}

void cgp_fcgi_abort_pack(unsigned char out[CGP_FCGI_ABORT_LEN], uint16_t reqid)
{
    cgp_fcgi_hdr h = { .type = CGP_FCGI_ABORT_REQUEST, .reqid = reqid };

    cgp_fcgi_hdr_pack(out, &h);
}

static const char V_MAX_CONNS[] = "FCGI_MAX_CONNS";
static const char V_MAX_REQS[] = "FCGI_MAX_REQS";
static const char V_MPXS_CONNS[] = "FCGI_MPXS_CONNS";

void cgp_fcgi_get_values_pack(unsigned char out[CGP_FCGI_GET_VALUES_LEN])
{
    cgp_fcgi_hdr h = { .type = CGP_FCGI_GET_VALUES,
                       .clen = CGP_FCGI_GET_VALUES_LEN - CGP_FCGI_HDR_LEN };
    size_t off = CGP_FCGI_HDR_LEN;

    cgp_fcgi_hdr_pack(out, &h);
    cgp_fcgi_nv_pack(out, CGP_FCGI_GET_VALUES_LEN, &off, V_MAX_CONNS, sizeof V_MAX_CONNS - 1, "", 0);
    cgp_fcgi_nv_pack(out, CGP_FCGI_GET_VALUES_LEN, &off, V_MAX_REQS, sizeof V_MAX_REQS - 1, "", 0);
    cgp_fcgi_nv_pack(out, CGP_FCGI_GET_VALUES_LEN, &off, V_MPXS_CONNS, sizeof V_MPXS_CONNS - 1, "", 0);
}

int cgp_fcgi_values_add(cgp_fcgi_values *v, const char *name, size_t nlen,
                        const char *val, size_t vlen)
{
    unsigned bit;
    uint32_t *dst, n = 0;

#define IS(s) (nlen == sizeof s - 1 && memcmp(name, s, nlen) == 0)
    if (IS(V_MAX_CONNS)) {
        bit = CGP_FCGI_V_MAX_CONNS;
        dst = &v->max_conns;
    } else if (IS(V_MAX_REQS)) {
        bit = CGP_FCGI_V_MAX_REQS;
        dst = &v->max_reqs;
    } else if (IS(V_MPXS_CONNS)) {
        bit = CGP_FCGI_V_MPXS_CONNS;
        dst = &v->mpxs_conns;
    } else {
        return CGP_FCGI_OK;
    }
#undef IS
    if (vlen == 0 || vlen > 9)
        return CGP_FCGI_E_VALUE;
    for (size_t i = 0; i < vlen; i++) {
        if (val[i] < '0' || val[i] > '9')
            return CGP_FCGI_E_VALUE;
        n = n * 10 + (uint32_t)(val[i] - '0');
    }
    if (bit == CGP_FCGI_V_MPXS_CONNS && n > 1)
        return CGP_FCGI_E_VALUE;
    *dst = n;
    v->have |= bit;
    return CGP_FCGI_OK;
}
