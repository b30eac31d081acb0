#!/usr/bin/env python3
"""bench/soak-mix/table.py SAMPLES.jsonl: drive.py's samples, one line each."""
import json, sys, time
for l in open(sys.argv[1]):
    s = json.loads(l)
    ch = [v for k, v in s["children"].items() if v and int(k) != s.get("runner_pid")]
    print("%s %-9s rn %s/%s fds %s | ch n%d rss %s fds %s | w %s/%s wrss %d wfd %d | pools %s ret %s slots %s | spool %s resp %s run %s shm %s tmp %s z %d | err %d ws %s qb %s over %s" % (
        time.strftime("%H:%M:%S", time.localtime(s["t"])), s["tag"], s["runner_pid"], s["runner"] and s["runner"][0], s["runner"] and s["runner"][1],
        len(ch), max([c[0] for c in ch] or [0]), sorted(c[1] for c in ch), s["workers"], s.get("runner_workers"), s["worker_rss"] // 1024, s["worker_fds_max"],
        s.get("pools"), s.get("retired"), s.get("slots"), s["spool"], s["resp"], s["run"], s["shm"], s["tmp"], len(s["zombies"]), s["errlog"] // 1024, s.get("ws"), s.get("queue_bytes"), s.get("over")))
