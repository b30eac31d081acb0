#!/bin/sh
# dies.sh: a "FastCGI program" that dies at start (t/59_fcgi_workers.t: crash-loop backoff)
echo "dies.sh: giving up" >&2
exit 1
