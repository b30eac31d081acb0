/* mod_bench_hello.c: the same hello as an in-process httpd handler
 * ("SetHandler bench-hello"), the upper bound for any out-of-process design.
 * Answers QUERY_STRING bytes of 'x' (0 to 1 MiB). */
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_protocol.h"
#include "ap_mmn.h"

#define BODY_MAX (1024 * 1024)

/* Filled once at child start; read-only afterwards, so threads share it. */
static char bench_body[BODY_MAX];

static int bench_hello_handler(request_rec *r)
{
    long n;

    if (!r->handler || strcmp(r->handler, "bench-hello"))
        return DECLINED;
    n = r->args ? strtol(r->args, NULL, 10) : 0;
    n = n <= 0 ? 0 : n > BODY_MAX ? BODY_MAX : n;
    ap_set_content_type(r, "text/plain");
    if (r->header_only || n == 0)
        return OK;
    ap_rwrite(bench_body, (int)n, r);
    return OK;
}

static void bench_hello_child_init(apr_pool_t *p, server_rec *s)
{
    (void)p;
    (void)s;
    memset(bench_body, 'x', sizeof bench_body);
}

static void bench_hello_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_child_init(bench_hello_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(bench_hello_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

module AP_MODULE_DECLARE_DATA bench_hello_module = {
    STANDARD20_MODULE_STUFF, NULL, NULL, NULL, NULL, NULL, bench_hello_hooks
#ifdef AP_MODULE_FLAG_NONE
    , AP_MODULE_FLAG_NONE
#endif
};
