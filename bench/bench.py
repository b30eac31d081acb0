#!/usr/bin/env python3
"""bench/bench.py: the driver behind bench/run (which installs and builds
first; run that). Starts the private servers, checks every target, measures
it with h2load, stops the servers and writes bench/results/<date>.{md,json,png}.
docs/BENCH.md describes the targets and the method."""
import argparse
import atexit
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from benchlib import chart, load, plan, procs, report, servers  # noqa: E402

TOP = os.path.dirname(HERE)
# A run during which other processes (or the hypervisor) took more than this
# much of one core (percent) is done again, within a budget of a twentieth of
# the runs.
BUSY_LIMIT = 50.0
# h2load's warm-up before a run is at least twice the mean latency of the
# configuration (so that a run starts in the steady state even where 100
# plain-CGI requests take seconds), and at most this many seconds.
WARMUP_CAP = 4.0


def log(msg):
    sys.stderr.write("[bench %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def parse_args():
    ap = argparse.ArgumentParser(prog="bench/run", description=__doc__)
    ap.add_argument("--quick", action="store_true",
                    help="the development subset: the figures to beat (10 "
                         "connections, and 1 for the latency one), 1 short run "
                         "each (under 2 minutes)")
    ap.add_argument("--only", choices=["scripting", "static"],
                    help="measure one section only")
    ap.add_argument("--no-tls", action="store_true", help="clear HTTP only")
    ap.add_argument("--duration", type=float, help="seconds per timed run "
                    "(default 2, quick 1.5)")
    ap.add_argument("--warmup", type=float, help="seconds of h2load warm-up "
                    "before the first run of a configuration (default 0.5)")
    ap.add_argument("--rewarm", type=float, default=0.25, help="seconds of "
                    "warm-up before each later run of a configuration (default 0.25)")
    ap.add_argument("--runs", type=int, help="timed runs per configuration, "
                    "the median is reported (default 3, quick 1)")
    ap.add_argument("--cgiplus-top", metavar="DIR", help="measure the mod_cgiplus and "
                    "cgiplus-runner built in another tree (a before and after, with "
                    "this tree's bench and scripts)")
    ap.add_argument("--conc", help="comma-separated scripting concurrencies to keep "
                    "(default 1,10,50,200)")
    ap.add_argument("--targets", help="comma-separated target ids to keep "
                    "(see docs/BENCH.md)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"),
                    help="directory of the results (default bench/results)")
    ap.add_argument("--name", help="base name of the result files "
                    "(default the date, with -quick for --quick)")
    ap.add_argument("--report", metavar="JSON", help="measure nothing: write "
                    "the .md and .png again from a results .json")
    a = ap.parse_args()
    a.duration = a.duration or (1.5 if a.quick else 2.0)
    a.warmup = a.warmup if a.warmup is not None else 0.5
    a.runs = a.runs or (1 if a.quick else 3)
    return a


def machine():
    def first(cmd):
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=10)
            return r.stdout.strip().splitlines()[0] if r.stdout.strip() else ""
        except (OSError, subprocess.SubprocessError):
            return ""
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    osname = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    httpd = os.path.join(servers.apxs("SBINDIR"), servers.apxs("TARGET"))
    fpm = sorted(p for p in os.listdir("/usr/sbin") if p.startswith("php-fpm"))
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem_kib / 1048576, 1),
        "kernel": platform.release(), "os": osname,
        "httpd": first([httpd, "-v"]).replace("Server version: ", ""),
        "nginx": first(["nginx", "-v"]).replace("nginx version: ", ""),
        "php_fpm": first(["/usr/sbin/" + fpm[-1], "-v"]) if fpm else "",
        "h2load": first(["h2load", "--version"]),
        "openssl": first(["openssl", "version"]),
        "python": platform.python_version(),
        "perl": first(["perl", "-e", "print $^V"]),
        "git": first(["git", "-C", TOP, "describe", "--always", "--dirty"]),
    }


def summarize(cell):
    """The cell's median figures over its runs (failures are summed)."""
    good = [r for r in cell.runs if "h2load_rps" in r and r.get("duration_s")]
    if not good:
        return {}
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    m = {
        "rps": med([r["h2load_rps"] for r in good]),
        "mbps": med([r.get("traffic_bytes", 0) / r["duration_s"] / 1e6 for r in good]),
        "mean_ms": med([r["mean_ms"] for r in good if r["mean_ms"] is not None]),
        "p99_ms": med([r["p99_ms"] for r in good if r["p99_ms"] is not None]),
        "requests": sum(r.get("done", 0) for r in good),
        "failures": sum(r.get("failed", 0) + r.get("errored", 0) + r.get("timeout", 0)
                        + r.get("s4xx", 0) + r.get("s5xx", 0) for r in cell.runs),
        "client_cpu_pct": med([100.0 * r["client_cpu_s"] / r["measured_wall_s"]
                               for r in good]),
        "warmup_s": max(r["warmup_s"] for r in good),
        "background_cpu_pct": med([r["background_cpu_pct"] for r in good
                                   if r.get("background_cpu_pct") is not None]),
        "steal_pct": med([r["steal_pct"] for r in good if r.get("steal_pct") is not None]),
        "softirq_pct": med([r["softirq_pct"] for r in good
                            if r.get("softirq_pct") is not None]),
    }
    # server CPU per 1000 requests: cgroup, /proc total, and the /proc total
    # split by role (httpd, helper, workers; procs.cpu_split)
    for key in ("cpu_cgroup_s", "cpu_proc_s", "cpu_httpd_s", "cpu_helper_s",
                "cpu_workers_s"):
        vals = [r[key] / r["done"] * 1e6 for r in good if r.get(key) is not None and r.get("done")]
        m[key[:-len("_s")] + "_ms_per_1k"] = med(vals)
    m["cpu_ms_per_1k"] = (m.get("cpu_cgroup_ms_per_1k")
                          if m.get("cpu_cgroup_ms_per_1k") is not None
                          else m.get("cpu_proc_ms_per_1k"))
    # memory: the largest sample of each role over the runs
    mem = {}
    for r in good:
        for role, v in (r.get("memory") or {}).items():
            cur = mem.setdefault(role, {"rss": 0, "n": 0})
            cur["rss"] = max(cur["rss"], v["rss"])
            cur["n"] = max(cur["n"], v["n"])
    m["memory"] = mem
    return m


class Bench:
    """One bench run: owns the run directory, the cgroup and the servers."""

    def __init__(self, args):
        self.args = args
        self.cells = []
        self.srv = None
        self.cgroup = None
        self.run_dir = None
        self.stopped = False

    def cleanup(self):
        if self.stopped:
            return
        self.stopped = True
        if self.srv:
            log("stopping the servers")
            try:
                self.srv.stop()
            except Exception as e:  # keep going: the cgroup must go too
                log("stop: %s" % e)
        if self.cgroup:
            self.cgroup.remove()
        if self.run_dir and os.environ.get("BENCH_KEEP_RUN") != "1":
            subprocess.run(["rm", "-rf", self.run_dir])

    def url(self, cell):
        if cell.server == "nginx":
            port = self.srv.nginx_tls_port if cell.transport == "tls" else self.srv.nginx_port
        else:
            port = self.srv.tls_port if cell.transport == "tls" else self.srv.port
        scheme = "https" if cell.transport == "tls" else "http"
        return "%s://127.0.0.1:%d%s" % (scheme, port, cell.path)

    def cpu_now(self):
        """Counters that load.run reads before and after a timed run and
        diffs: server CPU (cgroup, /proc total and its split by role), the
        machine's busy, softirq and steal time."""
        snap = procs.snapshot()
        softirq, steal = procs.system_times()
        httpd, helper, workers = procs.cpu_split(snap, self.srv.roots(), self.cgid_inode,
                                                 self.srv.httpd_comm)
        return {"cpu_cgroup_s": self.cgroup.seconds(),
                "cpu_proc_s": procs.cpu_seconds(snap, self.srv.server_pids(snap)),
                "cpu_httpd_s": httpd, "cpu_helper_s": helper, "cpu_workers_s": workers,
                "busy_s": procs.system_busy_seconds(),
                "softirq_s": softirq, "steal_s": steal}

    def sample_memory(self):
        snap = procs.snapshot()
        return procs.memory(snap, self.srv.roots(), self.cgid_inode, self.srv.httpd_comm)

    def main(self):
        a = self.args
        sections = (a.only,) if a.only else ("scripting", "static")
        transports = ["clear"] if a.no_tls else plan.TRANSPORTS
        self.cells = plan.build(a.quick, sections, transports)
        if a.targets:
            keep = set(a.targets.split(","))
            self.cells = [c for c in self.cells if c.target in keep]
        if a.conc:
            keep = {int(c) for c in a.conc.split(",")}
            self.cells = [c for c in self.cells if c.section != "scripting" or c.conc in keep]
        self.run_dir = tempfile.mkdtemp(prefix="cgiplus-bench.")
        os.chmod(self.run_dir, 0o755)
        self.cgroup = procs.Cgroup()
        self.srv = servers.Servers(TOP, self.run_dir, self.cgroup, log,
                                   os.path.abspath(a.cgiplus_top) if a.cgiplus_top else None)
        log("run directory %s, ports %s, CPU accounting: %s" % (
            self.run_dir, self.srv.ports,
            "cgroup " + self.cgroup.kind if self.cgroup.path else "/proc only"))
        self.srv.prepare()
        log("static fast path (CGIplusStatic): %s" % (
            "available" if self.srv.static_available else
            "not available (%s)" % self.srv.static_reason))
        self.srv.start()
        self.cgid_inode = procs.unix_socket_inode(os.path.join(self.run_dir, "cgid.sock"))
        meta = {
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "command": " ".join(["bench/run"] + sys.argv[1:]),
            "quick": a.quick, "duration_s": a.duration, "warmup_s": a.warmup,
            "runs": a.runs, "rewarm_s": a.rewarm, "busy_limit_pct": BUSY_LIMIT,
            "warmup_cap_s": WARMUP_CAP,
            "machine": machine(),
            "cgiplus_build": self.srv.cgiplus,
            "cpu_accounting": ("cgroup " + self.cgroup.kind) if self.cgroup.path else "proc",
            "static_fast_path": {"available": self.srv.static_available,
                                 "reason": self.srv.static_reason},
            "h2load": "h2load --h1 -t 1 -c <conc> --warm-up-time <warm-up> -D <duration> "
                      "--log-file <file> <url>",
            "loadavg_start": open("/proc/loadavg").read().split()[:3],
        }
        t_est = len(self.cells) * (a.runs * (a.duration + a.rewarm + 0.3)
                                   + a.warmup - a.rewarm)
        log("%d configurations, about %d s of load" % (len(self.cells), t_est))
        self.measure()
        meta["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
        meta["elapsed_s"] = round(time.time() - self.t_start)
        self.cleanup()
        self.write(meta)

    def measure(self):
        """Configurations that differ only by target form a group; a group's
        runs go round-robin over its targets, so that a burst of load from
        elsewhere on the machine does not fall on one target only. A run
        during which other processes used more than BUSY_LIMIT % of a core
        is done again once the machine is quiet (at most twice a run, and
        within a budget of a twentieth of the runs); the discarded runs are
        kept in the JSON."""
        a = self.args
        self.t_start = time.time()
        groups = {}
        for cell in self.cells:
            groups.setdefault((cell.section, cell.transport, cell.size, cell.conc),
                              []).append(cell)
        retries = max(3, len(self.cells) * a.runs // 20)
        checked = {}
        done = 0
        for gkey, cells in groups.items():
            live = []
            for cell in cells:
                url = self.url(cell)
                cell.command = " ".join(load.h2load_cmd(url, cell.conc, a.duration, "<log>",
                                                        a.warmup))
                if cell.target == "static-fast" and not self.srv.static_available:
                    cell.status, cell.reason = "not available", self.srv.static_reason
                    continue
                ck = (cell.target, cell.size, cell.transport)
                if ck not in checked:
                    # the hellos answer N bytes of x; static files are what they are
                    checked[ck] = load.check(url, cell.size, b"x" * cell.size
                                             if cell.section == "scripting" else None)
                    log("check %-20s %-5s %-8s %s" % (cell.target, cell.transport,
                                                      plan.size_label(cell.size),
                                                      checked[ck][1]))
                ok, detail = checked[ck]
                if not ok:
                    cell.status, cell.reason = "check failed", detail
                    continue
                live.append(cell)
            for n in range(a.runs):
                for cell in live:
                    url = self.url(cell)
                    tries = 0
                    while True:
                        warm = self.warmup_for(cell, n)
                        r = self.one_run(url, cell, warm)
                        if r.get("mean_ms"):
                            cell.last_mean_s = r["mean_ms"] / 1000.0
                        why = ""
                        need = 2 * (r.get("mean_ms") or 0) / 1000.0
                        if need > warm + 1e-3 and warm < WARMUP_CAP and not cell.slow:
                            cell.slow = True   # once: next try warms up long enough
                            why = "warm-up %.2g s is shorter than twice the mean latency" % warm
                        elif (r.get("background_cpu_pct", 0) > BUSY_LIMIT and retries > 0
                              and tries < 2):
                            retries -= 1
                            tries += 1
                            why = "other processes used %.0f%% of a core" % r["background_cpu_pct"]
                            self.wait_quiet()
                        elif (r.get("steal_pct", 0) > BUSY_LIMIT and retries > 0
                              and tries < 2):
                            retries -= 1
                            tries += 1
                            why = "the hypervisor took %.0f%% of a core (steal)" % r["steal_pct"]
                            self.wait_quiet()
                        if not why:
                            break
                        r["discarded"] = why
                        cell.discarded.append(r)
                        log("  %s c=%d: run done again: %s" % (cell.target, cell.conc, why))
                    cell.runs.append(r)
            for cell in live:
                done += 1
                cell.median = summarize(cell)
                cell.status = "measured" if cell.median else "failed"
                if not cell.median:
                    cell.reason = "h2load gave no figures"
                m = cell.median
                log("[%d/%d] %-20s %-5s %-8s c=%-3d %10s req/s  p99 %s ms  fail %s" % (
                    done, len(self.cells), cell.target, cell.transport,
                    plan.size_label(cell.size), cell.conc,
                    "%.0f" % m["rps"] if m else "-",
                    "%.2f" % m["p99_ms"] if m and m.get("p99_ms") is not None else "-",
                    m.get("failures", "-") if m else "-"))

    def warmup_for(self, cell, n):
        """The first run of a configuration warms up --warmup seconds, later
        ones --rewarm; both at least twice the mean latency seen so far
        (capped at WARMUP_CAP)."""
        a = self.args
        base = a.warmup if n == 0 else a.rewarm
        return round(max(base, min(WARMUP_CAP, 2 * cell.last_mean_s)), 2)

    def one_run(self, url, cell, warm):
        a = self.args
        logfile = os.path.join(self.run_dir, "h2load.log")
        r = load.run(url, cell.conc, a.duration, warm, logfile, self.sample_memory,
                     self.cpu_now)
        busy = r.pop("busy_s", None)
        if busy is not None and r.get("measured_wall_s"):
            server = r.get("cpu_cgroup_s", r.get("cpu_proc_s")) or 0
            other = busy - server - r["client_cpu_s"]
            r["background_cpu_pct"] = max(0.0, 100.0 * other / r["measured_wall_s"])
        for k in ("softirq", "steal"):
            v = r.pop(k + "_s", None)
            if v is not None and r.get("measured_wall_s"):
                r[k + "_pct"] = 100.0 * v / r["measured_wall_s"]
        if "error" in r:
            log("  %s: h2load: %s" % (cell.target, " | ".join(r["error"])))
        r["quiesce_s"] = round(load.quiesce(self.server_cpu), 2)
        return r

    def wait_quiet(self, longest=5.0):
        """Waits (at most `longest` seconds) until processes other than the
        servers use less than BUSY_LIMIT % of a core over half a second."""
        t0 = time.time()
        while time.time() - t0 < longest:
            b0, s0 = procs.system_busy_seconds(), self.server_cpu()
            time.sleep(0.5)
            other = (procs.system_busy_seconds() - b0) - (self.server_cpu() - s0)
            if other / 0.5 * 100 < BUSY_LIMIT:
                break

    def server_cpu(self):
        v = self.cgroup.seconds()
        if v is None:
            snap = procs.snapshot()
            v = procs.cpu_seconds(snap, self.srv.server_pids(snap))
        return v

    def write(self, meta):
        a = self.args
        os.makedirs(a.out, exist_ok=True)
        name = a.name or (time.strftime("%Y-%m-%d") + ("-quick" if a.quick else "")
                          + ("-" + a.only if a.only else ""))
        base = os.path.join(a.out, name)
        goals = report.goals(self.cells)
        doc = {"meta": meta, "goals": goals,
               "cells": [report.cell_json(c) for c in self.cells]}
        with open(base + ".json", "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        png = chart.draw(self.cells, base + ".png", meta)
        with open(base + ".md", "w") as f:
            f.write(report.markdown(self.cells, goals, meta,
                                    os.path.basename(png) if png else None))
        log("wrote %s.md, %s.json%s" % (base, base, ", " + png if png else
                                        " (no chart: gnuplot failed)"))
        print(report.goals_text(goals))


def rereport(path):
    """Writes <name>.md and <name>.png again from <name>.json."""
    with open(path) as f:
        doc = json.load(f)
    roles = {t[0]: t[4] for t in plan.SCRIPTING + plan.STATIC}
    cells = []
    for c in doc["cells"]:
        cell = plan.Cell(c["section"], c["target"], c["label"], "", "",
                         roles.get(c["target"], "none"), c["size"], c["concurrency"],
                         c["transport"], c["file"])
        cell.status, cell.reason, cell.command = c["status"], c["reason"], c["command"]
        cell.median, cell.runs = c["median"], c["runs"]
        cell.discarded = c.get("discarded_runs", [])
        cells.append(cell)
    base = path[:-5] if path.endswith(".json") else path
    png = chart.draw(cells, base + ".png", doc["meta"])
    goals = report.goals(cells)
    with open(base + ".md", "w") as f:
        f.write(report.markdown(cells, goals, doc["meta"],
                                os.path.basename(png) if png else None))
    print(report.goals_text(goals))


def main():
    args = parse_args()
    if args.report:
        rereport(args.report)
        return
    bench = Bench(args)
    atexit.register(bench.cleanup)

    def on_signal(signum, frame):
        raise SystemExit(128 + signum)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    bench.main()


if __name__ == "__main__":
    main()
