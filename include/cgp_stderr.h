/* cgp_stderr.h: the level of a script's stderr line (common/cgp_stderr.c).
 * A script's stderr is logged at error, as mod_cgi does; the libraries'
 * and engines' own lines that docs/errors.md lists at info or warn are
 * logged so, and would alarm an admin at error (one at each deploy). */
#ifndef CGP_STDERR_H
#define CGP_STDERR_H

#include <stddef.h>

enum { CGP_STDERR_ERROR, CGP_STDERR_WARN, CGP_STDERR_INFO };

/* The line's level (the line without its newline). */
int cgp_stderr_level(const char *line, size_t len);

#endif
