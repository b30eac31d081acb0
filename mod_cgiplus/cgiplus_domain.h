/* cgiplus_domain.h: the Landlock domain of httpd's processes that drop
 * root (cgiplus_domain.c). */
#ifndef CGIPLUS_DOMAIN_H
#define CGIPLUS_DOMAIN_H

#include "cgiplus_module.h"

/* drop_privileges hook, before the one that drops root: this process
 * enters a domain of its own. Always DECLINED (a failure is logged). */
int cgiplus_domain_drop_privileges(apr_pool_t *pchild, server_rec *s);

#endif
