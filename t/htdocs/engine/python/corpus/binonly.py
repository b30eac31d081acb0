#!/usr/bin/python3
# Header and body as bytes on sys.stdout.buffer alone.
import sys
sys.stdout.buffer.write(b"Content-Type: application/octet-stream\r\n\r\n" + bytes(range(256)))
