#!/usr/bin/python3
print("Content-Type: text/plain\n\nbefore")
quit("corpus-quit-message")
