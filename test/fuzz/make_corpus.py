#!/usr/bin/env python3
"""make_corpus.py: (re)write the seed corpus test/fuzz/corpus/<target>/ from
the wire formats as the headers define them (little-endian, x86-64 layout).
   python3 test/fuzz/make_corpus.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- fuzz_config: type byte (0 bool 1 int 2 size 3 double 4 string 5 LOOM_LOG)
for i, (t, v) in enumerate([(0, "yes"), (0, "Off"), (1, "300"), (1, "-1"), (1, "0x10"),
                            (2, "64k"), (2, "8KB"), (2, "1g"), (2, "9223372036854775807"),
                            (2, "17179869184g"), (3, "2.5"), (3, "1e-3"), (3, "nan"),
                            (4, "shm,tcp"), (5, "debug:shm,p2p"), (5, "trace"),
                            (5, "warn:a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p")]):
    put("fuzz_config", "seed%02d" % i, bytes([t]) + v.encode())

# ---- fuzz_tcp_stream: byte0 read seed, byte1 buffer size, then frames
def tcp_frame(ftype, body):
    return struct.pack("<IB3x", len(body), ftype) + body

secret = bytes(range(1, 9)) + bytes(8)
hello = struct.pack("<IHHii", 0x4C4F4F4D, 1, 0, 2, 1) + secret
get_req = struct.pack("<QQQQII", 7, 0x1000, 4096, 99, 3, 0)
data_hdr = struct.pack("<QQ", 8, 0)
streams = {
    "hello": tcp_frame(1, hello) + tcp_frame(4, b"\x01" * 40),
    "accept_wrong_secret": tcp_frame(2, hello[:-16] + bytes(16)),
    "am_frames": b"".join(tcp_frame(4, bytes([i]) * (i * 7)) for i in range(1, 9)),
    "get": tcp_frame(5, get_req) + tcp_frame(6, data_hdr + b"x" * 300) +
           tcp_frame(6, struct.pack("<QQ", 9, 300) + b"y" * 5000),
    "get_err_bye": tcp_frame(7, struct.pack("<QiI", 7, -22, 0)) + tcp_frame(8, b""),
    "bad_type": tcp_frame(9, b"zz"),
    "too_long": struct.pack("<IB3x", 0xFFFFFFF0, 4),
}
for i, (name, s) in enumerate(streams.items()):
    put("fuzz_tcp_stream", name, bytes([i * 37 % 256, i % 5 + 1]) + s)

# ---- fuzz_p2p_frame: byte0 posted receives, then (len16, frame)*
def hdr(ftype, ctx_sel, src, tag, length):
    return struct.pack("<B3xIiiQ", ftype, ctx_sel, src, tag, length)

def frames(*fs):
    return b"".join(struct.pack("<H", len(f)) + f for f in fs)

p2p = {
    "eager": (0, frames(hdr(1, 0, 0, 5, 11) + b"hello world")),
    "eager_posted_trunc": (3, frames(hdr(1, 0, 0, 1, 20) + b"t" * 20,
                                     hdr(1, 1, 0, 2, 3) + b"abc")),
    "eager_many_ctx": (0, frames(*[hdr(1, i, i, i, 4) + bytes(4) for i in range(6)])),
    "bye": (0, frames(struct.pack("<B7xQ", 6, 0))),
    "short_frames": (1, frames(b"\x01", b"\x02" * 10, b"\x03" * 5, b"\x04", b"\x07" * 16)),
    "wild_tags": (2, frames(hdr(1, 0, -1, -1, 0), hdr(1, 0, 7, 0x7fffffff, 1) + b"z")),
}
for name, (posted, body) in p2p.items():
    put("fuzz_p2p_frame", name, bytes([posted]) + body)

# ---- fuzz_shm_frame: 'P' len16 type payload | 'C' | 'G' idx len16
def P(ftype, payload):
    return b"P" + struct.pack("<HB", len(payload), ftype) + payload

def G(idx, length):
    return b"G" + struct.pack("<BH", idx, length - 1)

def data_frame(gid, off, payload):
    return P(3, struct.pack("<IIQ", gid, 0, off) + payload)

shm = {
    "am_fill_drain": P(1, b"a" * 10) + P(1, b"b" * 200) + P(1, b"") + P(1, b"c" * 5) +
                     P(1, b"overflow") + b"CCCCC",
    "get_complete": G(3, 100) + data_frame(3, 0, b"x" * 60) + b"C" +
                    data_frame(3, 60, b"y" * 40) + b"C",
    "get_bad": G(1, 50) + data_frame(1, 40, b"z" * 20) + b"C" + data_frame(2, 0, b"q") + b"C" +
               data_frame(1 | 1 << 8, 0, b"g") + b"C",
    "get_req": P(2, struct.pack("<IIQQ", 5, 0, 0x1000, 64)) + b"C" + P(2, b"short") + b"C",
    "unknown_type": P(0, b"?") + b"CC",
}
for name, s in shm.items():
    put("fuzz_shm_frame", name, s)

# ---- fuzz_launcher_output: byte0 (bit0 tagged), then what the rank writes
out = {
    "lines": b"hello\nworld\n",
    "partial": b"no newline at the end",
    "empty_lines": b"\n\n\nx\n\n",
    "binary": bytes(range(256)) * 3,
    "long_line": b"L" * 3000 + b"\nshort\n",
}
for i, (name, s) in enumerate(out.items()):
    put("fuzz_launcher_output", name + "_tagged", bytes([2 * i + 1]) + s)
    put("fuzz_launcher_output", name, bytes([2 * i]) + s)
