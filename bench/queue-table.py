#!/usr/bin/env python3
"""bench/queue-table.py RESULTS.json: issue 23's table from one bench/run
(bench/queue runs it): requests per second of the persistent C hello with
the shipped defaults (the default pool) against mod_fcgid (8 processes a
class), at 1, 10 and 50 connections, for a 0 B body, a 64 KiB body and a
0 B body over TLS, side by side, with the ratio; then the same for the
pools of 4 and 16 and the in-process handler, where the run has them.
Every figure is the median of the run's timed runs; the h2load command of
each cell is printed below the table."""
import json
import sys

ROWS = [("0 B", 0, "clear"), ("64 KiB", 65536, "clear"), ("0 B TLS", 0, "tls")]
CONC = [1, 10, 50]
# (numerator, denominator, row label); the shipped defaults first
PAIRS = [("cgiplus-c", "fcgid-c", "default pool / mod_fcgid"),
         ("cgiplus-c-4", "fcgid-c", "pool of 4 / mod_fcgid"),
         ("cgiplus-c-4", "cgiplus-c-16", "pool of 4 / pool of 16"),
         ("cgiplus-c", "inproc-c", "default pool / in-process handler")]


def main():
    with open(sys.argv[1]) as f:
        d = json.load(f)
    cells = {}
    for c in d["cells"]:
        if c["section"] == "scripting" and c["status"] == "measured":
            cells[(c["target"], c["size"], c["transport"], c["concurrency"])] = c
    meta = d["meta"]
    print("bench/run at git %s, %s; median of %d timed runs of %g s each"
          % (meta["machine"].get("git", "?"), meta["date"], meta["runs"], meta["duration_s"]))
    print("command: %s" % meta["command"])
    print()
    print("| req/s, median of %d | %s |" % (meta["runs"], " | ".join("c%d" % c for c in CONC)))
    print("|---|%s|" % "|".join("--:" for _ in CONC))
    used = []
    for num, den, label in PAIRS:
        for rlabel, size, tr in ROWS:
            out = []
            for conc in CONC:
                a = cells.get((num, size, tr, conc))
                b = cells.get((den, size, tr, conc))
                if not a or not b:
                    out.append("-")
                    continue
                ra, rb = a["median"]["rps"], b["median"]["rps"]
                out.append("%.2fx (%d / %d)" % (ra / rb, ra, rb))
                used += [a, b]
            if any(o != "-" for o in out):
                print("| %s, %s | %s |" % (label, rlabel, " | ".join(out)))
    print()
    print("worst latency (p99 ms, median of the runs) at c50:")
    for t in ("cgiplus-c", "fcgid-c"):
        vals = ["%s %s" % (rl, cells[(t, s, tr, 50)]["median"]["p99_ms"])
                for rl, s, tr in ROWS if (t, s, tr, 50) in cells]
        if vals:
            print("  %s: %s" % (t, ", ".join(vals)))
    print()
    print("h2load command of each cell (<log>: its log file):")
    seen = set()
    for c in used:
        if c["command"] not in seen:
            seen.add(c["command"])
            print("  " + c["command"])


if __name__ == "__main__":
    main()
