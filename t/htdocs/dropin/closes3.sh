#!/bin/sh
# Closes CGIPLUSIN (descriptor 3) at once and runs on (t/57_first_line_gone.t):
# a worker that cannot get its first request, and does not end either.
exec 3<&-
sleep 5
