#!/bin/sh
# hello.sh: the bench's persistent sh hello (lib/sh/cgiplus.sh). Answers a
# body of 0 or 65536 bytes of 'x' (QUERY_STRING 65536), headers only else.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../lib/sh/cgiplus.sh"

x64k=x
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do x64k=$x64k$x64k; done
while cgiplus_accept; do
    if [ "${QUERY_STRING-}" = 65536 ]; then
        printf 'Content-Type: text/plain\n\n%s' "$x64k"
    else
        printf 'Content-Type: text/plain\n\n'
    fi
    cgiplus_finish
done
