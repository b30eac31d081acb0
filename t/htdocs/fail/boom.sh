#!/bin/sh
# cgiplus.sh and a script that fails under set -e (t/57_lib_failure.t).
set -e
. "$(dirname "$0")/../../../lib/sh/cgiplus.sh"
while cgiplus_accept; do
    case $QUERY_STRING in
    boom*) echo "failure-marker $QUERY_STRING" >&2; false ;;
    esac
    printf 'Content-Type: text/plain\n\n'
    case $QUERY_STRING in
    late*) printf 'partial\n'; echo "failure-marker $QUERY_STRING" >&2; false ;;
    esac
    printf 'ok pid=%s q=%s\n' "$$" "$QUERY_STRING"
    cgiplus_finish
done
