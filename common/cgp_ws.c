/* cgp_ws.c: the WebSocket codec (RFC 6455) for the server's side. No I/O, no
 * allocation: the caller owns every buffer. */
#include "cgp_ws.h"
#include "cgp_sha1.h"

#include <string.h>

enum { S_HDR = 0, S_PAYLOAD, S_CLOSED, S_FAILED };

/* ------------------------------------------------------------ handshake */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_val(char c)
{
    const char *p = c ? strchr(B64, c) : NULL;

    return p ? (int)(p - B64) : -1;
}

int cgp_ws_key_valid(const char *key, size_t len)
{
    if (len != CGP_WS_KEY_LEN || key[22] != '=' || key[23] != '=')
        return 0;
    for (size_t i = 0; i < 22; i++)
        if (b64_val(key[i]) < 0)
            return 0;
    /* 22 digits carry 132 bits: the last digit's low 4 are not data */
    return (b64_val(key[21]) & 0x0f) == 0;
}

int cgp_ws_accept(const char *key, size_t len, char out[CGP_WS_ACCEPT_LEN + 1])
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    unsigned char d[CGP_SHA1_LEN + 1];
    cgp_sha1 s;
    char *o = out;

    if (!cgp_ws_key_valid(key, len))
        return -1;
    cgp_sha1_init(&s);
    cgp_sha1_update(&s, key, len);
    cgp_sha1_update(&s, guid, sizeof guid - 1);
    cgp_sha1_final(&s, d);
    d[CGP_SHA1_LEN] = 0;
    for (size_t i = 0; i < CGP_SHA1_LEN; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 |
                     (i + 2 < CGP_SHA1_LEN ? d[i + 2] : 0);
        *o++ = B64[v >> 18 & 63];
        *o++ = B64[v >> 12 & 63];
        *o++ = B64[v >> 6 & 63];
        *o++ = i + 2 < CGP_SHA1_LEN ? B64[v & 63] : '=';
    }
    *o = '\0';
    return 0;
}

static int lc(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

int cgp_ws_token_has(const char *list, size_t len, const char *token)
{
    size_t tl = strlen(token), i = 0;

    while (i < len) {
        size_t s, e;

        while (i < len && (list[i] == ' ' || list[i] == '\t'))
            i++;
        s = i;
        while (i < len && list[i] != ',')
            i++;
        e = i;
        while (e > s && (list[e - 1] == ' ' || list[e - 1] == '\t'))
            e--;
        if (e - s == tl) {
            size_t k = 0;
            while (k < tl && lc((unsigned char)list[s + k]) == lc((unsigned char)token[k]))
                k++;
            if (k == tl)
                return 1;
        }
        i++;  /* past the comma */
    }
    return 0;
}

/* ------------------------------------------------------------ UTF-8 */

#define U_BAD 0xff

void cgp_utf8_init(cgp_utf8 *u)
{
    u->need = 0;
    u->lo = 0x80;
    u->hi = 0xbf;
}

int cgp_utf8_feed(cgp_utf8 *u, const unsigned char *p, size_t n)
{
    size_t i = 0;

    if (u->need == U_BAD)
        return 0;
    while (i < n) {
        unsigned char b = p[i];

        if (u->need == 0) {
            /* ASCII runs, 8 bytes at a time */
            if (b < 0x80) {
                uint64_t w;
                i++;
                while (n - i >= 8) {
                    memcpy(&w, p + i, 8);
                    if (w & 0x8080808080808080ull)
                        break;
                    i += 8;
                }
                continue;
            }
            u->lo = 0x80;
            u->hi = 0xbf;
            if (b >= 0xc2 && b <= 0xdf) {
                u->need = 1;
            } else if (b >= 0xe0 && b <= 0xef) {
                u->need = 2;
                if (b == 0xe0)
                    u->lo = 0xa0;  /* overlong below U+0800 */
                else if (b == 0xed)
                    u->hi = 0x9f;  /* surrogates U+D800..U+DFFF */
            } else if (b >= 0xf0 && b <= 0xf4) {
                u->need = 3;
                if (b == 0xf0)
                    u->lo = 0x90;  /* overlong below U+10000 */
                else if (b == 0xf4)
                    u->hi = 0x8f;  /* past U+10FFFF */
            } else {
                u->need = U_BAD;  /* continuation, C0/C1 (overlong), F5..FF */
                return 0;
            }
        } else {
            if (b < u->lo || b > u->hi) {
                u->need = U_BAD;
                return 0;
            }
            u->need--;
            u->lo = 0x80;
            u->hi = 0xbf;
        }
        i++;
    }
    return 1;
}

int cgp_utf8_complete(const cgp_utf8 *u)
{
    return u->need == 0;
}

int cgp_utf8_valid(const unsigned char *p, size_t n)
{
    cgp_utf8 u;

    cgp_utf8_init(&u);
    return cgp_utf8_feed(&u, p, n) && cgp_utf8_complete(&u);
}

/* ------------------------------------------------------------ the frame parser */

void cgp_ws_parser_init(cgp_ws_parser *p, uint64_t max_message)
{
    memset(p, 0, sizeof *p);
    p->max_message = max_message;
    p->state = S_HDR;
}

static int fail(cgp_ws_parser *p, cgp_ws_event *ev, unsigned code, const char *why)
{
    p->state = S_FAILED;
    p->err = (uint16_t)code;
    p->why = why;
    memset(ev, 0, sizeof *ev);
    ev->code = p->err;
    ev->why = why;
    return CGP_WS_ERROR;
}

int cgp_ws_close_code_ok(unsigned code)
{
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

/* Header bytes this frame needs, from its first two. */
static unsigned hdr_need(const cgp_ws_parser *p)
{
    unsigned l7 = p->hdr[1] & 0x7f;

    return 2 + (l7 == 126 ? 2 : l7 == 127 ? 8 : 0) + 4;
}

/* The first two bytes: everything RFC 6455 section 5 lets us check early. */
static int check_start(cgp_ws_parser *p, cgp_ws_event *ev)
{
    unsigned b0 = p->hdr[0], b1 = p->hdr[1], op = b0 & 0x0f;

    p->fin = (uint8_t)(b0 >> 7);
    p->opcode = (uint8_t)op;
    if (b0 & 0x70)
        return fail(p, ev, CGP_WS_PROTOCOL, "reserved bit set, no extension negotiated");
    if ((op > CGP_WS_BINARY && op < CGP_WS_CLOSE) || op > CGP_WS_PONG)
        return fail(p, ev, CGP_WS_PROTOCOL, "reserved opcode");
    if (!(b1 & 0x80))
        return fail(p, ev, CGP_WS_PROTOCOL, "client frame not masked");
    if (op >= CGP_WS_CLOSE) {
        if (!p->fin)
            return fail(p, ev, CGP_WS_PROTOCOL, "fragmented control frame");
        if ((b1 & 0x7f) > CGP_WS_MAX_CONTROL)
            return fail(p, ev, CGP_WS_PROTOCOL, "control frame over 125 bytes");
    } else if (op == CGP_WS_CONT && !p->msg) {
        return fail(p, ev, CGP_WS_PROTOCOL, "continuation frame without a message");
    } else if (op != CGP_WS_CONT && p->msg) {
        return fail(p, ev, CGP_WS_PROTOCOL, "new data frame inside a fragmented message");
    }
    return 0;
}

/* The whole header: length (minimal encoding), mask, the message cap. */
static int check_hdr(cgp_ws_parser *p, cgp_ws_event *ev)
{
    unsigned l7 = p->hdr[1] & 0x7f, m = 2;
    uint64_t n = l7;

    if (l7 == 126) {
        n = (uint64_t)p->hdr[2] << 8 | p->hdr[3];
        m = 4;
        if (n < 126)
            return fail(p, ev, CGP_WS_PROTOCOL, "length not in its minimal encoding");
    } else if (l7 == 127) {
        n = 0;
        for (unsigned i = 2; i < 10; i++)
            n = n << 8 | p->hdr[i];
        m = 10;
        if (n >> 63)
            return fail(p, ev, CGP_WS_PROTOCOL, "64-bit length with its high bit set");
        if (n <= 0xffff)
            return fail(p, ev, CGP_WS_PROTOCOL, "length not in its minimal encoding");
    }
    p->plen = n;
    p->done = 0;
    memcpy(p->mask, p->hdr + m, 4);
    if (p->opcode < CGP_WS_CLOSE) {
        if (p->opcode != CGP_WS_CONT) {
            p->msg = p->opcode;
            p->msg_len = 0;
            cgp_utf8_init(&p->utf8);
        }
        if (n > p->max_message - p->msg_len)
            return fail(p, ev, CGP_WS_TOO_BIG, "message over the size cap");
        p->msg_len += n;
    }
    return 0;
}

static int control_done(cgp_ws_parser *p, cgp_ws_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->opcode = p->opcode;
    ev->fin = 1;
    ev->data = p->ctl;
    ev->len = (size_t)p->plen;
    p->state = S_HDR;
    p->hlen = 0;
    if (p->opcode != CGP_WS_CLOSE)
        return CGP_WS_CONTROL;
    ev->code = CGP_WS_NO_STATUS;
    if (p->plen == 1)
        return fail(p, ev, CGP_WS_PROTOCOL, "close frame with a 1-byte payload");
    if (p->plen >= 2) {
        unsigned code = (unsigned)p->ctl[0] << 8 | p->ctl[1];
        if (!cgp_ws_close_code_ok(code))
            return fail(p, ev, CGP_WS_PROTOCOL, "close frame with an invalid code");
        if (!cgp_utf8_valid(p->ctl + 2, (size_t)p->plen - 2))
            return fail(p, ev, CGP_WS_INVALID_DATA, "close reason not UTF-8");
        ev->code = (uint16_t)code;
        ev->reason = (const char *)p->ctl + 2;
        ev->rlen = (size_t)p->plen - 2;
    }
    p->state = S_CLOSED;
    return CGP_WS_CONTROL;
}

/* A data frame's payload is all read: the message ends if the frame is final. */
static int data_end(cgp_ws_parser *p, cgp_ws_event *ev)
{
    p->state = S_HDR;
    p->hlen = 0;
    if (!p->fin)
        return 0;
    if (p->msg == CGP_WS_TEXT && !cgp_utf8_complete(&p->utf8))
        return fail(p, ev, CGP_WS_INVALID_DATA, "text message ends inside a UTF-8 sequence");
    ev->fin = 1;
    p->msg = 0;
    return 1;
}

int cgp_ws_parse(cgp_ws_parser *p, unsigned char *buf, size_t len, size_t *pos,
                 cgp_ws_event *ev)
{
    for (;;) {
        size_t avail = len - *pos, k;

        switch (p->state) {
        case S_FAILED:
            return fail(p, ev, p->err, p->why);
        case S_CLOSED:
            *pos = len;
            return CGP_WS_MORE;
        case S_HDR: {
            unsigned need = p->hlen < 2 ? 2 : hdr_need(p);
            k = need - p->hlen < avail ? need - p->hlen : avail;
            memcpy(p->hdr + p->hlen, buf + *pos, k);
            *pos += k;
            p->hlen = (uint8_t)(p->hlen + k);
            if (p->hlen < need)
                return CGP_WS_MORE;
            if (need == 2) {
                if (check_start(p, ev) < 0)
                    return CGP_WS_ERROR;
                break;  /* then the rest of the header */
            }
            if (check_hdr(p, ev) < 0)
                return CGP_WS_ERROR;
            p->state = S_PAYLOAD;
            if (p->plen == 0) {
                if (p->opcode >= CGP_WS_CLOSE)
                    return control_done(p, ev);
                memset(ev, 0, sizeof *ev);
                ev->opcode = p->msg;
                ev->data = buf + *pos;
                int end = data_end(p, ev);
                if (end != 0)
                    return end < 0 ? CGP_WS_ERROR : CGP_WS_DATA;
            }
            break;
        }
        default: /* S_PAYLOAD */
            k = p->plen - p->done < avail ? (size_t)(p->plen - p->done) : avail;
            if (k == 0)
                return CGP_WS_MORE;
            if (p->opcode >= CGP_WS_CLOSE) {
                memcpy(p->ctl + p->done, buf + *pos, k);
                cgp_ws_mask(p->ctl + p->done, k, p->mask, p->done);
                p->done += k;
                *pos += k;
                if (p->done < p->plen)
                    return CGP_WS_MORE;
                return control_done(p, ev);
            }
            cgp_ws_mask(buf + *pos, k, p->mask, p->done);
            if (p->msg == CGP_WS_TEXT && !cgp_utf8_feed(&p->utf8, buf + *pos, k))
                return fail(p, ev, CGP_WS_INVALID_DATA, "text message not UTF-8");
            memset(ev, 0, sizeof *ev);
            ev->opcode = p->msg;
            ev->data = buf + *pos;
            ev->len = k;
            p->done += k;
            *pos += k;
            if (p->done == p->plen && data_end(p, ev) < 0)
                return CGP_WS_ERROR;
            return CGP_WS_DATA;
        }
    }
}

/* ------------------------------------------------------------ reassembly */

void cgp_ws_msg_init(cgp_ws_msg *m, unsigned char *buf, size_t cap)
{
    memset(m, 0, sizeof *m);
    m->buf = buf;
    m->cap = buf ? cap : 0;
}

int cgp_ws_msg_add(cgp_ws_msg *m, const cgp_ws_event *ev)
{
    if (m->complete) {
        m->len = 0;
        m->complete = 0;
    }
    if (ev->len > m->cap - m->len)
        return CGP_WS_ERROR;
    if (ev->len)
        memcpy(m->buf + m->len, ev->data, ev->len);
    m->len += ev->len;
    m->opcode = ev->opcode;
    m->complete = ev->fin;
    return m->complete;
}

/* ------------------------------------------------------------ writing frames */

size_t cgp_ws_frame_hdr(unsigned char out[CGP_WS_HDR_MAX], int fin, unsigned opcode,
                        uint64_t len, const unsigned char *mask)
{
    size_t n = 2;

    if ((opcode > CGP_WS_BINARY && opcode < CGP_WS_CLOSE) || opcode > CGP_WS_PONG)
        return 0;
    if (opcode >= CGP_WS_CLOSE && (!fin || len > CGP_WS_MAX_CONTROL))
        return 0;
    if (len >> 63)
        return 0;
    out[0] = (unsigned char)((fin ? 0x80 : 0) | opcode);
    if (len < 126) {
        out[1] = (unsigned char)len;
    } else if (len <= 0xffff) {
        out[1] = 126;
        out[2] = (unsigned char)(len >> 8);
        out[3] = (unsigned char)len;
        n = 4;
    } else {
        out[1] = 127;
        for (unsigned i = 0; i < 8; i++)
            out[2 + i] = (unsigned char)(len >> (56 - 8 * i));
        n = 10;
    }
    if (mask) {
        out[1] |= 0x80;
        memcpy(out + n, mask, 4);
        n += 4;
    }
    return n;
}

void cgp_ws_mask(unsigned char *p, size_t n, const unsigned char mask[4], uint64_t offset)
{
    unsigned char m[8];
    size_t i = 0;
    uint64_t w, mw;

    for (unsigned j = 0; j < 8; j++)
        m[j] = mask[(offset + j) & 3];
    memcpy(&mw, m, 8);
    for (; n - i >= 8; i += 8) {  /* 8 bytes at a time: the mask repeats every 4 */
        memcpy(&w, p + i, 8);
        w ^= mw;
        memcpy(p + i, &w, 8);
    }
    for (; i < n; i++)
        p[i] ^= m[i & 7];
}

size_t cgp_ws_close_frame(unsigned char out[CGP_WS_CLOSE_MAX], unsigned code,
                          const char *reason, size_t rlen)
{
    if (code == 0) {
        if (rlen)
            return 0;
    } else if (!cgp_ws_close_code_ok(code) || rlen > CGP_WS_MAX_CONTROL - 2 ||
               !cgp_utf8_valid((const unsigned char *)reason, rlen)) {
        return 0;
    }
    size_t plen = code ? 2 + rlen : 0;
    out[0] = 0x80 | CGP_WS_CLOSE;
    out[1] = (unsigned char)plen;
    if (code) {
        out[2] = (unsigned char)(code >> 8);
        out[3] = (unsigned char)code;
        if (rlen)
            memcpy(out + 4, reason, rlen);
    }
    return 2 + plen;
}
