#!/bin/sh
# counter.sh: a per-process request counter; above 1 proves persistence.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../lib/sh/cgiplus.sh"

count=0
while cgiplus_accept; do
    count=$((count + 1))
    printf 'Content-Type: text/plain\n\ncount=%d pid=%d\n' "$count" "$$"
    cgiplus_finish
done
