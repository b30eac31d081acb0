/* cgp_stderr.h: the level of a script's stderr line (common/cgp_stderr.c).
 * A script's stderr is logged at error, as mod_cgi does; the engines'
 * own notes that are routine (docs/errors.md lists them as info) are not
 * errors, and would alarm an admin at each deploy. */
#ifndef CGP_STDERR_H
#define CGP_STDERR_H

#include <stddef.h>

/* Nonzero if the line (no newline) is an engine's informational note. */
int cgp_stderr_is_info(const char *line, size_t len);

#endif
