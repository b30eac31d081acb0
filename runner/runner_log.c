/* runner_log.c: one line per message on stderr (httpd's error log when httpd
 * started us): "[cgiplus-runner:LEVEL] [pid N] CGIPLUSnnnn: message". */
#include "runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LOG_LINE_MAX 8192

int runner_log_level = RUNNER_LOG_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

int runner_log_parse_level(const char *s)
{
    for (int i = 0; i <= RUNNER_LOG_DEBUG; i++)
        if (strcmp(s, level_names[i]) == 0)
            return i;
    return -1;
}

void runner_log(int level, const char *fmt, ...)
{
    char msg[LOG_LINE_MAX];
    char line[LOG_LINE_MAX + 128];
    int saved = errno;
    va_list ap;

    if (level > runner_log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);

    int n = snprintf(line, sizeof(line), "[cgiplus-runner:%s] [pid %ld] ",
                     level_names[level], (long)getpid());
    size_t o = n > 0 ? (size_t)n : 0;
    /* Escape control bytes: script output must not forge log lines. */
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 6 < sizeof(line); p++) {
        if (*p < 0x20 || *p == 0x7f)
            o += (size_t)snprintf(line + o, 5, "\\x%02x", *p);
        else
            line[o++] = (char)*p;
    }
    line[o++] = '\n';

    /* One write per line so lines never interleave with httpd's own. */
    size_t off = 0;
    while (off < o) {
        ssize_t w = write(STDERR_FILENO, line + off, o - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    errno = saved;
}
