#!/bin/sh
# Its command line, one argument a line: compared between mod_cgid and mod_cgiplus.
printf 'Content-Type: text/plain\n\nn=%s\n' "$#"
for a in "$@"; do printf '%s\n' "$a"; done
