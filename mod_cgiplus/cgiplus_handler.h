/* cgiplus_handler.h: the cgiplus-script handler (cgiplus_handler.c). */
#ifndef CGIPLUS_HANDLER_H
#define CGIPLUS_HANDLER_H

#include "cgiplus_module.h"

int cgiplus_handler(request_rec *r);

#endif
