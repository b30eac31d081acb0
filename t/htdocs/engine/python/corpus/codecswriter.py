#!/usr/bin/python3
import sys, codecs
sys.stdout = codecs.getwriter("utf-8")(sys.stdout.buffer)
print("Content-Type: text/plain; charset=utf-8\n")
print("caf\u00e9 via codecs")
