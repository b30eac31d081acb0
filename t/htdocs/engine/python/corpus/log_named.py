#!/usr/bin/python3
# A handler and a level the script gives a logger of its own name, at each
# run: one line per run, as in each CGI process (on an engine each run
# added a handler more, and the lines came twice, three times...).
import logging, sys
print("Content-Type: text/plain\n")
log = logging.getLogger("corpus.named")
print("handlers at start %d, level %d" % (len(log.handlers), log.level))
log.addHandler(logging.StreamHandler(sys.stdout))
log.setLevel(logging.INFO)
log.info("one line per run")
sys.stdout.flush()
