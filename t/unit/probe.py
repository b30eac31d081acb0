#!/usr/bin/env python3
"""probe.py: the Python twin of probe.c for t/unit/script_harness.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

count = 0
try:
    while cgiplus.accept():
        env = os.environ
        act = env.get("PROBE", "(unset)")
        count += 1
        out = sys.stdout
        out.write("Content-Type: text/plain\n\ncount=%d persistent=%d\n"
                  % (count, cgiplus.is_persistent()))
        if act == "struct":
            try:
                cgiplus.struct_mode()
                out.write("struct=0\n")
            except OSError:
                out.write("struct=-1\n")
        elif act == "callout":
            a = cgiplus.callout(env.get("PROBE_ARG", "(unset)"))
            out.write("answer=%s errno=0\n" % a)
        elif act == "subenv":
            import subprocess
            out.flush()
            subprocess.run(["/bin/sh", "-c", 'printf "sub=%s\\n" "${V-(unset)}"'])
        elif act == "partial":
            n = int(env.get("PROBE_ARG", "0"))
            out.write("body=%s\n" % sys.stdin.read(n))
        elif act == "readall":
            out.write("body=%s\n" % sys.stdin.read())
        out.write("V=%s\n" % env.get("V", "(unset)"))
        if act != "nofinish":
            cgiplus.finish()
except cgiplus.CGIplusError:
    sys.exit(1)
