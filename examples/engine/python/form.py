#!/usr/bin/python3
# An ordinary Python CGI script, written for plain CGI and not changed:
# under CGIplusEngine python one persistent interpreter compiles it once
# and runs it again for each request (the pid stays the same).
import os
import re
import sys
from urllib.parse import parse_qs

form = parse_qs(os.environ.get("QUERY_STRING", ""))
if os.environ.get("REQUEST_METHOD") == "POST":
    form.update(parse_qs(sys.stdin.read(int(os.environ.get("CONTENT_LENGTH") or 0))))
name = re.sub(r"[^\w -]", "", form.get("name", ["world"])[0])
print("Content-Type: text/plain; charset=utf-8")
print()
print(f"Hello, {name}, from an unmodified Python CGI script")
print(f"pid={os.getpid()}")
