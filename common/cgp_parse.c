/* cgp_parse.c: the number, size and duration syntax of the settings (the
 * module's directives, the runner's configuration and BEGIN keys), of
 * Script-Control and of callouts: one parser, so both ends read a value
 * alike. */
#include "cgp_parse.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>


int cgp_parse_u64(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (len > 19)
        return -2; /* all digits, too many: a number too big, not a typo */
    *out = v;
    return 0;
}

int cgp_parse_size(const char *s, size_t len, uint64_t *out)
{
    uint64_t mul = 1, v;
    if (len && s[len - 1] && strchr("kKmMgG", s[len - 1])) {
        char c = (char)tolower((unsigned char)s[len - 1]);
        mul = c == 'k' ? 1024u : c == 'm' ? 1024u * 1024u : 1024u * 1024u * 1024u;
        len--;
    }
    int rc = cgp_parse_u64(s, len, &v);
    if (rc < 0)
        return rc;
    if (v > (uint64_t)CGP_SIZE_MAX / mul)
        return -2;
    *out = v * mul;
    return 0;
}

int cgp_parse_duration(const char *s, size_t len, uint64_t unit_ms, uint64_t *ms)
{
    size_t i = 0, n;
    uint64_t whole = 0, frac = 0, scale = 1;

    if (len == 4 && strncasecmp(s, "none", 4) == 0) {
        *ms = 0;
        return 0;
    }
    for (n = 0; i < len && isdigit((unsigned char)s[i]); i++)
        if ((n || s[i] != '0') && n++ < 12) /* leading zeros count for nothing */
            whole = whole * 10 + (uint64_t)(s[i] - '0');
    if (i == 0)
        return -1;
    int big = n > 12; /* too long, said once the rest is known good */
    if (i < len && s[i] == '.') {
        i++;
        for (n = 0; i < len && isdigit((unsigned char)s[i]); i++, n++)
            if (n < 6) {
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                scale *= 10;
            }
    }
    const char *u = s + i;
    size_t ul = len - i;
    if (ul == 0)
        ;
    else if (ul == 2 && strncasecmp(u, "ms", 2) == 0)
        unit_ms = 1;
    else if (ul == 1 && (*u == 's' || *u == 'S'))
        unit_ms = 1000;
    else if (ul == 1 && (*u == 'm' || *u == 'M'))
        unit_ms = 60000;
    else if (ul == 1 && (*u == 'h' || *u == 'H'))
        unit_ms = 3600000;
    else
        return -1;
    uint64_t v = whole * unit_ms + frac * unit_ms / scale;
    if (big || v > (uint64_t)CGP_MS_MAX)
        return -2;
    if (v == 0 && (whole || frac))
        v = 1; /* a positive value never rounds down to "none" */
    *ms = v;
    return 0;
}

int64_t cgp_parse_minutes(const char *p, size_t len)
{
    uint64_t ms;
    if (len == 4 && strncasecmp(p, "none", 4) == 0)
        return -1;
    if (cgp_parse_duration(p, len, 60000, &ms) < 0)
        return -2;
    return (int64_t)ms; /* 0: the default */
}
