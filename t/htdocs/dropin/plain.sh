#!/bin/sh
# A plain CGI program that knows nothing of CGIplus (t/3e_cgi_scripts.t):
# it reads its request from the environment, answers and exits.
printf 'Content-Type: text/plain\n\nplain query=%s method=%s\n' "$QUERY_STRING" "$REQUEST_METHOD"
