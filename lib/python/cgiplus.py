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

Per request, os.environ and os.environb (and the C-level environment that child processes
inherit) holds the request's CGI variables plus the worker's own environment
as it was at the first accept() (CGIPLUS*, PATH, pool variables); the
previous request's variables are removed. The library installs the C-level
array itself (through ctypes) because glibc's setenv() never frees a value,
and a long-lived worker would grow by every request's fresh values; os.putenv
is the fallback where that is not possible. sys.stdin is
replaced by a stream that ends after CONTENT_LENGTH bytes (text, and binary
as sys.stdin.buffer), so reading it to the end is safe and never reads into
the next request. Write the response on sys.stdout (or sys.stdout.buffer).

Log lines on stderr carry CGIPLUS3xxx ids (docs/errors.md, "Script
libraries"). Not thread-safe: use it from the main thread only.
"""
import io
import operator
import os
import re
import sys

__all__ = ["accept", "finish", "requests", "is_persistent", "callout", "WebSocket",
           "WebSocketEvent",
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
    """Buffered reader over CGIPLUSIN. One per process, lives for its life.
    Reads are large: the runner writes nothing past a request until the
    sentinel, nor past a callout answer until the next callout."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""

    def _fill(self):
        data = os.read(self.fd, 65536)
        self.buf = data
        return bool(data)

    def records(self, pos=0):
        """The lines of a record-mode request after its "!" line (which
        ends before self.buf[pos]), up to the empty line (which is
        consumed), as one list; usually from a single read. _Truncated at
        EOF, _TooLong over the caps."""
        start = pos
        while True:
            buf = self.buf
            if buf[pos:pos + 1] == b"\n":    # no variables at all
                self.buf = buf[pos + 1:]
                return []
            end = buf.find(b"\n\n", start)
            if end >= 0:
                break
            if len(buf) - pos > _MAX_BLOCK:
                raise _TooLong()
            start = max(len(buf) - 1, pos)
            data = os.read(self.fd, 65536)
            if not data:
                raise _Truncated()
            self.buf = buf + data
        self.buf = buf[end + 2:]
        if end + 2 - pos > _MAX_BLOCK:
            raise _TooLong()
        lines = buf[pos:end].split(b"\n")
        if max(map(len, lines)) > _MAX_LINE:
            raise _TooLong()
        if buf.find(b"\0", pos, end) >= 0:
            _fail(3002, "malformed variable record")
        return lines

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
    """Raw reader of the request body: fd 0 (run_wsgi: a private copy of
    it), at most CONTENT_LENGTH bytes."""

    def __init__(self, length):
        super().__init__()
        self.left = length

    def readable(self):
        return True

    def fileno(self):
        return _st.in_fd

    def readinto(self, b):
        if self.left <= 0:
            return 0
        want = min(len(b), self.left)
        data = os.read(_st.in_fd, want)
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
        self.ready = b""      # the ready line: CGIPLUSEOF "+\n"
        self.had_record = False  # a record was read: the next read is announced
        self.eofstr = ""      # the same, as text for sys.stdout
        self.esc = b""
        self.eot = b""
        self.base = {}        # the worker's own environment
        self.base_b = {}      # the same, bytes to bytes
        self.names = set()    # variables the current request set
        self.stdin_encoding = None
        self.stdin_errors = None
        self.empty_stdin = None
        self.stdout = None    # sys.stdout as it was at setup
        self.out_fd = 1       # the response's descriptor (run_wsgi: a copy of 1)
        self.in_fd = 0        # the bodies' descriptor (run_wsgi: a copy of 0)
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


def _body_stdin(length):
    raw = _Body(length)
    return io.TextIOWrapper(io.BufferedReader(raw), encoding=_st.stdin_encoding,
                            errors=_st.stdin_errors)


def _new_stdin(n):
    """A fresh sys.stdin for this request: no bytes of an earlier request
    can linger in a buffer, and it ends after n (CONTENT_LENGTH) bytes. A
    request without a body (most) gets the one empty stream, made once:
    it can hold nothing, so it is safe to share."""
    if n:
        sys.stdin = _body_stdin(n)
        return
    empty = _st.empty_stdin
    if empty is None or empty.closed:
        empty = _st.empty_stdin = _body_stdin(0)
    sys.stdin = empty


def _setup():
    if _st.chan is not None:
        return
    env = os.environ
    _st.eofline = os.fsencode(env["CGIPLUSEOF"]) + b"\n"
    _st.ready = os.fsencode(env["CGIPLUSEOF"]) + b"+\n"
    _st.eofstr = env["CGIPLUSEOF"] + "\n"
    _st.esc = os.fsencode(env.get("CGIPLUSESC", ""))
    _st.eot = os.fsencode(env.get("CGIPLUSEOT", ""))
    _st.base = dict(env)
    _st.base_b = dict(os.environb)
    # The sentinel may go through sys.stdout (see finish) if its encoding
    # writes it as the bytes it is, and it is the response's.
    try:
        if _st.out_fd == 1 and _st.eofstr.encode(sys.stdout.encoding) == _st.eofline:
            _st.stdout = sys.stdout
    except (AttributeError, LookupError, TypeError, UnicodeError):
        pass
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
            _log(3009, "CGIPLUSIN descriptor 3 unusable: %s" % e.strerror)
            raise CGIplusError(e.errno, "CGIPLUSIN unusable")
    _st.chan = _Channel(fd)


def _fail(logno, what, err=None):
    import errno as E
    _log(logno, what)
    raise CGIplusError(err if err is not None else E.EPROTO, what)


_split_eq = operator.methodcaller("split", b"=", 1)


def _variables(entries):
    """The request's variables, bytes to bytes, from its "NAME=value"
    entries (split in C, not one variable at a time in Python)."""
    try:
        req = dict(map(_split_eq, entries))
    except ValueError:          # an entry without "="
        _fail(3002, "malformed variable record")
    if b"" in req:
        _fail(3002, "malformed variable record")
    return req


_PEM = re.compile(rb"((?:REDIRECT_)*SSL_(?:CLIENT|SERVER)_CERT(?:_CHAIN_[0-9]+)?)="
                  rb"-----BEGIN CERTIFICATE----- ([A-Za-z0-9+/= ]+) -----END CERTIFICATE-----( ?)\Z")


def _pem(entries):
    """mod_ssl's PEM certificates (SSLOptions +ExportCertData; REDIRECT_
    copies after an internal redirect) come in record mode with their line
    ends as spaces (docs/PROTOCOL.md); base64
    has no space, so the line ends are put back exactly, as mod_cgi passes
    them."""
    for i, e in enumerate(entries):
        if (e.startswith(b"SSL_") or e.startswith(b"REDIRECT_")) and e.find(b"_CERT=", 4, 200) > 0:
            m = _PEM.match(e)
            if m:
                entries[i] = (m.group(1) + b"=-----BEGIN CERTIFICATE-----\n" +
                              m.group(2).replace(b" ", b"\n") +
                              b"\n-----END CERTIFICATE-----" + (b"\n" if m.group(3) else b""))
    return entries


def _read_request():
    """Reads one request: its "NAME=value" entries (bytes), or None at EOF."""
    import errno as E
    ch = _st.chan
    sync = None
    try:
        # The usual request, "!\n" and its records in one read: no copy
        # of the buffer for the sync line.
        if not ch.buf and not ch._fill():
            return None
        if ch.buf[:2] == b"!\n":
            return _pem(ch.records(2))
        sync = ch.readline(_MAX_SYNC)
        if sync is None:
            return None
        if sync == b"!":
            return _pem(ch.records())
        entries = []
        if sync.startswith(b"!!") and sync[2:].isdigit():
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
                entry = block[off:off + ln]
                if b"\0" in entry:
                    _fail(3002, "malformed variable record")
                entries.append(entry)
                off += ln
            if off != n:
                _fail(3002, "malformed variable record")
        else:
            _fail(3001, "bad sync record (neither \"!\" nor \"!!N\")")
        return entries
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
        self.base = None      # the worker's own entries: (name, b"NAME=value")
        self.off = None       # id(a bytes object) -> address of its NUL-ended data
        try:
            import array
            import ctypes
            self.array = array.array
            self.var = ctypes.c_void_p.in_dll(ctypes.CDLL(None), "environ")
            # The array of char * is built from the entries' own buffers
            # (as c_char_p does), by address: ctypes' per-item conversion
            # was most of a hello request's cost. The offset is checked on
            # two objects and the pointer size; otherwise ctypes builds it.
            probes = (b"NAME=value", b"A=" + os.urandom(8).hex().encode())
            offs = {ctypes.cast(b, ctypes.c_void_p).value - id(b) for b in probes}
            if len(offs) == 1 and array.array("L").itemsize == ctypes.sizeof(ctypes.c_void_p):
                self.off = offs.pop().__add__
            self.ctypes = ctypes
        except (ImportError, OSError, ValueError, AttributeError):
            self.var = None

    def install(self, entries, req, merged):
        """entries: the request's "NAME=value" lines; req: the same as a
        dict; merged: the whole environment. False if unavailable."""
        data = getattr(os.environ, "_data", None)
        if self.var is None or not isinstance(data, dict):
            return False
        if self.base is None:
            self.base = [(k, k + b"=" + v) for k, v in _st.base_b.items()]
        if len(req) != len(entries):    # a name twice: one entry each
            entries = [k + b"=" + v for k, v in req.items()]
        entries = entries + [e for k, e in self.base if k not in req]
        if self.off is not None:
            arr = self.array("L", map(self.off, map(id, entries)))
            arr.append(0)
            self.var.value = arr.buffer_info()[0]
        else:
            ct = self.ctypes
            arr = (ct.c_char_p * (len(entries) + 1))(*entries)
            self.var.value = ct.addressof(arr)
        self.keep = (arr, entries)   # the old array may go now
        # os.environ without putenv(): the C side is already done.
        # os.environb shares os.environ's dict: it must get the new one
        # too, else it (and os.getenvb) keeps the worker's first environment.
        os.environ._data = merged
        if getattr(os, "environb", None) is not None:
            os.environb._data = merged
        return True


_cenv = None


def _install(entries):
    """Makes os.environ (and the C environment) the base environment plus
    this request's variables; returns its CONTENT_LENGTH (bytes)."""
    global _cenv
    if _cenv is None:
        _cenv = _CEnviron()
    req = _variables(entries)
    merged = _st.base_b.copy()
    merged.update(req)
    cl = req.get(b"CONTENT_LENGTH", b"")
    if _cenv.install(entries, req, merged):
        _st.names = set()
        return cl
    # Fallback: through os.environ (putenv), leaking a little per request.
    env = os.environ
    new = {}
    for k, v in req.items():
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
    return cl


def accept():
    """Waits for the next request and makes it current (after the ready line:
    nothing more of the last request comes, docs/PROTOCOL.md). Returns True
    when a request is ready, False when there are no more (plain CGI: after the
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
                _new_stdin(_content_length())
            return True
    elif not _st.persistent:
        _flush()
        return False
    _setup()
    if _st.in_request:
        finish()            # flushes sys.stdout
    else:
        _flush()
    if _st.had_record and _st.idle is None:
        # Nothing more of ours comes before the next record: the server may
        # send it whole (docs/PROTOCOL.md, "The ready line"). Not with an
        # idle hook, which may print (or reexec) while it waits.
        try:
            _write_all(_st.ready)
        except OSError:
            pass        # the runner is gone; the read sees EOF
    _st.had_record = False
    if _st.idle is not None:
        _wait_request()
    entries = _read_request()
    if entries is None:
        return False
    cl = _install(entries)
    _new_stdin(int(cl) if cl.isdigit() else 0)
    _st.in_request = True
    _st.had_record = True
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
    if _st.out_fd != 1:
        os.dup2(_st.out_fd, 1)  # run_wsgi's: the new program's response channel
    if _st.in_fd != 0:
        os.dup2(_st.in_fd, 0)   # and its requests' bodies
    os.execve(sys.executable, [sys.executable] + sys.argv, _st.base_b)


def _flush():
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def _write_all(data):
    while data:
        n = os.write(_st.out_fd, data)
        data = data[n:]


def finish():
    """Ends the current response: flushes sys.stdout and writes the
    CGIPLUSEOF sentinel line directly after the last byte. Plain CGI: only
    flushes. Calling it twice for one request writes the sentinel once."""
    if not _st.in_request:
        _flush()
        return
    _st.in_request = False
    out = sys.stdout
    try:
        if out is _st.stdout and out is not None:
            # The sentinel goes through stdout's own buffer, straight after
            # the response: one write() for both, usually.
            out.write(_st.eofstr)
            out.flush()
        else:       # the script replaced sys.stdout: flush it, then the response's fd
            _flush()
            _write_all(_st.eofline)
    except (OSError, ValueError):
        pass        # the runner is gone; accept() will see EOF


def requests():
    """Generator: yields os.environ once per request and ends the response
    when the loop body is done. A body that raises leaves the request open:
    the sentinel is never written for a request the script did not finish
    (else the dying worker would look free and take the next request), so
    an uncaught exception ends the worker with its traceback logged under
    the failed request, which gets 502 (or a cut response if its header had
    gone out). After a break, the next accept() or finish() ends it."""
    while accept():
        yield os.environ
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


_NOT_IN_HEADER = re.compile("[\r\n\0]|[^\0-\xff]")


def _check_response(status, headers):
    """Refuses (ValueError: the application's error, a 500 before anything
    is written) a status or header that could not go out as it is, as
    mod_wsgi refuses a line break: a CR, LF or NUL, since the CGI header is
    lines (a value's line break added headers, or ended the header and
    began the body: response splitting), or a character past U+00FF
    (wsgiref failed on it with the status line already written, and the
    worker was abandoned: a 502 and a new worker). Non-strings are left to
    wsgiref's own checks."""
    for what, text in [("status", status)] + [
            (kind, t) for h in headers for kind, t in zip(("header name", "header value"), h)]:
        if isinstance(text, str) and _NOT_IN_HEADER.search(text):
            raise ValueError("%s %r: a line break, NUL or character past U+00FF "
                             "cannot go out in a response header" % (what, text))


def run_wsgi(app, idle=None, idle_every=1.0):
    """Serves a WSGI (PEP 3333) application: persistently under the runner,
    once as plain CGI (like wsgiref.handlers.CGIHandler). wsgi.input ends
    after CONTENT_LENGTH bytes; descriptor 0 is /dev/null (persistent, as
    under mod_wsgi) and descriptor 1 the error log; errors become a 500
    response and a traceback on stderr, as wsgiref does, and the worker
    goes on; an error after the header went out ends the worker without
    ending the response (the client sees it cut, never a truncated body
    delivered as complete).

    idle: called between requests, and every idle_every seconds while the
    worker waits for one (persistent only); it may call reexec()."""
    from wsgiref.handlers import BaseCGIHandler
    from wsgiref.util import is_hop_by_hop

    class Handler(BaseCGIHandler):
        broken = False
        in_body = False         # finish_response is sending the iterable

        def start_response(self, status, headers, exc_info=None):
            # wsgiref asserts that no hop-by-hop header is set, so an
            # application sending "Connection: close" got a 500. mod_wsgi
            # hands them to httpd, which honours Connection: close and
            # frames the response itself, as for any CGI script: so do we.
            if not (exc_info and self.headers_sent):
                _check_response(status, headers)
            hop = [(n, v) for n, v in headers if is_hop_by_hop(n)]
            if not hop:
                return super().start_response(status, headers, exc_info)
            write = super().start_response(
                status, [h for h in headers if not is_hop_by_hop(h[0])], exc_info)
            for n, v in hop:
                self.headers.add_header(n, v)
            return write

        def cleanup_headers(self):
            super().cleanup_headers()
            # A 200 with a Location goes out as it is under mod_wsgi (a
            # framework's 200 that names a resource), which redirects
            # internally for a local path ("/...") only, as mod_cgi does;
            # httpd's CGI rule made any other a 302.
            loc = self.headers.get("Location")
            if loc is not None and self.status[:3] == "200" and not loc.startswith("/"):
                self.headers.add_header("Script-Control", "X-location-as-is")

        def setup_environ(self):
            super().setup_environ()
            # wsgi.input ends with the body (Werkzeug's extension).
            self.environ["wsgi.input_terminated"] = True

        def finish_response(self):
            self.in_body = True
            try:
                super().finish_response()
            finally:
                self.in_body = False

        def write(self, data):
            # PEP 3333: the header goes out with the iterable's first
            # non-empty block (or a write() call), as mod_wsgi sends it,
            # so an error before any byte is still a 500 (and a later
            # start_response with exc_info may still change it). wsgiref
            # sent it on an empty one: an error after a first b"" cut a
            # 200 and cost the worker.
            if self.in_body and data == b"" and not self.headers_sent:
                return
            super().write(data)

        def close(self):
            # An exception from the iterable's close(), which runs once
            # the response is done (a framework's request-finished hooks),
            # is logged and the response stands, as under mod_wsgi and
            # gunicorn. wsgiref's close() forgets the response before the
            # exception leaves it, so handle_error wrote a second one, a
            # 500 with its own "Status:" line, into the finished body.
            try:
                super().close()
            except Exception:
                self.log_exception(sys.exc_info())

        def handle_error(self):
            # Before the header: wsgiref answers 500 and the worker goes on.
            # After it, the response can only be cut: ending it with the
            # sentinel would deliver a truncated body as complete.
            self.broken = self.headers_sent
            super().handle_error()

    if is_persistent():
        _st.idle = idle
        _st.idle_every = idle_every
    # As mod_wsgi: what the application prints (sys.stdout, descriptor 1, a
    # child's) goes to the error log, never into a response; the response
    # goes out on a private copy of descriptor 1. Else a print() with a
    # request's data before start_response became response headers, and a
    # thread's print during another request that request's output.
    _flush()
    _st.out_fd = os.dup(1)          # not inherited by children
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(_st.out_fd, "wb", closefd=False)
    # As mod_wsgi too: descriptor 0 is /dev/null, and wsgi.input reads the
    # bodies from a private copy of it. A worker's descriptor 0 is the
    # requests' pipe, which never ends: a program the application runs
    # that reads its stdin (subprocess.run(["cat"]), ffmpeg, ssh) waited
    # there until the request's timeout, taking the request's body, and
    # one still running between requests took the next request's body.
    # (Plain CGI keeps its stdin: it ends with the one request's body.)
    if is_persistent():
        _st.in_fd = os.dup(0)       # not inherited by children
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    # Nor by a process the application forks (os.fork, multiprocessing):
    # one that wrote to what it had would write into whatever response the
    # worker sent then, or read the next request's records (as the engines'
    # fork hook; only in the worker's own children).
    worker = os.getpid()

    def close_private():
        if os.getppid() != worker:
            return
        chan = _st.chan.fd if _st.chan is not None else None
        for fd in (_st.out_fd, _st.in_fd if _st.in_fd > 2 else None,
                   chan if isinstance(chan, int) and chan > 2 else None):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
    os.register_at_fork(after_in_child=close_private)
    while accept():
        environ = _wsgi_environ()
        # The runner (and mod_cgi for a chunked upload, to EOF) ends
        # stdin with the body; a de-chunked body has an exact
        # CONTENT_LENGTH, so the client's Transfer-Encoding no longer
        # describes it (Werkzeug reads nothing of a "chunked" body
        # unless the stream is marked terminated).
        if environ.get("CONTENT_LENGTH", "").isdigit():
            environ.pop("HTTP_TRANSFER_ENCODING", None)
        handler = Handler(sys.stdin.buffer, out, sys.stderr,
                          environ, multithread=False, multiprocess=True)
        # wsgiref snapshots os.environ when imported: not per request.
        handler.os_environ = {}
        handler.wsgi_run_once = not _st.persistent
        # What escapes wsgiref (SystemExit...) leaves the request
        # unfinished (no sentinel) and ends the worker with it.
        handler.run(app)
        try:
            out.flush()
        except (OSError, ValueError):
            pass        # the runner is gone; accept() will see EOF
        if handler.broken and _st.persistent:
            _abandon("the application failed after its response had started")
        finish()


def _wsgi_environ():
    """The request's variables as PEP 3333 wants them: each value the bytes
    httpd sent, one character a byte (latin-1), as mod_wsgi and wsgiref's
    CGIHandler give them. os.environ's values are decoded as UTF-8, which
    frameworks undo with latin-1: Django then answers 500 for a path with
    a character past U+00FF and misreads any other non-ASCII path, Werkzeug
    replaces each such byte with U+FFFD."""
    data = getattr(os.environ, "_data", None)
    if isinstance(data, dict) and all(type(k) is bytes for k in data):
        items = data.items()
    else:
        items = ((os.fsencode(k), os.fsencode(v)) for k, v in os.environ.items())
    environ = {k.decode("latin-1"): v.decode("latin-1") for k, v in items}
    for k in _MARKERS:
        environ.pop(k, None)
    return environ


def _abandon(why):
    """Ends the worker in the middle of its request, without the sentinel:
    the request fails (its response cut) and the worker can be given no
    other request."""
    _flush()
    _log(3210, "%s: the worker exits without ending the response, so the "
         "client sees it cut (pid %d)" % (why, os.getpid()))
    os._exit(70)


# ---------------------------------------------------------------- WebSocket

class WebSocketEvent:
    """One event of a WebSocket worker: type is "open" (env: the upgrade's
    CGI variables, str to str), "message" (data: str for a text message,
    bytes for a binary one) or "close" (code, reason). conn is the
    connection's id."""
    __slots__ = ("type", "conn", "env", "data", "code", "reason")

    def __init__(self, type_, conn, env=None, data=None, code=None, reason=""):
        self.type, self.conn, self.env, self.data = type_, conn, env, data
        self.code, self.reason = code, reason

    def __repr__(self):
        return "WebSocketEvent(%s, %d)" % (self.type, self.conn)


# Records of the channel (docs/PROTOCOL.md, part 2, "WebSocket workers").
_WSR_OPEN, _WSR_MESSAGE, _WSR_CLOSED = 1, 2, 3
_WSR_HELLO, _WSR_ACCEPT, _WSR_REFUSE, _WSR_SEND, _WSR_BROADCAST, _WSR_CLOSE = range(16, 22)
_WSR_BINARY = 1
# The runner's caps (include/cgp_wsr.h): a record past them stops the worker.
_WSR_HDRS_MAX, _WSR_HNAME_MAX, _WSR_HVAL_MAX = 64, 256, 8192
_WSR_REFUSE_MAX, _WSR_REASON_MAX = 1024 * 1024, 123
_TCHAR = frozenset(b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                   b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _ws_code_ok(code):
    return 1000 <= code <= 1003 or 1007 <= code <= 1014 or 3000 <= code <= 4999


class WebSocket:
    """The worker's side of WebSocket connections. In a WebSocket pool (the
    runner sets CGIPLUSWS) it says HELLO on its channel; events() then
    yields what happens on every connection of this worker. Elsewhere (a
    plain GET to the script) events() answers each request 426 Upgrade
    Required and yields nothing. Not thread-safe."""

    def __init__(self):
        fd = os.environ.get("CGIPLUSWS")
        self.fd = int(fd) if fd and fd.isdigit() else None
        self.max_message = int(os.environ.get("CGIPLUSWS_MAX_MESSAGE", "16777216"))
        self.buf = b""
        if self.fd is not None:
            import struct
            self._struct = struct.Struct(">BBHII")
            self._write(_WSR_HELLO, 0, 0, b"\x00\x01\x00\x00")

    def enabled(self):
        """True in a WebSocket pool."""
        return self.fd is not None

    def _write(self, type_, flags, conn, payload):
        data = self._struct.pack(type_, flags, 0, conn, len(payload)) + payload
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]

    def _read(self, n):
        while len(self.buf) < n:
            data = os.read(self.fd, max(65536, n - len(self.buf)))
            if not data:
                return None
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _env(self, pl):
        env, off = {}, 0
        while off < len(pl):
            nl = int.from_bytes(pl[off:off + 2], "big")
            vl = int.from_bytes(pl[off + 2:off + 6], "big")
            name = pl[off + 6:off + 6 + nl]
            value = pl[off + 6 + nl:off + 6 + nl + vl]
            off += 6 + nl + vl
            env[os.fsdecode(name)] = os.fsdecode(value)
        return env

    def next_event(self):
        """The next event, or None when the runner closed the channel (the
        worker should exit)."""
        while True:
            hdr = self._read(12)
            if hdr is None:
                return None
            type_, flags, _, conn, n = self._struct.unpack(hdr)
            if n > self.max_message + 65536 + 1048576:
                raise CGIplusError(0, "WebSocket record of %d bytes" % n)
            pl = self._read(n) if n else b""
            if pl is None:
                return None
            if type_ == _WSR_OPEN:
                return WebSocketEvent("open", conn, env=self._env(pl))
            if type_ == _WSR_MESSAGE:
                data = pl if flags & _WSR_BINARY else pl.decode("utf-8")
                return WebSocketEvent("message", conn, data=data)
            if type_ == _WSR_CLOSED:
                return WebSocketEvent("close", conn, code=int.from_bytes(pl[:2], "big"),
                                      reason=pl[2:].decode("utf-8", "replace"))
            _log(3401, "unknown WebSocket record type %d (ignored)" % type_)

    def events(self):
        """Generator of events (see next_event); in a plain pool, answers
        requests 426 and never yields."""
        if self.fd is None:
            for _ in requests():
                sys.stdout.write("Status: 426 Upgrade Required\nUpgrade: websocket\n"
                                 "Connection: Upgrade\nContent-Type: text/plain\n\n"
                                 "This script speaks WebSocket only.\n")
            return
        while True:
            ev = self.next_event()
            if ev is None:
                return
            yield ev

    def accept(self, conn, protocol=None):
        """Takes the connection of an "open" event; protocol: one of those
        the client offered (HTTP_SEC_WEBSOCKET_PROTOCOL), or None."""
        self._write(_WSR_ACCEPT, 0, conn, (protocol or "").encode("ascii"))

    def refuse(self, conn, status=403, headers=(), body=b""):
        """Answers the upgrade with an HTTP response instead: status
        (200-599), headers as (name, value) pairs, body (bytes or str).
        Raises ValueError, sending nothing, for a status out of range, more
        than 64 headers, a name that is no token (or is Status, or longer
        than 256 bytes), a value with control characters or longer than
        8192 bytes, or more than 1 MiB in all."""
        if not isinstance(status, int) or not 200 <= status <= 599:
            raise ValueError("refuse: status %r is not 200-599" % (status,))
        headers = list(headers)
        if len(headers) > _WSR_HDRS_MAX:
            raise ValueError("refuse: %d headers, at most %d" % (len(headers), _WSR_HDRS_MAX))
        parts = [status.to_bytes(2, "big"), len(headers).to_bytes(2, "big")]
        for name, value in headers:
            n, v = name.encode("latin-1"), str(value).encode("latin-1")
            if not n or len(n) > _WSR_HNAME_MAX or not set(n) <= _TCHAR or \
                    n.lower() == b"status":
                raise ValueError("refuse: header name %r is not a token of 1-256 bytes "
                                 "(or is Status)" % (name,))
            if len(v) > _WSR_HVAL_MAX or any((c < 0x20 and c != 9) or c == 0x7f for c in v):
                raise ValueError("refuse: the value of %s has control characters or is "
                                 "over 8192 bytes" % (name,))
            parts += [len(n).to_bytes(2, "big"), len(v).to_bytes(2, "big"), n, v]
        parts.append(body.encode("utf-8") if isinstance(body, str) else bytes(body))
        pl = b"".join(parts)
        if len(pl) > _WSR_REFUSE_MAX:
            raise ValueError("refuse: %d bytes of headers and body, at most 1 MiB" % len(pl))
        self._write(_WSR_REFUSE, 0, conn, pl)

    @staticmethod
    def _payload(data):
        if isinstance(data, str):
            return 0, data.encode("utf-8")
        return _WSR_BINARY, bytes(data)

    def send(self, conn, data):
        """Sends a message to one connection: str as text, bytes as binary."""
        flags, pl = self._payload(data)
        self._write(_WSR_SEND, flags, conn, pl)

    def broadcast(self, data, exclude=0):
        """Sends a message to every connection of the pool (all its
        workers'), but exclude."""
        flags, pl = self._payload(data)
        self._write(_WSR_BROADCAST, flags, exclude, pl)

    def close(self, conn, code=1000, reason=""):
        """Closes a connection (its "close" event follows). Raises ValueError,
        sending nothing, for a code a close frame may not carry (RFC 6455:
        1000-1003, 1007-1014, 3000-4999) or a reason over 123 bytes."""
        if not isinstance(code, int) or not _ws_code_ok(code):
            raise ValueError("close: code %r may not be sent (1000-1003, 1007-1014, "
                             "3000-4999)" % (code,))
        r = reason.encode("utf-8")
        if len(r) > _WSR_REASON_MAX:
            raise ValueError("close: the reason is %d bytes, at most %d" % (len(r), _WSR_REASON_MAX))
        self._write(_WSR_CLOSE, 0, conn, code.to_bytes(2, "big") + r)
