/* cgiplus_status.h: the status page (SetHandler cgiplus-status;
 * cgiplus_status.c). */
#ifndef CGIPLUS_STATUS_H
#define CGIPLUS_STATUS_H

#include "cgiplus_module.h"

int cgiplus_status_handler(request_rec *r);

#endif
