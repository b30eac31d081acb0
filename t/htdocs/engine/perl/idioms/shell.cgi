#!/bin/sh
# A shell CGI script in the Perl engine's directory: mod_cgi runs it with
# sh; so must the engine's scope (as plain CGI).
printf 'Content-Type: text/plain\n\n'
echo "shell: $REQUEST_METHOD $QUERY_STRING args=$#"
