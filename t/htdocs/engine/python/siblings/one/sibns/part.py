# in a namespace package (no __init__.py) beside one/usens.py
WHO = "one's sibns.part"
