/* runner_spool.h: a request body on its way to the script (runner_spool.c). */
#ifndef RUNNER_SPOOL_H
#define RUNNER_SPOOL_H

#include "runner_buf.h"

#define RUNNER_SPOOL_MEM        (1024u * 1024u) /* body bytes kept in memory, then a temp file */

/* Body bytes not yet written to the script: memory first, then an unlinked
 * file in the spool directory. Owned by its request. */
typedef struct runner_spool {
    runner_buf mem;      /* the oldest pending bytes */
    int fd;              /* temp file, -1: none yet */
    uint64_t file_wr;    /* temp file holds [file_rd, file_wr) */
    uint64_t file_rd;
    uint64_t total;      /* bytes ever appended */
    int rd_err;          /* errno of a failed read back of the file: the body is lost */
} runner_spool;

/* Makes (0700) or checks the spool directory; 0, or -1 with err. */
int runner_spool_setup(const char *dir, char *err, size_t errlen);
/* At a clean stop: removes the spool directory if it is empty. */
void runner_spool_remove_dir(void);
void runner_spool_init(runner_spool *s);
/* Past mem_cap bytes in memory the rest goes to the file, which may hold at
 * most file_cap bytes (else -1, errno EFBIG). */
int runner_spool_append(runner_spool *s, const void *d, size_t n, size_t mem_cap,
                        uint64_t file_cap);
uint64_t runner_spool_pending(const runner_spool *s);
/* 0 empty, 1 EAGAIN, -1 errno (rd_err set too if reading the file back failed) */
int runner_spool_flush(runner_spool *s, int fd);
/* Moves up to n pending bytes into out (oldest first): how many, or -1
 * (reading the file back failed: rd_err). */
ssize_t runner_spool_take(runner_spool *s, void *out, size_t n);
/* The spool directory set up at start (0700, the runner's alone). */
const char *runner_spool_dir(void);
void runner_spool_discard(runner_spool *s);
void runner_spool_free(runner_spool *s);

#endif
