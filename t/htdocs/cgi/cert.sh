#!/bin/sh
# The server's certificate as mod_ssl exports it (SSLOptions
# +ExportCertData), byte for byte: t/31_cgi_env.t.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../../lib/sh/cgiplus.sh"

while cgiplus_accept; do
    # ?NAME: that variable instead (REDIRECT_SSL_SERVER_CERT in an ErrorDocument)
    case ${QUERY_STRING-} in
    REDIRECT_SSL_SERVER_CERT) v=${REDIRECT_SSL_SERVER_CERT-(unset)} ;;
    *) v=${SSL_SERVER_CERT-(unset)} ;;
    esac
    printf 'Content-Type: text/plain\n\n%s' "$v"
    cgiplus_finish
done
