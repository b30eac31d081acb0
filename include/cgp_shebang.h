/* cgp_shebang.h: why a script could not be executed, in words: the
 * interpreter its "#!" line names (the kernel's reading of it: the first
 * line, at most CGP_SHEBANG_MAX bytes, the interpreter up to a space or a
 * tab), and whether that line ends in a carriage return (a file saved with
 * Windows line ends, whose interpreter the kernel then looks for with the
 * CR in its name). Pure: the module and the runner both use it, on bytes
 * they read from the script. */
#ifndef CGP_SHEBANG_H
#define CGP_SHEBANG_H

#include <stddef.h>

#define CGP_SHEBANG_MAX 256u /* the kernel's BINPRM_BUF_SIZE: what it reads */

/* The "#!" line of the first len bytes of a script, as the kernel reads
 * it. Points into buf. */
typedef struct cgp_shebang {
    const char *interp;       /* NULL: no "#!" line */
    size_t interp_len;
    const char *arg;          /* the one argument after it (the rest of the line), or NULL */
    size_t arg_len;
    int cr;                   /* the line ends in CR (CR LF, or a CR at the end of the name) */
} cgp_shebang;

void cgp_shebang_parse(const char *buf, size_t len, cgp_shebang *out);

/* Nonzero for an exec errno that will not go away by itself (a missing
 * interpreter, a file the system cannot execute): the request is answered
 * 500, as mod_cgi does, not 503 with Retry-After. */
int cgp_exec_err_permanent(int err);

/* Says why exec failed with err (errtext: its text, the caller's
 * strerror), given the script's first len bytes (len 0: unreadable): the
 * interpreter named, a CR, or no "#!" line. Writes a NUL-ended sentence
 * into out (cap > 0; cut if longer); control characters are written in
 * caret notation (a CR as ^M), other bytes that are not printable ASCII
 * as <xNN>. Returns out. */
const char *cgp_shebang_explain(const char *buf, size_t len, int err, const char *errtext,
                                char *out, size_t cap);

#endif
