#!/usr/bin/python3
# raises before any output (t/58_engine_errors.t)
import sys
sys.stderr.write("errors-stderr-marker before the raise\n")
raise RuntimeError("errors-raise-marker")
