#!/usr/bin/python3
# random.seed taken by name: the next script is seeded afresh all the same.
from random import seed, randrange
seed(42)
print("Content-Type: text/plain\n\n%s" % [randrange(10**9) for _ in range(3)])
