/* cgp_shebang.c: a script's "#!" line as the kernel reads it, and why its
 * exec failed, in words (include/cgp_shebang.h). No I/O, no allocation. */
#include "cgp_shebang.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cgp_shebang_parse(const char *buf, size_t len, cgp_shebang *out)
{
    size_t i, end;

    memset(out, 0, sizeof(*out));
    if (len > CGP_SHEBANG_MAX)
        len = CGP_SHEBANG_MAX;
    if (len < 2 || buf[0] != '#' || buf[1] != '!')
        return;
    /* the line: up to LF, or all the kernel read */
    for (end = 2; end < len && buf[end] != '\n'; end++)
        ;
    out->cr = end > 2 && buf[end - 1] == '\r';
    for (i = 2; i < end && (buf[i] == ' ' || buf[i] == '\t'); i++)
        ;
    out->interp = buf + i;
    while (i < end && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\0')
        i++;
    out->interp_len = (size_t)(buf + i - out->interp);
    if (out->interp_len && out->interp[out->interp_len - 1] == '\r')
        out->cr = 1; /* the CR is part of the name the kernel looks for */
    /* the rest of the line is one argument, without the blanks around it
     * (a CR is no blank to the kernel) */
    while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    while (end > i && (buf[end - 1] == ' ' || buf[end - 1] == '\t'))
        end--;
    if (end > i && out->interp_len) {
        out->arg = buf + i;
        out->arg_len = end - i;
    }
}

int cgp_exec_err_permanent(int err)
{
    switch (err) {
    case ENOENT:       /* the interpreter (the script was there: 404 before) */
    case ENOEXEC:      /* not a binary of this system, no #! line */
    case ELOOP:
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case E2BIG:
    case ELIBBAD:
    case EINVAL:
        return 1;
    default:
        return 0;
    }
}

/* Appends to out at *n, cut at cap - 1. */
static void put(char *out, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (*n + 1 >= cap)
        return;
    va_start(ap, fmt);
    k = vsnprintf(out + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n += (size_t)k < cap - *n ? (size_t)k : cap - *n - 1;
}

/* A name as an editor shows it: control characters in caret notation (a
 * CR is ^M), other bytes that are not printable ASCII (and the quote) as
 * <xNN>. No backslash: httpd's log would escape it again. */
static void put_name(char *out, size_t cap, size_t *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            put(out, cap, n, "^%c", c ^ 0x40);
        else if (c >= 0x80 || c == '\\' || c == '\'')
            put(out, cap, n, "<x%02x>", c);
        else
            put(out, cap, n, "%c", c);
    }
}

const char *cgp_shebang_explain(const char *buf, size_t len, int err, const char *errtext,
                                char *out, size_t cap)
{
    cgp_shebang sb;
    size_t n = 0;

    out[0] = '\0';
    cgp_shebang_parse(buf, len, &sb);
    if (!sb.interp) {
        if (err == ENOEXEC)
            put(out, cap, &n, "it is neither a program this system runs nor a script "
                "with a #! line naming its interpreter");
        else
            put(out, cap, &n, "%s", errtext);
        return out;
    }
    if (!sb.interp_len) {
        put(out, cap, &n, "its #! line names no interpreter");
        return out;
    }
    if (sb.cr && sb.arg) {
        /* "#!/usr/bin/env python3\r": env runs, and finds no "python3\r" */
        put(out, cap, &n, "its #! line ends in a carriage return (Windows line ends): its "
            "interpreter '");
        put_name(out, cap, &n, sb.interp, sb.interp_len);
        put(out, cap, &n, "' is given '");
        put_name(out, cap, &n, sb.arg, sb.arg_len);
        put(out, cap, &n, "', CR included, and finds nothing by that name; save the file "
            "with Unix line ends (dos2unix)");
    } else if (sb.cr) {
        put(out, cap, &n, "its #! line ends in a carriage return (Windows line ends): the "
            "interpreter it names is '");
        put_name(out, cap, &n, sb.interp, sb.interp_len);
        put(out, cap, &n, "'%s, %s; save the file with Unix line ends (dos2unix)",
            sb.interp[sb.interp_len - 1] == '\r' ? ", CR included" : "",
            err == ENOENT ? "which does not exist" : errtext);
    } else if (err == ENOENT) {
        put(out, cap, &n, "its interpreter '");
        put_name(out, cap, &n, sb.interp, sb.interp_len);
        put(out, cap, &n, "' (named on its #! line) does not exist");
    } else {
        put(out, cap, &n, "%s (its #! line names the interpreter '", errtext);
        put_name(out, cap, &n, sb.interp, sb.interp_len);
        put(out, cap, &n, "')");
    }
    return out;
}
