#!/usr/bin/python3
# A module beside the script took random.seed at its import and seeds with
# it at each run: the next script is seeded afresh all the same.
import random
import corpus_seeder
corpus_seeder.reset()
print("Content-Type: text/plain\n\n%s" % [random.randrange(10**9) for _ in range(3)])
