/* runner_log.h: one line per message on stderr (runner_log.c). */
#ifndef RUNNER_LOG_H
#define RUNNER_LOG_H

#include "runner_types.h"
#include "cgiplus_logno.h"

#include <time.h>

enum runner_level { RUNNER_LOG_ERROR, RUNNER_LOG_WARN, RUNNER_LOG_INFO, RUNNER_LOG_DEBUG };
extern int runner_log_level;
int runner_log_parse_level(const char *s);
const char *runner_log_level_name(int level);
void runner_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define RUNNER_LOG_ON(l) ((l) <= runner_log_level)
/* A line a flood could repeat (refused connections, refused requests): at
 * most RUNNER_LOG_LIMIT_N with the same second in their timestamp from one
 * call site, which keeps one static runner_log_limit (zeroed); the next
 * line logged says how many were left out (runner_log_dropped). */
#define RUNNER_LOG_LIMIT_N 10u
typedef struct runner_log_limit {
    time_t window;            /* the second being counted */
    unsigned n;               /* lines logged in it */
    unsigned long dropped;    /* lines left out since the last one logged */
} runner_log_limit;
/* 1: log this line; *dropped is then the count it should mention. */
int runner_log_limit_ok(runner_log_limit *l, unsigned long *dropped);
/* "" or "; N more like it were not logged" (a static buffer). */
const char *runner_log_dropped(unsigned long dropped);
/* stderr becomes the parent's current stderr (httpd's error log); -1/errno */
int runner_log_take_parent_stderr(pid_t parent);

#endif
