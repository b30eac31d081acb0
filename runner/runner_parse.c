/* runner_parse.c: strict numbers and durations, for the configuration
 * file, BEGIN keys, Script-Control and callouts. */
#include "runner_parse.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

int runner_parse_u64(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 19)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}
