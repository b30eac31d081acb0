"""What bench/run measures: the targets, the matrix of bodies, concurrencies
and transports, and the figures to beat."""

KIB = 1024

# Scripting targets: id, label, server, path (the body size is the query
# string), role in the memory report.
# The script each persistent target's workers run, for the memory report.
WORKER_SCRIPT = {"cgiplus-c": "hello", "cgiplus-c-4": "hello", "cgiplus-c-16": "hello",
                 "cgiplus-c-8": "hello", "cgiplus-c-relay": "hello",
                 "cgiplus-python": "hello.py", "cgiplus-python-16": "hello.py",
                 "cgiplus-perl": "hello.pl", "cgiplus-sh": "hello.sh"}
# The main rows run mod_cgiplus with its shipped defaults (the default pool
# size: 4 workers a CPU, 8 to 64); the "-N" rows give a pool N workers: 4
# and 16 (the queue's cost), and each peer's own process count (mod_fcgid
# 8 a class, php-fpm 16 children: equal process count).
SCRIPTING = [
    ("cgiplus-c", "mod_cgiplus persistent, C (default pool)", "httpd", "/cgiplus/c", "runner"),
    ("cgiplus-c-4", "mod_cgiplus persistent, C, pool of 4", "httpd", "/cgiplus4/c", "runner"),
    ("cgiplus-c-16", "mod_cgiplus persistent, C, pool of 16", "httpd", "/cgiplus16/c", "runner"),
    ("cgiplus-c-8", "mod_cgiplus persistent, C, pool of 8 (mod_fcgid's count)", "httpd",
     "/cgiplus8/c", "runner"),
    # the same, every byte through the runner (round 1's path): before/after
    ("cgiplus-c-relay", "mod_cgiplus persistent, C, relayed (CGIplusDirect off)", "httpd",
     "/cgiplus-relay/c", "runner"),
    ("cgiplus-python", "mod_cgiplus persistent, Python (default pool)", "httpd", "/cgiplus/py",
     "runner"),
    ("cgiplus-python-16", "mod_cgiplus persistent, Python, pool of 16 (php-fpm's count)", "httpd",
     "/cgiplus16/py", "runner"),
    ("cgiplus-perl", "mod_cgiplus persistent, Perl", "httpd", "/cgiplus/pl", "runner"),
    ("cgiplus-sh", "mod_cgiplus persistent, sh", "httpd", "/cgiplus/sh", "runner"),
    ("cgiplus-cgi-c", "mod_cgiplus plain-CGI mode, C", "httpd", "/cgiplus-cgi/c", "runner"),
    ("cgiplus-cgi-python", "mod_cgiplus plain-CGI mode, Python", "httpd", "/cgiplus-cgi/py", "runner"),
    ("cgid-c", "mod_cgid, C", "httpd", "/cgid/c", "cgid"),
    ("cgid-python", "mod_cgid, Python", "httpd", "/cgid/py", "cgid"),
    ("fcgid-c", "mod_fcgid, libfcgi C", "httpd", "/fcgid/c", "fcgid"),
    ("php-fpm", "mod_proxy_fcgi + php-fpm", "httpd", "/php/hello.php", "php"),
    ("inproc-c", "in-process httpd handler, C", "httpd", "/inproc", "none"),
]
SCRIPT_BODIES = [0, 64 * KIB]

# Static targets: id, label, server, URL prefix; the files below are served
# under each prefix.
STATIC = [
    ("static-fast", "mod_cgiplus static fast path", "httpd", "/fast/", "none"),
    ("static-apache", "Apache default handler", "httpd", "/static/", "none"),
    ("static-nginx", "nginx", "nginx", "/static/", "nginx"),
]
STATIC_FILES = [("empty.txt", 0), ("14b.txt", 14), ("64k.bin", 64 * KIB),
                ("5.7m.bin", 5700000)]

TRANSPORTS = ["clear", "tls"]


def size_label(n):
    if n >= 1000000:
        return "%.1f MB" % (n / 1e6)
    if n >= KIB and n % KIB == 0:
        return "%d KiB" % (n // KIB)
    return "%d B" % n


class Cell:
    """One measured configuration; owned by the run's plan, lives for the run."""

    def __init__(self, section, target, label, server, path, role, size,
                 conc, transport, file=None):
        self.section, self.target, self.label = section, target, label
        self.server, self.path, self.role = server, path, role
        self.size, self.conc, self.transport, self.file = size, conc, transport, file
        self.status = "planned"
        self.reason = ""
        self.runs = []
        self.discarded = []
        self.last_mean_s = 0.0     # mean latency of the last run
        self.slow = False          # a run was redone for a longer warm-up
        self.median = {}
        self.memory = {}
        self.command = ""

    def key(self):
        return (self.section, self.target, self.size, self.conc, self.transport)


def build(quick=False, sections=("scripting", "static"), transports=None):
    """The ordered list of cells: a target's cells are contiguous so that its
    pool stays warm from one to the next."""
    transports = transports or TRANSPORTS
    cells = []
    if quick:
        # the targets of the figures to beat at their concurrency, cgid-c
        # for the tables' mod_cgid column, and everything at MAIN_CONC
        s_conc_of = {"cgid-c": {MAIN_CONC}}
        for g in GOALS:
            if g.section == "scripting":
                for t in (g.num, g.den):
                    s_conc_of.setdefault(t, {MAIN_CONC}).add(g.conc)
        s_targets = set(s_conc_of)
        st_conc = [MAIN_CONC]
        st_files = {"empty.txt", "14b.txt", "5.7m.bin"}
        st_transports = ["clear"]
    else:
        s_targets = {t[0] for t in SCRIPTING}
        s_conc_of = {t: set(SCRIPT_CONC) for t in s_targets}
        st_conc = [1, 10]
        st_files = {f for f, _ in STATIC_FILES}
        st_transports = transports
    if "scripting" in sections:
        for tid, label, server, path, role in SCRIPTING:
            if tid not in s_targets:
                continue
            for tr in transports:
                for size in SCRIPT_BODIES:
                    for c in sorted(s_conc_of[tid]):
                        cells.append(Cell("scripting", tid, label, server,
                                          "%s?%d" % (path, size), role, size, c, tr))
    if "static" in sections:
        for tid, label, server, prefix, role in STATIC:
            for tr in [t for t in st_transports if t in transports]:
                for fname, size in STATIC_FILES:
                    if fname not in st_files:
                        continue
                    for c in st_conc:
                        cells.append(Cell("static", tid, label, server,
                                          prefix + fname, role, size, c, tr, fname))
    return cells


# The concurrency of the chart, the CPU split and most figures to beat.
MAIN_CONC = 10
# Scripting connections: one, the main row, more than a default pool has
# workers (requests wait), and more than a default event MPM child has threads.
SCRIPT_CONC = [1, 10, 50, 200]


class Goal:
    """One figure to beat (issue 11), compared per body/file and transport at
    `conc` connections: ratio = `metric` of num over that of den (den over
    num when `invert`, so that a lower-is-better metric can read "mod_fcgid
    takes N times as long"), met when `ratio op need` holds. Static data of
    the plan."""

    def __init__(self, gid, text, num, den, section, sizes, need, metric="rps",
                 op=">=", conc=MAIN_CONC, invert=False):
        self.id, self.text, self.num, self.den = gid, text, num, den
        self.section, self.sizes, self.need, self.metric = section, sizes, need, metric
        self.op, self.conc, self.invert = op, conc, invert

    def ratio(self, num_value, den_value):
        return den_value / num_value if self.invert else num_value / den_value

    def met(self, ratio):
        return {">=": ratio >= self.need, ">": ratio > self.need,
                "<=": ratio <= self.need}[self.op]

    def shortfall(self, ratio):
        """The gap between the ratio and the one needed as a share of the
        larger of the two, so always below 1: 1.2x against >= 1.5x is 0.2
        short, 1.0x against <= 0.7x is 0.3 (30 % less CPU would meet it)."""
        return 1 - min(ratio, self.need) / max(ratio, self.need)


# The metrics the goals compare: (unit, format); rps is higher-better, the
# others lower-better (the goal's op says which way it must go).
METRICS = {"rps": ("req/s", "%.0f"), "mean_ms": ("ms", "%.3f"),
           "cpu_ms_per_1k": ("ms/1k req", "%.0f")}

GOALS = [
    Goal("c-vs-fcgid", "persistent C hello (default pool) >= 1.5x mod_fcgid (8 a class)",
         "cgiplus-c", "fcgid-c", "scripting", [0, 64 * KIB], 1.5),
    Goal("c-vs-fcgid-c50", "persistent C hello (default pool) >= 1.5x mod_fcgid (8 a class), "
         "50 connections", "cgiplus-c", "fcgid-c", "scripting", [0, 64 * KIB], 1.5, conc=50),
    Goal("pool4-vs-16", "a pool of 4 within 10 % of a pool of 16 (the queue costs nothing)",
         "cgiplus-c-4", "cgiplus-c-16", "scripting", [0, 64 * KIB], 0.9),
    Goal("pool4-vs-16-c50", "a pool of 4 within 10 % of a pool of 16, 50 connections",
         "cgiplus-c-4", "cgiplus-c-16", "scripting", [0, 64 * KIB], 0.9, conc=50),
    Goal("c-vs-fcgid-c1", "persistent C hello's mean latency below mod_fcgid's "
         "(ratio: mod_fcgid's / ours)",
         "cgiplus-c", "fcgid-c", "scripting", [0, 64 * KIB], 1.0, metric="mean_ms",
         op=">", conc=1, invert=True),
    Goal("cpu-vs-fcgid", "server CPU per 1000 requests, persistent C hello "
         "<= 0.7x mod_fcgid's",
         "cgiplus-c", "fcgid-c", "scripting", [0, 64 * KIB], 0.7,
         metric="cpu_ms_per_1k", op="<="),
    Goal("c-vs-inproc", "persistent C hello >= 0.7x the in-process handler",
         "cgiplus-c", "inproc-c", "scripting", [0, 64 * KIB], 0.7),
    Goal("py-vs-cgi", "persistent Python >= 100x plain-CGI Python (mod_cgid)",
         "cgiplus-python", "cgid-python", "scripting", [0, 64 * KIB], 100.0),
    Goal("py-vs-php", "persistent Python >= php-fpm",
         "cgiplus-python", "php-fpm", "scripting", [0, 64 * KIB], 1.0),
    Goal("static-0", "static fast path >= 1.2x Apache's default handler, 0 B file",
         "static-fast", "static-apache", "static", [0], 1.2),
    Goal("static-14", "static fast path >= 2x Apache's default handler, 14 B file",
         "static-fast", "static-apache", "static", [14], 2.0),
    Goal("static-big", "static fast path level with nginx (>= 0.95x), 5.7 MB file",
         "static-fast", "static-nginx", "static", [5700000], 0.95),
]

# Ratio columns of the tables: (column title, reference target).
SCRIPT_REFS = [("x mod_cgid C", "cgid-c"), ("x mod_fcgid", "fcgid-c"),
               ("x in-process", "inproc-c")]
STATIC_REFS = [("x Apache", "static-apache"), ("x nginx", "static-nginx")]
