#!/usr/bin/python3
# Seeded afresh in every CGI process: never the sequence seed(42) starts.
import random
r = random.randrange(10**9)
random.seed(42)
seq = [random.randrange(10**9) for _ in range(8)]
print("Content-Type: text/plain\n\nfrom a fixed seed: %s" % ("yes" if r in seq else "no"))
