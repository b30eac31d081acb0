#!/bin/sh
# Who runs me: the parent's name (apache2 under mod_cgid, cgiplus-runner
# under mod_cgiplus), my pid, and whether I am a persistent worker.
. ../../../lib/sh/cgiplus.sh
while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\n'
    printf 'parent=%s\n' "$(cat /proc/$PPID/comm)"
    printf 'pid=%s\n' "$$"
    if cgiplus_is_persistent; then echo persistent=1; else echo persistent=0; fi
    cgiplus_finish
done
