#!/bin/sh
# A shell CGIplus worker with a start-up banner written just before it
# reads its first request (t/3e_cgi_scripts.t): no library.
echo "banner.sh: ready"
while read -r sync <&3 && [ "$sync" = "!" ]; do
    q=
    while read -r line <&3 && [ -n "$line" ]; do
        case $line in QUERY_STRING=*) q=${line#QUERY_STRING=} ;; esac
    done
    printf 'Content-Type: text/plain\n\nquery=%s\n%s\n' "$q" "$CGIPLUSEOF"
done
