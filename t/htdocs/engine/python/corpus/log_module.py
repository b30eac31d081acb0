#!/usr/bin/python3
# A module beside the script gives its logger a NullHandler as it is
# imported (the library idiom): it stays the module's, as loaded once.
import logging
import corpus_logmod
print("Content-Type: text/plain\n")
print("module handlers %s" % [type(h).__name__ for h in logging.getLogger("corpus.logmod").handlers])
