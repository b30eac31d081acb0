/* fuzz_conf.c: libFuzzer target for the runner's configuration file parser
 * (runner_conf_read in runner/runner_conf.c): sections, keys, numbers with
 * units, durations, users, environment entries. The file is the operator's,
 * but it names users to run as, so a malformed one must be refused cleanly:
 * either parsed (every pool an absolute path) or refused with a reason. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runner/runner_conf.h"
#include "../../runner/runner_log.h"
#include "../../runner/runner_loop.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* runner_conf.c's user checks read the runner's state (zero: not root). */
runner_ctx runner_g;

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    runner_conf c;
    char err[256];
    FILE *f;
    int rc;

    if (n == 0)
        return 0;
    f = fmemopen((void *)d, n, "r");
    CHECK(f);
    err[0] = '\0';
    rc = runner_conf_read(f, &c, err, sizeof err);
    fclose(f);
    CHECK(rc == 0 || rc == -1);
    if (rc < 0) {
        CHECK(err[0] && memchr(err, '\0', sizeof err));
        return 0; /* freed by runner_conf_read */
    }
    CHECK(c.backoff_max >= c.backoff_base && c.nallow <= 64);
    for (unsigned i = 0; i < c.npools; i++)
        CHECK(c.pools[i].script && c.pools[i].script[0] == '/');
    runner_conf_free(&c);
    return 0;
}
