#!/usr/bin/python3
# A class of the script pickled and loaded back (__main__.Thing).
import pickle
class Thing:
    def __init__(self, v): self.v = v
t = pickle.loads(pickle.dumps(Thing(5)))
print("Content-Type: text/plain\n\nthing=%d %s" % (t.v, type(t).__module__))
