# the helper beside siblings/one/who.py (t/58_engine_py_siblings.t)
WHO = "one"
hits = 0


def hit():
    global hits
    hits += 1
    return hits
