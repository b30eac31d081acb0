# seedmod.py's module: random.seed taken when it is first imported.
from random import seed as _seed


def reset():
    _seed(42)
