/* utf8_ref.h: an independent UTF-8 check (RFC 3629) for the tests of
 * common/cgp_ws.c's validator (t/unit/test_ws.c, t/fuzz/fuzz_ws.c): it
 * decodes each code point, then checks the shortest form and the range,
 * where the validator compares byte ranges. 1 if valid. */
#ifndef CGP_UTF8_REF_H
#define CGP_UTF8_REF_H

#include <stddef.h>

static inline int ref_utf8(const unsigned char *p, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned b = p[i], len, cp;
        if (b < 0x80) { i++; continue; }
        if ((b & 0xe0) == 0xc0) { len = 2; cp = b & 0x1f; }
        else if ((b & 0xf0) == 0xe0) { len = 3; cp = b & 0x0f; }
        else if ((b & 0xf8) == 0xf0) { len = 4; cp = b & 0x07; }
        else return 0;
        if (n - i < len)
            return 0;
        for (unsigned k = 1; k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (p[i + k] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
            return 0;  /* overlong */
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += len;
    }
    return 1;
}

#endif
