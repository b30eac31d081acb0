#!/bin/sh
# Dies at start without a byte on stdout (t/3e_cgi_scripts.t): a crash, not
# a program that does not speak CGIplus; the crash-loop backoff follows.
echo "dies.sh: cannot start" >&2
exit 3
