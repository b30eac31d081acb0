#!/usr/bin/python3
import sys
sys.exit("errors-exitmsg-marker")
