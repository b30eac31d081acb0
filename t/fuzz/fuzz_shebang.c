/* fuzz_shebang.c: libFuzzer target for the #! reader (common/cgp_shebang.c):
 * the first bytes of a script, as the runner's exec child and the module
 * read them. Checks that the interpreter lies inside what was read, within
 * what the kernel reads, and that the sentence is NUL-ended inside its
 * buffer, whatever its size. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_shebang.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    static const int errs[] = { ENOENT, ENOEXEC, EACCES, ELOOP };
    const char *b = (const char *)d;
    char out[512];
    cgp_shebang sb;
    size_t cap;

    cgp_shebang_parse(b, n, &sb);
    if (sb.interp) {
        CHECK(n >= 2 && b[0] == '#' && b[1] == '!');
        CHECK(sb.interp >= b + 2 && sb.interp + sb.interp_len <= b + n);
        CHECK(sb.interp + sb.interp_len <= b + CGP_SHEBANG_MAX);
        CHECK(!memchr(sb.interp, '\n', sb.interp_len) && !memchr(sb.interp, ' ', sb.interp_len));
        if (sb.arg)
            CHECK(sb.arg >= sb.interp + sb.interp_len && sb.arg_len > 0 &&
                  sb.arg + sb.arg_len <= b + (n < CGP_SHEBANG_MAX ? n : CGP_SHEBANG_MAX) &&
                  !memchr(sb.arg, '\n', sb.arg_len));
    }
    cap = n ? 1 + d[0] % sizeof(out) : sizeof(out);
    memset(out, 'X', sizeof(out));
    cgp_shebang_explain(b, n, errs[n % 4], "error text", out, cap);
    CHECK(memchr(out, '\0', cap) != NULL);
    for (size_t i = cap; i < sizeof(out); i++)
        CHECK(out[i] == 'X');
    return 0;
}
