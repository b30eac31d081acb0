/* cgiplus_include.h: mod_include's exec element (cgiplus_include.c). */
#ifndef CGIPLUS_INCLUDE_H
#define CGIPLUS_INCLUDE_H

#include "cgiplus_module.h"

/* Set on the sub-request of an #exec cgi: served here (as mod_cgi would)
 * even outside a CGIplusCompat scope. */
#define CGIPLUS_INCLUDE_NOTE "cgiplus-include"
/* optional_fn_retrieve hook: registers the exec element with mod_include
 * unless mod_cgi or mod_cgid is loaded. */
void cgiplus_include_retrieve(void);

#endif
