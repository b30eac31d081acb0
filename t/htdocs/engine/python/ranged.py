#!/usr/bin/env python3
# A response in two writes, the second going out with the end of the
# script: a client's Range header must not cut this 200 (t/56_range_stream.t).
import sys
import time

sys.stdout.write("Content-Type: text/plain\n\nfirst part\n")
sys.stdout.flush()
time.sleep(0.3)
sys.stdout.write("second part, written with the end\n")
