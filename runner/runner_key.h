/* runner_key.h: the connection key (runner_key.c). */
#ifndef RUNNER_KEY_H
#define RUNNER_KEY_H

#include "runner_types.h"
#include "cgp_proto.h"

/* Reads the key from --key-fd (fd_arg) or else the key file; 0 or -1 with err. */
int runner_key_load(const char *fd_arg, const char *file, char *err, size_t errlen);
/* 1 if key is ours (constant time). */
int runner_key_check(const unsigned char key[CGP_KEY_LEN]);

#endif
