#!/usr/bin/python3
import sys
sys.__stdout__.write("Content-Type: text/plain\n\nvia __stdout__\n")
