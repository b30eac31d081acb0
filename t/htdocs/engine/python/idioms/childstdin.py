#!/usr/bin/python3
# A child that reads its stdin to its end (cat): under CGI it gets what is
# left of the request's body (?part: the script reads 4 bytes first, by
# os.read), then end of file. t/58_engine_idioms.t
import os
import subprocess
own = os.read(0, 4) if os.environ.get("QUERY_STRING") == "part" else b""
print("Content-Type: text/plain\n\nscript read: [%s] child read: [" % own.decode(), end="", flush=True)
subprocess.run(["cat"])
print("]")
