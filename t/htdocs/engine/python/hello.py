#!/usr/bin/env python3
# An unmodified Python CGI hello (t/58_engine_python.t, bench/).
print("Content-Type: text/plain")
print()
print("hello")
