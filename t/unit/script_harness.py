#!/usr/bin/env python3
"""script_harness.py: plays cgiplus-runner against the script libraries.

Starts each example (C, Python, Perl, sh) as a worker exactly as the runner
does (docs/PROTOCOL.md part 2: body on fd 0, response on fd 1, CGIPLUSIN on
fd 3, random sentinels), feeds it requests, answers its callouts, drains the
body it did not read, and checks the responses. Emits TAP.

    python3 t/unit/script_harness.py [c python perl sh ...]

Run from the top of the build tree (after `make` and `make t/unit/probe`).
"""
import os
import secrets
import struct
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TIMEOUT = 10.0
_n = 0
_failed = 0


def ok(cond, name, diag=None):
    global _n, _failed
    _n += 1
    if not cond:
        _failed += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (_n, name))
    if not cond and diag is not None:
        for line in str(diag).splitlines() or [""]:
            print("#   " + line)
    sys.stdout.flush()
    return cond


class Worker:
    """One persistent script process, driven like the runner drives it."""

    def __init__(self, argv, cwd=None):
        self.eof = ("CGIPLUS-EOF-" + secrets.token_hex(16)).encode()
        self.esc = ("CGIPLUS-ESC-" + secrets.token_hex(16)).encode()
        self.eot = ("CGIPLUS-EOT-" + secrets.token_hex(16)).encode()
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "CGIPLUSEOF": self.eof.decode(),
            "CGIPLUSESC": self.esc.decode(),
            "CGIPLUSEOT": self.eot.decode(),
            "CGIPLUSIN": "/dev/fd/3",
            "POOL_VAR": "kept",
        }
        in_r, self.in_w = os.pipe()
        self.out_r, out_w = os.pipe()
        chan_r, self.chan_w = os.pipe()
        self.errf = tempfile.TemporaryFile()
        # fd 3 is set last, so no earlier dup2 can clobber it.
        fa = [(os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1),
              (os.POSIX_SPAWN_DUP2, self.errf.fileno(), 2),
              (os.POSIX_SPAWN_DUP2, chan_r, 3)]
        old = os.getcwd()
        if cwd:
            os.chdir(cwd)
        try:
            self.pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
        finally:
            os.chdir(old)
        os.close(out_w)
        os.close(chan_r)
        self.in_r = in_r        # kept, as the runner does, to drain bodies
        self.buf = b""
        self.struct = False
        self.struct_next = False
        self.callouts = []
        self.status = None

    def stderr(self):
        self.errf.seek(0)
        return self.errf.read().decode(errors="replace")

    def _records(self, env):
        if self.struct:
            block = b""
            for k, v in env.items():
                e = (k + "=").encode() + v
                block += struct.pack(">H", len(e)) + e
            block += b"\0\0"
            return b"!!%d\n" % len(block) + block
        out = b"!\n"
        for k, v in env.items():
            v = v.replace(b"\r", b" ").replace(b"\n", b" ")
            out += (k + "=").encode() + v + b"\n"
        return out + b"\n"

    def _writeall(self, fd, data):
        try:
            while data:
                n = os.write(fd, data)
                data = data[n:]
        except BrokenPipeError:
            pass

    def _read_more(self, deadline):
        import select
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no sentinel; got %r" % self.buf[-300:])
        r, _, _ = select.select([self.out_r], [], [], left)
        if not r:
            raise TimeoutError("no sentinel; got %r" % self.buf[-300:])
        data = os.read(self.out_r, 65536)
        if not data:
            raise EOFError("worker closed stdout; got %r" % self.buf[-300:])
        self.buf += data

    def _answer(self, line):
        self.callouts.append(line)
        if line.startswith(b"!") or line.startswith(b"#"):
            return
        if line.strip() == b"CGIPLUS: struct":
            self.struct_next = True
            ans = b"200 struct"
        elif line.startswith(b"NOOP"):
            ans = b"200 NOOP"
        else:
            ans = b"200 ok " + line
        self._writeall(self.chan_w, ans + b"\n")

    def request(self, env, body=b"", content_length=None):
        """Sends one request; returns the response bytes before the sentinel."""
        env = {k: (v if isinstance(v, bytes) else str(v).encode())
               for k, v in env.items()}
        env["CONTENT_LENGTH"] = str(len(body) if content_length is None
                                    else content_length).encode()
        if self.struct_next:
            self.struct = True
        self._writeall(self.chan_w, self._records(env))
        writer = threading.Thread(target=self._writeall, args=(self.in_w, body))
        writer.start()
        deadline = time.monotonic() + TIMEOUT
        resp = b""
        eofl, escl, eotl = self.eof + b"\n", self.esc + b"\n", self.eot + b"\n"
        try:
            while True:
                i_eof = self.buf.find(eofl)
                i_esc = self.buf.find(escl)
                if i_esc >= 0 and (i_eof < 0 or i_esc < i_eof):
                    j = self.buf.find(eotl, i_esc)
                    if j < 0:
                        self._read_more(deadline)
                        continue
                    resp += self.buf[:i_esc]
                    for line in self.buf[i_esc + len(escl):j].split(b"\n"):
                        if line:
                            self._answer(line)
                    self.buf = self.buf[j + len(eotl):]
                    continue
                if i_eof >= 0:
                    resp += self.buf[:i_eof]
                    self.buf = self.buf[i_eof + len(eofl):]
                    break
                self._read_more(deadline)
        finally:
            self._drain(writer)
        return resp

    def _drain(self, writer):
        # The runner discards what the script did not read of its body. Not
        # O_NONBLOCK: that flag would be shared with the worker's stdin.
        # Between requests the worker does not read fd 0, so select-then-read
        # cannot block.
        import select
        while True:
            r, _, _ = select.select([self.in_r], [], [], 0.001)
            if r:
                os.read(self.in_r, 65536)
            elif not writer.is_alive():
                break
        writer.join()
        while select.select([self.in_r], [], [], 0)[0]:
            os.read(self.in_r, 65536)

    def send_raw(self, data):
        self._writeall(self.chan_w, data)

    def close(self, timeout=TIMEOUT):
        """Closes CGIPLUSIN (the runner wants the worker gone); returns status."""
        if self.chan_w >= 0:
            os.close(self.chan_w)
            self.chan_w = -1
        deadline = time.monotonic() + timeout
        while self.status is None and time.monotonic() < deadline:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = st
                break
            time.sleep(0.01)
        if self.status is None:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
            self.status = -1
        for fd in (self.in_w, self.out_r, self.in_r):
            os.close(fd)
        return self.status


def split_response(resp):
    head, sep, body = resp.partition(b"\n\n")
    if not sep:
        head, sep, body = resp.partition(b"\r\n\r\n")
    headers = {}
    for line in head.replace(b"\r", b"").split(b"\n"):
        k, _, v = line.partition(b":")
        headers[k.strip().lower().decode()] = v.strip().decode()
    return headers, body


def cgi_env(**extra):
    env = {"REQUEST_METHOD": "GET", "SCRIPT_NAME": "/x", "QUERY_STRING": "",
           "SERVER_PROTOCOL": "HTTP/1.1", "GATEWAY_INTERFACE": "CGI/1.1"}
    env.update(extra)
    return env


LANGS = {
    "c": ("examples/c", ""),
    "python": ("examples/python", ".py"),
    "perl": ("examples/perl", ".pl"),
    "sh": ("examples/sh", ".sh"),
}


def script(lang, name):
    d, ext = LANGS[lang]
    return os.path.join(TOP, d, name + ext)


def test_lang(lang):
    print("# %s examples" % lang)
    hello, counter = script(lang, "hello"), script(lang, "counter")
    envs, echo = script(lang, "env"), script(lang, "echo")
    if not os.access(hello, os.X_OK):
        ok(False, "%s: %s is executable" % (lang, hello))
        return

    w = Worker([hello], cwd=os.path.dirname(hello))
    try:
        for i in range(2):
            h, b = split_response(w.request(cgi_env()))
            ok(h.get("content-type") == "text/plain" and
               b == b"Hello from CGIplus\n", "%s hello: request %d" % (lang, i + 1),
               (h, b))
        # A body the script never reads is drained; the next request is fine.
        h, b = split_response(w.request(cgi_env(REQUEST_METHOD="POST"),
                                        body=b"z" * 200000))
        ok(b == b"Hello from CGIplus\n", "%s hello: unread 200 KB body" % lang, b)
        h, b = split_response(w.request(cgi_env()))
        ok(b == b"Hello from CGIplus\n", "%s hello: next request in step" % lang, b)
    except Exception as e:
        ok(False, "%s hello: exception" % lang, repr(e) + "\n" + w.stderr())
    st = w.close()
    ok(st == 0, "%s hello: exits 0 when CGIPLUSIN closes" % lang,
       "status %r\n%s" % (st, w.stderr()))

    w = Worker([counter], cwd=os.path.dirname(counter))
    try:
        got = [split_response(w.request(cgi_env()))[1] for _ in range(3)]
        want = [b"count=%d pid=%d\n" % (i + 1, w.pid) for i in range(3)]
        ok(got == want, "%s counter: counts 1,2,3 in one process" % lang, got)
    except Exception as e:
        ok(False, "%s counter: exception" % lang, repr(e) + "\n" + w.stderr())
    w.close()

    w = Worker([envs], cwd=os.path.dirname(envs))
    try:
        _, b1 = split_response(w.request(cgi_env(FOO="1", BAR="two words",
                                                 GATEWAY_INTERFACE="CGI/1.1")))
        _, b2 = split_response(w.request(cgi_env(BAZ="3",
                                                 HTTP_X="a\nb")))
        l1, l2 = b1.decode().splitlines(), b2.decode().splitlines()
        ok("FOO=1" in l1 and "BAR=two words" in l1, "%s env: request 1 vars" % lang, b1)
        ok("BAZ=3" in l2 and not any(x.startswith("FOO=") for x in l2) and
           not any(x.startswith("BAR=") for x in l2),
           "%s env: request 2 sees only its own vars" % lang, b2)
        ok("HTTP_X=a b" in l2, "%s env: record mode turns LF into space" % lang, b2)
        ok("POOL_VAR=kept" in l2 and "PATH=/usr/local/bin:/usr/bin:/bin" in l2,
           "%s env: worker env kept" % lang, b2)
        ok(sum(x.startswith("GATEWAY_INTERFACE=") for x in l1) == 1,
           "%s env: no duplicate names" % lang, b1)
        ok(l2 == sorted(l2), "%s env: sorted" % lang, b2)
        ok(w.eof not in b1 + b2, "%s env: sentinel value not printed" % lang)
        ok("CONTENT_LENGTH=0" in l2, "%s env: CONTENT_LENGTH" % lang, b2)
    except Exception as e:
        ok(False, "%s env: exception" % lang, repr(e) + "\n" + w.stderr())
    w.close()

    w = Worker([echo], cwd=os.path.dirname(echo))
    try:
        bodies = [b"hello world", bytes(range(256)) * 4, b"",
                  os.urandom(300000), b"x\r\n\r\ny"]
        for i, body in enumerate(bodies):
            h, b = split_response(w.request(cgi_env(REQUEST_METHOD="POST"), body))
            ok(b == body and h.get("x-request-count") == str(i + 1) and
               h.get("x-worker-pid") == str(w.pid) and
               h.get("content-type") == "application/octet-stream",
               "%s echo: body of %d bytes" % (lang, len(body)),
               (h, b[:80], len(b)))
        # CONTENT_LENGTH 10 while 100 bytes sit on stdin: the script must
        # read exactly 10 (no read-ahead); the harness drains the other 90.
        h, b = split_response(w.request(cgi_env(REQUEST_METHOD="POST"),
                                        b"0123456789" + b"#" * 90, 10))
        ok(b == b"0123456789", "%s echo: reads exactly CONTENT_LENGTH" % lang, b)
        h, b = split_response(w.request(cgi_env(REQUEST_METHOD="POST"), b"next"))
        ok(b == b"next", "%s echo: next body not disturbed" % lang, b)
    except Exception as e:
        ok(False, "%s echo: exception" % lang, repr(e) + "\n" + w.stderr())
    w.close()

    # The same scripts as plain CGI: no CGIPLUSEOF, one request, exit.
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "GATEWAY_INTERFACE": "CGI/1.1"}
    r = subprocess.run([hello], env=dict(base, REQUEST_METHOD="GET"),
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=TIMEOUT, cwd=os.path.dirname(hello))
    ok(r.returncode == 0 and split_response(r.stdout)[1] == b"Hello from CGIplus\n",
       "%s plain CGI: hello once, exit 0" % lang, (r.returncode, r.stdout, r.stderr))
    r = subprocess.run([echo], env=dict(base, REQUEST_METHOD="POST",
                                        CONTENT_LENGTH="5"),
                       input=b"abcde", capture_output=True, timeout=TIMEOUT,
                       cwd=os.path.dirname(echo))
    h, b = split_response(r.stdout)
    ok(r.returncode == 0 and b == b"abcde" and h.get("x-request-count") == "1",
       "%s plain CGI: echo" % lang, (r.returncode, r.stdout, r.stderr))
    r = subprocess.run([counter], env=base, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=TIMEOUT,
                       cwd=os.path.dirname(counter))
    ok(r.returncode == 0 and split_response(r.stdout)[1].startswith(b"count=1 "),
       "%s plain CGI: counter" % lang, (r.stdout, r.stderr))


def test_probe(lang, path):
    """Callouts, struct mode, partial reads: needs a probe script."""
    print("# %s probe" % lang)
    w = Worker([path], cwd=os.path.dirname(path))
    try:
        _, b = split_response(w.request(cgi_env(PROBE="subenv", V="one two")))
        ok(b"sub=one two\n" in b, "%s child process sees the request's variables" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="subenv")))
        ok(b"sub=(unset)\n" in b, "%s child process: previous request's gone" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="callout", PROBE_ARG="NOOP: hi")))
        ok(b"answer=200 NOOP errno=0" in b, "%s callout: answered" % lang, b)
        ok(w.callouts[-1:] == [b"NOOP: hi"], "%s callout: request line" % lang,
           w.callouts)
        ok(w.esc not in b and w.eot not in b, "%s callout: block not in response" % lang)
        _, b = split_response(w.request(cgi_env(PROBE="callout",
                                                PROBE_ARG="!LIFETIME: 5")))
        ok(b"answer= errno=0" in b and w.callouts[-1] == b"!LIFETIME: 5",
           "%s callout: '!' gets no answer" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="callout",
                                                PROBE_ARG="# note")))
        ok(b"answer= errno=0" in b, "%s callout: '#' gets no answer" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="callout",
                                                PROBE_ARG="MAP-PATH: /x")))
        ok(b"answer=200 ok MAP-PATH: /x" in b, "%s callout: after no-answer ones" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="partial", PROBE_ARG="5",
                                                REQUEST_METHOD="POST"),
                                        b"abcdefghij" * 10))
        ok(b"body=abcde\n" in b, "%s partial read: 5 of 100 bytes" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="partial", PROBE_ARG="5",
                                                REQUEST_METHOD="POST"), b"12345"))
        ok(b"body=12345\n" in b, "%s partial read: no stale bytes next time" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="nofinish", V="nf")))
        ok(b"V=nf" in b, "%s no cgiplus_finish: next accept ends the response" % lang, b)
        _, b = split_response(w.request(cgi_env(V="after")))
        ok(b"V=after" in b, "%s no finish: next request fine" % lang, b)
        if lang == "sh":
            raise StopIteration   # cgiplus.sh offers no struct mode
        _, b = split_response(w.request(cgi_env(PROBE="struct", V="x")))
        ok(b"struct=0" in b and w.struct_next, "%s struct: callout accepted" % lang, b)
        _, b = split_response(w.request(cgi_env(V=b"line1\nline2\r\n=x")))
        ok(w.struct and b"V=line1\nline2\r\n=x\n" in b,
           "%s struct: value verbatim" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="partial", PROBE_ARG="3"),
                                        b"xyz"))
        ok(b"V=(unset)" in b and b"body=xyz" in b,
           "%s struct: previous vars gone, body ok" % lang, b)
        counts = w.request(cgi_env())
        ok(b"count=14 " in counts, "%s probe: one process throughout" % lang, counts)
    except StopIteration:
        pass
    except Exception as e:
        ok(False, "%s probe: exception" % lang, repr(e) + "\n" + w.stderr())
    st = w.close()
    ok(st == 0, "%s probe: exit 0 at EOF" % lang, (st, w.stderr()))

    # A malformed request: the library logs CGIPLUS3001 and the worker ends.
    w = Worker([path], cwd=os.path.dirname(path))
    w.send_raw(b"?\n")
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        pid, st = os.waitpid(w.pid, os.WNOHANG)
        if pid:
            w.status = st
            break
        time.sleep(0.01)
    ok(w.status not in (None, 0) and "CGIPLUS3001" in w.stderr(),
       "%s bad sync record: logged, non-zero exit" % lang, (w.status, w.stderr()))
    w.close()

    # EOF in the middle of a request's records.
    w = Worker([path], cwd=os.path.dirname(path))
    w.send_raw(b"!\nA=1\n")
    st = w.close()
    ok(st not in (None, 0) and "CGIPLUS3003" in w.stderr(),
       "%s truncated request: logged, non-zero exit" % lang, (st, w.stderr()))


def test_body_and_bytes(lang, path):
    """docs/PROTOCOL.md part 2, "Writing a library": stdin ends after
    CONTENT_LENGTH bytes though fd 0 never ends; values are raw bytes."""
    print("# %s stdin and bytes" % lang)
    w = Worker([path], cwd=os.path.dirname(path))
    try:
        # 5 bytes of body, 95 more already waiting on fd 0 (the runner never
        # sends EOF): reading stdin to its end must stop at 5.
        _, b = split_response(w.request(cgi_env(PROBE="readall", REQUEST_METHOD="POST"),
                                        b"hello" + b"#" * 95, 5))
        ok(b"body=hello\n" in b, "%s stdin read to its end stops at CONTENT_LENGTH" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="readall"), b""))
        ok(b"body=\n" in b, "%s stdin of a request without a body is empty" % lang, b)
        _, b = split_response(w.request(cgi_env(PROBE="readall", REQUEST_METHOD="POST"),
                                        b"next"))
        ok(b"body=next\n" in b, "%s next body read to its end, in step" % lang, b)
        _, b = split_response(w.request(cgi_env(V=b"a\xffb\x80")))
        ok(b"V=a\xffb\x80\n" in b, "%s a value with bytes >= 0x80 arrives as is" % lang, b)
        _, b = split_response(w.request(cgi_env(V=b"v" * 60000)))
        ok(b"V=" + b"v" * 60000 + b"\n" in b, "%s a 60000-byte value arrives whole" % lang,
           len(b))
    except Exception as e:
        ok(False, "%s stdin and bytes: exception" % lang, repr(e) + "\n" + w.stderr())
    ok(w.close() == 0, "%s stdin and bytes: exit 0 at EOF" % lang, w.stderr())


PROBES = {
    "c": "t/unit/probe",
    "python": "t/unit/probe.py",
    "perl": "t/unit/probe.pl",
    "sh": "t/unit/probe.sh",
}


def test_wsgi():
    print("# python run_wsgi")
    path = os.path.join(TOP, "t/unit/wsgi_probe.py")
    w = Worker([path], cwd=os.path.dirname(path))
    try:
        h, b = split_response(w.request(cgi_env(REQUEST_METHOD="POST",
                                                PATH_INFO="/"), b"abc"))
        ok(h.get("status") == "201 Created" and h.get("x-count") == "1" and
           b == b"body=abc\nscheme=http markers= once=False\n",
           "wsgi: status, headers, body, no CGIPLUS* in environ", (h, b))
        h, b = split_response(w.request(cgi_env(PATH_INFO="/boom")))
        ok(h.get("status", "").startswith("500"), "wsgi: exception is a 500", (h, b))
        ok("RuntimeError: boom" in w.stderr(), "wsgi: traceback on stderr")
        h, b = split_response(w.request(cgi_env(REQUEST_METHOD="POST", HTTPS="on"),
                                        b"x" * 100000))
        ok(h.get("x-count") == "3" and b.startswith(b"body=" + b"x" * 100000 + b"\n")
           and b"scheme=https" in b, "wsgi: large body, https, same process",
           (h, b[-60:]))
    except Exception as e:
        ok(False, "wsgi: exception", repr(e) + "\n" + w.stderr())
    ok(w.close() == 0, "wsgi: exit 0 at EOF")
    r = subprocess.run([path], env={"PATH": "/usr/bin:/bin", "REQUEST_METHOD": "POST",
                                    "CONTENT_LENGTH": "2", "SERVER_NAME": "x",
                                    "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1"},
                       input=b"hi", capture_output=True, timeout=TIMEOUT)
    h, b = split_response(r.stdout)
    ok(r.returncode == 0 and h.get("status") == "201 Created" and
       b.startswith(b"body=hi\n") and b"once=True" in b,
       "wsgi: plain CGI", (r.stdout, r.stderr))


def main():
    langs = sys.argv[1:] or ["c", "python", "perl", "sh"]
    for lang in langs:
        test_lang(lang)
        p = os.path.join(TOP, PROBES[lang])
        if os.access(p, os.X_OK):
            test_probe(lang, p)
            test_body_and_bytes(lang, p)
        if lang == "python":
            test_wsgi()
    print("1..%d" % _n)
    return 1 if _failed else 0


if __name__ == "__main__":
    sys.exit(main())
