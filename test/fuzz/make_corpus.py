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
# large AM frames cut by the reads, in a 64 KiB buffer: offered in place,
# taken or declined
put("fuzz_tcp_stream", "am_large",
    bytes([77, 4]) + b"".join(tcp_frame(4, bytes([i]) * (5000 + i * 3000)) for i in range(4)))

# ---- fuzz_p2p_frame: byte0 posted receives, then (len16, frame)*
def hdr(ftype, ctx_sel, src, tag, length):
    return struct.pack("<B3xIiiQ", ftype, ctx_sel, src, tag, length)

def frames(*fs):
    return b"".join(struct.pack("<H", len(f)) + f for f in fs)

def placed(f):
    """one frame delivered in place (length's top bit), as a byte stream offers it"""
    return struct.pack("<H", len(f) | 0x8000) + f

def rts(ctx_sel, tag, length, sreq, pushed):
    return hdr(3, ctx_sel, 0, tag, length) + struct.pack("<QQ32sII", sreq, 0, bytes(32),
                                                          pushed, 0)

def rndv_data(sreq, n):
    return struct.pack("<B7xQ", 8, sreq) + bytes(i & 0xff for i in range(n))

p2p = {
    "eager": (0, frames(hdr(1, 0, 0, 5, 11) + b"hello world")),
    "eager_posted_trunc": (3, frames(hdr(1, 0, 0, 1, 20) + b"t" * 20,
                                     hdr(1, 1, 0, 2, 3) + b"abc")),
    "eager_many_ctx": (0, frames(*[hdr(1, i, i, i, 4) + bytes(4) for i in range(6)])),
    "bye": (0, frames(struct.pack("<B7xQ", 6, 0))),
    "short_frames": (1, frames(b"\x01", b"\x02" * 10, b"\x03" * 5, b"\x04", b"\x07" * 16)),
    "wild_tags": (2, frames(hdr(1, 0, -1, -1, 0), hdr(1, 0, 7, 0x7fffffff, 1) + b"z")),
    # rendezvous: RTS (address replaced by the target) with pushed bytes
    # behind it in RNDV_DATA, unexpected and matched, and a stray RNDV_DATA
    "rts_push": (0, frames(rts(0, 3, 20000, 0x11, 512), rndv_data(0x11, 512),
                           rts(0, 4, 9000, 0x12, 0))),
    "rts_push_posted": (2, frames(rts(0, 5, 30000, 0x21, 100), rndv_data(0x21, 100))),
    "rts_push_lost": (1, frames(rts(0, 6, 5000, 0x31, 64), hdr(1, 0, 0, 6, 2) + b"hi",
                                rndv_data(0x99, 3))),
    "sync_ack_fin": (0, frames(struct.pack("<B3xIiiQQ", 2, 0, 0, 8, 3, 5) + b"abc",
                               struct.pack("<B7xQ", 4, 5), struct.pack("<B7xQ", 5, 5),
                               struct.pack("<B7xQ", 7, 5))),
    # frames still arriving offered in place: eager taken by a posted
    # receive (truncated: its buffer is 8 bytes), unexpected (declined),
    # ssend, the pushed part of a matched rendezvous, a failed connection
    "place_eager": (1, placed(hdr(1, 0, 0, 9, 400) + bytes(range(200)) * 2) +
                       placed(hdr(1, 0, 0, 9, 301) + b"u" * 301)),
    "place_sync": (0, placed(struct.pack("<B3xIiiQQ", 2, 0, 0, 8, 500, 5) + b"s" * 500)),
    "place_push": (2, frames(rts(0, 7, 30000, 0x41, 1000)) + placed(rndv_data(0x41, 1000))),
}
for name, (posted, body) in p2p.items():
    put("fuzz_p2p_frame", name, bytes([posted]) + body)

# ---- fuzz_shm_frame: 'P' len16 type payload | 'C' | 'G' idx len16 (the fast box)
#      'F' src len8 payload | 'U' k | 'R' (the receive FIFO)
def P(ftype, payload):
    return b"P" + struct.pack("<HB", len(payload), ftype) + payload

def G(idx, length):
    return b"G" + struct.pack("<BH", idx, length - 1)

def F(src, payload):
    return b"F" + struct.pack("<BB", src, len(payload)) + payload

def U(k):
    return b"U" + bytes([k])

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
    # FIFO: claims published out of order; the consumer waits for the oldest
    "fifo_out_of_order": F(0, b"first") + F(1, b"second") + F(2, b"third") + b"R" + U(2) +
                         b"R" + U(0) + b"RR" + U(0) + b"RRR",
    # FIFO: fill all 4 cells, a fifth claim is refused, drain, laps go on
    "fifo_full_laps": F(3, b"a") + F(4, b"b" * 48) + F(5, b"") + F(6, b"c") + F(7, b"x") +
                      U(0) * 4 + b"RRRRR" + (F(1, b"lap") + U(0) + b"R") * 6,
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

# ---- fuzz_launcher_ctl: head <-> daemon frames, as the socket gives them
# (big-endian: body length, type; fields by the spec in loomrun_ctl.h)
def cu(v):
    return struct.pack(">I", v & 0xFFFFFFFF)

def cs(s):
    b = s.encode() + b"\0"
    return cu(len(b)) + b

def cb(b):
    return cu(len(b)) + b

def cL(items):
    return cu(len(items)) + b"".join(cs(x) for x in items)

def cI(vals):
    return cu(len(vals)) + b"".join(cu(v) for v in vals)

def ctl(ftype, *fields):
    body = b"".join(fields)
    return cu(len(body)) + cu(ftype) + body

c_hello = ctl(1, cu(0x4C4D524E), cu(1), cu(1), cu(4242), cs("n1"), cb(bytes(range(16))))
c_job = ctl(2, cu(1), cu(4), cu(1), cs("loom-job-77"), cs("/home/u"), cs("n0"),
            cL(["n0", "n1"]), cL(["./prog", "-x", "3"]), cL(["LOOM_LOG=warn", "A=b"]),
            cI([0, 0, 1, 1]))
ctl_streams = {
    "hello_job": c_hello + c_job,
    "started_output_exit": c_hello + ctl(3, cu(2), cu(999)) +
        ctl(4, cu(2), cu(1), cu(1), cb(b"hello from rank 2\n")) +
        ctl(4, cu(2), cu(2), cu(0), cb(b"loom-report 2 begin")) +
        ctl(6, cu(2), cu(999), cu(0), cu(1), cu(1)),
    "stdin_signal_shutdown": ctl(5, cb(b"input\n")) + ctl(5, cb(b"")) + ctl(8, cu(15)) +
        ctl(14, cu(1)),
    "abort_error": ctl(7, cu(3), cu(-5), cs("rank 3 gave up")) +
        ctl(13, cu(127), cs("n1: ./prog: not found")),
    "fence_dmodex": ctl(9, cu(2), cs("fence-1"), cb(b"\x00\x01blob")) +
        ctl(10, cu(0), cs("fence-1"), cb(b"all" * 20)) +
        ctl(11, cu(1), cu(7), cu(3)) + ctl(12, cu(1), cu(7), cu(-46), cb(b"")),
    "partial_frame": c_hello + c_job[:-3],
    "bad_string": ctl(13, cu(1), cu(4) + b"ab\0\0"),
    "bad_type": ctl(99, cu(1)),
    "too_long": cu(0x7FFFFFFF) + cu(4),
}
for name, s in ctl_streams.items():
    put("fuzz_launcher_ctl", name, s)

# ---- fuzz_launcher_report: byte0 nranks-1, byte1 ended ranks, then lines
rep8 = [
    "loom-report 0 begin host=n0 waited=5.0 call=loom_allreduce",
    "loom-report 0 coll comm=WORLD count=413",
    "loom-report 0 active kind=allreduce comm=WORLD seq=412 alg=ring state=reduce-scatter",
    "loom-report 0 pending op=recv comm=WORLD peer=1 world=1 tag=-7 bytes=1024 proto=eager "
    "state=posted coll=1",
    "loom-report 0 end",
    "loom-report 7 begin host=n1 waited=5.1 call=loom_recv",
    "loom-report 7 coll comm=WORLD count=412",
    "loom-report 7 pending op=recv comm=WORLD peer=3 world=3 tag=9 bytes=4 proto=eager "
    "state=posted coll=0",
    "loom-report 7 end",
    "loom-report 3 begin host=n0 waited=5.0 call=loom_allreduce",
    "loom-report 3 coll comm=WORLD count=413",
    "loom-report 3 coll comm=split(WORLD)#5 count=2",
    "loom-report 3 active kind=allreduce comm=WORLD seq=412 alg=ring state=reduce-scatter",
    "loom-report 3 end",
    "ordinary output",
]
mismatch = [
    "loom-report 1 begin host=a waited=2.0 call=loom_recv",
    "loom-report 1 pending op=recv comm=WORLD peer=0 world=0 tag=2 bytes=8 proto=eager "
    "state=posted coll=0",
    "loom-report 1 end",
    "loom-report 0 begin host=a waited=2.0 call=loom_ssend",
    "loom-report 0 pending op=ssend comm=WORLD peer=1 world=1 tag=1 bytes=8 proto=sync "
    "state=wait-ack coll=0",
    "loom-report 0 end\r",
]
deadlock = [
    "loom-report %d begin host=h waited=1.5 call=loom_recv" % r for r in (0, 1)] + [
    "loom-report 0 pending op=recv comm=dup(WORLD)#4 peer=1 world=1 tag=any bytes=0 "
    "proto=eager state=posted coll=0",
    "loom-report 1 pending op=recv comm=dup(WORLD)#4 peer=any world=any tag=3 bytes=0 "
    "proto=eager state=posted coll=0",
    "loom-report 0 end", "loom-report 1 end",
]
odd = [
    "loom-report 2 begin host=h call=loom_bcast",
    "loom-report 2 active kind=bcast comm=WORLD seq=0 alg=binomial state=recv future=1",
    "loom-report 2 end",
    "loom-report 1 begin host=h call=loom_barrier",
    "loom-report 1 active kind=barrier comm=WORLD seq=0",
    "loom-report 1 end",
    "loom-report 0 begin host=h waited=0.3 call=loom_finalize",
    "loom-report 0 end",
    "!\x02",
    "loom-report 9 begin call=x",
    "loom-report 0 pending op=recv",
    "loom-report 0 bogus",
]
reports = {"allreduce_np8": (7, 0, rep8), "tags_mismatch": (1, 0, mismatch),
           "recv_deadlock": (1, 0, deadlock), "odd_kinds_ended": (3, 8, odd),
           "many_ranks": (199, 0x55, ["loom-report %d begin call=loom_barrier" % r
                                      for r in range(0, 199, 7)] +
                          ["loom-report %d active kind=barrier comm=WORLD seq=3" % r
                           for r in range(0, 199, 7)] +
                          ["loom-report %d end" % r for r in range(0, 199, 7)])}
for name, (nr, ended, lines) in reports.items():
    put("fuzz_launcher_report", name, bytes([nr, ended]) + "\n".join(lines).encode() + b"\n")
