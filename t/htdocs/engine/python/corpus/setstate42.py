#!/usr/bin/python3
# random.setstate() to seed(42)'s state: the next script is seeded afresh.
import random
random.setstate(random.Random(42).getstate())
print("Content-Type: text/plain\n\n%s" % [random.randrange(10**9) for _ in range(3)])
