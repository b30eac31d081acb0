#!/usr/bin/python3
print("Content-Type: text/plain", flush=True)
raise RuntimeError("errors-hdrraise-marker")
