/* runner_log.h: one line per message on stderr (runner_log.c). */
#ifndef RUNNER_LOG_H
#define RUNNER_LOG_H

#include "runner_types.h"
#include "cgiplus_logno.h"

enum runner_level { RUNNER_LOG_ERROR, RUNNER_LOG_WARN, RUNNER_LOG_INFO, RUNNER_LOG_DEBUG };
extern int runner_log_level;
int runner_log_parse_level(const char *s);
const char *runner_log_level_name(int level);
void runner_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define RUNNER_LOG_ON(l) ((l) <= runner_log_level)
/* stderr becomes the parent's current stderr (httpd's error log); -1/errno */
int runner_log_take_parent_stderr(pid_t parent);

#endif
