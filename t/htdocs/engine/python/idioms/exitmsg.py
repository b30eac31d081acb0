#!/usr/bin/python3
# sys.exit("message"): the message goes to stderr (the error log), as the
# interpreter writes it at its exit (t/58_engine_idioms.t).
import os, sys
print("Content-Type: text/plain\n\nsome output")
sys.exit("idiom-exit-message " + os.environ.get("QUERY_STRING", ""))
