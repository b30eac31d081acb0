#!/bin/sh
# probe.sh: the sh twin of probe.c for t/unit/script_harness.py (no struct
# mode: cgiplus.sh does not offer it).
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../lib/sh/cgiplus.sh"

count=0
while :; do
    cgiplus_accept
    rc=$?
    [ $rc = 0 ] || break
    count=$((count + 1))
    cgiplus_is_persistent && p=1 || p=0
    printf 'Content-Type: text/plain\n\ncount=%d persistent=%d\n' "$count" "$p"
    case ${PROBE-} in
    callout)
        cgiplus_callout "${PROBE_ARG-}"
        printf 'answer=%s errno=0\n' "$cgiplus_answer" ;;
    subenv)
        /bin/sh -c 'printf "sub=%s\n" "${V-(unset)}"' ;;
    partial)
        printf 'body=%s\n' "$(head -c "$PROBE_ARG")" ;;
    readall)
        printf 'body=%s\n' "$(cgiplus_body)" ;;
    esac
    printf 'V=%s\n' "${V-(unset)}"
    [ "${PROBE-}" = nofinish ] || cgiplus_finish
done
[ $rc = 1 ] && exit 0
exit 1
