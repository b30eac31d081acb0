#!/usr/bin/python3
import sys
print("Content-Type: text/plain\n\nthen closed")
sys.stdout.close()
