#!/usr/bin/python3
import time
print("Content-Type: text/plain\n\n%s %s %s" % (time.strftime("%H", time.localtime(0)), time.tzname[0], time.timezone))
