/* cgp_records.c: reading one request's records off CGIPLUSIN and building
 * the request's environment array. No stdio and no globals: libcgiplus
 * injects read(2), the unit tests and the fuzz target inject memory. */
#include "cgp_records.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Refills an empty buffer: >0 bytes, 0 at end of file, -1 with errno. */
static int rd_fill(cgp_rd *rd)
{
    ssize_t r;

    rd->pos = rd->end = 0;
    do
        r = rd->fn(rd->ctx, rd->buf, sizeof rd->buf);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    if ((size_t)r > sizeof rd->buf) {
        errno = EIO;
        return -1;
    }
    rd->end = (size_t)r;
    return r > 0;
}

int cgp_rd_line(cgp_rd *rd, cgp_buf *out, size_t max)
{
    size_t got = 0;
    int any = 0, over = 0;

    for (;;) {
        if (rd->pos == rd->end) {
            int f = rd_fill(rd);
            if (f < 0)
                return -1;
            if (f == 0) {
                if (!any)
                    return 0;
                errno = EPROTO;
                return -1;
            }
        }
        unsigned char *s = rd->buf + rd->pos;
        size_t avail = rd->end - rd->pos;
        unsigned char *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) : avail;

        any = 1;
        if (!over && take > max - got)
            over = 1;   /* keep reading to the newline, keep nothing */
        if (!over) {
            /* +1: room for the NUL the caller may add */
            if (cgp_buf_reserve(out, take + 1) < 0)
                return -1;
            memcpy(out->p + out->len, s, take);
            out->len += take;
            got += take;
        }
        rd->pos += take + (nl != NULL);
        if (nl) {
            if (over) {
                errno = EMSGSIZE;
                return -1;
            }
            return 1;
        }
    }
}

int cgp_rd_exact(cgp_rd *rd, void *dst, size_t n)
{
    unsigned char *d = dst;
    size_t have = rd->end - rd->pos;
    size_t take = have < n ? have : n;

    if (take) {
        memcpy(d, rd->buf + rd->pos, take);
        rd->pos += take;
    }
    /* Past the buffer, read straight into dst so nothing beyond n is read. */
    while (take < n) {
        ssize_t r = rd->fn(rd->ctx, d + take, n - take);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0) {
            errno = EPROTO;
            return -1;
        }
        if ((size_t)r > n - take) {
            errno = EIO;
            return -1;
        }
        take += (size_t)r;
    }
    return 1;
}

int cgp_rec_sync(const char *line, size_t len, size_t *n)
{
    if (len == 1 && line[0] == '!')
        return 0;
    if (len < 3 || line[0] != '!' || line[1] != '!')
        return CGP_E_VALUE;
    size_t v = 0;
    for (size_t i = 2; i < len; i++) {
        if (line[i] < '0' || line[i] > '9')
            return CGP_E_VALUE;
        v = v * 10 + (size_t)(line[i] - '0');
        if (v > CGP_REC_MAX_BLOCK)
            return CGP_E_LEN;
    }
    if (v < 2)                  /* not even the terminator */
        return CGP_E_LEN;
    *n = v;
    return 1;
}

int cgp_rec_check(const char *entry, size_t len)
{
    const char *eq = memchr(entry, '=', len);

    if (!eq || eq == entry || memchr(entry, '\0', len))
        return CGP_E_VALUE;
    if (eq - entry > INT_MAX)
        return CGP_E_LEN;
    return (int)(eq - entry);
}

static int pem_name(const char *e, size_t nlen)
{
    size_t i;

    while (nlen > 9 && !memcmp(e, "REDIRECT_", 9)) { /* an internal redirect's copy */
        e += 9;
        nlen -= 9;
    }
    if (nlen < 15 || (memcmp(e, "SSL_CLIENT_CERT", 15) && memcmp(e, "SSL_SERVER_CERT", 15)))
        return 0;
    if (nlen == 15)
        return 1;
    if (nlen < 23 || memcmp(e + 15, "_CHAIN_", 7))
        return 0;
    for (i = 22; i < nlen; i++)
        if (e[i] < '0' || e[i] > '9')
            return 0;
    return 1;
}

void cgp_rec_pem(char *e, size_t len, size_t nlen)
{
    static const char beg[] = "-----BEGIN CERTIFICATE----- ", end[] = " -----END CERTIFICATE-----";
    const size_t bl = sizeof(beg) - 1, el = sizeof(end) - 1;
    char *v = e + nlen + 1;
    size_t vl = len - nlen - 1, trail, i;

    if (nlen >= len || !pem_name(e, nlen))
        return;
    trail = vl > 0 && v[vl - 1] == ' ';
    if (vl < bl + el + trail + 1 || memcmp(v, beg, bl) || memcmp(v + vl - trail - el, end, el))
        return;
    for (i = bl; i < vl - trail - el; i++)
        if (v[i] != ' ' && v[i] != '+' && v[i] != '/' && v[i] != '=' &&
            !(v[i] >= 'A' && v[i] <= 'Z') && !(v[i] >= 'a' && v[i] <= 'z') &&
            !(v[i] >= '0' && v[i] <= '9'))
            return;
    for (i = bl - 1; i <= vl - trail - el; i++)
        if (v[i] == ' ')
            v[i] = '\n';
    if (trail)
        v[vl - 1] = '\n';
}

/* Records the entry just appended at arena[start..len) and NUL-ends it. */
static int vars_push(cgp_vars *v, size_t start)
{
    if (v->n == v->ncap) {
        size_t ncap = v->ncap ? v->ncap * 2 : 64;
        size_t *off = realloc(v->off, ncap * sizeof *off);
        if (!off)
            return -1;
        v->off = off;
        v->ncap = ncap;
    }
    if (cgp_buf_reserve(&v->arena, 1) < 0)
        return -1;
    v->arena.p[v->arena.len++] = '\0';
    v->off[v->n++] = start;
    return 0;
}

/* Maps a reader failure to its reason. */
static int rd_why(void)
{
    switch (errno) {
    case EPROTO:   return CGP_RQ_TRUNC;
    case EMSGSIZE: return CGP_RQ_SIZE;
    case ENOMEM:   return CGP_RQ_NOMEM;
    default:       return CGP_RQ_READ;
    }
}

static int read_records(cgp_rd *rd, cgp_vars *v, int *why)
{
    for (;;) {
        size_t start = v->arena.len;
        int rc = cgp_rd_line(rd, &v->arena, CGP_REC_MAX_LINE);
        if (rc == 0) {
            errno = EPROTO;
            *why = CGP_RQ_TRUNC;
            return -1;
        }
        if (rc < 0) {
            *why = rd_why();
            return -1;
        }
        size_t len = v->arena.len - start;
        if (len == 0)
            return 1;
        if (v->arena.len > CGP_REC_MAX_BLOCK) {
            errno = EMSGSIZE;
            *why = CGP_RQ_SIZE;
            return -1;
        }
        int nlen = cgp_rec_check((const char *)v->arena.p + start, len);
        if (nlen < 0) {
            errno = EPROTO;
            *why = CGP_RQ_RECORD;
            return -1;
        }
        cgp_rec_pem((char *)v->arena.p + start, len, (size_t)nlen);
        if (vars_push(v, start) < 0) {
            *why = CGP_RQ_NOMEM;
            return -1;
        }
    }
}

static int read_struct(cgp_rd *rd, cgp_vars *v, size_t n, int *why)
{
    const char *e;
    size_t elen, off = 0;
    int rc;

    v->raw.len = 0;
    if (cgp_buf_reserve(&v->raw, n) < 0) {
        *why = CGP_RQ_NOMEM;
        return -1;
    }
    if (cgp_rd_exact(rd, v->raw.p, n) < 0) {
        *why = rd_why();
        return -1;
    }
    v->raw.len = n;
    while ((rc = cgp_struct_next(v->raw.p, n, &off,
                                 &e, &elen)) == 1) {
        if (cgp_rec_check(e, elen) < 0)
            goto bad;
        size_t start = v->arena.len;
        if (cgp_buf_reserve(&v->arena, elen) < 0) {
            *why = CGP_RQ_NOMEM;
            return -1;
        }
        memcpy(v->arena.p + start, e, elen);
        v->arena.len += elen;
        if (vars_push(v, start) < 0) {
            *why = CGP_RQ_NOMEM;
            return -1;
        }
    }
    if (rc < 0 || off != n)     /* truncated entry, or bytes after the 0 */
        goto bad;
    return 1;
bad:
    errno = EPROTO;
    *why = CGP_RQ_RECORD;
    return -1;
}

int cgp_req_read(cgp_rd *rd, cgp_vars *v, int *why)
{
    size_t n = 0;
    int rc, mode;

    v->arena.len = 0;
    v->n = 0;
    rc = cgp_rd_line(rd, &v->arena, CGP_REC_MAX_SYNC);
    if (rc == 0)
        return 0;               /* the runner closed the channel: clean end */
    if (rc < 0) {
        *why = errno == EMSGSIZE ? CGP_RQ_SYNC : rd_why();
        if (*why == CGP_RQ_SYNC)
            errno = EPROTO;
        return -1;
    }
    mode = cgp_rec_sync((const char *)v->arena.p, v->arena.len, &n);
    v->arena.len = 0;
    if (mode < 0) {
        errno = EPROTO;
        *why = CGP_RQ_SYNC;
        return -1;
    }
    return mode == 0 ? read_records(rd, v, why) : read_struct(rd, v, n, why);
}

/* Compares the names of two "NAME=value" strings ('=' or NUL ends a name). */
static int name_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = *a == '=' ? 0u : (unsigned char)*a;
        unsigned cb = *b == '=' ? 0u : (unsigned char)*b;
        if (ca != cb)
            return ca < cb ? -1 : 1;
        if (ca == 0)
            return 0;
    }
}

/* FNV-1a of a "NAME=value" string's name ('=' or NUL ends it). */
static size_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s && *s != '='; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of name in the table: the one holding it, or the free one
 * where it would go. Names come from at most LimitRequestFields headers
 * and the configuration, so even colliding names probe a few hundred
 * slots. */
static size_t *name_slot(const cgp_vars *v, const char *name)
{
    size_t mask = v->scap - 1, i = name_hash(name) & mask;

    while (v->slot[i] && name_cmp(v->vec[v->slot[i] - 1], name) != 0)
        i = (i + 1) & mask;
    return &v->slot[i];
}

int cgp_vars_merge(cgp_vars *v, char *const *base)
{
    size_t nb = 0, m = 0, j;

    while (base && base[nb])
        nb++;
    if (nb > (SIZE_MAX / sizeof(char *)) - 1 - v->n || v->n > SIZE_MAX / 4 / sizeof(size_t)) {
        errno = ENOMEM;
        return -1;
    }
    size_t need = v->n + nb + 1;
    if (need > v->vcap) {
        char **vec = realloc(v->vec, need * sizeof *vec);
        if (!vec)
            return -1;
        v->vec = vec;
        v->vcap = need;
    }
    /* a table at most half full: a hash per name instead of sorting them
     * (the sort was a third of a C hello worker's time a request) */
    size_t scap = v->scap ? v->scap : 64;
    while (scap < 2 * v->n)
        scap *= 2;
    if (scap != v->scap) {
        size_t *slot = realloc(v->slot, scap * sizeof *slot);
        if (!slot)
            return -1;
        v->slot = slot;
        v->scap = scap;
    }
    memset(v->slot, 0, v->scap * sizeof *v->slot);
    for (size_t i = 0; i < v->n; i++) {
        char *e = (char *)v->arena.p + v->off[i];
        size_t *sl = name_slot(v, e);
        if (*sl)
            v->vec[*sl - 1] = e; /* a later entry of the same name wins */
        else {
            v->vec[m] = e;
            *sl = ++m;
        }
    }
    j = m;
    for (size_t i = 0; i < nb; i++)
        if (!*name_slot(v, base[i]))
            v->vec[j++] = base[i];
    v->vec[j] = NULL;
    return 0;
}

void cgp_vars_free(cgp_vars *v)
{
    cgp_buf_free(&v->arena);
    cgp_buf_free(&v->raw);
    free(v->off);
    free(v->vec);
    free(v->slot);
    memset(v, 0, sizeof *v);
}
