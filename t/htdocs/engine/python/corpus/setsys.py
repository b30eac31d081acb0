#!/usr/bin/python3
# Interpreter-wide settings a script changes for good; pydefaults.py, run
# after it, prints them as a new process has them.
import builtins, gc, gettext, sys
sys.dont_write_bytecode = True
gettext.install("corpus")           # puts _ into builtins
builtins.corpus_left = 1
sys.set_int_max_str_digits(1000)
sys.setswitchinterval(0.5)
gc.set_threshold(5, 2, 2)
sys.setprofile(lambda *a: None)     # this frame's calls from here on
print("Content-Type: text/plain\n\nset")
