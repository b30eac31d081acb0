#!/usr/bin/env python3
# Detaches sys.stdout and writes its response to the buffer alone, without
# a flush: all of it is this request's, none the next one's
# (t/58_engine_python.t).
import sys

buf = sys.stdout.detach()
buf.write(b"Content-Type: text/plain\n\ndetached\n")
