#!/usr/bin/python3
# Imports a module beside it that t/58_engine_corpus.t rewrites between requests.
import corpus_chg
print("Content-Type: text/plain\n\n" + corpus_chg.VERSION)
