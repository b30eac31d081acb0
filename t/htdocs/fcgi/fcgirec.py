"""fcgirec.py: FastCGI name-value pairs for the test responders beside it
(getvalues.py, halfclose.py, oneshot.py, raw.py), which import it from
their own directory (tests that copy one copy this too)."""
import struct


def nv(name, value):
    def ln(n):
        return bytes([n]) if n < 128 else struct.pack('>I', n | 0x80000000)
    return ln(len(name)) + ln(len(value)) + name + value


def nv_decode(data):
    i, out = 0, {}

    def ln():
        nonlocal i
        if data[i] < 128:
            i += 1
            return data[i - 1]
        i += 4
        return struct.unpack('>I', data[i - 4:i])[0] & 0x7fffffff
    while i < len(data):
        n = ln()
        v = ln()
        out[data[i:i + n]] = data[i + n:i + n + v]
        i += n + v
    return out
