#!/usr/bin/env python3
"""bench/soak-mix/drive.py MINUTES SAMPLES.jsonl: mixed load, chaos and resource
samples against the httpd bench/soak-mix/setup.sh wrote (env RUN, PORT).

CLIENTS client threads (default 5) run a mix of GETs, POSTs (0 B to 2 MB),
chunked POSTs, client aborts mid-response and mid-upload, requests that
time out (504), crashing scripts, the body limit (413) and the tiny queue
(503), HTTP/2 streams reset (RST_STREAM) and WebSocket connections opened
and dropped; h2load runs every 15 s (H2N requests, default 600). Chaos: a
worker SIGKILLed every KILL_EVERY s (75), a deploy (touch or replace) every
DEPLOY_EVERY s (110), a graceful restart every GRACEFUL_EVERY s (170), the
runner SIGKILLed once at 45 % (not with NO_RUNNER_KILL=1). Every 30 s a
sample: RSS and descriptors of httpd's parent, children, the runner and its
workers, pools and table slots, spool and runtime files, zombies, the error
log's size. 60 s of warm-up, a baseline, MINUTES of load, four samples while
it settles. table.py SAMPLES.jsonl prints them as a table."""
import base64, http.client, json, os, random, re, signal, socket, struct, subprocess, sys, threading, time

RUN = os.environ["RUN"]; PORT = int(os.environ["PORT"]); B = "http://127.0.0.1:%d" % PORT
CONF = RUN + "/httpd.conf"
MINUTES = float(sys.argv[1]) if len(sys.argv) > 1 else 30
OUT = sys.argv[2] if len(sys.argv) > 2 else "samples.jsonl"
CLIENTS = int(os.environ.get("CLIENTS", "5"))
stop = threading.Event()
stats = {}
slock = threading.Lock()
events = []

def note(k):
    with slock:
        stats[k] = stats.get(k, 0) + 1

def log(m):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), m), flush=True)

def httpd_pid():
    try: return int(open(RUN + "/httpd.pid").read())
    except Exception: return None

def ppid_of(p):
    try:
        st = open("/proc/%d/stat" % p).read()
        f = st[st.rindex(")") + 2:].split()
        return int(f[1]), f[0]
    except Exception: return None, None

def allprocs():
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            pp, state = ppid_of(int(d))
            if pp is not None: out[int(d)] = (pp, state)
    return out

def runner_pid():
    try:
        p = int(open(RUN + "/cgiplus-runner.pid").read())
        os.kill(p, 0); return p
    except Exception: return None

def pstat(pid):
    try:
        rss = 0
        for l in open("/proc/%d/status" % pid):
            if l.startswith("VmRSS:"): rss = int(l.split()[1])
        return rss, len(os.listdir("/proc/%d/fd" % pid))
    except Exception: return None

def cmd(pid):
    try: return open("/proc/%d/cmdline" % pid, "rb").read().split(b"\0")[0].decode(errors="replace")[-40:]
    except Exception: return "?"

def count_dir(d):
    try: return len(os.listdir(d))
    except Exception: return -1

def sample(tag):
    hp, rp = httpd_pid(), runner_pid()
    procs = allprocs()
    kids = lambda p: [c for c, (pp, _) in procs.items() if pp == p]
    s = {"t": time.time(), "tag": tag, "httpd": hp and pstat(hp), "runner_pid": rp, "runner": rp and pstat(rp)}
    s["children"] = {c: pstat(c) for c in kids(hp)} if hp else {}
    ws = {c: (pstat(c), cmd(c)) for c in kids(rp)} if rp else {}
    s["workers"] = len(ws)
    s["worker_rss"] = sum(v[0][0] for v in ws.values() if v[0])
    s["worker_fds_max"] = max([v[0][1] for v in ws.values() if v[0]] or [0])
    s["zombies"] = [(c, pp) for c, (pp, st) in procs.items() if st == "Z" and (pp in (hp, rp) or pp in ws or pp in s["children"])]
    s["spool"] = count_dir(RUN + "/cgiplus-spool"); s["resp"] = count_dir(RUN + "/cgiplus-response")
    s["run"] = count_dir(RUN); s["shm"] = count_dir("/dev/shm"); s["tmp"] = count_dir("/tmp")
    try: s["errlog"] = os.path.getsize(RUN + "/error_log")
    except Exception: s["errlog"] = -1
    try:
        d = json.loads(subprocess.run(["curl", "-s", "-m", "10", B + "/cgiplus-status?json"], stdout=subprocess.PIPE).stdout)
        pools = d["pools"]
        s["pools"] = len(pools); s["retired"] = sum(1 for p in pools if p.get("retired"))
        s["slots"] = sum(p["settings"]["max_workers"] for p in pools if p.get("direct"))
        s["pool_workers"] = sum(len(p["workers"]) for p in pools)
        s["over"] = [(p["id"], len(p["workers"]), p["settings"]["max_workers"]) for p in pools if len(p["workers"]) > p["settings"]["max_workers"]]
        s["queue_bytes"] = d["runner"]["queue_bytes"]; s["ws"] = d["websocket"]["connections"]; s["ws_mem"] = d["websocket"]["memory"]
        s["runner_workers"] = d["runner"]["workers"]
    except Exception as e:
        s["status_err"] = str(e)[:80]
    with slock: s["stats"] = dict(stats)
    return s

# ---------------- load ----------------
def req(method, path, body=None, headers=None, timeout=30, read=True):
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read() if read else b""
        return r.status, data
    finally:
        c.close()

BODIES = {n: os.urandom(n) for n in (0, 10, 4000, 70000, 300000, 2000000)}
GETS = ["/c1/hello", "/c2/hello", "/pl1/hello.pl", "/pl2/hello.pl", "/py1/hello.py", "/py2/hello.py",
        "/ep1/hello.pl", "/ep2/form.pl", "/ey1/hello.py", "/ey2/form.py", "/ephp1/hello.php", "/ephp2/hello.php?n=50",
        "/fcgid/hello.php", "/wsgi/app.cgp", "/wsgi/app.cgp?big", "/cgi-bin/plain.cgi", "/static/small.txt", "/static/big.bin",
        "/fc1/fcgi_app", "/fc2/fcgi_app", "/fc1/fcgi_app?out=200000", "/pl1/app.pl?lines=1000", "/pl2/app.pl?lines=100"]
ECHOES = ["/c1/echo", "/c2/echo", "/pl1/echo.pl", "/py1/echo.py", "/py2/echo.py", "/ephp1/hello.php", "/fcgid/hello.php",
          "/wsgi/app.cgp", "/fc1/fcgi_app", "/fc2/fcgi_app", "/cgi-bin/plain.cgi", "/ep1/form.pl"]

def k_get(rnd):
    p = rnd.choice(GETS); st, _ = req("GET", p); note("get_%d" % st)

def k_post(rnd):
    p = rnd.choice(ECHOES); n = rnd.choice(list(BODIES)); st, d = req("POST", p, BODIES[n], {"Content-Type": "application/octet-stream"})
    note("post_%d" % st)
    if st == 200 and p.endswith("echo") and len(d) != n: note("post_badlen")

def k_chunked(rnd):
    p = rnd.choice(ECHOES); n = rnd.choice([10, 70000, 2000000]); b = BODIES[n]
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30); c.request("POST", p, body=iter([b[i:i + 16384] for i in range(0, len(b), 16384)]), encode_chunked=True); r = c.getresponse(); d = r.read(); st = r.status; c.close()
    note("chunked_%d" % st)

def raw(path, head_extra=b"", method=b"GET"):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    s.sendall(method + b" " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n" + head_extra + b"\r\n")
    return s

def k_abort_resp(rnd):
    p = rnd.choice(["/pl1/app.pl?ticks=50&gap=0.05", "/fc1/fcgi_app?lines=30", "/static/big.bin", "/wsgi/app.cgp?big",
                    "/c1/echo", "/py2/echo.py", "/fc2/fcgi_app?out=3000000", "/ephp2/hello.php?n=100000", "/pl2/app.pl?lines=200000"])
    if p.endswith("echo") or p.endswith(".py"):
        s = raw(p, b"Content-Length: 2000000\r\n", b"POST"); s.sendall(BODIES[2000000][:1000000]); s.settimeout(float(os.environ.get("ABORT_WAIT", "30")))
        try: s.recv(100)
        except Exception: pass
    else:
        s = raw(p)
        try: s.recv(rnd.choice([10, 1000, 20000]))
        except Exception: pass
    time.sleep(rnd.uniform(0, 0.3))
    if rnd.random() < 0.5: s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
    s.close(); note("abort_resp")

def k_abort_up(rnd):
    p = rnd.choice(["/c1/echo", "/c2/echo", "/py1/echo.py", "/pl1/app.pl?body", "/fc1/fcgi_app", "/fc2/fcgi_app", "/ephp1/hello.php",
                    "/fcgid/hello.php", "/wsgi/app.cgp", "/cgi-bin/plain.cgi", "/ey1/form.py"])
    n = rnd.choice([5000, 100000, 3000000])
    s = raw(p, b"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n" % n, b"POST")
    s.sendall(BODIES[2000000][:rnd.randint(1, min(n - 1, 1500000))])
    time.sleep(rnd.uniform(0, 0.5))
    if rnd.random() < 0.5: s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close(); note("abort_up")

def k_timeout(rnd):
    p = rnd.choice(["/slow/app.pl?sleep=4", "/slow/app.pl?ticks=10&gap=1.5", "/fc1/fcgi_app?sleep=4000"])
    st, _ = req("GET", p); note("timeout_%d" % st)

def k_crash(rnd):
    p = rnd.choice(["/pl1/app.pl?crash", "/pl2/app.pl?die_early", "/pl1/app.pl?die_loud", "/fc1/fcgi_app?crash", "/fc2/fcgi_app?crashmid",
                    "/ephp1/hello.php?crash", "/fcgid/hello.php?crash"])
    try: st, _ = req("GET", p); note("crash_%d" % st)
    except Exception as e: note("crash_exc")

def k_limit(rnd):
    st, _ = req("POST", "/lim/app.pl?body", BODIES[4000]); note("limit_%d" % st)
    def one(res): 
        try: res.append(req("GET", "/tiny/app.pl?sleep=0.6")[0])
        except Exception: res.append("exc")
    res = []; ts = [threading.Thread(target=one, args=(res,)) for _ in range(4)]
    [t.start() for t in ts]; [t.join() for t in ts]
    for r in res: note("tiny_%s" % r)

# minimal h2c: HEADERS then RST_STREAM
def hpack(hs):
    out = b""
    for k, v in hs:
        k, v = k.encode(), v.encode()
        out += b"\x00" + bytes([len(k)]) + k + bytes([len(v)]) + v
    return out

def frame(t, fl, sid, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([t, fl]) + struct.pack(">I", sid) + payload

def k_h2reset(rnd):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b""))
    p = rnd.choice(["/pl1/app.pl?sleep=1", "/slow/app.pl?ticks=5&gap=0.3", "/fc1/fcgi_app?lines=20", "/c1/echo", "/py1/echo.py", "/ephp1/hello.php?sleep=500", "/tiny/app.pl?sleep=0.5"])
    post = p.endswith("echo") or p.endswith(".py")
    hs = [(":method", "POST" if post else "GET"), (":scheme", "http"), (":path", p), (":authority", "x")]
    if post: hs.append(("content-length", "200000"))
    s.sendall(frame(1, 4 | (0 if post else 1), 1, hpack(hs)))
    if post: s.sendall(frame(0, 0, 1, BODIES[70000][:16000]))
    time.sleep(rnd.uniform(0.05, 0.6))
    s.sendall(frame(3, 0, 1, struct.pack(">I", 8)))
    # a second stream must still work
    s.sendall(frame(1, 5, 3, hpack([(":method", "GET"), (":scheme", "http"), (":path", "/c1/hello"), (":authority", "x")])))
    end = time.time() + 10; buf = b""; ok = False
    try:
        while time.time() < end and not ok:
            d = s.recv(65536)
            if not d: break
            buf += d
            i = 0
            while len(buf) - i >= 9:
                ln = int.from_bytes(buf[i:i + 3], "big"); t = buf[i + 3]; fl = buf[i + 4]; sid = int.from_bytes(buf[i + 5:i + 9], "big") & 0x7fffffff
                if len(buf) - i < 9 + ln: break
                if t == 4 and not fl & 1: s.sendall(frame(4, 1, 0, b""))
                if sid == 3 and fl & 1: ok = True
                i += 9 + ln
            buf = buf[i:]
    except Exception: pass
    s.close(); note("h2reset_%s" % ("ok" if ok else "noresp"))

def k_ws(rnd):
    p = rnd.choice(["/c1/ws_echo", "/py1/ws_echo.py", "/pl1/ws_echo.pl", "/c2/ws_echo"])
    key = base64.b64encode(os.urandom(16))
    s = raw(p, b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + b"\r\n")
    h = b""
    while b"\r\n\r\n" not in h:
        d = s.recv(4096)
        if not d: break
        h += d
    if not h.startswith(b"HTTP/1.1 101"):
        note("ws_%s" % h[:12].decode(errors="replace")); s.close(); return
    n = rnd.randint(1, 20); good = 0
    for i in range(n):
        msg = os.urandom(rnd.choice([5, 100, 5000]))
        mask = os.urandom(4)
        ln = len(msg)
        hdr = bytes([0x82]) + (bytes([0x80 | ln]) if ln < 126 else bytes([0x80 | 126]) + struct.pack(">H", ln))
        s.sendall(hdr + mask + bytes(b ^ mask[j % 4] for j, b in enumerate(msg)))
        got = b""
        try:
            while len(got) < ln + 2:
                d = s.recv(65536)
                if not d: break
                got += d
            if got.endswith(msg): good += 1
        except Exception: break
    mode = rnd.random()
    if mode < 0.4:
        mask = os.urandom(4); pl = struct.pack(">H", 1000)
        s.sendall(bytes([0x88, 0x82]) + mask + bytes(b ^ mask[j % 4] for j, b in enumerate(pl)))
        try: s.recv(100)
        except Exception: pass
    elif mode < 0.7:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    elif mode < 0.85:
        time.sleep(rnd.uniform(1, 8))  # held open a while, then dropped
    s.close(); note("ws_%s" % ("ok" if good == n else "partial"))

KINDS = [k_get] * 8 + [k_post] * 5 + [k_chunked] * 2 + [k_abort_resp] * 2 + [k_abort_up] * 2 + [k_timeout] + [k_crash] + \
        [k_limit] + [k_h2reset] * 2 + [k_ws] * 2

def client(n):
    rnd = random.Random(n * 31 + int(time.time()))
    while not stop.is_set():
        k = rnd.choice(KINDS)
        try: k(rnd)
        except Exception as e: note("exc_%s_%s" % (k.__name__, type(e).__name__))
        time.sleep(rnd.uniform(0.02, 0.15))

def h2loader():
    urls = ["/c1/hello", "/py1/hello.py", "/ephp1/hello.php", "/fc1/fcgi_app", "/static/small.txt", "/wsgi/app.cgp", "/ep1/hello.pl"]
    while not stop.wait(15):
        p = subprocess.run(["h2load", "-n", os.environ.get("H2N", "600"), "-c", "4", "-m", "4", "-t", "1"] + ["%s%s" % (B, u) for u in urls],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        m = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", p.stdout)
        st = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", p.stdout)
        if m: 
            with slock:
                stats["h2load_ok"] = stats.get("h2load_ok", 0) + int(m.group(3)); stats["h2load_fail"] = stats.get("h2load_fail", 0) + int(m.group(4)) + int(m.group(5))
                if st: stats["h2load_5xx"] = stats.get("h2load_5xx", 0) + int(st.group(4))

# ---------------- chaos ----------------
def chaos(t_start, minutes):
    rnd = random.Random(7)
    runner_killed = False
    last = {"graceful": time.time(), "deploy": time.time(), "kill": time.time()}
    while not stop.wait(5):
        now = time.time()
        if now - last["kill"] > float(os.environ.get("KILL_EVERY", "75")):
            last["kill"] = now
            rp = runner_pid()
            ws = [c for c, (pp, _) in allprocs().items() if pp == rp]
            if ws:
                v = rnd.choice(ws); log("chaos: kill -9 worker %d (%s)" % (v, cmd(v))); events.append((now, "kill_worker", v))
                try: os.kill(v, 9)
                except OSError: pass
        if now - last["deploy"] > float(os.environ.get("DEPLOY_EVERY", "110")):
            last["deploy"] = now
            f = rnd.choice(["ex/perl/hello.pl", "ex/python/echo.py", "ex/c/hello", "eperl/hello.pl", "php/hello.php", "wsgi/app.cgp", "ex/c/fcgi_app", "ex/python/ws_echo.py", "ex/perl/app.pl"])
            path = os.path.join(RUN, f)
            if rnd.random() < 0.5:
                os.utime(path); how = "touch"
            else:
                tmp = path + ".new"; subprocess.run(["cp", "-p", path, tmp]); os.rename(tmp, path); how = "replace"
            log("chaos: deploy (%s) %s" % (how, f)); events.append((now, "deploy", f))
        if now - last["graceful"] > float(os.environ.get("GRACEFUL_EVERY", "170")):
            last["graceful"] = now
            log("chaos: graceful restart of %s" % httpd_pid()); events.append((now, "graceful", httpd_pid()))
            subprocess.run(["/usr/sbin/apache2", "-f", CONF, "-k", "graceful"])
        if not runner_killed and not os.environ.get("NO_RUNNER_KILL") and now - t_start > minutes * 60 * 0.45:
            runner_killed = True
            rp = runner_pid(); log("chaos: kill -9 runner %s" % rp); events.append((now, "kill_runner", rp))
            if rp: os.kill(rp, 9)

def main():
    f = open(OUT, "a")
    def put(s):
        f.write(json.dumps(s) + "\n"); f.flush()
        log("%s: httpd %s runner %s %s workers %s rss %s children %s pools %s/%s retired slots %s spool %s resp %s run %s shm %s tmp %s zombies %s errlog %s ws %s" % (
            s["tag"], s["httpd"], s["runner_pid"], s["runner"], s["workers"], s["worker_rss"], sorted(v for v in s["children"].values() if v),
            s.get("pools"), s.get("retired"), s.get("slots"), s["spool"], s["resp"], s["run"], s["shm"], s["tmp"], len(s["zombies"]), s["errlog"], s.get("ws")))
    put(sample("baseline0"))
    # warm-up
    ts = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
    [t.start() for t in ts]
    time.sleep(60); stop.set(); [t.join(60) for t in ts]; stop.clear()
    time.sleep(35); put(sample("baseline"))
    t0 = time.time()
    ts = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
    ts.append(threading.Thread(target=h2loader, daemon=True))
    ts.append(threading.Thread(target=chaos, args=(t0, MINUTES), daemon=True))
    [t.start() for t in ts]
    while time.time() - t0 < MINUTES * 60:
        time.sleep(30); put(sample("load"))
    stop.set(); [t.join(90) for t in ts]
    for i in range(4):
        time.sleep(30); put(sample("settle%d" % i))
    log("stats: %s" % json.dumps(stats, sort_keys=True))
    log("events: %s" % events)

main()
