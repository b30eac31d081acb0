#!/bin/sh
# env.sh: the request's environment as sorted NAME=value lines. The CGIPLUS*
# markers are shown as names only: printing the end sentinel would end the
# response early.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../lib/sh/cgiplus.sh"

while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\n'
    env | LC_ALL=C sort | sed -e 's/^CGIPLUSEOF=.*/CGIPLUSEOF=(hidden)/' \
        -e 's/^CGIPLUSESC=.*/CGIPLUSESC=(hidden)/' -e 's/^CGIPLUSEOT=.*/CGIPLUSEOT=(hidden)/'
    cgiplus_finish
done
