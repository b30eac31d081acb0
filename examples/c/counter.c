/* counter.c: a per-process request counter; a count above 1 proves the
 * process served earlier requests (persistence). */
#include <stdio.h>
#include <unistd.h>

#include "cgiplus.h"

int main(void)
{
    unsigned long count = 0;

    while (cgiplus_accept() > 0) {
        count++;
        printf("Content-Type: text/plain\n\ncount=%lu pid=%ld\n",
               count, (long)getpid());
        cgiplus_finish();
    }
    return 0;
}
