#!/bin/sh
# A plain CGI program that copies its body with cat, to end of file (t/3g).
printf 'Content-Type: text/plain\n\nquery=%s body=' "$QUERY_STRING"
cat
echo
