#!/usr/bin/env python3
"""soak_late.py: the misbehaving script of bench/soak and t/56_late_output.t
(issue 20, hole 1).

Like soak.py it appends "ID PID TIME" to the ledger first (SOAK_LEDGER, if
set), and every response names its request, the client's X-Soak-Id
(X-Soak-Token and the body "token ID pid PID").
Asked to (?hold=MS), it holds its worker MS milliseconds before it answers.
Asked to (?late=), it then writes with no request:
  main     150 ms after its sentinel the main thread writes a second
           response, "PRIVATE DATA OF ID" with a sentinel of its own;
  thread   a background thread prints the same 150 ms later, while the
           main thread waits for its next request (output while idle).
  ready    the same, but the main thread goes straight back into the
           library's read: the thread prints after the library's ready
           line (docs/PROTOCOL.md), which says the worker is clean.
None of it may reach another request: the worker must be stopped instead.
"""
import os
import select
import sys
import threading
import time

sys.path.insert(0, os.environ.get("SOAK_LIB", ""))
import cgiplus  # noqa: E402

ledger = os.open(os.environ["SOAK_LEDGER"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666) \
    if "SOAK_LEDGER" in os.environ else -1
sentinel = os.fsencode(os.environ.get("CGIPLUSEOF", "")) + b"\n"
waiting = threading.Event()  # set while the main thread waits for a request


def late_output(rid, wait_idle):
    time.sleep(0.15)
    if wait_idle:
        waiting.wait()
    os.write(1, b"Content-Type: text/plain\nX-Soak-Token: %s\n\nPRIVATE DATA OF %s\n%s"
             % (rid, rid, sentinel))


straight = False  # the last request asked for "ready": no wait before accept


def next_request():
    # The first byte of a request, before the library reads it: a late
    # thread then writes while the worker has no request.
    if cgiplus.is_persistent() and not straight:
        waiting.set()
        select.select([3], [], [])
        waiting.clear()
    return cgiplus.accept()


while next_request():
    rid = os.environ.get("HTTP_X_SOAK_ID", "-").encode()
    if ledger >= 0:
        os.write(ledger, b"%s %d %.6f\n" % (rid, os.getpid(), time.time()))
    q = dict(p.split("=", 1) for p in os.environ.get("QUERY_STRING", "").split("&") if "=" in p)
    if q.get("hold", "").isdigit():
        time.sleep(int(q["hold"]) / 1000)
    sys.stdout.buffer.write(b"Content-Type: text/plain\nX-Soak-Token: %s\nX-Soak-Pid: %d\n\n"
                            b"token %s pid %d\n" % (rid, os.getpid(), rid, os.getpid()))
    cgiplus.finish()
    if q.get("late") == "main":
        late_output(rid, False)
    elif q.get("late") == "thread":
        threading.Thread(target=late_output, args=(rid, True), daemon=True).start()
    elif q.get("late") == "ready":
        threading.Thread(target=late_output, args=(rid, False), daemon=True).start()
    straight = q.get("late") == "ready"
