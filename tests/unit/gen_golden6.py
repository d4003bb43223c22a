#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Golden frames for IPv6-underlay tunnels (ip6tnl, ip6gre): what Linux 6.1
sent (tests/data/linux-6.1-ip6tnl-*.pcap, linux-6.1-ip6gre-*.pcap) with the
inner packet that makes the gateway send it. Writes tests/unit/golden6.h:

    /usr/bin/python3 tests/unit/gen_golden6.py > tests/unit/golden6.h

The gateway stands where the Linux guest stood: fd00:99::2 on port 1, the
phantom far end fd00:99::10 (02:00:0a:63:00:10) its neighbour. Each inner
packet enters port 0 one hop earlier (TTL / hop limit + 1) and must leave
port 1 as the captured frame, but for the Ethernet source and what Linux
draws from its own flow hash: the outer flow label and the UDP source port
(the UDP checksum follows them). The encap none cases have no capture:
they are the fou capture's frames with UDP taken out (the outer next
header then names the inner protocol, as ip6_tnl_xmit sends it).
"""
import os
from scapy.all import Ether, IP, IPv6, IPv6ExtHdrDestOpt, UDP, raw, rdpcap

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
RX_MAC, PEER_MAC, EG_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:01:01"
BASE = ("addr 1,fd00:99::2/64\\n"
        "neigh fd00:99::10,dev=1,lladdr=02:00:0a:63:00:10\\n")
ROUTE = {4: "192.168.6.0/24", 41: "fd00:66::/64", 47: "192.168.67.0/24"}

# (case, capture, tunnel options, strip UDP)
CASES = (
    ("ipip6_fou", "ip6tnl-ipip6-fou", "type=ip6tnl,mode=ipip6,encap-dport=5555", False),
    ("ipip6_fou_el_none", "ip6tnl-ipip6-fou-encaplimit-none",
     "type=ip6tnl,mode=ipip6,encaplimit=none,encap-dport=5555", False),
    ("ipip6_fou_nocsum6", "ip6tnl-ipip6-fou-noudp6csum",
     "type=ip6tnl,mode=ipip6,encap-dport=5555,noencap-udp6-csum", False),
    ("ip6ip6_fou", "ip6tnl-ip6ip6-fou", "type=ip6tnl,mode=ip6ip6,encap-dport=5557", False),
    ("ip6ip6_fou_nocsum6_el_none", "ip6tnl-ip6ip6-fou-noudp6csum",
     "type=ip6tnl,encaplimit=none,encap-dport=5557,noencap-csum6", False),
    ("any_fou", "ip6tnl-any-fou", "type=ip6tnl,mode=any,encaplimit=none,encap-dport=5555",
     False),
    ("ip6gre_fou", "ip6gre-fou", "type=ip6gre,encap-dport=5556", False),
    ("ip6gre_fou_key_csum", "ip6gre-fou-key-csum-encaplimit-none",
     "type=ip6gre,key=42,csum,encaplimit=none,encap-dport=5556", False),
    ("ip6gre_fou_nocsum6", "ip6gre-fou-noudp6csum",
     "type=ip6gre,encaplimit=none,encap-dport=5556,noencap-udp6-csum", False),
    ("ipip6_gue", "ip6tnl-ipip6-gue", "type=ip6tnl,mode=ipip6,encap=gue,encap-dport=5558",
     False),
    ("ipip6_gue_el_none", "ip6tnl-ipip6-gue-udp6csum-encaplimit-none",
     "type=ip6tnl,mode=ipip6,encaplimit=none,encap=gue,encap-dport=5558,encap-udp6-csum",
     False),
    ("ip6ip6_gue", "ip6tnl-ip6ip6-gue",
     "type=ip6tnl,mode=ip6ip6,encaplimit=none,encap=gue,encap-dport=5558", False),
    ("ip6ip6_gue_nocsum6", "ip6tnl-ip6ip6-gue-noudp6csum",
     "type=ip6tnl,encap=gue,encap-dport=5558,noencap-udp6-csum", False),
    # mode any: GUE's protocol follows each packet, 41 here, 4 below
    ("any_gue_v6", "ip6tnl-ip6ip6-gue",
     "type=ip6tnl,mode=any,encaplimit=none,encap=gue,encap-dport=5558", False),
    ("any_gue_v4", "ip6tnl-ipip6-gue", "type=ip6tnl,mode=any,encap=gue,encap-dport=5558",
     False),
    ("ip6gre_gue", "ip6gre-gue", "type=ip6gre,encaplimit=none,encap=gue,encap-dport=5558",
     False),
    ("ip6gre_gue_key_csum", "ip6gre-gue-key-csum-udp6csum",
     "type=ip6gre,key=42,csum,encap=gue,encap-dport=5558,encap-udp6-csum", False),
    ("ipip6_none", "ip6tnl-ipip6-fou", "type=ip6tnl,mode=ipip6,encap=none", True),
    ("ip6ip6_none_el_none", "ip6tnl-ip6ip6-fou-noudp6csum",
     "type=ip6tnl,mode=ip6ip6,encaplimit=none,encap=none", True),
    ("any_none_v6", "ip6tnl-ip6ip6-fou", "type=ip6tnl,mode=any,encap=none", True),
    ("any_none_v4", "ip6tnl-ipip6-fou", "type=ip6tnl,mode=any,encap=none", True),
    ("ip6gre_none_key_csum", "ip6gre-fou-key-csum-encaplimit-none",
     "type=ip6gre,key=42,csum,encaplimit=none,encap=none", True),
)


def hexl(b):
    return "\n".join("\t" + " ".join("0x%02x," % c for c in b[i:i + 12])
                     for i in range(0, len(b), 12))


def emit(name, b, doc):
    print("/* %s (%d bytes) */" % (doc, len(b)))
    print("static const uint8_t %s[] = {\n%s\n};\n" % (name, hexl(b)))


def strip_udp(f):
    """The frame with its UDP header taken out: IPv6 [DestOpt] then the inner."""
    o = f[IPv6]
    payload = raw(f[UDP].payload)
    gre = payload[:4] == b"\x00\x00\x08\x00" or payload[2:4] in (b"\x08\x00", b"\x86\xdd")
    inner_v = payload[0] >> 4
    nh = 47 if gre and inner_v not in (4, 6) else (4 if inner_v == 4 else 41)
    ip6 = IPv6(src=o.src, dst=o.dst, tc=o.tc, fl=o.fl, hlim=o.hlim)
    if IPv6ExtHdrDestOpt in f:
        d = f[IPv6ExtHdrDestOpt].copy()
        d.remove_payload()
        d.nh = nh
        out = ip6 / d / payload
    else:
        ip6.nh = nh
        out = ip6 / payload
    return Ether(dst=f[Ether].dst, src=EG_MAC) / out


def inner_of(f):
    """The inner packet, one hop before: after UDP [GUE] [GRE] or the last header."""
    p = raw(f[UDP].payload)
    if f[UDP].dport == 5558:
        p = p[4:]                     # GUE
    if f[UDP].dport == 5556 or (f[UDP].dport == 5558 and raw(f[UDP].payload)[1] == 47):
        flags = p[0]
        p = p[4 + 4 * (bool(flags & 0x80) + bool(flags & 0x20) + bool(flags & 0x10)):]
    if p[0] >> 4 == 4:
        i = IP(p)
        i.ttl += 1
        del i.chksum
        return raw(i)
    i = IPv6(p)
    i.hlim += 1
    return raw(i)


print("""/* SPDX-License-Identifier: BSD-3-Clause */
/* Generated by gen_golden6.py from Linux 6.1's captures: do not edit. */
#ifndef UNIT_GOLDEN6_H
#define UNIT_GOLDEN6_H

#include <stdint.h>

struct golden_tx6 {
	const char *name;
	const char *stmts;	/* "NAME ARG" lines */
	const uint8_t *in;
	uint16_t in_len;
	const uint8_t *out;
	uint16_t out_len;
	uint8_t first;		/* a new gateway: the first packet of its capture */
};
""")
rows = []
arrays = {}     # (capture, strip, k) -> the output's name: a frame used twice is one array
inputs = {}     # inner frame -> its array's name
for case, cap, opts, strip in CASES:
    frames = rdpcap(os.path.join(DATA, "linux-6.1-%s.pcap" % cap))
    frames = [f for f in frames if UDP in f]
    for k, f in enumerate(frames):
        ib = inner_of(f)
        n = "g6_%s_%d" % (case, k + 1)
        a = arrays.setdefault((cap, strip, k), n)
        inb = raw(Ether(dst=RX_MAC, src=PEER_MAC, type=0x800 if ib[0] >> 4 == 4
                        else 0x86dd) / ib)
        i = inputs.setdefault(inb, n)   # Linux sent the same inner packets in many files
        if i == n:
            emit(n + "_in", inb, "%s packet %d: the inner packet one hop before" % (cap, k + 1))
        if a == n:
            out = strip_udp(f) if strip else Ether(raw(f))
            out.src = EG_MAC
            emit(n + "_out", raw(out), "linux-6.1-%s.pcap packet %d%s" % (
                cap, k + 1, ", UDP taken out" if strip else ""))
        proto = 47 if "ip6gre" in cap else (4 if ib[0] >> 4 == 4 else 41)
        stmts = BASE + "tunnel t1,local=fd00:99::2,remote=fd00:99::10,%s\\nroute %s,dev=t1" % (
            opts, ROUTE[proto])
        rows.append((n, i, a, stmts, k == 0))
print("static const struct golden_tx6 golden_tx6[] = {")
for n, i, a, stmts, first in rows:
    print('\t{ "%s",\n\t  "%s",\n\t  %s_in, sizeof(%s_in), %s_out, sizeof(%s_out), %d },' % (
        n, stmts, i, i, a, a, 1 if first else 0))
print("};\n\n#endif /* UNIT_GOLDEN6_H */")
