#!/usr/bin/python3
# Undecodable bytes in PATH_INFO print as under CGI (surrogateescape in
# the C locale httpd gives its scripts).
import os
print("Content-Type: text/plain\n")
print("path_info=" + os.environ.get("PATH_INFO", ""))
