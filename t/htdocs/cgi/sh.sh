#!/bin/sh
# The sh library: the same loop runs as plain CGI and persistent.
. ../../../lib/sh/cgiplus.sh
while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\nsh cgi\n'
    cgiplus_finish
done
