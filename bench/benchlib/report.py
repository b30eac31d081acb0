"""The results: JSON cells, the figures to beat, and the Markdown report."""
from . import plan

MIB = 1048576.0


def rounded(v):
    """v with every float cut to 4 significant digits (the JSON stays small)."""
    if isinstance(v, float):
        return float("%.4g" % v)
    if isinstance(v, dict):
        return {k: rounded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [rounded(x) for x in v]
    return v


def slim(run):
    """A run for the JSON: its memory sample is left out (the cell's median
    keeps the largest of each role)."""
    return rounded({k: v for k, v in run.items() if k != "memory"})


def cell_json(c):
    return {"section": c.section, "target": c.target, "label": c.label,
            "size": c.size, "file": c.file, "concurrency": c.conc,
            "transport": c.transport, "status": c.status, "reason": c.reason,
            "command": c.command, "median": rounded(c.median),
            "runs": [slim(r) for r in c.runs],
            "discarded_runs": [slim(r) for r in c.discarded]}


def index(cells):
    return {c.key(): c for c in cells}


def value(idx, section, target, size, conc, transport, metric="rps"):
    c = idx.get((section, target, size, conc, transport))
    return c.median.get(metric) if c and c.median else None


def goals(cells):
    """Each figure to beat (plan.GOALS), per body/file and transport."""
    idx = index(cells)
    out = []
    for goal in plan.GOALS:
        for size in goal.sizes:
            for tr in plan.TRANSPORTS:
                a = value(idx, goal.section, goal.num, size, goal.conc, tr, goal.metric)
                b = value(idx, goal.section, goal.den, size, goal.conc, tr, goal.metric)
                g = {"id": goal.id, "text": goal.text, "size": size, "transport": tr,
                     "concurrency": goal.conc, "metric": goal.metric,
                     "numerator": goal.num, "denominator": goal.den,
                     "inverted": goal.invert, "op": goal.op, "need": goal.need,
                     "num_value": a, "den_value": b}
                if not a or not b:
                    missing = goal.num if not a else goal.den
                    c = idx.get((goal.section, missing, size, goal.conc, tr))
                    if c is None:
                        continue  # not in this run's plan
                    why = ("no %s figure" % goal.metric if c.status == "measured" else
                           c.status if c.status == "not available" else
                           (c.reason or c.status))
                    g["status"] = "not measured (%s: %s)" % (missing, why)
                else:
                    g["ratio"] = goal.ratio(a, b)
                    if goal.met(g["ratio"]):
                        g["status"] = "met"
                    else:
                        g["status"] = "short by %.0f%%" % (100 * goal.shortfall(g["ratio"]))
                out.append(g)
    return out


def goal_values(g):
    """The two measured values in the ratio's order, with the unit:
    "123 / 100 req/s"."""
    unit, spec = plan.METRICS[g["metric"]]
    a, b = g["num_value"], g["den_value"]
    if g["inverted"]:
        a, b = b, a
    return "%s / %s %s" % (fmt(a, spec), fmt(b, spec), unit)


def goals_text(gs):
    lines = ["Figures to beat:"]
    for g in gs:
        ratio = "%.2fx" % g["ratio"] if "ratio" in g else "-"
        lines.append("  %-70s c%-3d %-8s %-5s %9s (need %s %gx)  %s" % (
            g["text"], g["concurrency"], plan.size_label(g["size"]), g["transport"],
            ratio, g["op"], g["need"], g["status"]))
    return "\n".join(lines)


def fmt(v, spec="%.0f"):
    return "-" if v is None else spec % v


def plural(n, one, many=None):
    return "%d %s" % (n, one if n == 1 else (many or one + "s"))


def mem_text(m, role, target):
    """RSS in MiB: front end, then the helper and workers of the target."""
    mem = m.get("memory") or {}

    def r(k):
        v = mem.get(k)
        return v["rss"] / MIB if v else 0.0

    def n(k):
        v = mem.get(k)
        return v["n"] if v else 0
    if role == "nginx":
        return "%.0f + master %.0f" % (r("nginx_workers"), r("nginx_master"))
    front = "%.0f" % r("httpd_children")
    if role == "runner":
        script = plan.WORKER_SCRIPT.get(target)
        if not script:     # plain-CGI mode: processes come and go
            return "%s + runner %.1f" % (front, r("runner"))
        k = "runner_workers:" + script
        return "%s + runner %.1f + %s %.1f" % (front, r("runner"), plural(n(k), "worker"),
                                               r(k))
    if role == "cgid":
        return "%s + daemon %.1f" % (front, r("cgid_daemon"))
    if role == "fcgid":
        return "%s + PM %.1f + %s %.1f" % (front, r("fcgid_pm"),
                                           plural(n("fcgid_apps"), "app"), r("fcgid_apps"))
    if role == "php":
        return "%s + master %.1f + %s %.1f" % (
            front, r("fpm_master"), plural(n("fpm_children"), "child", "children"),
            r("fpm_children"))
    return front


def table(cells, idx, refs, section, size, transport, file_col):
    head = ["target", "file" if file_col else "body", "conc", "req/s", "MB/s",
            "mean ms", "p99 ms", "fail", "CPU ms/1k req", "RSS MiB"] + [r[0] for r in refs]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|"]
    for c in cells:
        if c.section != section or c.transport != transport or (
                size is not None and c.size != size):
            continue
        sz = plan.size_label(c.size)
        if c.status != "measured":
            lines.append("| %s | %s | %d | %s |%s" % (
                c.label, sz, c.conc, c.status, " |" * (len(head) - 4)))
            continue
        m = c.median
        row = [c.label, sz, str(c.conc), fmt(m["rps"]), fmt(m["mbps"], "%.1f"),
               fmt(m["mean_ms"], "%.2f"), fmt(m["p99_ms"], "%.2f"), str(m["failures"]),
               fmt(m.get("cpu_ms_per_1k"), "%.0f"), mem_text(m, c.role, c.target)]
        for _, ref in refs:
            b = value(idx, section, ref, c.size, c.conc, transport)
            row.append("-" if not b or ref == c.target else "%.2f" % (m["rps"] / b))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def cpu_split_section(cells):
    """The CPU split per role of every measured scripting cell at the main
    concurrency; [] when no cell has it (a results file from before it)."""
    rows = [c for c in cells if c.section == "scripting" and c.conc == plan.MAIN_CONC
            and c.status == "measured" and c.median.get("cpu_httpd_ms_per_1k") is not None]
    if not rows:
        return []
    out = ["", "## CPU split", "",
           "Server CPU ms per 1000 requests at %d connections by role, from /proc: "
           "httpd (its parent and children, own time), the helper (%s; own time) and "
           "the workers (every other server process, plus the CPU of every process "
           "a server process reaped: exited CGI processes and workers). Total is the "
           "/proc figure of all server processes. It leaves out CGI processes nobody "
           "reaps (mod_cgid's), which only the cgroup counter in the tables above sees, "
           "so mod_cgid's rows are too low and can even be negative: a CGI process "
           "that exits unreaped during the run takes the CPU it had used before it "
           "out of the sum. "
           "All targets share one httpd, so the idle helpers and workers of the other "
           "targets count too (a few ms at most)."
           % (plan.MAIN_CONC, "the runner for mod_cgiplus, the cgid daemon for mod_cgid, "
              "the fcgid process manager for mod_fcgid, the php-fpm master for php-fpm"),
           "",
           "| target | body | transport | httpd | helper | workers | total |",
           "|---|---|---|---:|---:|---:|---:|"]
    for c in rows:
        m = c.median
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            c.label, plan.size_label(c.size), c.transport,
            fmt(m["cpu_httpd_ms_per_1k"]),
            fmt(m["cpu_helper_ms_per_1k"]),
            fmt(m["cpu_workers_ms_per_1k"]), fmt(m.get("cpu_proc_ms_per_1k"))))
    return out


def markdown(cells, gs, meta, png):
    idx = index(cells)
    mc = meta["machine"]
    bg = sorted(c.median["background_cpu_pct"] for c in cells
                if c.median and c.median.get("background_cpu_pct") is not None)
    steal = sorted(c.median["steal_pct"] for c in cells
                   if c.median and c.median.get("steal_pct") is not None)
    redo = [r["discarded"] for c in cells for r in c.discarded]
    redo_warm = sum(1 for w in redo if w.startswith("warm-up"))
    redo_busy = len(redo) - redo_warm
    out = ["# mod_cgiplus benchmark, %s%s" % (meta["date"], " (quick mode)" if meta["quick"] else ""),
           "",
           "Command: `%s` (git %s). Each configuration: %d timed run%s of %g s, each "
           "after h2load's warm-up (%g s before the first run, %g s before the others, "
           "longer where twice the mean latency is longer, up to %g s); the median is "
           "reported. Method and targets: docs/BENCH.md." % (
               meta["command"].strip(), mc["git"], meta["runs"],
               "s" if meta["runs"] > 1 else "", meta["duration_s"], meta["warmup_s"],
               meta.get("rewarm_s", 0), meta.get("warmup_cap_s", 4)),
           "",
           "Machine: %s, %d cores, %s GiB, %s, Linux %s. Software: %s; nginx %s; %s; %s; %s." % (
               mc["cpu"], mc["cores"], mc["memory_gib"], mc["os"], mc["kernel"],
               mc["httpd"], mc["nginx"], mc["php_fpm"].split(" (")[0], mc["h2load"],
               mc["openssl"]),
           "",
           "The load generator (h2load, one thread) runs on the same machine as the "
           "servers and competes with them for the %d cores. Load average at the start %s, "
           "at the end %s. CPU used by other processes during the timed runs (the median "
           "over the configurations of their median run): median %s%%, "
           "largest %s%% (of one core); %d run%s done again because of it, %d because "
           "the warm-up was shorter than twice the latency. " % (
               mc["cores"], " ".join(meta["loadavg_start"]), " ".join(meta["loadavg_end"]),
               fmt(bg[len(bg) // 2] if bg else None), fmt(bg[-1] if bg else None),
               redo_busy, "s were" if redo_busy != 1 else " was", redo_warm),
           ("CPU time the hypervisor gave to others (steal): median %s%%, largest %s%%." % (
               fmt(steal[len(steal) // 2], "%.1f"), fmt(steal[-1], "%.1f")) if steal else
            "(Hypervisor steal time was not recorded in this run.)"),
           "",
           "Server CPU is the CPU time of every server process (httpd and its children, "
           "the runner and its workers, the CGI processes, php-fpm, nginx) per 1000 "
           "requests, measured %s. RSS MiB is the resident memory sampled halfway "
           "through the runs: the httpd children (or nginx workers), then the target's "
           "helper and workers (RSS counts shared pages in every process)." % (
               "with a cgroup (exited CGI processes included)"
               if meta["cpu_accounting"].startswith("cgroup") else
               "from /proc (utime+stime+cutime+cstime)"),
           ""]
    if png:
        out += ["![requests per second per target](%s)" % png, ""]
    out += ["## Figures to beat", "",
            "| figure | body/file | conc | transport | measured | needed | result |",
            "|---|---|---:|---|---:|---:|---|"]
    for g in gs:
        meas = "%.2fx (%s)" % (g["ratio"], goal_values(g)) if "ratio" in g else "-"
        out.append("| %s | %s | %d | %s | %s | %s %gx | %s |" % (
            g["text"], plan.size_label(g["size"]), g["concurrency"], g["transport"], meas,
            g["op"], g["need"],
            "**met**" if g["status"] == "met" else g["status"]))
    if not meta["static_fast_path"]["available"]:
        out += ["", "The static fast path was not measured: %s (bench/run checks with "
                "`httpd -t` on a configuration that uses `CGIplusStatic`)."
                % meta["static_fast_path"]["reason"]]
    for section, refs, sizes, file_col in (
            ("scripting", plan.SCRIPT_REFS, plan.SCRIPT_BODIES, False),
            ("static", plan.STATIC_REFS, [None], True)):
        if not any(c.section == section for c in cells):
            continue
        out += ["", "## %s" % section.capitalize()]
        for tr in plan.TRANSPORTS:
            for size in sizes:
                if not any(c.section == section and c.transport == tr and
                           (size is None or c.size == size) for c in cells):
                    continue
                what = ("%s body, " % plan.size_label(size)) if size is not None else ""
                out += ["", "### %s%s" % (what, "TLS" if tr == "tls" else "clear HTTP"), "",
                        table(cells, idx, refs, section, size, tr, file_col)]
    out += cpu_split_section(cells)
    bad = [c for c in cells if c.status not in ("measured",)]
    if bad:
        seen = set()
        out += ["", "## Not measured", ""]
        for c in bad:
            k = (c.target, c.status, c.reason)
            if k in seen:
                continue
            seen.add(k)
            out.append("- %s: %s (%s)" % (c.label, c.status, c.reason))
    out += ["", "## Commands", "",
            "Every timed run is `%s` (URL as in docs/BENCH.md); the warm-up is the "
            "same without `--log-file`. Mean and p99 latency come from the per-request "
            "log; MB/s is h2load's total traffic (headers included) over the elapsed "
            "time." % meta["h2load"], ""]
    return "\n".join(out)
