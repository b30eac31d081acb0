/* runner_log.c: one line per message on stderr (httpd's error log when httpd
 * started us), in httpd's error log format:
 * "[Tue Dec 01 08:12:01.123456 2026] [cgiplus-runner:LEVEL] [pid N] CGIPLUSnnnn: message".
 * When httpd started us, each SIGHUP (httpd's restart, after it reopened its
 * logs) takes httpd's current error log again (docs/RUNNER.md, Logging). */
#include "runner_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
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

const char *runner_log_level_name(int level)
{
    return level >= 0 && level <= RUNNER_LOG_DEBUG ? level_names[level] : "?";
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

    /* httpd's own timestamp: local time with microseconds */
    struct timeval tv;
    struct tm tm;
    char when[64] = "";
    gettimeofday(&tv, NULL);
    if (localtime_r(&tv.tv_sec, &tm))
        strftime(when, sizeof(when), "%a %b %d %H:%M:%S", &tm);
    int n = snprintf(line, sizeof(line), "[%s.%06ld %d] [cgiplus-runner:%s] [pid %ld] ",
                     when, (long)tv.tv_usec, tm.tm_year + 1900, level_names[level],
                     (long)getpid());
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

int runner_log_limit_ok(runner_log_limit *l, unsigned long *dropped)
{
    /* The lines' own clock (runner_log): time() reads the coarse clock,
     * which can still say the last second for some ms after it ended. */
    struct timeval tv;
    gettimeofday(&tv, NULL);
    time_t sec = tv.tv_sec;
    if (sec != l->window) {
        l->window = sec;
        l->n = 0;
    }
    if (l->n >= RUNNER_LOG_LIMIT_N) {
        l->dropped++;
        return 0;
    }
    l->n++;
    *dropped = l->dropped;
    l->dropped = 0;
    return 1;
}

const char *runner_log_dropped(unsigned long dropped)
{
    static char note[64];
    if (!dropped)
        return "";
    snprintf(note, sizeof(note), "; %lu more like it were not logged", dropped);
    return note;
}

/* httpd's parent has dup2'd its current error log onto its stderr before
 * it sends SIGHUP (open_logs runs before post_config): open that file
 * again through /proc and make it ours, so rotated logs are let go. */
int runner_log_take_parent_stderr(pid_t parent)
{
    char path[64];
    int fd;

    if (getppid() != parent) {
        errno = ESRCH;
        return -1;
    }
    snprintf(path, sizeof(path), "/proc/%ld/fd/2", (long)parent);
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fd != STDERR_FILENO && dup2(fd, STDERR_FILENO) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (fd != STDERR_FILENO)
        close(fd);
    return 0;
}
