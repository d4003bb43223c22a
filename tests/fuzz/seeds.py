#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora of the fuzz targets, from what the repository already has.

    seeds.py SRCDIR OUTDIR     writes OUTDIR/<target>/<name> for every target

rx:        every frame of tests/data/*.pcap (the Linux 6.1 FOU peer's and the
           inside hosts' replies) on its port, some with RX checksum flags,
           segments, copies, no headroom, or cut into outer IPv4 fragments in
           several orders (reassembly); ARP requests, replies and
           announcements for the gateway's addresses and others; IPv4
           without DF over the MTU of port 2 or of a tunnel (fragmented on
           the way out), with options, and a fragment with MF
encap:     the inside hosts' packets (inside-replies.pcap) into every tunnel
stmt:      config/*.conf as statements, one file each, their deletes, and
           every `--NAME ARG` example of the documentation
config:    config/*.conf as they are
args:      the documentation's command lines (after `--`), and the options
telemetry: the documentation's telemetry session and command table

The documentation is README.md and doc/**/*.md, where the reference moved.
gro:       bursts of in-order TCP segments (IPv4 in ipip and GRE, IPv6 in sit,
           plain routed IPv4), built with scapy, for each egress MTU / TSO choice;
           with a segment whose TCP checksum is bad under a right outer UDP
           checksum, the outer checksums fixed and NIC flags or not

The input formats are described at the top of each fuzz_<target>.c.
"""
import hashlib
import os
import re
import struct
import sys


def pcap_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, frames = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def write(out, target, data, name=None):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def conf_statements(path):
    """NAME ARG for each NAME = ARG line of a config file."""
    stmts = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            name, arg = line.split("=", 1)
            stmts.append(f"{name.strip()} {arg.strip()}")
    return stmts


def rx_seeds(src, out):
    data = os.path.join(src, "tests", "data")
    for pcap in sorted(os.listdir(data)):
        if not pcap.endswith(".pcap"):
            continue
        port = 1 if pcap.startswith("inside") else 0
        for i, frame in enumerate(pcap_frames(os.path.join(data, pcap))):
            write(out, "rx", bytes([port, 0, 0, 0]) + frame)
            if pcap != "linux-6.1-all.pcap" or i % 6 != 0:
                continue
            # the NIC's checksum verdicts, "verified", 3 segments, 4 copies
            # cut 7 bytes shorter each, no headroom
            for opts in ([port | 4, 0, 0, 0], [port | 8, 0, 0, 0], [port | 0x40, 0x55, 0, 0],
                         [port, 0, 3, 7], [port, 0, 4, 0]):
                write(out, "rx", bytes(opts) + frame)
            # its outer datagram in fragments, reassembled before anything:
            # 2 in order, 3 last first, 4 the second first, the first twice,
            # 5 in 3 segments each with the NIC's verdicts
            for opts in ([port, 0, 0x10, 0], [port, 0, 0x30, 1], [port, 0, 0x50, 2],
                         [port, 0, 0x90, 0], [port | 0x44, 0x55, 0x10, 3]):
                write(out, "rx", bytes(opts) + frame)


def arp(op, sha, sip, tip, dst=b"\xff" * 6, tha=b"\0" * 6, tag=None):
    """An ARP frame as a host sends it, padded to 60 bytes."""
    ip = lambda a: bytes(int(x) for x in a.split("."))
    eth = dst + sha + (b"\x81\x00" + struct.pack(">H", tag) if tag is not None else b"")
    f = eth + b"\x08\x06" + struct.pack(">HHBBH", 1, 0x0800, 6, 4, op) + sha + ip(sip) + \
        tha + ip(tip)
    return f + b"\xa5" * max(0, 60 - len(f))


def arp_seeds(out):
    """ARP to the packet gateway (fuzz.c): requests for its addresses on
    either port (answered, the sender learnt), for others, announcements,
    replies, a duplicate address probe, an 802.1Q-tagged request."""
    host = b"\x52\x54\x00\x63\x00\x09"
    mine = b"\x02\x00\x00\x00\x00\x10"
    for port, sip, tip in ((0, "10.99.0.9", "10.99.0.1"), (1, "192.168.1.3", "192.168.1.1"),
                           (2, "10.98.0.9", "10.98.0.1")):
        write(out, "rx", bytes([port, 0, 0, 0]) + arp(1, host, sip, tip))
        write(out, "rx", bytes([port, 0, 1, 0]) + arp(1, host, sip, tip, dst=mine))
        write(out, "rx", bytes([port, 0, 0, 0]) + arp(2, host, sip, tip, dst=mine, tha=mine))
        write(out, "rx", bytes([port, 0, 0, 0]) + arp(1, host, sip, sip))
        write(out, "rx", bytes([port, 0, 0, 0]) + arp(2, host, sip, sip))
        write(out, "rx", bytes([port, 0, 0, 0]) + arp(1, host, "0.0.0.0", tip))
        write(out, "rx", bytes([port, 0, 0, 0]) + arp(1, host, sip, tip, tag=7))
    write(out, "rx", bytes([0, 0, 0, 0]) + arp(1, host, "10.99.0.9", "10.99.0.77"))


def frag_seeds(out):
    """IPv4 without DF that the gateway fragments: to port 2 (MTU 1400) and
    into the plain nopmtudisc tunnels t3 (ipip) and t9 (gre)."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP, UDP, IPOption
    from scapy.packet import Raw

    eth = Ether(src="52:54:00:63:00:02", dst="02:00:0a:63:00:01")
    opts = [IPOption(b"\x94\x04\x00\x00"), IPOption(b"\x1e\x04\xab\xcd"),
            IPOption(b"\x07\x07\x04\x00\x00\x00\x00"), IPOption(b"\x00")]
    for dst, size in (("10.98.0.2", 1450), ("10.3.0.9", 1500), ("10.9.0.9", 1490)):
        for o in (None, opts):
            ip = IP(src="10.99.0.2", dst=dst, ttl=9, id=0x77, options=o or [])
            pkt = ip / UDP(sport=7, dport=9)
            pkt = pkt / Raw((bytes(range(256)) * 6)[:size - len(pkt)])
            write(out, "rx", bytes([0, 0, 0, 0]) + bytes(eth / pkt))
    ff = IP(src="10.99.0.2", dst="10.98.0.2", id=0x78, flags="MF", frag=9, proto=17)
    write(out, "rx", bytes([0, 0, 0, 0]) + bytes(eth / ff / Raw(bytes(1460))))


def gue_seeds(out):
    """GUE to port 6080 of the packet gateway (fuzz.c): versions 0 and 1
    for each protocol, from tunnel remotes (t1 and t4, which are encap
    fou; t14 on port 2, gre key 5 csum; t16) and from no tunnel's; with
    optional fields, the private flags; and each kind Linux drops."""
    from scapy.layers.l2 import Ether, GRE
    from scapy.layers.inet import IP, UDP, ICMP
    from scapy.layers.inet6 import IPv6
    from scapy.packet import Raw

    def hdr(proto, ver=0, c=0, hlen=0, flags=0, fields=b""):
        return bytes([ver << 6 | c << 5 | hlen, proto]) + flags.to_bytes(2, "big") + fields

    def frame(payload, src="10.99.0.2", port=0, csum=False):
        dst, mac = ("10.98.0.1", "02:00:0a:62:00:01") if port == 2 else \
            ("10.99.0.1", "02:00:0a:63:00:01")
        u = UDP(sport=40000, dport=6080)
        if not csum:
            u.chksum = 0
        return bytes([port, 0, 0, 0]) + bytes(Ether(src="52:54:00:63:00:02", dst=mac) /
                                              IP(src=src, dst=dst) / u / Raw(payload))

    v4 = bytes(IP(src="192.168.4.2", dst="192.168.4.9") / ICMP() / Raw(b"gue-seed"))
    v6 = bytes(IPv6(src="fd00:41::2", dst="fd00:41::9") / UDP(sport=1, dport=2) / Raw(b"gue"))
    gre = bytes(GRE(proto=0x0800, chksum_present=1, key_present=1, key=5) / IP(v4))
    for payload, src, port in ((hdr(4) + v4, "10.99.0.2", 0), (v4, "10.99.0.2", 0),
                               (hdr(41) + v6, "10.99.0.2", 0), (v6, "10.99.0.8", 0),
                               (hdr(4) + v4, "10.99.0.8", 0), (hdr(4) + v4, "10.99.0.9", 0),
                               (hdr(47) + gre, "10.98.0.5", 2),
                               (hdr(4, hlen=1, flags=1, fields=bytes(4)) + v4, "10.99.0.2", 0),
                               (hdr(4, hlen=2, fields=bytes(8)) + v4, "10.99.0.2", 0),
                               (hdr(4, hlen=2, flags=1, fields=bytes([0x80, 0, 0, 0, 0, 20, 0, 22]))
                                + v4, "10.99.0.2", 0)):
        write(out, "rx", frame(payload, src, port))
        write(out, "rx", frame(payload, src, port, csum=True))
    for payload in (hdr(4)[:2], hdr(4, ver=2) + v4, hdr(4, ver=3) + v4, b"\x50" + v4[1:],
                    hdr(4, hlen=31) + v4, hdr(4, flags=0x8000) + v4, hdr(4, flags=1) + v4,
                    hdr(4, hlen=1, flags=1, fields=b"\x00\x00\x00\x01") + v4,
                    hdr(4, hlen=2, flags=1, fields=bytes([0x80, 0, 0, 0, 0, 20, 0, 6])) + v4,
                    hdr(0, c=1) + v4, hdr(0) + v4, hdr(17) + v6[40:]):
        write(out, "rx", frame(payload))


def fou6_seeds(out):
    """FOU over IPv6 to the packet gateway's fd00:99::1 (ports 5555-5557
    and 5559, family=6): each header layout Linux's ip6tnl / ip6gre sends
    (the encap limit Destination Options before UDP or none, checksum or
    zero), and the extension headers the receive path walks."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP, UDP, ICMP, GRE
    from scapy.layers.inet6 import (IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop,
                                    IPv6ExtHdrRouting, IPv6ExtHdrFragment, HBHOptUnknown,
                                    PadN, RouterAlert, ICMPv6EchoRequest)

    eth = Ether(src="52:54:00:63:00:02", dst="02:00:0a:63:00:01")
    i4 = IP(src="192.168.4.2", dst="192.168.1.9", id=5) / ICMP() / b"fou6-in"
    i6 = IPv6(src="fd00:41::2", dst="fd00:1::9") / ICMPv6EchoRequest() / b"fou6-in"
    tel = IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=4, optdata=b"\x04"),
                                     PadN(optdata=b"\x00")])
    exts = [None, tel, IPv6ExtHdrHopByHop(options=[RouterAlert()]) / tel,
            IPv6ExtHdrRouting(addresses=["fd00:99::7"], segleft=0),
            IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=0x9e, optdata=b"\0\0")]),
            IPv6ExtHdrFragment(id=3, m=1)]
    for dport, payload in ((5555, i4), (5557, i6), (5556, GRE(proto=0x86dd) / i6),
                           (5559, GRE(key_present=1, key=42, chksum_present=1) / i4)):
        for ext in exts:
            for zero in (False, True):
                ip6 = IPv6(src="fd00:99::2", dst="fd00:99::1", tc=3 if zero else 0)
                pkt = ip6 / ext / UDP(sport=40000, dport=dport) / payload if ext is not None \
                    else ip6 / UDP(sport=40000, dport=dport) / payload
                if zero:
                    pkt[UDP].chksum = 0
                write(out, "rx", bytes([0, 0, 0, 0]) + bytes(eth / pkt))


def tun6_seeds(out):
    """What the packet gateway's IPv6 tunnels (t17-t20) take: plain IPIP over
    IPv6 from t19's remote, GRE key 9 in GUE from t20's, FOU from the peer
    to a port whose tunnel's mode or key refuses it; and ICMPv6 packet too
    big quoting t17's and t18's outer packets (the encap limit header, UDP
    from the auto range), one quoting nobody's."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP, UDP, ICMP, GRE
    from scapy.layers.inet6 import (IPv6, IPv6ExtHdrDestOpt, HBHOptUnknown, PadN,
                                    ICMPv6PacketTooBig)

    eth = Ether(src="52:54:00:63:00:02", dst="02:00:0a:63:00:01")
    i4 = IP(src="192.168.4.2", dst="192.168.1.9", id=5) / ICMP() / b"tun6-in"
    tel = IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=4, optdata=b"\x04"),
                                     PadN(optdata=b"\x00")])
    gue = bytes([0, 47, 0, 0])
    pkts = [IPv6(src="fd00:99::3", dst="fd00:99::1") / i4,
            IPv6(src="fd00:99::3", dst="fd00:99::1") / tel / i4,
            IPv6(src="fd00:99::5", dst="fd00:99::1") / i4,
            IPv6(src="fd00:99::4", dst="fd00:99::1") / UDP(sport=4002, dport=5560) /
            (gue + bytes(GRE(key_present=1, key=9) / i4)),
            IPv6(src="fd00:99::2", dst="fd00:99::1") / UDP(sport=40000, dport=5559) /
            GRE(key_present=1, key=42) / i4]
    for q in (IPv6(src="fd00:99::1", dst="fd00:99::2") / tel / UDP(sport=40000, dport=5555) / i4,
              IPv6(src="fd00:99::1", dst="fd00:99::2") / tel / UDP(sport=40000, dport=5559) /
              GRE(key_present=1, key=42, chksum_present=1) / i4,
              IPv6(src="fd00:99::1", dst="fd00:99::9") / tel / UDP(sport=40000, dport=5555) / i4):
        pkts.append(IPv6(src="fd00:99::fe", dst="fd00:99::1") / ICMPv6PacketTooBig(mtu=1300) /
                    bytes(q))
    for pkt in pkts:
        write(out, "rx", bytes([0, 0, 0, 0]) + bytes(eth / pkt))


def encap_seeds(src, out, nb_tunnels=24):
    frames = pcap_frames(os.path.join(src, "tests", "data", "inside-replies.pcap"))
    inner = [f[14:] for f in frames if f[12:14] in (b"\x08\x00", b"\x86\xdd")]
    v4 = [p for p in inner if p[0] >> 4 == 4]
    v6 = [p for p in inner if p[0] >> 4 == 6]
    picks = [v4[0], v6[0], max(v4, key=len)] if v4 and v6 else inner[:3]
    for t in range(nb_tunnels):
        for p in picks:
            write(out, "encap", bytes([t, 0, 0]) + p)
        write(out, "encap", bytes([t, 0x40, 0x33]) + picks[0])


def docs_text(src):
    """README.md and the reference in doc/, continued lines joined."""
    paths = [os.path.join(src, "README.md")]
    for d, _, names in sorted(os.walk(os.path.join(src, "doc"))):
        paths += [os.path.join(d, n) for n in sorted(names) if n.endswith(".md")]
    text = ""
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text += f.read() + "\n"
    return text.replace("\\\n", " ")


def doc_statements(src):
    text = docs_text(src)
    names = "port|addr|route|tunnel|sport-range|icmp-rate|neigh|link|limits|punt"
    return [f"{n} {a}" for n, a in re.findall(rf"`--({names}) ([^`\s]+)`", text)
            if "\\" not in a and "|" not in a and "[" not in a]


def stmt_seeds(src, out):
    confs = sorted(os.path.join(src, "config", c) for c in os.listdir(os.path.join(src, "config"))
                   if c.endswith(".conf"))
    for conf in confs:
        stmts = conf_statements(conf)
        write(out, "stmt", "\n".join(stmts).encode())
        write(out, "stmt", "\n".join("-" + s for s in reversed(stmts)).encode())
        for s in stmts:
            write(out, "stmt", (s + "\n-" + s).encode())
    for s in doc_statements(src):
        write(out, "stmt", s.encode())


def config_seeds(src, out):
    for conf in sorted(os.listdir(os.path.join(src, "config"))):
        if conf.endswith(".conf"):
            with open(os.path.join(src, "config", conf), "rb") as f:
                write(out, "config", f.read())


def args_seeds(src, out):
    text = docs_text(src)
    for line in re.findall(r"^dpdk-fou .* -- (.*)$", text, re.M):
        args = [a for a in line.split() if a != "..." and "/" not in a]
        write(out, "args", "\n".join(args).encode())
    for s in doc_statements(src)[:12]:
        name, arg = s.split(" ", 1)
        if "/" not in arg:
            write(out, "args", f"--{name}\n{arg}".encode())
    for extra in ("--help", "--config\nok.conf", "--config\nbad.conf\n--port\n5555:ipip",
                  "--config\ndir", "--config\nmissing.conf", "--idle-exit\n500",
                  "--port=5557:sit\n--config=empty.conf", "-x", "--port", "stray",
                  "--limits\ntunnels=16,neigh=64"):
        write(out, "args", extra.encode())


def telemetry_seeds(src, out):
    text = docs_text(src)
    session = re.findall(r"^--> (/fou/\S*)$", text, re.M)
    if session:
        write(out, "telemetry", "\n".join(session).encode())
    for cmd in sorted(set(re.findall(r"`(/fou/[a-z_/]+)(?:\[,[^`]*\])?`", text))):
        write(out, "telemetry", cmd.encode())
    for s in conf_statements(os.path.join(src, "config", "demo.conf")):
        name, arg = s.split(" ", 1)
        verb = "set" if name in ("link", "sport-range", "icmp-rate") else "add"
        name = name.replace("-", "_")
        write(out, "telemetry", f"/fou/{name}/{verb},{arg}\n/fou/config".encode())
        if verb == "add":
            write(out, "telemetry", f"/fou/{name}/del,{arg}\n/fou/routes,offset=1".encode())


def gro_seeds(out):
    """fuzz_gro.c's format: an option byte, then 2-byte lengths and frames."""
    from scapy.layers.l2 import Ether, GRE
    from scapy.layers.inet import IP, TCP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.packet import Raw

    def outer(inner, dport, gre=False):
        pkt = GRE(proto=0x0800) / inner if gre else inner
        return Ether(src="52:54:00:63:00:02", dst="02:00:0a:63:00:01") / \
            IP(src="10.99.0.2", dst="10.99.0.1") / UDP(sport=40000, dport=dport) / pkt

    def flow(mk, n, mss, flags="A", bad=None):
        return [bytes(mk(i, TCP(sport=1000, dport=80, seq=1 + i * mss, ack=1, window=512,
                                flags=flags if i == n - 1 else "A",
                                chksum=0xbad0 if i == bad else None) / Raw(bytes([i]) * mss)))
                for i in range(n)]

    kinds = {
        "ipip": lambda i, t: outer(IP(src="10.200.0.5", dst="192.168.4.9", id=i) / t, 5555),
        "gre": lambda i, t: outer(IP(src="10.200.0.5", dst="172.16.0.9", id=7,
                                      flags="DF") / t, 5556, gre=True),
        "sit": lambda i, t: outer(IPv6(src="2001:db8:9::5", dst="fd00:41::9") / t, 5557),
        "plain": lambda i, t: Ether(src="52:54:00:63:00:02", dst="02:00:0a:63:00:01") /
        IP(src="10.99.0.2", dst="192.168.4.7", id=i) / t,
    }
    def burst(opt, frames):
        write(out, "gro", bytes([opt]) + b"".join(len(f).to_bytes(2, "big") + f
                                                  for f in frames))

    for opt in range(8):
        for name, mk in kinds.items():
            for n, mss, flags in ((6, 1000, "A"), (4, 1399, "PA"), (3, 200, "FA")):
                burst(opt, flow(mk, n, mss, flags))
    # the outer UDP checksum (scapy's, over the corrupt bytes) is right
    for opt in (1, 1 | 8, 1 | 16, 5 | 8 | 16):
        for name, mk in kinds.items():
            burst(opt, flow(mk, 5, 1000, bad=2))


def main(src, out):
    gro_seeds(out)
    rx_seeds(src, out)
    arp_seeds(out)
    gue_seeds(out)
    frag_seeds(out)
    fou6_seeds(out)
    tun6_seeds(out)
    encap_seeds(src, out)
    stmt_seeds(src, out)
    config_seeds(src, out)
    args_seeds(src, out)
    telemetry_seeds(src, out)
    for t in sorted(os.listdir(out)):
        print(f"{t}: {len(os.listdir(os.path.join(out, t)))} seeds")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
