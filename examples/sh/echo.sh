#!/bin/sh
# echo.sh: answers the request body byte for byte (CONTENT_LENGTH bytes).
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../lib/sh/cgiplus.sh"

count=0
while cgiplus_accept; do
    count=$((count + 1))
    printf 'Content-Type: application/octet-stream\nX-Request-Count: %d\nX-Worker-Pid: %d\n\n' \
        "$count" "$$"
    cgiplus_body
    cgiplus_finish
done
