/* hello.c: the smallest CGIplus script; runs persistently or as plain CGI. */
#include <stdio.h>

#include "cgiplus.h"

int main(void)
{
    while (cgiplus_accept() > 0) {
        fputs("Content-Type: text/plain\n\nHello from CGIplus\n", stdout);
        cgiplus_finish();
    }
    return 0;
}
