#!/usr/bin/env python3
"""bench/ws_bench.py: the WebSocket figures of docs/BENCH.md (run through
bench/ws-run). A private httpd (event MPM, 4 children of 25 threads) on
127.0.0.1 serves the C and Python echo and chat examples through
mod_cgiplus and, on another path, mod_proxy_wstunnel in front of a
python3-websockets echo server (bench/scripts/ws_echo_server.py). The load
comes from bench/build/ws_load (C, epoll). Only what this starts is
stopped."""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LOAD = os.path.join(TOP, "bench", "build", "ws_load")
LIB = subprocess.run(["apxs", "-q", "LIBEXECDIR"], capture_output=True, text=True).stdout.strip()


def free_port(start):
    for p in range(start, start + 100, 2):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                with socket.socket() as s2:
                    s2.bind(("127.0.0.1", p + 1))
                return p
            except OSError:
                continue
    raise SystemExit("no free port")


CONF = """ServerRoot {dir}
PidFile {dir}/httpd.pid
ErrorLog {dir}/error_log
LogLevel warn
Listen 127.0.0.1:{port}
ServerName 127.0.0.1
DefaultRuntimeDir {dir}
Timeout 300
LoadModule mpm_event_module {lib}/mod_mpm_event.so
LoadModule authz_core_module {lib}/mod_authz_core.so
LoadModule alias_module {lib}/mod_alias.so
LoadModule proxy_module {lib}/mod_proxy.so
LoadModule proxy_http_module {lib}/mod_proxy_http.so
LoadModule proxy_wstunnel_module {lib}/mod_proxy_wstunnel.so
LoadModule cgiplus_module {top}/mod_cgiplus/.libs/mod_cgiplus.so
CGIplusRunnerPath {top}/runner/cgiplus-runner
User nobody
Group nogroup
# 4 children x 50 threads (mod_proxy_wstunnel holds one per connection);
# a child takes up to 50 + 50 x 100 connections
ServerLimit 4
StartServers 4
ThreadsPerChild 50
MaxRequestWorkers 200
AsyncRequestWorkerFactor 100
MaxConnectionsPerChild 0
CGIplusMaxWorkersTotal 64
Alias /c/ {top}/examples/c/
Alias /py/ {top}/examples/python/
<Directory {top}/examples>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 2
    # 1000 clients may ask at once while a pool's first worker starts
    CGIplusQueueDepth 10000
    CGIplusWebSocketPing none
</Directory>
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
# the peer: mod_proxy_wstunnel itself (not mod_proxy_http's tunnel)
ProxyWebsocketFallbackToProxyHttp Off
ProxyPass /proxy/ ws://127.0.0.1:{pyport}/
"""


class Bench:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cgiplus-wsbench.")
        os.chmod(self.dir, 0o755)
        self.port = free_port(19600)
        self.pyport = self.port + 1
        self.procs = []

    def start(self):
        with open(os.path.join(self.dir, "httpd.conf"), "w") as f:
            f.write(CONF.format(dir=self.dir, port=self.port, pyport=self.pyport, lib=LIB, top=TOP))
        self.py = subprocess.Popen(["/usr/bin/python3", os.path.join(TOP, "bench/scripts/ws_echo_server.py"),
                                    str(self.pyport)])
        subprocess.run(["/usr/sbin/apache2", "-f", os.path.join(self.dir, "httpd.conf"), "-k", "start"],
                       check=True)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                socket.create_connection(("127.0.0.1", self.pyport), 1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("servers did not start")

    def stop(self):
        try:
            pid = int(open(os.path.join(self.dir, "httpd.pid")).read())
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.1)
        except (OSError, ValueError):
            pass
        self.py.terminate()
        self.py.wait()

    def parent(self):
        return int(open(os.path.join(self.dir, "httpd.pid")).read())

    def tree(self):
        """httpd's processes by kind: parent, children, runner, workers."""
        ppid = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    st = open("/proc/%s/stat" % d).read()
                    ppid[int(d)] = int(st[st.rindex(")") + 2:].split()[1])
                except OSError:
                    pass
        top = self.parent()
        out = {"httpd": [top], "runner": [], "workers": []}
        for p, pp in ppid.items():
            if pp == top:
                cmd = open("/proc/%d/cmdline" % p, "rb").read().split(b"\0")[0]
                (out["runner"] if cmd.endswith(b"cgiplus-runner") else out["httpd"]).append(p)
        for r in out["runner"]:
            out["workers"] += [p for p, pp in ppid.items() if pp == r]
        return out

    @staticmethod
    def pss(pid):
        try:
            for line in open("/proc/%d/smaps_rollup" % pid):
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    @staticmethod
    def threads(pid):
        try:
            return int(re.search(r"^Threads:\s+(\d+)", open("/proc/%d/status" % pid).read(), re.M).group(1))
        except OSError:
            return 0

    def snapshot(self):
        t = self.tree()
        return {k: sum(self.pss(p) for p in v) for k, v in t.items()} | {
            "httpd_threads": sum(self.threads(p) for p in t["httpd"]),
            "workers_n": len(t["workers"]),
            "slab": int(re.search(r"^Slab:\s+(\d+)", open("/proc/meminfo").read(), re.M).group(1)) * 1024,
        }


def load(*args, stdin=None):
    r = subprocess.run([LOAD] + [str(a) for a in args], capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise SystemExit("ws_load %s: %s" % (" ".join(map(str, args)), r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])


def idle(b, n):
    """n idle connections to the C echo: memory per connection."""
    warm = subprocess.Popen([LOAD, "idle", "127.0.0.1", str(b.port), "/c/ws_echo", "100"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    warm.stdout.readline()
    time.sleep(2)
    before = b.snapshot()
    many = subprocess.Popen([LOAD, "idle", "127.0.0.1", str(b.port), "/c/ws_echo", str(n)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    opened = json.loads(many.stdout.readline())["open"]
    time.sleep(5)
    after = b.snapshot()
    st = json.loads(subprocess.run(["curl", "-s", "http://127.0.0.1:%d/cgiplus-status?json" % b.port],
                                   capture_output=True, text=True).stdout or "{}")
    for p in (many, warm):
        p.stdin.close()
        p.wait()
    per = {k: (after[k] - before[k]) / opened for k in ("httpd", "runner", "workers", "slab")}
    return {"connections": opened, "before": before, "after": after,
            "per_connection": per | {"total": per["httpd"] + per["runner"] + per["workers"]},
            "runner_connections": st.get("websocket", {}).get("connections")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conns", type=int, default=10000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--name", default=datetime.date.today().isoformat() + "-ws")
    a = ap.parse_args()
    b = Bench()
    res = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
           "machine": {"cpus": os.cpu_count(), "load": os.getloadavg()}}
    try:
        b.start()
        # the pools: warm each with a connection
        for path in ("/c/ws_echo", "/py/ws_echo.py", "/proxy/"):
            load("echo", "127.0.0.1", b.port, path, 1, 2)
        subprocess.run([LOAD, "idle", "127.0.0.1", str(b.port), "/c/ws_chat", "2"], input="",
                       capture_output=True, text=True, timeout=60)
        res["idle"] = idle(b, a.conns)
        time.sleep(3)
        res["echo"] = {}
        for name, path in (("cgiplus, C worker", "/c/ws_echo"), ("cgiplus, Python worker", "/py/ws_echo.py"),
                           ("mod_proxy_wstunnel + python3-websockets", "/proxy/")):
            runs = [load("echo", "127.0.0.1", b.port, path, 100, a.seconds, 32) for _ in range(3)]
            runs.sort(key=lambda r: r["rate"])
            res["echo"][name] = runs[1] | {"runs": [r["rate"] for r in runs]}  # the median run
        subprocess.run([LOAD, "idle", "127.0.0.1", str(b.port), "/c/ws_chat", "2"], input="",
                       capture_output=True, text=True, timeout=60)
        res["broadcast"] = load("bcast", "127.0.0.1", b.port, "/c/ws_chat", 1000, 7)
    finally:
        b.stop()
        shutil.rmtree(b.dir, ignore_errors=True)
    out = os.path.join(TOP, "bench", "results", a.name)
    with open(out + ".json", "w") as f:
        json.dump(res, f, indent=1)
    with open(out + ".md", "w") as f:
        f.write(report(res))
    sys.stdout.write(report(res))


def report(r):
    i, e, bc = r["idle"], r["echo"], r["broadcast"]
    pc = i["per_connection"]
    L = ["# WebSocket figures, %s" % r["date"], "",
         "Machine: %d CPUs, load average %.1f when it began (shared)." % (r["machine"]["cpus"], r["machine"]["load"][0]),
         "", "## %d idle connections (C echo worker, pool of 2)" % i["connections"], "",
         "| | before (100 open) | after | per connection |", "|---|---:|---:|---:|"]
    for k, label in (("httpd", "httpd (parent and children), PSS"), ("runner", "cgiplus-runner, PSS"),
                     ("workers", "workers, PSS")):
        L.append("| %s | %.1f MiB | %.1f MiB | %.1f KiB |" % (label, i["before"][k] / 2**20, i["after"][k] / 2**20,
                                                            pc[k] / 1024))
    L += ["| **total, user space** | | | **%.1f KiB** |" % (pc["total"] / 1024),
          "| kernel slab (both ends of every socket, the client's too; noisy) | %.0f MiB | %.0f MiB | %.1f KiB |" % (
              i["before"]["slab"] / 2**20, i["after"]["slab"] / 2**20, pc["slab"] / 1024),
          "| httpd threads | %d | %d | |" % (i["before"]["httpd_threads"], i["after"]["httpd_threads"]),
          "| worker processes | %d | %d | |" % (i["before"]["workers_n"], i["after"]["workers_n"]),
          "", "The runner counted %s connections while they were open." % i["runner_connections"], "",
          "## Echo, 100 connections, 32-byte text messages (closed loop, the median of 3 runs)", "",
          "| | messages/s | p50 | p99 | runs |", "|---|---:|---:|---:|---|"]
    for name, x in e.items():
        L.append("| %s | %d | %.2f ms | %.2f ms | %s |" % (name, x["rate"], x["p50_us"] / 1000, x["p99_us"] / 1000,
                                                          ", ".join("%d" % v for v in x["runs"])))
    peer = e.get("mod_proxy_wstunnel + python3-websockets", {}).get("rate") or 1
    L += ["", "Against mod_proxy_wstunnel + python3-websockets: C worker %.2fx, Python worker %.2fx." % (
        e["cgiplus, C worker"]["rate"] / peer, e["cgiplus, Python worker"]["rate"] / peer), "",
        "## Broadcast to %d clients (C chat worker)" % bc["connections"], "",
        "Time from the send until the last client has the message, per round: %s ms (median %.1f ms)." % (
            ", ".join("%.1f" % (u / 1000) for u in bc["rounds_us"]),
            sorted(bc["rounds_us"])[len(bc["rounds_us"]) // 2] / 1000), ""]
    return "\n".join(L)


if __name__ == "__main__":
    main()
