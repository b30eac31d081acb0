#!/usr/bin/python3
# A handler added to the script's own logger at each run (stdout, in the page).
import logging, sys
print("Content-Type: text/plain\n")
log = logging.getLogger(__name__)
log.addHandler(logging.StreamHandler(sys.stdout))
log.setLevel(logging.INFO)
log.info("one line per run")
