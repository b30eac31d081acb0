"""The private servers of a bench run: one httpd (every Apache target, clear
and TLS), php-fpm and nginx, all on 127.0.0.1 or UNIX sockets in the run
directory. Starts them, knows their pids, stops exactly what it started."""
import glob
import os
import shutil
import signal
import socket
import subprocess
import time

from . import plan, procs


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kw)


def apxs(var):
    return sh(["apxs", "-q", var]).stdout.strip()


def port_free(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def pick_ports(first=19400, last=19599, count=4):
    """The first block of count free ports in [first, last]."""
    for base in range(first, last - count + 2, count):
        if all(port_free(base + i) for i in range(count)):
            return list(range(base, base + count))
    raise RuntimeError("no %d free ports in %d-%d" % (count, first, last))


def render(src, dst, subst):
    with open(src) as f:
        text = f.read()
    for k, v in subst.items():
        text = text.replace("@%s@" % k, v)
    with open(dst, "w") as f:
        f.write(text)


def wait_for(pred, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return
        time.sleep(0.1)
    raise RuntimeError("timed out waiting for " + what)


def connectable(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


class Servers:
    """Owned by the bench run; start() then stop() exactly once."""

    def __init__(self, top, run, cgroup, log, cgiplus=None):
        self.top, self.run, self.cgroup, self.log = top, run, cgroup, log
        # the build whose mod_cgiplus and runner are measured (bench/run
        # --cgiplus-top: another tree's, for a before and after)
        self.cgiplus = cgiplus or top
        self.build = os.path.join(top, "bench", "build")
        self.root = os.geteuid() == 0
        # BENCH_PORT_BASE: where to look for free ports (several benches at once)
        first = int(os.environ.get("BENCH_PORT_BASE", "19400"))
        self.ports = pick_ports(first, first + 199)
        self.port, self.tls_port, self.nginx_port, self.nginx_tls_port = self.ports
        self.httpd_bin = os.path.join(apxs("SBINDIR"), apxs("TARGET"))
        # the kernel keeps the first 15 bytes of a command's name
        self.httpd_comm = os.path.basename(self.httpd_bin)[:15]
        self.libexec = apxs("LIBEXECDIR")
        self.fpm_bin = (shutil.which("php-fpm") or
                        (sorted(glob.glob("/usr/sbin/php-fpm*")) or [None])[-1])
        self.nginx_bin = shutil.which("nginx") or "/usr/sbin/nginx"
        self.httpd_pid = None
        self.fpm = self.nginx = None
        self.static_available = False
        self.static_reason = ""
        self.started = []  # every pid we started, for the final sweep

    # --- files -----------------------------------------------------------
    def prepare(self):
        run = self.run
        os.makedirs(os.path.join(run, "htdocs", "static"))
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"):
            os.makedirs(os.path.join(run, "nginx", sub))
        os.makedirs(os.path.join(run, "php"))
        for fname, size in plan.STATIC_FILES:
            with open(os.path.join(run, "htdocs", "static", fname), "wb") as f:
                if fname == "14b.txt":
                    f.write(b"Hello, world!\n")
                else:
                    f.write((b"0123456789abcdef" * (size // 16 + 1))[:size])
        r = sh(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-keyout", os.path.join(run, "key.pem"),
                "-out", os.path.join(run, "cert.pem")])
        if r.returncode:
            raise RuntimeError("openssl: " + r.stdout)
        for dirpath, dirs, files in os.walk(run):
            for d in dirs:
                os.chmod(os.path.join(dirpath, d), 0o755)
            for f in files:
                if f != "key.pem":
                    os.chmod(os.path.join(dirpath, f), 0o644)
        self.static_available, self.static_reason = self.detect_static()
        subst = self.subst()
        static = ('CGIplusStatic /fast/ "%s/htdocs/static"' % run
                  if self.static_available else
                  "# CGIplusStatic: not available in this build")
        subst_httpd = dict(subst, STATIC=static,
                           USER="User nobody\nGroup nogroup" if self.root else "")
        render(os.path.join(self.top, "bench/conf/httpd.conf.in"),
               os.path.join(run, "httpd.conf"), subst_httpd)
        render(os.path.join(self.top, "bench/conf/nginx.conf.in"),
               os.path.join(run, "nginx.conf"),
               dict(subst, USER="user nobody nogroup;" if self.root else ""))
        render(os.path.join(self.top, "bench/conf/php-fpm.conf.in"),
               os.path.join(run, "php-fpm.conf"),
               dict(subst, USER="user = nobody\ngroup = nogroup" if self.root else ""))

    def subst(self):
        return {"TOP": self.top, "CGIPLUS": self.cgiplus, "RUN": self.run, "BUILD": self.build,
                "LIBEXEC": self.libexec, "PORT": str(self.port),
                "TLSPORT": str(self.tls_port), "NGINXPORT": str(self.nginx_port),
                "NGINXTLSPORT": str(self.nginx_tls_port)}

    def detect_static(self):
        """Whether this build's mod_cgiplus knows CGIplusStatic: `httpd -t` on
        a minimal configuration that uses it."""
        conf = os.path.join(self.run, "static-probe.conf")
        with open(conf, "w") as f:
            f.write("ServerRoot \"%s\"\nServerName 127.0.0.1\nListen 127.0.0.1:%d\n"
                    "DefaultRuntimeDir \"%s\"\nPidFile \"%s/probe.pid\"\n"
                    "ErrorLog \"%s/probe_error_log\"\n"
                    "LoadModule mpm_event_module %s/mod_mpm_event.so\n"
                    "LoadModule authz_core_module %s/mod_authz_core.so\n"
                    "LoadModule cgiplus_module %s/mod_cgiplus/.libs/mod_cgiplus.so\n"
                    "CGIplusRunnerPath \"%s/runner/cgiplus-runner\"\n"
                    "CGIplusStatic /fast/ \"%s/htdocs/static\"\n"
                    % (self.run, self.port, self.run, self.run, self.run,
                       self.libexec, self.libexec, self.cgiplus, self.cgiplus, self.run))
        r = sh([self.httpd_bin, "-t", "-f", conf])
        if r.returncode == 0:
            return True, ""
        if "Invalid command 'CGIplusStatic'" in r.stdout:
            return False, "this build's mod_cgiplus has no CGIplusStatic directive"
        lines = [l for l in r.stdout.splitlines() if l.strip()]
        return False, ("httpd -t with CGIplusStatic failed: " +
                       " ".join(lines[:2]) if lines else "httpd -t failed")[:300]

    # --- start/stop ------------------------------------------------------
    def _popen(self, cmd, logname):
        out = open(os.path.join(self.run, logname), "w")
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL,
                             preexec_fn=self.cgroup.enter, close_fds=True)
        out.close()
        self.started.append(p.pid)
        return p

    def start(self):
        run = self.run
        # php-fpm in the foreground, as our child
        r = sh([self.fpm_bin, "-t", "-y", os.path.join(run, "php-fpm.conf"),
                "-p", os.path.join(run, "php")])
        if r.returncode:
            raise RuntimeError("php-fpm -t: " + r.stdout)
        self.fpm = self._popen([self.fpm_bin, "-F", "-y", os.path.join(run, "php-fpm.conf"),
                                "-p", os.path.join(run, "php")], "php-fpm.out")
        # nginx with its own prefix, config and error log, daemon off
        ngx = [self.nginx_bin, "-p", os.path.join(run, "nginx") + "/",
               "-c", os.path.join(run, "nginx.conf"),
               "-e", os.path.join(run, "nginx_error.log")]
        r = sh(ngx + ["-t"])
        if r.returncode:
            raise RuntimeError("nginx -t: " + r.stdout)
        self.nginx = self._popen(ngx, "nginx.out")
        # httpd daemonizes; its pid comes from the pid file
        conf = os.path.join(run, "httpd.conf")
        r = sh([self.httpd_bin, "-t", "-f", conf])
        if r.returncode:
            raise RuntimeError("httpd -t: " + r.stdout)
        p = subprocess.run([self.httpd_bin, "-f", conf, "-k", "start"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, preexec_fn=self.cgroup.enter)
        if p.returncode:
            raise RuntimeError("httpd -k start: " + p.stdout)
        pidfile = os.path.join(run, "httpd.pid")
        wait_for(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0,
                 15, "httpd's pid file")
        with open(pidfile) as f:
            self.httpd_pid = int(f.read().strip())
        self.started.append(self.httpd_pid)
        for port in self.ports:
            wait_for(lambda: connectable(port), 15, "port %d" % port)
        wait_for(lambda: os.path.exists(os.path.join(run, "php-fpm.sock")), 15,
                 "php-fpm's socket")
        for p in (self.fpm, self.nginx):
            if p.poll() is not None:
                raise RuntimeError("%s exited at start (see %s)" % (p.args[0], run))

    def roots(self):
        return {"httpd": self.httpd_pid,
                "php": self.fpm.pid if self.fpm else None,
                "nginx": self.nginx.pid if self.nginx else None}

    def server_pids(self, snap):
        return procs.tree(snap, [p for p in self.roots().values() if p])

    def stop(self):
        """Stops what we started, then kills by pid anything of ours left."""
        leftovers = set()
        try:
            snap = procs.snapshot()
            leftovers = self.server_pids(snap)
        except OSError:
            pass
        if self.httpd_pid and pid_alive(self.httpd_pid):
            os.kill(self.httpd_pid, signal.SIGTERM)
        for p, sig in ((self.fpm, signal.SIGQUIT), (self.nginx, signal.SIGQUIT)):
            if p and p.poll() is None:
                p.send_signal(sig)
        end = time.time() + 15
        while time.time() < end:
            alive = [p for p in leftovers | set(self.cgroup.pids()) if pid_alive(p)]
            for p in (self.fpm, self.nginx):
                if p:
                    p.poll()
            if not alive:
                break
            time.sleep(0.2)
        for pid in leftovers | set(self.cgroup.pids()):
            if pid != os.getpid() and pid_alive(pid):
                self.log("killing leftover pid %d" % pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for p in (self.fpm, self.nginx):
            if p:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
