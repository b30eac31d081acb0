#!/bin/sh
# hello.sh: the smallest CGIplus script; runs persistently or as plain CGI.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../lib/sh/cgiplus.sh"

while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\nHello from CGIplus\n'
    cgiplus_finish
done
