"""cgiplus: the Python 3 script library of mod_cgiplus (standard library only).

A script written with it runs unchanged as a persistent CGIplus worker under
cgiplus-runner and as a plain CGI program (docs/PROTOCOL.md, part 2)::

    import cgiplus
    for env in cgiplus.requests():          # env is os.environ
        print("Content-Type: text/plain\\n")
        print("Hello from", env.get("SCRIPT_NAME"))

or with explicit calls::

    while cgiplus.accept():
        ...
        cgiplus.finish()

or a WSGI (PEP 3333) application, served persistently::

    cgiplus.run_wsgi(app)

Per request, os.environ (and the C-level environment that child processes
inherit) holds the request's CGI variables plus the worker's own environment
as it was at the first accept() (CGIPLUS*, PATH, pool variables); the
previous request's variables are removed. The library installs the C-level
array itself (through ctypes) because glibc's setenv() never frees a value,
and a long-lived worker would grow by every request's fresh values; os.putenv
is the fallback where that is not possible. sys.stdin is
replaced by a stream that ends after CONTENT_LENGTH bytes (text, and binary
as sys.stdin.buffer), so reading it to the end is safe and never reads into
the next request. Write the response on sys.stdout (or sys.stdout.buffer).

Log lines on stderr carry CGIPLUS3xxx ids (docs/errors.d/lib.md). Not
thread-safe: use it from the main thread only.
"""
import io
import os
import sys

__all__ = ["accept", "finish", "requests", "is_persistent", "callout",
           "struct_mode", "run_wsgi", "reexec", "CGIplusError"]

# Caps, as in the C library (lib/cgp_records.h).
_MAX_SYNC = 32
_MAX_LINE = 1024 + 1 + 65536
_MAX_BLOCK = 2 * 1024 * 1024
_MAX_ANSWER = 8192
_MARKERS = ("CGIPLUSEOF", "CGIPLUSESC", "CGIPLUSEOT", "CGIPLUSIN")


class CGIplusError(OSError):
    """A malformed request or a failed read on CGIPLUSIN; the worker should exit."""


class _Truncated(Exception):
    pass


class _TooLong(Exception):
    pass


def _log(logno, msg):
    try:
        sys.stderr.write("CGIPLUS%d: cgiplus.py: %s\n" % (logno, msg))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class _Channel:
    """Buffered reader over CGIPLUSIN. One per process, lives for its life."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""

    def _fill(self):
        data = os.read(self.fd, 4096)
        self.buf = data
        return bool(data)

    def readline(self, maximum):
        """Returns a line without its newline, or None at EOF before any byte.
        Raises _Truncated at EOF inside the line, _TooLong over maximum (the
        line is consumed whole, so the stream stays in step)."""
        parts, got, over, any_ = [], 0, False, False
        while True:
            if not self.buf and not self._fill():
                if not any_:
                    return None
                raise _Truncated()
            any_ = True
            i = self.buf.find(b"\n")
            piece = self.buf if i < 0 else self.buf[:i]
            self.buf = b"" if i < 0 else self.buf[i + 1:]
            if not over:
                if got + len(piece) > maximum:
                    over, parts = True, []
                else:
                    parts.append(piece)
                    got += len(piece)
            if i >= 0:
                if over:
                    raise _TooLong()
                return b"".join(parts)

    def read_exact(self, n):
        """Reads exactly n bytes, never more; _Truncated at EOF."""
        out = self.buf[:n]
        self.buf = self.buf[n:]
        parts = [out]
        left = n - len(out)
        while left > 0:
            data = os.read(self.fd, left)
            if not data:
                raise _Truncated()
            parts.append(data)
            left -= len(data)
        return b"".join(parts)


class _Body(io.RawIOBase):
    """Raw reader of the request body: fd 0, at most CONTENT_LENGTH bytes."""

    def __init__(self, length):
        super().__init__()
        self.left = length

    def readable(self):
        return True

    def fileno(self):
        return 0

    def readinto(self, b):
        if self.left <= 0:
            return 0
        want = min(len(b), self.left)
        data = os.read(0, want)
        b[:len(data)] = data
        self.left -= len(data)
        if not data:
            self.left = 0
        return len(data)

    def close(self):
        # Never closes descriptor 0: later requests use it.
        super().close()


class _State:
    """The library's state: one per process, lives for the process."""

    def __init__(self):
        self.init = False
        self.persistent = False
        self.in_request = False
        self.chan = None
        self.eofline = b""
        self.esc = b""
        self.eot = b""
        self.base = {}        # the worker's own environment
        self.base_b = {}      # the same, bytes to bytes
        self.names = set()    # variables the current request set
        self.stdin_encoding = None
        self.stdin_errors = None
        self.idle = None      # called between requests (run_wsgi's idle)
        self.idle_every = 1.0


_st = _State()


def is_persistent():
    """True when running as a persistent CGIplus worker (CGIPLUSEOF is set)."""
    if _st.init:
        return _st.persistent
    return bool(os.environ.get("CGIPLUSEOF"))


def _content_length():
    v = os.environ.get("CONTENT_LENGTH", "")
    return int(v) if v.isdigit() else 0


def _new_stdin():
    """A fresh sys.stdin for this request: no bytes of an earlier request
    can linger in a buffer, and it ends after CONTENT_LENGTH bytes."""
    raw = _Body(_content_length())
    buffered = io.BufferedReader(raw)
    sys.stdin = io.TextIOWrapper(buffered, encoding=_st.stdin_encoding,
                                 errors=_st.stdin_errors)


def _setup():
    if _st.chan is not None:
        return
    env = os.environ
    _st.eofline = os.fsencode(env["CGIPLUSEOF"]) + b"\n"
    _st.esc = os.fsencode(env.get("CGIPLUSESC", ""))
    _st.eot = os.fsencode(env.get("CGIPLUSEOT", ""))
    _st.base = dict(env)
    _st.base_b = dict(os.environb)
    path = env.get("CGIPLUSIN", "")
    if path and path != "/dev/fd/3":
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as e:
            _log(3007, "cannot open CGIPLUSIN %s: %s" % (path, e.strerror))
            raise CGIplusError(e.errno, "cannot open CGIPLUSIN")
    else:
        fd = 3
        try:
            os.set_inheritable(fd, False)
        except OSError as e:
            _log(3007, "CGIPLUSIN descriptor 3 unusable: %s" % e.strerror)
            raise CGIplusError(e.errno, "CGIPLUSIN unusable")
    _st.chan = _Channel(fd)


def _fail(logno, what, err=None):
    import errno as E
    _log(logno, what)
    raise CGIplusError(err if err is not None else E.EPROTO, what)


def _check(entry):
    i = entry.find(b"=")
    if i <= 0 or b"\0" in entry:
        _fail(3002, "malformed variable record")
    return entry[:i], entry[i + 1:]


def _read_request():
    """Reads one request: a dict of bytes names to bytes values, or None at EOF."""
    import errno as E
    ch = _st.chan
    sync = None
    try:
        sync = ch.readline(_MAX_SYNC)
        if sync is None:
            return None
        pairs = []
        if sync == b"!":
            total = 0
            while True:
                line = ch.readline(_MAX_LINE)
                if line is None:
                    raise _Truncated()
                if not line:
                    break
                total += len(line) + 1
                if total > _MAX_BLOCK:
                    _fail(3004, "request over the size caps", E.EMSGSIZE)
                pairs.append(_check(line))
        elif sync.startswith(b"!!") and sync[2:].isdigit():
            n = int(sync[2:])
            if n < 2 or n > _MAX_BLOCK:
                _fail(3001, "bad sync record (neither \"!\" nor \"!!N\")")
            block = ch.read_exact(n)
            off = 0
            while True:
                if n - off < 2:
                    _fail(3002, "malformed variable record")
                ln = int.from_bytes(block[off:off + 2], "big")
                off += 2
                if ln == 0:
                    break
                if ln > n - off:
                    _fail(3002, "malformed variable record")
                pairs.append(_check(block[off:off + ln]))
                off += ln
            if off != n:
                _fail(3002, "malformed variable record")
        else:
            _fail(3001, "bad sync record (neither \"!\" nor \"!!N\")")
        return pairs
    except _Truncated:
        _fail(3003, "request channel ended inside a request")
    except _TooLong:
        if sync is None:
            _fail(3001, "bad sync record (neither \"!\" nor \"!!N\")")
        _fail(3004, "request over the size caps", E.EMSGSIZE)
    except OSError as e:
        if isinstance(e, CGIplusError):
            raise
        _fail(3005, "read from CGIPLUSIN failed: %s" % e.strerror, e.errno)


class _CEnviron:
    """The C-level environment (what subprocesses inherit), set without
    setenv(): glibc never frees setenv()'s strings, so a worker setting
    fresh values per request would grow without bound. Owns the current
    array; lives for the process."""

    def __init__(self):
        self.var = None
        self.keep = None
        try:
            import ctypes
            self.ctypes = ctypes
            self.var = ctypes.c_void_p.in_dll(ctypes.CDLL(None), "environ")
        except (ImportError, OSError, ValueError, AttributeError):
            self.var = None

    def install(self, merged):
        """merged: bytes name -> bytes value. False if unavailable."""
        data = getattr(os.environ, "_data", None)
        if self.var is None or not isinstance(data, dict):
            return False
        ct = self.ctypes
        entries = [k + b"=" + v for k, v in merged.items()]
        arr = (ct.c_char_p * (len(entries) + 1))(*entries)
        self.var.value = ct.addressof(arr)
        self.keep = (arr, entries)   # the old array may go now
        # os.environ without putenv(): the C side is already done.
        data.clear()
        data.update(merged)
        return True


_cenv = None


def _install(pairs):
    """Makes os.environ (and the C environment) the base environment plus
    this request's variables."""
    global _cenv
    if _cenv is None:
        _cenv = _CEnviron()
    merged = dict(_st.base_b)
    for k, v in pairs:
        merged[k] = v
    if _cenv.install(merged):
        _st.names = set()
        return
    # Fallback: through os.environ (putenv), leaking a little per request.
    env = os.environ
    new = {}
    for k, v in pairs:
        new[os.fsdecode(k)] = os.fsdecode(v)
    for k in _st.names:
        if k in new:
            continue
        if k in _st.base:
            env[k] = _st.base[k]
        else:
            env.pop(k, None)
    for k, v in new.items():
        if env.get(k) != v:
            env[k] = v
    _st.names = set(new)


def accept():
    """Waits for the next request and makes it current. Returns True when a
    request is ready, False when there are no more (plain CGI: after the
    first; persistent: CGIPLUSIN closed). Raises CGIplusError on a malformed
    request or a failed read (logged first): the worker should exit."""
    if not _st.init:
        _st.persistent = is_persistent()
        _st.init = True
        _st.stdin_encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
        _st.stdin_errors = getattr(sys.stdin, "errors", None) or "strict"
        if not _st.persistent:
            # Plain CGI: limit stdin only when the length is known (a
            # chunked upload through mod_cgi arrives without one, to EOF).
            if os.environ.get("CONTENT_LENGTH", "").isdigit():
                _new_stdin()
            return True
    elif not _st.persistent:
        _flush()
        return False
    _setup()
    if _st.in_request:
        finish()
    _flush()
    if _st.idle is not None:
        _wait_request()
    pairs = _read_request()
    if pairs is None:
        return False
    _install(pairs)
    _new_stdin()
    _st.in_request = True
    return True


def _wait_request():
    """Calls the idle hook until a request's first byte is there: once now,
    then every idle_every seconds. No byte of a request is buffered yet, so
    the hook may even exec a new program (reexec)."""
    import select
    ch = _st.chan
    while not ch.buf:
        _st.idle()
        try:
            ready, _, _ = select.select([ch.fd], [], [], _st.idle_every)
        except InterruptedError:
            continue
        if ready:
            return


def reexec():
    """Starts this program again in the same process, between requests:
    the runner's channels (descriptors 0, 1, 3) stay open, so a request the
    runner has already written waits for the new program. Only from an idle
    hook of run_wsgi (nothing of a request read yet)."""
    _flush()
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if _st.chan is not None and _st.chan.fd == 3:
        os.set_inheritable(3, True)
    os.execve(sys.executable, [sys.executable] + sys.argv, _st.base_b)


def _flush():
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def _write_all(data):
    while data:
        n = os.write(1, data)
        data = data[n:]


def finish():
    """Ends the current response: flushes sys.stdout and writes the
    CGIPLUSEOF sentinel line directly after the last byte. Plain CGI: only
    flushes. Calling it twice for one request writes the sentinel once."""
    _flush()
    if not _st.in_request:
        return
    _st.in_request = False
    try:
        _write_all(_st.eofline)
    except OSError:
        pass        # the runner is gone; accept() will see EOF


def requests():
    """Generator: yields os.environ once per request and ends the response
    when the loop body is done (also if it raises)."""
    while accept():
        try:
            yield os.environ
        finally:
            finish()


def callout(request):
    """Sends one callout ("KEYWORD: params") during a request and returns
    the runner's answer line ("200 ...") without its newline; "" for a
    request starting with '!' or '#' (those get no answer). Raises
    CGIplusError when not persistent, ValueError for an empty request or
    one with a newline."""
    import errno as E
    if not is_persistent():
        raise CGIplusError(E.ENOTSUP, "callouts need a persistent worker")
    if isinstance(request, str):
        request = os.fsencode(request)
    if not request or b"\n" in request:
        raise ValueError("callout request must be one non-empty line")
    _setup()
    _flush()
    _write_all(_st.esc + b"\n" + request + b"\n" + _st.eot + b"\n")
    if request[:1] in (b"!", b"#"):
        return ""
    try:
        ans = _st.chan.readline(_MAX_ANSWER)
    except _Truncated:
        ans = None
    except _TooLong:
        raise CGIplusError(E.EMSGSIZE, "callout answer too long")
    if ans is None:
        raise CGIplusError(E.EPROTO, "CGIPLUSIN ended during a callout")
    return os.fsdecode(ans.rstrip(b"\r"))


def struct_mode():
    """Asks for later requests in struct mode (values verbatim, CR/LF kept).
    Call during a request; effective from the next. No-op in plain CGI."""
    import errno as E
    if not is_persistent():
        return
    ans = callout("CGIPLUS: struct")
    if not ans.startswith("200"):
        _log(3008, "runner refused struct mode: %s" % ans)
        raise CGIplusError(E.EPROTO, "struct mode refused: " + ans)


def run_wsgi(app, idle=None, idle_every=1.0):
    """Serves a WSGI (PEP 3333) application: persistently under the runner,
    once as plain CGI (like wsgiref.handlers.CGIHandler). wsgi.input ends
    after CONTENT_LENGTH bytes; errors become a 500 response and a traceback
    on stderr, as wsgiref does.

    idle: called between requests, and every idle_every seconds while the
    worker waits for one (persistent only); it may call reexec()."""
    from wsgiref.handlers import BaseCGIHandler

    class Handler(BaseCGIHandler):
        def setup_environ(self):
            super().setup_environ()
            # wsgi.input ends with the body (Werkzeug's extension).
            self.environ["wsgi.input_terminated"] = True

    if is_persistent():
        _st.idle = idle
        _st.idle_every = idle_every
    while accept():
        try:
            environ = {k: v for k, v in os.environ.items() if k not in _MARKERS}
            # The runner (and mod_cgi for a chunked upload, to EOF) ends
            # stdin with the body; a de-chunked body has an exact
            # CONTENT_LENGTH, so the client's Transfer-Encoding no longer
            # describes it (Werkzeug reads nothing of a "chunked" body
            # unless the stream is marked terminated).
            if environ.get("CONTENT_LENGTH", "").isdigit():
                environ.pop("HTTP_TRANSFER_ENCODING", None)
            handler = Handler(sys.stdin.buffer, sys.stdout.buffer, sys.stderr,
                              environ, multithread=False, multiprocess=True)
            # wsgiref snapshots os.environ when imported: not per request.
            handler.os_environ = {}
            handler.wsgi_run_once = not _st.persistent
            handler.run(app)
        finally:
            finish()
