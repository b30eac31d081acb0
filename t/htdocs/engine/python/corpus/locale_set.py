#!/usr/bin/python3
import locale
before = locale.setlocale(locale.LC_NUMERIC)
locale.setlocale(locale.LC_ALL, "C.UTF-8")
print("Content-Type: text/plain\n\nnumeric before=%s" % before)
