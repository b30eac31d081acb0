#!/usr/bin/python3
import sys, os
import corpus_sib
print("Content-Type: text/plain\n\n%s path0_is_dir=%s" % (corpus_sib.VALUE, sys.path[0] == os.path.dirname(os.path.abspath(__file__))))
