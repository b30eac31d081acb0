#!/usr/bin/python3
import random
random.seed(42)
print("Content-Type: text/plain\n\n%s" % [random.randrange(10**9) for _ in range(3)])
