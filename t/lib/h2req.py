#!/usr/bin/python3
"""h2req.py PORT METHOD PATH BODYFILE HOW OUTHEAD OUTBODY TIMEOUT: one request on an
h2c connection (prior knowledge), its body from BODYFILE sent as the flow
control allows, with content-length (HOW cl), without (nolen) or none
(none: the header ends the stream). Writes the response's status line
("HTTP/2 CODE") and header lines to OUTHEAD, its body to OUTBODY; a
response ended before the body was all sent, then RST_STREAM NO_ERROR, is
a response (RFC 9113, 8.1: curl 7.88 takes it for a failure). The status
line ends in "(reset CODE)", "(closed)" or "(timed out)" (after TIMEOUT s
without a frame), "(protocol error: NAME)" when no whole response came, "(none)" for its code
when no header did. Needs python3-h2 (Debian's), run with /usr/bin/python3."""
import socket
import sys

import h2.config
import h2.connection
import h2.events
import h2.exceptions

port, method, path, bodyfile, how, outhead, outbody, timeout = sys.argv[1:9]
body = open(bodyfile, "rb").read() if how != "none" else b""
s = socket.create_connection(("127.0.0.1", int(port)), timeout=float(timeout))
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="latin-1"))
c.initiate_connection()
hdrs = [(":method", method), (":path", path), (":scheme", "http"), (":authority", "127.0.0.1:" + port),
        ("content-type", "application/octet-stream")]
if how == "cl":
    hdrs.append(("content-length", str(len(body))))
sid = 1
c.send_headers(sid, hdrs, end_stream=(how == "none"))
sent, sending = 0, how != "none"
status, headers, data, ended, fail = None, [], bytearray(), False, None
while not ended and fail is None:
    while sending:
        n = min(c.local_flow_control_window(sid), c.max_outbound_frame_size, len(body) - sent)
        if n <= 0 and sent < len(body):
            break
        c.send_data(sid, body[sent:sent + n], end_stream=(sent + n == len(body)))
        sent += n
        if sent == len(body):
            sending = False
    out = c.data_to_send()
    if out:
        s.sendall(out)
    try:
        got = s.recv(65536)
    except socket.timeout:
        fail = "(timed out)"
        break
    except OSError as e:
        fail = "(%s)" % e
        break
    if not got:
        fail = "(closed)"
        break
    try:
        evs = c.receive_data(got)
    except h2.exceptions.ProtocolError as e:
        # (a HEAD's answer with DATA: mod_cgid's, now and then)
        fail = "(protocol error: %s)" % type(e).__name__
        break
    for ev in evs:
        if isinstance(ev, h2.events.ResponseReceived):
            for k, v in ev.headers:
                if k == ":status":
                    status = v
                else:
                    headers.append((k, v))
        elif isinstance(ev, h2.events.DataReceived):
            data += ev.data
            c.acknowledge_received_data(ev.flow_controlled_length, sid)
        elif isinstance(ev, h2.events.StreamEnded):
            ended = True
        elif isinstance(ev, h2.events.StreamReset):
            if not ended:
                fail = "(reset %d)" % ev.error_code
        elif isinstance(ev, h2.events.ConnectionTerminated):
            if not ended:
                fail = "(closed)"
    # the response's end: no more of the body (the server may reset)
    if ended:
        sending = False
out = c.data_to_send()
if out:
    try:
        s.sendall(out)
    except OSError:
        pass
s.close()
with open(outhead, "w", encoding="latin-1") as f:
    f.write("HTTP/2 %s" % status if ended else "%s %s" % ("HTTP/2 " + status if status else "(none)", fail or "(closed)"))
    f.write("\r\n")
    for k, v in headers:
        f.write("%s: %s\r\n" % (k, v))
with open(outbody, "wb") as f:
    f.write(data)
