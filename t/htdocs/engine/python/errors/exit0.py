#!/usr/bin/python3
import sys
sys.exit(0)
