#!/usr/bin/python3
import os, time
os.environ["TZ"] = "Asia/Tokyo"
time.tzset()
print("Content-Type: text/plain\n\n%s" % time.strftime("%H %Z", time.localtime(0)))
