#!/usr/bin/python3
"""procw_lib.pl in Python, as plain CGI (the Python engine runs it)."""
import os
import re

m = re.search(r'\bpid=(\d+|self)', os.environ.get('QUERY_STRING', ''))
pid = os.getpid() if not m or m.group(1) == 'self' else int(m.group(1))
print("Content-Type: text/plain\n")
print("pid=%d" % os.getpid())
for name, val in (('oom_score_adj', '1000'), ('autogroup', '19')):
    try:
        f = open('/proc/%d/%s' % (pid, name), 'wb', buffering=0)
    except OSError as e:
        print('%s=refused (%s)' % (name, e.strerror))
        continue
    try:
        f.write(val.encode())
        print('%s=wrote' % name)
    except OSError as e:
        print('%s=opened (%s)' % (name, e.strerror))
    f.close()
