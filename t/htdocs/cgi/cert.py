#!/usr/bin/python3
# The server's certificate as mod_ssl exports it (SSLOptions
# +ExportCertData), byte for byte: t/31_cgi_env.t.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

for env in cgiplus.requests():
    sys.stdout.write("Content-Type: text/plain\n\n" + env.get("SSL_SERVER_CERT", "(unset)"))
