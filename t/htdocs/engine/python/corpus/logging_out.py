#!/usr/bin/python3
# basicConfig onto stdout: the log lines are part of the page.
import logging, sys
print("Content-Type: text/plain\n")
logging.basicConfig(stream=sys.stdout, level=logging.DEBUG, format="LOG %(levelname)s: %(message)s")
logging.debug("debug line")
logging.warning("warning line")
print("end")
