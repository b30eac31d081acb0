#!/bin/sh
# PATH_INFO as the script sees it (AcceptPathInfo is set per file).
. ../../../lib/sh/cgiplus.sh
while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\n%s\n' "${PATH_INFO-}"
    cgiplus_finish
done
