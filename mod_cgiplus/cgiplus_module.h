/* cgiplus_module.h: what every file of mod_cgiplus shares: the module
 * record (each file's key to its configuration), the handler names and the
 * log ids. Nothing of the module is visible outside it (-fvisibility=hidden)
 * but the module record. Each part has its own header (docs/ARCHITECTURE.md,
 * "The module"); a file includes the headers of the parts it uses. */
#ifndef CGIPLUS_MODULE_H
#define CGIPLUS_MODULE_H

#include <stddef.h> /* before APR: its APR_OFFSETOF then uses offsetof (clang) */

#include "httpd.h"
#include "http_config.h"

#include "cgiplus_logno.h"

#define CGIPLUS_EXPORT __attribute__((visibility("default")))

extern CGIPLUS_EXPORT module AP_MODULE_DECLARE_DATA cgiplus_module;

#define CGIPLUS_HANDLER        "cgiplus-script"
#define CGIPLUS_STATUS_HANDLER "cgiplus-status"

#endif
