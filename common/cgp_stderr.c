/* cgp_stderr.c: the level of a worker's stderr line. */
#include "cgp_stderr.h"

#include <string.h>

/* The libraries' and engines' own lines whose docs/errors.md level is not
 * error: routine notes (a reload, a script compiled again: one per worker
 * at every deploy) and warnings (arguments ignored, an engine over its
 * memory, a record type unknown). */
static const struct {
    const char *id;
    int level;
} ids[] = {
    { "CGIPLUS3101: ", CGP_STDERR_INFO }, /* cgiplus-wsgi --reload */
    { "CGIPLUS3153: ", CGP_STDERR_INFO }, /* cgiplus-psgi --reload */
    { "CGIPLUS3200: ", CGP_STDERR_WARN },
    { "CGIPLUS3211: ", CGP_STDERR_INFO }, /* the Python engine compiles again */
    { "CGIPLUS3213: ", CGP_STDERR_WARN },
    { "CGIPLUS3215: ", CGP_STDERR_WARN },
    { "CGIPLUS3231: ", CGP_STDERR_INFO }, /* the Perl engine compiles again */
    { "CGIPLUS3235: ", CGP_STDERR_WARN },
    { "CGIPLUS3250: ", CGP_STDERR_WARN },
    { "CGIPLUS3401: ", CGP_STDERR_WARN },
};

int cgp_stderr_level(const char *line, size_t len)
{
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        size_t n = strlen(ids[i].id);

        if (len >= n && memcmp(line, ids[i].id, n) == 0)
            return ids[i].level;
    }
    return CGP_STDERR_ERROR;
}
