#!/usr/bin/python3
# Interpreter-wide settings as a new process has them (setsys.py ran before).
import builtins, gc, sys
print("Content-Type: text/plain\n")
print("dont_write_bytecode=%s" % sys.dont_write_bytecode)
print("_ in builtins=%s corpus_left=%s" % (hasattr(builtins, "_"), hasattr(builtins, "corpus_left")))
print("int_max_str_digits=%d" % sys.get_int_max_str_digits())
print("switchinterval=%s" % sys.getswitchinterval())
print("gc_threshold=%s profile=%s trace=%s" % (gc.get_threshold(), sys.getprofile(), sys.gettrace()))
