/* cgp_stderr.c: which stderr lines of a worker are routine notes. */
#include "cgp_stderr.h"

#include <string.h>

/* "changed: compiling it again" of the Python (3211) and Perl (3231)
 * engines: one per engine at every deploy. */
static const char *const info_ids[] = { "CGIPLUS3211: ", "CGIPLUS3231: " };

int cgp_stderr_is_info(const char *line, size_t len)
{
    for (size_t i = 0; i < sizeof(info_ids) / sizeof(info_ids[0]); i++) {
        size_t n = strlen(info_ids[i]);

        if (len >= n && memcmp(line, info_ids[i], n) == 0)
            return 1;
    }
    return 0;
}
