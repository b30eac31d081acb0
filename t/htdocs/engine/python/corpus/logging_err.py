#!/usr/bin/python3
import logging, sys
logging.basicConfig(level=logging.INFO, format="corpus-log %(levelname)s %(message)s")
logging.info("to stderr")
print("corpus-print-stderr", file=sys.stderr)
print("Content-Type: text/plain\n\nlogged")
