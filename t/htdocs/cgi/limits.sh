#!/bin/sh
# This process's limits (t/3a_cgi_rlimit.t), as plain CGI or persistent.
. ../../../lib/sh/cgiplus.sh
while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\n'
    grep -E '^Max (cpu time|address space|processes) ' /proc/$$/limits | tr -s ' '
    cgiplus_finish
done
