#!/usr/bin/python3
# print() then sys.stdout.buffer.write without a flush: the bytes overtake the text.
import sys
print("Content-Type: text/plain\n")
sys.stdout.buffer.write(b"X-Corpus: raw first\n")
print("text")
