#!/usr/bin/python3
"""h2reset.py PORT PREFIX LEDGER: on one HTTP/2 (h2c, prior knowledge)
connection, a first request (the pool's only worker started and warm),
then A (PREFIX/hc.pl, sleeping 2 s, on that worker), then B (queued behind
it; it would sleep 1 s if it ran), a reset of B's stream (RST_STREAM
CANCEL), A's end, then D. Prints one line: A's status, D's status and how
long D took (t/53_h2_reset.t reads the ledger for which of them ran).
Needs python3-h2 (Debian's), run with /usr/bin/python3."""
import socket
import sys
import time

import h2.config
import h2.connection
import h2.errors
import h2.events


class Conn:
    """One h2c connection and its streams; lives for the run."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.c.initiate_connection()
        self.flush()
        self.status, self.ended = {}, set()

    def flush(self):
        data = self.c.data_to_send()
        if data:
            self.s.sendall(data)

    def get(self, path):
        sid = self.c.get_next_available_stream_id()
        self.c.send_headers(sid, [(":method", "GET"), (":path", path), (":scheme", "http"),
                                  (":authority", "127.0.0.1")], end_stream=True)
        self.flush()
        return sid

    def reset(self, sid):
        self.c.reset_stream(sid, h2.errors.ErrorCodes.CANCEL)
        self.flush()

    def pump(self, timeout):
        self.s.settimeout(timeout)
        try:
            data = self.s.recv(65536)
        except socket.timeout:
            return
        if not data:
            raise EOFError("connection closed")
        for ev in self.c.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                self.status[ev.stream_id] = dict(ev.headers).get(b":status", b"?").decode()
            elif isinstance(ev, h2.events.DataReceived):
                self.c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)):
                self.ended.add(ev.stream_id)
        self.flush()

    def wait(self, sid, timeout):
        end = time.time() + timeout
        while sid not in self.ended and time.time() < end:
            self.pump(0.1)


def main():
    port, prefix, ledger = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    c = Conn(port)
    w = c.get("%s/hc.pl" % prefix)  # its worker started and warm
    c.wait(w, 10)
    a = c.get("%s/hc.pl?sleep=2&ledger=%s&id=A" % (prefix, ledger))
    c.pump(0.3)
    b = c.get("%s/hc.pl?sleep=1&ledger=%s&id=B" % (prefix, ledger))
    c.pump(0.3)
    c.reset(b)
    c.wait(a, 10)
    t0 = time.time()
    d = c.get("%s/hc.pl?ledger=%s&id=D" % (prefix, ledger))
    c.wait(d, 10)
    print("A %s D %s %.2f" % (c.status.get(a, "-"), c.status.get(d, "-"), time.time() - t0))


if __name__ == "__main__":
    main()
