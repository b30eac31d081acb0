#!/usr/bin/python3
print("Content-Type: text/plain; charset=utf-8\n\ncaf\u00e9 \u2713 %s" % __import__("sys").stdout.encoding)
