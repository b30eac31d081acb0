#!/usr/bin/python3
# a package beside it (sibpkg/, which t/58_engine_py_siblings.t writes and
# rewrites) and its submodule
import sibpkg.sub
print("Content-Type: text/plain\n")
print("%s, %s" % (sibpkg.VERSION, sibpkg.sub.WHO))
