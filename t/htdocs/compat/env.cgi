#!/bin/sh
# The environment, sorted: compared between mod_cgid and mod_cgiplus.
printf 'Content-Type: text/plain\n\n'
env | LC_ALL=C sort
