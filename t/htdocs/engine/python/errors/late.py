#!/usr/bin/python3
# raises after its header and part of its body (t/58_engine_errors.t)
print("Content-Type: text/plain\n\npart of the body", flush=True)
raise RuntimeError("errors-late-marker")
