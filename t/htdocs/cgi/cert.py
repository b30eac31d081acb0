#!/usr/bin/python3
# The server's certificate as mod_ssl exports it (SSLOptions
# +ExportCertData), byte for byte: t/31_cgi_env.t.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

for env in cgiplus.requests():
    # ?NAME: that variable instead (REDIRECT_SSL_SERVER_CERT in an ErrorDocument)
    q = env.get("QUERY_STRING", "")
    name = q if q and q.replace("_", "").isalpha() and q.isupper() else "SSL_SERVER_CERT"
    sys.stdout.write("Content-Type: text/plain\n\n" + env.get(name, "(unset)"))
