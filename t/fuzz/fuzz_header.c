/* fuzz_header.c: libFuzzer target for the module's check of a script's CGI
 * header lines (header_check in mod_cgiplus/cgiplus_header.c), which stands
 * between a script's bytes and httpd's header scanner. The file is included
 * so its static checker can be called; the httpd functions it refers to
 * elsewhere are stubs that are never reached. Every line the checker lets
 * through must be one httpd's scanner reads as exactly one header: a name
 * of token characters, a colon, no line end, NUL or other control bytes
 * but tab, not folded, not longer than the scanner's buffer. Served as
 * mod_cgi (CGIplusCompat, engines) only the colon, no NUL and the length
 * are the module's to check: httpd judges the rest, as under mod_cgi. */
#include "../../mod_cgiplus/cgiplus_header.c"

#include <stdint.h>
#include <stdlib.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

module AP_MODULE_DECLARE_DATA cgiplus_module;

int ap_scan_script_header_err_core_ex(request_rec *r, char *buffer,
                                      int (*getsfunc)(char *, int, void *),
                                      void *getsfunc_data, int module_index)
{
    (void)r; (void)buffer; (void)getsfunc; (void)getsfunc_data; (void)module_index;
    abort(); /* not reached: only header_check is driven */
}

apr_status_t cgiplus_req_read(cgiplus_req *q)
{
    (void)q;
    abort();
}

/* The settings (cgiplus_conf.c): the limit and the directive, not driven. */
apr_int64_t cgiplus_conf_geti(const cgiplus_dir_conf *dc, cgp_setting_id id)
{
    (void)dc; (void)id;
    abort();
}

const char *cgiplus_conf_store(cmd_parms *cmd, void *dcv, cgp_setting_id id, apr_int64_t n,
                               const void *p)
{
    (void)cmd; (void)dcv; (void)id; (void)n; (void)p;
    abort();
}

/* Reached only from the nph check, which is not driven here. */
apr_status_t apr_brigade_flatten(apr_bucket_brigade *bb, char *c, apr_size_t *len)
{
    (void)bb; (void)c; (void)len;
    abort();
}

char *ap_escape_logitem(apr_pool_t *p, const char *str)
{
    (void)p; (void)str;
    abort();
}

static apr_pool_t *pool;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    return 0;
}

static int tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    const char *s = (const char *)d;
    size_t start = 0, i;

    /* As cgiplus_header_scan: lines split at '\n', a '\r' before it dropped,
     * empty lines not checked. */
    for (i = 0; i <= n; i++) {
        size_t l;
        const char *why, *colon;

        if (i < n && s[i] != '\n')
            continue;
        l = i - start;
        if (l > 0 && s[start + l - 1] == '\r')
            l--;
        if (l > 0) {
            /* served as mod_cgi: httpd's scanner and header filter judge
             * names and values; only a colon, no NUL and the length here */
            why = header_check(pool, s + start, l, 1);
            if (!why)
                CHECK(l <= HDR_LINE_MAX && memchr(s + start, ':', l) &&
                      !memchr(s + start, '\0', l));
            why = header_check(pool, s + start, l, 0);
            if (why) {
                CHECK(strlen(why) > 0);
            } else {
                colon = memchr(s + start, ':', l);
                CHECK(l <= HDR_LINE_MAX && colon && colon > s + start);
                for (const char *p = s + start; p < colon; p++)
                    CHECK(tchar((unsigned char)*p));
                for (const char *p = colon + 1; p < s + start + l; p++)
                    CHECK(*p == '\t' || ((unsigned char)*p >= 0x20 && *p != 0x7f));
            }
        }
        start = i + 1;
    }
    apr_pool_clear(pool);
    return 0;
}
