#!/bin/sh
# Output without any CGI header.
. ../../../lib/sh/cgiplus.sh
while cgiplus_accept; do
    echo "this is not a header"
    cgiplus_finish
done
