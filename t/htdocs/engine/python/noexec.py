#!/usr/bin/env python3
# Not executable (mode 0644): an engine runs only what plain CGI would.
print("Content-Type: text/plain\n\nran")
