#!/usr/bin/python3
# A binary image through sys.stdout.buffer, header printed and flushed first.
import sys, base64
png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
print("Content-Type: image/png")
print("Content-Length: %d" % len(png))
print()
sys.stdout.flush()
sys.stdout.buffer.write(png)
