/* cgiplus_direct_record.c: the request record a direct request writes to
 * the worker's CGIPLUSIN, in record or struct mode (docs/PROTOCOL.md). */
#include "cgiplus_direct_private.h"

#include <string.h>

#include "apr_strings.h"

/* Record mode: "!", NAME=value lines (CR, LF, NUL as spaces), the exact
 * CONTENT_LENGTH (none for q->cl_cgi without a body), an empty line.
 * Struct mode: "!!N" and entries. Names are httpd's conversion's
 * (cgiplus_env.c: letters, digits and '_'), so no '=', CR or LF; only
 * CONTENT_LENGTH is replaced. */
static int direct_name_ok(const cgiplus_kv *kv)
{
    return kv->nlen != 0 && !(kv->nlen == 14 && !memcmp(kv->name, "CONTENT_LENGTH", 14));
}

/* Copies a value (NUL-terminated at vlen, so no NUL within) with CR and LF
 * as spaces, a run at a time. */
static apr_size_t direct_value_copy(unsigned char *dst, const cgiplus_kv *kv)
{
    const char *v = kv->val, *e = kv->val + kv->vlen;
    unsigned char *d = dst;

    while (v < e) {
        apr_size_t run = strcspn(v, "\r\n");

        memcpy(d, v, run);
        d += run;
        v += run;
        if (v < e) {
            *d++ = ' ';
            v++;
        }
    }
    return (apr_size_t)(d - dst);
}

apr_status_t cgiplus_direct_record(cgiplus_req *q, int struct_mode, apr_size_t cl)
{
    cgiplus_direct *x = direct_x(q);
    char clv[48];
    apr_size_t total = 0, off = 0, i, k;
    /* none for a mod_cgi-like request without a length or a body (cl_cgi) */
    int cll = q->cl_cgi && cl == 0 ? 0
              : apr_snprintf(clv, sizeof(clv), "CONTENT_LENGTH=%" APR_SIZE_T_FMT, cl);
    unsigned char *p;

    for (i = 0; i < (apr_size_t)q->nparams; i++)
        if (direct_name_ok(&q->params[i]))
            total += q->params[i].nlen + q->params[i].vlen + 3;
    total += (apr_size_t)cll + 32;
    x->in_cap = total + 1024;
    x->in = apr_palloc(q->r->pool, x->in_cap);
    p = (unsigned char *)x->in;
    if (!struct_mode) {
        memcpy(p, "!\n", 2);
        off = 2;
        for (i = 0; i < (apr_size_t)q->nparams; i++) {
            const cgiplus_kv *kv = &q->params[i];

            if (!direct_name_ok(kv))
                continue;
            memcpy(p + off, kv->name, kv->nlen);
            off += kv->nlen;
            p[off++] = '=';
            off += direct_value_copy(p + off, kv);
            p[off++] = '\n';
        }
        if (cll) {
            memcpy(p + off, clv, (apr_size_t)cll);
            off += (apr_size_t)cll;
            p[off++] = '\n';
        }
        p[off++] = '\n';
    }
    else {
        apr_size_t n = 2 + (cll ? 2 + (apr_size_t)cll : 0), body, emax = 1;
        char *e;
        int hl;

        for (i = 0; i < (apr_size_t)q->nparams; i++) {
            apr_size_t el = q->params[i].nlen + 1 + q->params[i].vlen;

            if (direct_name_ok(&q->params[i]) && el <= 0xffff) {
                n += 2 + el;
                emax = el > emax ? el : emax;
            }
        }
        hl = apr_snprintf((char *)p, 32, "!!%" APR_SIZE_T_FMT "\n", n);
        off = (apr_size_t)hl;
        body = off;
        e = apr_palloc(q->r->pool, emax); /* the longest entry, not 64 KiB a request */
        for (i = 0; i < (apr_size_t)q->nparams; i++) {
            const cgiplus_kv *kv = &q->params[i];
            apr_size_t o = 0, el = kv->nlen + 1 + kv->vlen;

            if (!direct_name_ok(kv) || el > 0xffff)
                continue;
            memcpy(e, kv->name, kv->nlen);
            e[kv->nlen] = '=';
            for (k = 0; k < kv->vlen; k++)
                e[kv->nlen + 1 + k] = kv->val[k] == '\0' ? ' ' : kv->val[k];
            if (cgp_struct_pack(p + off, x->in_cap - off, &o, e, el) != CGP_OK)
                return APR_EINVAL;
            off += o;
        }
        {
            apr_size_t o = 0;

            if (cll && cgp_struct_pack(p + off, x->in_cap - off, &o, clv, (apr_size_t)cll) != CGP_OK)
                return APR_EINVAL;
            off += o;
            o = 0;
            if (cgp_struct_end(p + off, x->in_cap - off, &o) != CGP_OK)
                return APR_EINVAL;
            off += o;
        }
        if (off - body != n)
            return APR_EINVAL;
    }
    x->in_len = off;
    x->in_off = 0;
    return APR_SUCCESS;
}
