#!/bin/sh
# The server's certificate as mod_ssl exports it (SSLOptions
# +ExportCertData), byte for byte: t/31_cgi_env.t.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/../../../lib/sh/cgiplus.sh"

while cgiplus_accept; do
    printf 'Content-Type: text/plain\n\n%s' "${SSL_SERVER_CERT-(unset)}"
    cgiplus_finish
done
