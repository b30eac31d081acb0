#!/usr/bin/env python3
"""bench/soak-mix/targeted.py KIND...: per-event leak check against the httpd
bench/soak-mix/setup.sh wrote (env RUN, PORT; best with ServerLimit 1).
For each kind (abort_resp abort_up h2reset ws timeout crash limit post
chunked get slow_read deploy killw graceful) it warms up, samples, repeats
the event N times (env N, default 150; NSLOW, default 30, for deploy,
killw and graceful), lets it settle and samples again: a delta of
descriptors, RSS, spool files or unlinked-but-open files that grows with N
is a leak. ABORT_WAIT=1 keeps the upload aborts short."""
import os, sys, time, json, random, threading, subprocess
sys.argv = [sys.argv[0], "1", "/dev/null"] + sys.argv[1:]
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "drive.py")).read().replace("\nmain()\n", "\n")
exec(compile(src, "drive", "exec"))
N = int(os.environ.get("N", "150"))

def snap():
    hp, rp = httpd_pid(), runner_pid()
    procs = allprocs()
    kids = [c for c, (pp, _) in procs.items() if pp == hp and c != rp]
    ws = [c for c, (pp, _) in procs.items() if pp == rp]
    ch = {c: pstat(c) for c in kids}
    return {"parent": pstat(hp), "runner": pstat(rp), "children": ch, "workers": len(ws),
            "spool": count_dir(RUN + "/cgiplus-spool"), "resp": count_dir(RUN + "/cgiplus-response"),
            "deleted": deleted_fds(), "zombies": sum(1 for c, (pp, st) in procs.items() if st == "Z" and (pp in (hp, rp) or pp in kids or pp in ws))}

def settle():
    time.sleep(4)
    # wait for the busy/stopping workers to be done (idle timeout 20 s: only min-idle ones stay)
    end = time.time() + 40
    while time.time() < end:
        try:
            d = json.loads(subprocess.run(["curl", "-s", "-m", "5", B + "/cgiplus-status?json"], stdout=subprocess.PIPE).stdout)
            if all(w["state"] == "idle" for p in d["pools"] for w in p["workers"]) and d["runner"]["queue_bytes"] == 0:
                break
        except Exception:
            pass
        time.sleep(1)
    time.sleep(2)

def run(fn, n, conc=2):
    rnd = random.Random(1)
    left = [n]; lock = threading.Lock()
    def w():
        while True:
            with lock:
                if left[0] <= 0: return
                left[0] -= 1
            try: fn(rnd)
            except Exception as e: note("exc_%s" % type(e).__name__)
    ts = [threading.Thread(target=w) for _ in range(conc)]
    [t.start() for t in ts]; [t.join() for t in ts]

def fmt(s):
    ch = sorted(v for v in s["children"].values() if v)
    return "parent %s runner %s children %s workers %d spool %d resp %d z %d deleted %d" % (s["parent"], s["runner"], ch, s["workers"], s["spool"], s["resp"], s["zombies"], s["deleted"])

def deploy(rnd):
    f = rnd.choice(["ex/perl/hello.pl", "ex/c/hello", "ex/python/hello.py", "ex/c/fcgi_app", "wsgi/app.cgp"])
    path = os.path.join(RUN, f); os.utime(path)
    time.sleep(0.3)
    u = {"ex/perl/hello.pl": "/pl1/hello.pl", "ex/c/hello": "/c1/hello", "ex/python/hello.py": "/py1/hello.py", "ex/c/fcgi_app": "/fc1/fcgi_app", "wsgi/app.cgp": "/wsgi/app.cgp"}[f]
    req("GET", u)

def graceful(rnd):
    subprocess.run(["/usr/sbin/apache2", "-f", RUN + "/httpd.conf", "-k", "graceful"])
    time.sleep(3)
    for u in ["/c1/hello", "/pl1/hello.pl", "/fc1/fcgi_app", "/c2/hello"]:
        try: req("GET", u)
        except Exception: pass

def killw(rnd):
    rp = runner_pid()
    ws = [c for c, (pp, _) in allprocs().items() if pp == rp]
    if ws: os.kill(rnd.choice(ws), 9)
    time.sleep(0.5)
    for u in ["/c1/hello", "/pl1/hello.pl", "/fc1/fcgi_app", "/c2/hello", "/py1/hello.py"]:
        try: req("GET", u)
        except Exception: pass

def slow_read(rnd):
    p = rnd.choice(["/pl1/app.pl?lines=300000", "/fc1/fcgi_app?out=4000000", "/c2/echo", "/wsgi/app.cgp?big", "/ephp1/hello.php?n=150000", "/pl2/app.pl?lines=300000", "/fc2/fcgi_app?out=4000000"])
    if p.endswith("echo"):
        s = raw(p, b"Content-Length: 2000000\r\n", b"POST"); s.sendall(BODIES[2000000])
    else:
        s = raw(p)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    got = 0; stop_at = rnd.choice([100000, 1000000, 10**9])
    t_end = time.time() + 8
    s.settimeout(5)
    try:
        while got < stop_at and time.time() < t_end:
            d = s.recv(4096)
            if not d: break
            got += len(d); time.sleep(0.002)
    except Exception: pass
    if rnd.random() < 0.5: s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close(); note("slow_read")

def deleted_fds():
    out = 0
    hp = httpd_pid()
    for c in [hp] + [c for c, (pp, _) in allprocs().items() if pp == hp]:
        try:
            for f in os.listdir("/proc/%d/fd" % c):
                try:
                    if os.readlink("/proc/%d/fd/%s" % (c, f)).endswith("(deleted)") and "memfd" not in os.readlink("/proc/%d/fd/%s" % (c, f)): out += 1
                except OSError: pass
        except OSError: pass
    return out

KIND = {"slow_read": slow_read, "abort_resp": k_abort_resp, "abort_up": k_abort_up, "timeout": k_timeout, "crash": k_crash, "limit": k_limit,
        "h2reset": k_h2reset, "ws": k_ws, "post": k_post, "chunked": k_chunked, "get": k_get, "deploy": deploy,
        "graceful": graceful, "killw": killw}
for name in sys.argv[3:]:
    fn = KIND[name]
    n = N if name not in ("graceful", "deploy", "killw") else int(os.environ.get("NSLOW", "30"))
    run(fn, max(5, n // 5)); settle()
    a = snap()
    t = time.time(); run(fn, n); settle()
    b = snap()
    print("%-10s n=%d %.0fs\n  before %s\n  after  %s" % (name, n, time.time() - t, fmt(a), fmt(b)), flush=True)
print(json.dumps(stats, sort_keys=True))
