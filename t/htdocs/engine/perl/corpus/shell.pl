#!/bin/sh
# A .pl file that is a shell script (its #! line names no perl): not the
# engine's, it runs as plain CGI, as under mod_cgid.
echo "Content-Type: text/plain"
echo
echo "run by sh"
