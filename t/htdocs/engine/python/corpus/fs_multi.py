#!/usr/bin/python3
import cgi, hashlib
f = cgi.FieldStorage(keep_blank_values=1)
print("Content-Type: text/plain\n")
for k in sorted(f.keys()):
    item = f[k]
    if isinstance(item, list):
        print(k, [i.value for i in item])
    elif item.filename:
        print(k, item.filename, hashlib.md5(item.file.read()).hexdigest())
    else:
        print(k, repr(item.value))
