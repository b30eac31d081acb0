/* cgiplus_logno.h: numbered log ids, shared by module, runner and libraries.
 * Ranges: 1000-1999 module, 2000-2999 runner, 3000-3999 script libraries.
 * Every id used in the code is listed in docs/errors.md. */
#ifndef CGIPLUS_LOGNO_H
#define CGIPLUS_LOGNO_H
#define CGIPLUS_LOGNO(n) "CGIPLUS" #n ": "
#endif
