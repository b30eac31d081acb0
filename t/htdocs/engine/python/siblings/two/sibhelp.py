# the helper beside siblings/two/who.py (t/58_engine_py_siblings.t)
WHO = "two"
hits = 0


def hit():
    global hits
    hits += 1
    return hits
