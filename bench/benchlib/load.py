"""Load generation with h2load (HTTP/1.1) and the checks done before it."""
import http.client
import os
import re
import resource
import ssl
import subprocess
import time

H2LOAD = "h2load"


def dur(seconds):
    """h2load takes whole seconds, or a unit: 1500ms."""
    ms = int(round(seconds * 1000))
    return "%d" % (ms // 1000) if ms % 1000 == 0 else "%dms" % ms


def h2load_cmd(url, conc, duration, logfile=None, warmup=0):
    cmd = [H2LOAD, "--h1", "-t", "1", "-c", str(conc)]
    if warmup > 0:
        cmd += ["--warm-up-time", dur(warmup)]
    cmd += ["-D", dur(duration)]
    if logfile:
        cmd += ["--log-file", logfile]
    return cmd + [url]


def check(url, expect_len, expect_body=None, timeout=20):
    """(ok, detail): the target answers 200 with a body of expect_len bytes
    (expect_body, if given). A few tries: a pool may start its first worker
    on the first request."""
    m = re.match(r"(https?)://([^/]+)(/.*)", url)
    scheme, host, path = m.groups()
    detail = ""
    for _ in range(3):
        try:
            if scheme == "https":
                ctx = ssl.create_default_context()
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
                conn = http.client.HTTPSConnection(host, timeout=timeout, context=ctx)
            else:
                conn = http.client.HTTPConnection(host, timeout=timeout)
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
            conn.close()
            if (resp.status == 200 and len(body) == expect_len and
                    (expect_body is None or body == expect_body)):
                return True, "200, %d bytes%s" % (len(body), "" if expect_body is None
                                                  else ", the expected body")
            detail = "answered %d with %d bytes, expected 200 with %d" % (
                resp.status, len(body), expect_len)
        except (OSError, http.client.HTTPException) as e:
            detail = "request failed: %s" % e
        time.sleep(0.5)
    return False, detail


_NUM = r"([0-9.]+)"


def parse(out):
    """The figures h2load prints."""
    r = {}
    m = re.search(r"finished in ([0-9.]+)(m?s), " + _NUM + r" req/s", out)
    if m:
        secs = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
        r["elapsed_s"], r["h2load_rps"] = secs, float(m.group(3))
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                  r"(\d+) failed, (\d+) errored, (\d+) timeout", out)
    if m:
        (r["total"], r["started"], r["done"], r["succeeded"], r["failed"],
         r["errored"], r["timeout"]) = [int(x) for x in m.groups()]
    m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
    if m:
        r["s2xx"], r["s3xx"], r["s4xx"], r["s5xx"] = [int(x) for x in m.groups()]
    m = re.search(r"traffic: \S+ \((\d+)\) total", out)
    if m:
        r["traffic_bytes"] = int(m.group(1))
    m = re.search(r"Cipher: (\S+)", out)
    if m:
        r["cipher"] = m.group(1)
    m = re.search(r"TLS Protocol: (\S+)", out)
    if m:
        r["tls_protocol"] = m.group(1)
    return r


def latencies(logfile):
    """(count, mean ms, p99 ms, non-2xx count) from h2load's per-request log."""
    durs, bad = [], 0
    if not os.path.exists(logfile):
        return 0, None, None, 0
    with open(logfile) as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) < 3:
                continue
            if not parts[1].startswith("2"):
                bad += 1
            durs.append(int(parts[2]))
    if not durs:
        return 0, None, None, bad
    durs.sort()
    p99 = durs[min(len(durs) - 1, max(0, -(-99 * len(durs) // 100) - 1))]
    return len(durs), sum(durs) / len(durs) / 1000.0, p99 / 1000.0, bad


def run(url, conc, duration, warmup, logfile, sample_mid, cpu_now):
    """One timed h2load run: h2load's own warm-up (its requests are not
    counted), then `duration` seconds measured. The server CPU counters are
    read when the warm-up ends and when h2load exits; sample_mid() (memory)
    is called halfway through the measured part."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.Popen(h2load_cmd(url, conc, duration, logfile, warmup),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    time.sleep(max(0.0, t0 + warmup - time.time()))
    before = cpu_now()
    t1 = time.time()
    time.sleep(duration / 2.0)
    mem = sample_mid()
    out, _ = p.communicate(timeout=warmup + duration + 120)
    after = cpu_now()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = parse(out)
    r["duration_s"], r["warmup_s"] = duration, warmup
    r["measured_wall_s"] = time.time() - t1
    # h2load's own CPU over the whole run, warm-up included, scaled to the
    # measured part
    total = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    r["client_cpu_s"] = total * r["measured_wall_s"] / max(1e-6, time.time() - t0)
    for k in before:
        if before[k] is not None and after[k] is not None:
            r[k] = after[k] - before[k]
    n, mean, p99, bad = latencies(logfile)
    if os.path.exists(logfile):
        os.unlink(logfile)
    r.update(logged=n, mean_ms=mean, p99_ms=p99, non2xx=bad, memory=mem,
             h2load_exit=p.returncode)
    if p.returncode or "h2load_rps" not in r:
        r["error"] = out.strip().splitlines()[-3:] if out.strip() else ["no output"]
    return r


def quiesce(cpu_seconds, limit=0.15, longest=5.0):
    """Waits until the servers use less than `limit` of a core over 0.1 s
    (a CGI process a finished run left behind is still running), at most
    `longest` seconds. Returns the seconds waited."""
    t0 = time.time()
    last = cpu_seconds()
    while time.time() - t0 < longest:
        time.sleep(0.1)
        now = cpu_seconds()
        if now is None or last is None or now - last < limit * 0.1:
            break
        last = now
    return time.time() - t0
