#!/usr/bin/python3
# logging.disable() for this run: a new process logs at every level again.
import logging, sys
print("Content-Type: text/plain\n")
print("disabled below %d" % logging.root.manager.disable)
logging.basicConfig(stream=sys.stdout, format="log %(levelname)s %(message)s")
logging.warning("a warning")
logging.disable(logging.CRITICAL)
logging.warning("not logged")
