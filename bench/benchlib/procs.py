"""Process accounting from /proc (and a cpuacct cgroup where the machine has
one): server-side CPU time and resident memory of the servers' processes."""
import os

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


class Proc:
    """One process as read from /proc/<pid>/stat; lives for one snapshot."""
    __slots__ = ("pid", "ppid", "comm", "own", "reaped", "rss", "threads")

    def __init__(self, pid, ppid, comm, own, reaped, rss, threads):
        self.pid, self.ppid, self.comm = pid, ppid, comm
        self.own, self.reaped, self.rss, self.threads = own, reaped, rss, threads


def snapshot():
    """Every process on the machine: {pid: Proc}."""
    procs = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                data = f.read().decode("latin-1")
        except OSError:
            continue
        lp, rp = data.find("("), data.rfind(")")
        f = data[rp + 2:].split()
        # fields from 3 on: state ppid ... utime(14) stime(15) cutime(16)
        # cstime(17) ... num_threads(20) ... rss(24)
        procs[int(name)] = Proc(int(name), int(f[1]), data[lp + 1:rp],
                                int(f[11]) + int(f[12]),
                                int(f[13]) + int(f[14]),
                                int(f[21]) * PAGE, int(f[17]))
    return procs


def children(procs, pid):
    return [p for p in procs.values() if p.ppid == pid]


def tree(procs, roots):
    """The pids of roots (those alive) and all their descendants."""
    out, todo = set(), [r for r in roots if r in procs]
    kids = {}
    for p in procs.values():
        kids.setdefault(p.ppid, []).append(p.pid)
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out.add(pid)
        todo.extend(kids.get(pid, ()))
    return out


def cpu_seconds(procs, pids):
    """CPU time (user + system) of pids and of their children already reaped.
    A CGI process that exited during a run is counted through its parent's
    cutime/cstime, if its parent waited for it."""
    ticks = sum(procs[p].own + procs[p].reaped for p in pids if p in procs)
    return ticks / CLK_TCK


def system_times():
    """(softirq, steal) seconds of the whole machine from /proc/stat: time
    spent on interrupts' deferred work (the loopback network, mostly) and
    time the hypervisor gave the CPUs to someone else."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[6] / CLK_TCK, (v[7] if len(v) > 7 else 0) / CLK_TCK


def system_busy_seconds():
    """CPU time the whole machine spent running processes, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user, nice, system: interrupt and softirq time (the loopback network
    # itself, mostly the bench's own traffic) is left out
    return sum(v[:3]) / CLK_TCK


def unix_socket_inode(path):
    """The inode of the UNIX socket bound to path, or to path.<pid> as
    mod_cgid names its ScriptSock; None if there is none."""
    try:
        with open("/proc/net/unix") as f:
            next(f)
            for line in f:
                parts = line.split()
                if len(parts) >= 8 and (parts[7] == path or
                                        parts[7].startswith(path + ".")):
                    return parts[6]
    except OSError:
        pass
    return None


def holds_socket(pid, inode):
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == "socket:[%s]" % inode:
                    return True
            except OSError:
                continue
    except OSError:
        pass
    return False


class Cgroup:
    """A cpuacct cgroup (v1) or a plain cgroup (v2) the servers are started
    in, so that every process they fork, even one that exits unreaped, is
    counted. Owned by the bench run; removed at its end."""

    def __init__(self):
        self.path = self.kind = None
        name = "cgiplus-bench-%d" % os.getpid()
        for kind, base in (("v1", "/sys/fs/cgroup/cpuacct"),
                           ("v2", "/sys/fs/cgroup/unified"),
                           ("v2", "/sys/fs/cgroup")):
            probe = os.path.join(base, "cpuacct.usage" if kind == "v1" else "cgroup.procs")
            if not os.path.exists(probe):
                continue
            path = os.path.join(base, name)
            try:
                os.mkdir(path)
            except OSError:
                continue
            if self._read(path, kind) is None:
                os.rmdir(path)
                continue
            self.path, self.kind = path, kind
            return

    @staticmethod
    def _read(path, kind):
        try:
            if kind == "v1":
                with open(os.path.join(path, "cpuacct.usage")) as f:
                    return int(f.read()) / 1e9
            with open(os.path.join(path, "cpu.stat")) as f:
                for line in f:
                    k, v = line.split()
                    if k == "usage_usec":
                        return int(v) / 1e6
        except (OSError, ValueError):
            return None
        return None

    def seconds(self):
        return self._read(self.path, self.kind) if self.path else None

    def enter(self):
        """Moves the calling process into the cgroup (a Popen preexec_fn)."""
        if self.path:
            with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def pids(self):
        if not self.path:
            return []
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def remove(self):
        if self.path:
            try:
                os.rmdir(self.path)
            except OSError:
                pass


def script_name(pid):
    """The base name of the script a worker runs: the first argument of its
    command line that is not an interpreter (python3 hello.py -> hello.py)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            args = f.read().decode("latin-1").split("\0")
    except OSError:
        return "?"
    names = [os.path.basename(a) for a in args if a]
    for n in names:
        if not n.startswith(("python", "perl", "sh", "bash", "dash", "env")):
            return n
    return names[0] if names else "?"


def roles(procs, roots, cgid_inode=None, httpd_comm=None):
    """(role, Proc) for every process of the servers' trees, each once:
    httpd_parent, httpd_children (threaded children, and of httpd_comm if
    given), runner with runner_workers, cgid_daemon (holds the ScriptSock)
    with cgid_scripts, fcgid_pm (any other child of httpd) with fcgid_apps,
    fpm_master with fpm_children, nginx_master with nginx_workers; processes
    below an httpd child are httpd_other."""
    def below(pid):
        return [procs[p] for p in tree(procs, [pid]) - {pid}]

    httpd = roots.get("httpd")
    if httpd in procs:
        yield "httpd_parent", procs[httpd]
        for c in children(procs, httpd):
            if c.comm == "cgiplus-runner":
                yield "runner", c
                kids = "runner_workers"
            elif c.threads > 1 and (httpd_comm is None or c.comm == httpd_comm):
                yield "httpd_children", c
                kids = "httpd_other"
            elif cgid_inode and holds_socket(c.pid, cgid_inode):
                yield "cgid_daemon", c
                kids = "cgid_scripts"
            else:
                yield "fcgid_pm", c
                kids = "fcgid_apps"
            for k in below(c.pid):
                yield kids, k
    for name, front, back in (("php", "fpm_master", "fpm_children"),
                              ("nginx", "nginx_master", "nginx_workers")):
        pid = roots.get(name)
        if pid in procs:
            yield front, procs[pid]
            for k in below(pid):
                yield back, k


# The CPU split's groups: the front end, the target's helper (what stands
# between the front end and the workers, or manages them), and the rest.
FRONT_ROLES = {"httpd_parent", "httpd_children"}
HELPER_ROLES = {"runner", "cgid_daemon", "fcgid_pm", "fpm_master", "nginx_master"}


def cpu_split(procs, roots, cgid_inode=None, httpd_comm=None):
    """(httpd, helper, workers) CPU seconds of the servers' trees: the front
    end's and the helpers' own utime+stime; every other process's own time,
    plus all that any process of the trees reaped (exited CGI processes and
    workers). The three add up to cpu_seconds() over the same trees."""
    ticks = [0, 0, 0]
    for role, p in roles(procs, roots, cgid_inode, httpd_comm):
        if role in FRONT_ROLES:
            ticks[0] += p.own
        elif role in HELPER_ROLES:
            ticks[1] += p.own
        else:
            ticks[2] += p.own
        ticks[2] += p.reaped
    return tuple(t / CLK_TCK for t in ticks)


def memory(procs, roots, cgid_inode=None, httpd_comm=None):
    """Resident memory by role (see roles()), in bytes, with process counts;
    the httpd parent is left out, and the runner's workers are also counted
    per script (runner_workers:<script>)."""
    m = {}

    def add(role, p):
        r = m.setdefault(role, {"rss": 0, "n": 0})
        r["rss"] += p.rss
        r["n"] += 1

    for role, p in roles(procs, roots, cgid_inode, httpd_comm):
        if role in ("httpd_parent", "httpd_other"):
            continue
        add(role, p)
        if role == "runner_workers":
            add("runner_workers:" + script_name(p.pid), p)
    return m
