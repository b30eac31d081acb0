#!/usr/bin/python3
counter = 0
cache = {}
def add(item, acc=[]):
    acc.append(item)
    return len(acc)
def bump():
    global counter
    counter += 1
bump()
cache.setdefault("k", 0)
cache["k"] += 1
print("Content-Type: text/plain\n\ncounter=%d cache=%d default_len=%d" % (counter, cache["k"], add("x")))
