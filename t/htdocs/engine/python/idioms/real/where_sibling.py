# imported by where_real.py from its own directory (t/58_engine_idioms.t)
NAME = "the real directory's"
