/* cgiplus_logno.h: numbered log ids, shared by module, runner and libraries.
 * Ranges: 1000-1999 module, 2000-2999 runner, 3000-3999 script libraries.
 * Every id used in the code is listed in docs/errors.md. */
#ifndef CGIPLUS_LOGNO_H
#define CGIPLUS_LOGNO_H
#define CGIPLUS_LOGNO(n) "CGIPLUS" #n ": "
/* A count's noun in a log line or the status page: "1 worker", "2 workers"
 * ("%d worker%s", n, CGIPLUS_S(n)). */
#define CGIPLUS_S(n) ((n) == 1 ? "" : "s")
#endif
