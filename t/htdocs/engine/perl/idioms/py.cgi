#!/usr/bin/env python3
# A Python CGI script in the Perl engine's directory: plain CGI, as under mod_cgi.
import os, sys
sys.stdout.write("Content-Type: text/plain\n\npython: %s\n" % os.environ.get("QUERY_STRING", ""))
