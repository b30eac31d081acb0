#!/usr/bin/python3
# does not compile (t/58_engine_errors.t)
print("Content-Type: text/plain\n")
if (errors_syntax_marker:
