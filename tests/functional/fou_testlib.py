# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers for the dpdk-fou functional tests.

The gateway runs on pcap vdevs: input captures built with scapy (or the Linux
captures of tests/data) are read on port 0 (or on several ports), every port
writes what it sends to its own pcap file, and every DPDK process has its own
--file-prefix. Outputs are decoded with tshark (the independent decoder),
never with the project's code. Each test works in its own temporary
directory.

Run a test script by hand:
    /usr/bin/python3 tests/functional/test_x.py --gateway build/app/dpdk-fou \
        --data tests/data [-v] [TestClass.test_name]
FOU_FUNC_KEEP=1 keeps the temporary directories (inputs, outputs, logs).
"""
import argparse
import collections
import itertools
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True

from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP  # noqa: E402
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest  # noqa: E402
from scapy.utils import PcapWriter, rdpcap  # noqa: E402

FOU_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'lib', 'fou',
                     'fou.h')


def _counter_names(macro_name, at_least):
    """The counter names of an X-macro list in lib/fou/fou.h, in order: they
    are part of the gateway's interface (summary and telemetry)."""
    with open(FOU_H) as f:
        text = f.read()
    macro = re.search(r'#define %s\(X\)(.*?)\n\n' % macro_name, text, re.S)
    names = re.findall(r'X\(\w+, (\w+), "', macro.group(1) if macro else '')
    if len(names) < at_least:
        raise RuntimeError('cannot read %s from %s' % (macro_name, FOU_H))
    return tuple(names)


DROP_REASONS = _counter_names('FOU_DROP_REASONS', 10)


# Drops that happen after the inner packet was accepted by its tunnel: those
# packets count as decapsulated (as Linux counts them on the tunnel device).
POST_DECAP_DROPS = frozenset(('inner_martian', 'inner_options_bad', 'no_route', 'inner_local', 'ttl_exceeded',
                              'mtu_exceeded', 'no_neigh', 'tx_full', 'icmp_ratelimited',
                              'tunnel_loop', 'no_headroom', 'neigh_stopped', 'neigh_failed',
                              'neigh_queue_full'))

# The ICMP messages the gateway sends (FOU_ICMP_KINDS in lib/fou/fou.h).
ICMP_KINDS = _counter_names('FOU_ICMP_KINDS', 4)

# The tshark Lua dissector for FOU and the ports it decodes (UDPPORT:IPPROTO).
FOU_LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tshark', 'fou.lua')
FOU_LUA_PORTS = '5555:4,5556:47,5557:41'

PYTHON = '/usr/bin/python3'
TELEMETRY_SCRIPT = '/usr/bin/dpdk-telemetry.py'
IDLE_EXIT_MS = 1000
RUN_TIMEOUT = 60

# The topology most tests use: the FOU peer 10.99.0.2 on port 0, inner
# networks behind next hops on port 1.
MAC_PEER = '02:00:0a:63:00:02'
MAC_P0 = '02:00:0a:63:00:01'
MAC_P1 = '02:00:c0:a8:01:01'
IP_PEER = '10.99.0.2'
IP_P0 = '10.99.0.1'
MAC_NH_IPIP = '02:00:00:00:01:02'
MAC_NH_GRE = '02:00:00:00:01:03'
MAC_NH_SIT = '02:00:00:00:01:06'
FOU_PORTS = {5555: 'ipip', 5556: 'gre', 5557: 'sit'}

BASE_OPTS = [
    '--link', '0,address=' + MAC_P0,
    '--link', '1,address=' + MAC_P1,
    '--addr', '0,10.99.0.1/24',
    '--addr', '1,192.168.1.1/24',
    '--addr', '1,fd00:1::1/64',
    '--port', '5555:ipip',
    '--port', '5556:gre',
    '--port', '5557:sit',
    '--route', '192.168.4.0/24,dev=1,via=192.168.1.2',
    '--route', '192.168.47.0/24,dev=1,via=192.168.1.3',
    '--route', 'fd00:41::/64,dev=1,via=fd00:1::2',
    '--neigh', '192.168.1.2,dev=1,lladdr=' + MAC_NH_IPIP,
    '--neigh', '192.168.1.3,dev=1,lladdr=' + MAC_NH_GRE,
    '--neigh', 'fd00:1::2,dev=1,lladdr=' + MAC_NH_SIT,
]

# What the gateway announces with BASE_OPTS (a gratuitous ARP or an
# unsolicited NA for each address, on its port), for assertNeighOut().
BASE_ANNOUNCE = {0: ('10.99.0.1',), 1: ('192.168.1.1', 'fd00:1::1')}

# BASE_OPTS and FOU ports for the other protocols: an alias, a number that
# names a handled protocol, and one that has no handler.
PROTO_OPTS = BASE_OPTS + ['--port', '5558:ipv6', '--port', '5559:4', '--port', '6000:17']
PROTO_FOU_PORTS = {**FOU_PORTS, 5558: 'sit', 5559: 'ipip', 6000: 17}

LINUX_CAPTURES = ('ipip-nocsum', 'ipip-csum', 'gre-nocsum', 'gre-csum', 'sit-nocsum',
                  'sit-csum')


class Config:
    gateway = None
    data = None
    tshark = 'tshark'
    keep = bool(os.environ.get('FOU_FUNC_KEEP'))


def main():
    """Parse our options, hand the rest to unittest."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument('--gateway', required=True, help='path of the built dpdk-fou')
    ap.add_argument('--data', required=True, help='tests/data directory')
    ap.add_argument('--tshark', default='tshark')
    args, rest = ap.parse_known_args()
    Config.gateway = os.path.abspath(args.gateway)
    Config.data = os.path.abspath(args.data)
    Config.tshark = args.tshark
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


def data_file(name):
    return os.path.join(Config.data, name)


def linux_capture(name):
    return data_file('linux-6.1-%s.pcap' % name)


# --- the gateway ----------------------------------------------------------

_prefix_seq = itertools.count()


def unique_prefix():
    return 'fou-func-%d-%d' % (os.getpid(), next(_prefix_seq))


def runtime_dir(prefix):
    """The EAL runtime directory of a file prefix (telemetry socket)."""
    return os.path.join('/var/run/dpdk' if os.getuid() == 0 else
                        os.environ.get('XDG_RUNTIME_DIR', '/tmp') + '/dpdk', prefix)


def gateway_cmd(tmpdir, rx, nb_ports, opts, prefix, idle_exit=IDLE_EXIT_MS):
    """The command line: nb_ports pcap vdevs, port i reads rx[i] if given and
    writes tmpdir/out<i>.pcap."""
    cmd = [Config.gateway, '-l', '0-1', '--no-huge', '-m', '512', '--no-pci',
           '--file-prefix', prefix, '--log-level=lib.eal:warning']
    outputs = {}
    for port in range(nb_ports):
        outputs[port] = os.path.join(tmpdir, 'out%d.pcap' % port)
        spec = 'net_pcap%d,' % port
        if port in rx:
            spec += 'rx_pcap=%s,' % rx[port]
        spec += 'tx_pcap=%s' % outputs[port]
        cmd += ['--vdev', spec]
    cmd.append('--')
    cmd += list(opts)
    if idle_exit is not None:
        cmd += ['--idle-exit', str(idle_exit)]
    return cmd, outputs


def pcap_records(path):
    """The global header and the (record header, frame) pairs of a pcap
    file: [] and b'' when there is none."""
    if not os.path.exists(path):
        return b'', []
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < PCAP_GLOBAL_HEADER_LEN:
        return b'', []
    endian = '<' if struct.unpack('<I', data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else '>'
    off, recs = PCAP_GLOBAL_HEADER_LEN, []
    while off + 16 <= len(data):
        incl = struct.unpack(endian + 'I', data[off + 8:off + 12])[0]
        recs.append((data[off:off + 16], data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return data[:PCAP_GLOBAL_HEADER_LEN], recs


def neigh_kind(frame):
    """'arp' or 'nd' if frame is the link's own traffic, ARP or ICMPv6
    Neighbour Discovery (router and neighbour solicitations and
    advertisements, redirects), behind up to two VLAN tags; else None. The
    gateway sends these itself (answers, resolution, announcements); they
    are never forwarded."""
    off = 12
    for _ in range(2):
        if frame[off:off + 2] in (b'\x81\x00', b'\x88\xa8'):
            off += 4
    et, ip = frame[off:off + 2], frame[off + 2:]
    if et == b'\x08\x06':
        return 'arp'
    if et == b'\x86\xdd' and len(ip) > 40 and ip[6] == 58 and 133 <= ip[40] <= 137:
        return 'nd'
    return None


def neigh_frame(frame):
    return neigh_kind(frame) is not None


def split_neigh(path, ip_path):
    """Write the frames of the capture path that are not neigh_frame()s to
    ip_path (same headers); return the neighbour frames, in order."""
    head, recs = pcap_records(path)
    own = [f for _, f in recs if neigh_frame(f)]
    if head:
        with open(ip_path, 'wb') as f:
            f.write(head)
            for rh, fr in recs:
                if not neigh_frame(fr):
                    f.write(rh + fr)
    return own


# What every /fou command answers before the gateway runs (-EAGAIN), and
# from the moment it stops (-ESHUTDOWN).
NOT_READY = {'error': 'not ready: dpdk-fou is starting', 'errno': -11}
STOPPING = {'error': 'dpdk-fou is stopping', 'errno': -108}


class Run:
    """A finished gateway process. Its captures come in two views: raw_outputs
    (every frame a port sent) and outputs (the same without the gateway's
    own ARP and Neighbour Discovery frames, which are in own[port]): tests of
    forwarding read outputs, tests of the neighbour protocols own."""

    def __init__(self, cmd, rc, stdout, stderr, outputs, elapsed):
        self.cmd = cmd
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.raw_outputs = outputs
        self.outputs, self.own = {}, {}
        for port, path in outputs.items():
            ip_path = re.sub(r'(\.pcap)?$', '.ip.pcap', path, count=1)
            self.own[port] = split_neigh(path, ip_path)
            self.outputs[port] = ip_path if os.path.exists(ip_path) else path
        self.elapsed = elapsed
        self.summary = Summary(stdout)

    def describe(self):
        return ('command: %s\nexit status: %s\n--- stdout\n%s--- stderr\n%s' %
                (' '.join(self.cmd), self.rc, self.stdout, self.stderr))


class Gateway:
    """A gateway process; stop() ends it by its PID only."""

    def __init__(self, tmpdir, rx, nb_ports, opts, idle_exit=IDLE_EXIT_MS, make_cmd=None):
        """make_cmd(prefix) -> (command, outputs) replaces the pcap command
        line of gateway_cmd (other vdevs, lcores, a network namespace)."""
        self.prefix = unique_prefix()
        if make_cmd is None:
            self.cmd, self.outputs = gateway_cmd(tmpdir, rx, nb_ports, opts, self.prefix,
                                                 idle_exit)
        else:
            self.cmd, self.outputs = make_cmd(self.prefix)
        self._out = open(os.path.join(tmpdir, '%s.stdout' % self.prefix), 'w+')
        self._err = open(os.path.join(tmpdir, '%s.stderr' % self.prefix), 'w+')
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, stdout=self._out, stderr=self._err,
                                     stdin=subprocess.DEVNULL)
        self.run = None

    @property
    def pid(self):
        return self.proc.pid

    def running(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.running():
            os.kill(self.proc.pid, sig)

    def wait(self, timeout=RUN_TIMEOUT):
        """Wait for the exit; a process still there after timeout is killed
        and reported as exit status None."""
        if self.run is not None:
            return self.run
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = None
        elapsed = time.monotonic() - self.t0
        self._out.seek(0)
        self._err.seek(0)
        stdout, stderr = self._out.read(), self._err.read()
        self._out.close()
        self._err.close()
        shutil.rmtree(runtime_dir(self.prefix), ignore_errors=True)
        self.run = Run(self.cmd, rc, stdout, stderr, self.outputs, elapsed)
        return self.run

    def stop(self):
        """Best effort for cleanup paths: SIGTERM, then SIGKILL."""
        if self.running():
            self.proc.terminate()
        return self.wait(timeout=10)

    def telemetry(self, *commands, timeout=10):
        """Send commands with dpdk-telemetry.py; a list of decoded replies,
        or None while the socket is not there yet, the gateway is not ready
        (a reply is NOT_READY: ask again) or is stopping (STOPPING)."""
        try:
            p = subprocess.run([PYTHON, TELEMETRY_SCRIPT, '-f', self.prefix],
                               input=''.join(c + '\n' for c in commands),
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        replies = []
        for line in p.stdout.splitlines():
            line = line.strip()
            if line.startswith('{') or line == 'null':
                replies.append(json.loads(line))
        if any(isinstance(r, dict) and (NOT_READY in r.values() or STOPPING in r.values())
               for r in replies):
            return None
        return replies if len(replies) == len(commands) else None


def run_gateway(tmpdir, rx, opts, nb_ports=2, idle_exit=IDLE_EXIT_MS, timeout=RUN_TIMEOUT):
    """Run the gateway until it stops by itself (idle exit or error)."""
    return Gateway(tmpdir, rx, nb_ports, opts, idle_exit).wait(timeout)


class Summary:
    """The exit summary of main.c, as printed on stdout."""

    _port = re.compile(r'^port (\d+): rx (\d+) tx (\d+)')
    _decap = re.compile(r'^decapsulated: (\d+) \(ipv4 (\d+), ipv6 (\d+)\)$')
    # a port over IPv6 is keyed '5555_6', as in /fou/ports
    _decap_port = re.compile(r'^decap fou port (\d+)( over ipv6)?: (\d+)$')
    _decap_plain = re.compile(r'^decap plain: (\d+)$')
    _tunnel = re.compile(r'^tunnel (\S+): encapsulated (\d+) \((\d+) bytes\) '
                         r'decapsulated (\d+) \((\d+) bytes\)$')
    _tunnel_conf = re.compile(r'^tunnel (\S+): (ipip|sit|gre|ip6tnl|ip6gre)(?: (ipip6|ip6ip6|any))? '
                              r'local (\S+) remote (\S+) '
                              r'encap (fou|gue|none)(?: dport (\d+))?(?: mtu (\d+)| \((.+)\))$')
    _icmp = re.compile(r'^sent (\w+): (\d+) \(.*\)$')
    _local = re.compile(r'^local (\w+): (\d+) \(.*\)$')
    _dropped = re.compile(r'^dropped: (\d+)$')
    _drop = re.compile(r'^drop (\w+): (\d+) \(.*\)$')
    _gro = re.compile(r'^gro: merged (\d+), flushed (\d+), tso (\d+), gso packets (\d+), '
                      r'segments (\d+)$')
    _local = re.compile(r'^local (\w+): (\d+) \(.*\)$')
    _punt = re.compile(r'^punt (\w+): (\d+) \(.*\)$')
    _frag = re.compile(r'^frag: packets (\d+), fragments (\d+)$')
    _port_frags = re.compile(r'^port (\d+): rx \d+ tx \d+ fragments (\d+)')
    _tunnel_frags = re.compile(r'^tunnel (\S+): fragments inner (\d+) outer (\d+)$')
    _accounting = re.compile(r'^accounting: rx (?P<rx>\d+) \+ originated (?P<orig>\d+) '
                             r'\+ gso added (?P<gso>\d+) \+ frags added (?P<frag>\d+) '
                             r'\+ punt in (?P<pin>\d+) = tx (?P<tx>\d+) '
                             r'\+ dropped (?P<drop>\d+) \+ gro merged (?P<gro>\d+) '
                             r'\+ held (?P<held>\d+) \+ consumed (?P<cons>\d+) '
                             r'\+ reasm absorbed (?P<rabs>\d+) \+ reasm held (?P<rheld>\d+) '
                             r'\+ punted (?P<punted>\d+): (?P<verdict>\S+)$')
    _reasm = re.compile(r'^reassembly: datagrams (\d+), fragments absorbed (\d+)$')
    _mbufs = re.compile(r'^(indirect )?mbufs: (\d+) of (\d+) back in the pool: (\S+)$')

    def __init__(self, text):
        self.rx, self.tx = {}, {}
        self.decap = self.decap_ipv4 = self.decap_ipv6 = None
        self.decap_port = {}
        self.decap_plain = 0
        self.tunnels = {}           # name: (packets, bytes) encapsulated, from the summary
        self.tunnels_rx = {}        # name: (packets, bytes) decapsulated
        self.tunnel_conf = {}       # name: dict, from the startup lines
        self.icmp = {}              # ICMP kind: sent
        self.local = {}             # the gateway's own stack: counter: events
        self.dropped = None
        self.drops = {}
        self.accounting = None      # (rx, tx, dropped, verdict)
        self.gso_added = self.gro_merged = None
        self.frag_added = None
        self.frag = None            # packets fragmented, fragments made
        self.port_frags = {}        # port: fragments made whose header is on its wire
        self.tunnel_frags = {}      # name: (inner, outer) fragments made
        self.originated = self.held = self.consumed = None
        self.reasm_absorbed = self.reasm_held = None
        self.reasm_datagrams = None
        self.punt_in = self.punted = None
        self.punt = {}              # the exception path (--punt): counter: n
        self.local = {}             # the gateway's own stack: counter: n
        self.gro = None             # merged, flushed, tso, gso packets, gso segments
        self.mbufs = None
        self.indirect_mbufs = None
        for line in text.splitlines():
            m = self._port.match(line)
            if m:
                self.rx[int(m[1])] = int(m[2])
                self.tx[int(m[1])] = int(m[3])
                m = self._port_frags.match(line)
                if m:
                    self.port_frags[int(m[1])] = int(m[2])
                continue
            m = self._frag.match(line)
            if m:
                self.frag = (int(m[1]), int(m[2]))
                continue
            m = self._tunnel_frags.match(line)
            if m:
                self.tunnel_frags[m[1]] = (int(m[2]), int(m[3]))
                continue
            m = self._decap.match(line)
            if m:
                self.decap, self.decap_ipv4, self.decap_ipv6 = map(int, m.groups())
                continue
            m = self._decap_port.match(line)
            if m:
                self.decap_port[int(m[1]) if m[2] is None else m[1] + '_6'] = int(m[3])
                continue
            m = self._decap_plain.match(line)
            if m:
                self.decap_plain = int(m[1])
                continue
            m = self._tunnel.match(line)
            if m:
                self.tunnels[m[1]] = (int(m[2]), int(m[3]))
                self.tunnels_rx[m[1]] = (int(m[4]), int(m[5]))
                continue
            m = self._tunnel_conf.match(line)
            if m:
                self.tunnel_conf[m[1]] = {
                    'type': m[2], 'local': m[4], 'remote': m[5], 'encap': m[6],
                    'dport': int(m[7]) if m[7] else None, 'mtu': int(m[8]) if m[8] else None,
                    'unresolved': m[9]}
                if m[3]:
                    self.tunnel_conf[m[1]]['mode'] = m[3]
                continue
            m = self._icmp.match(line)
            if m:
                self.icmp[m[1]] = int(m[2])
                continue
            m = self._local.match(line)
            if m:
                self.local[m[1]] = int(m[2])
                continue
            m = self._dropped.match(line)
            if m:
                self.dropped = int(m[1])
                continue
            m = self._drop.match(line)
            if m:
                self.drops[m[1]] = int(m[2])
                continue
            m = self._gro.match(line)
            if m:
                self.gro = dict(zip(('merged', 'flushed', 'tso', 'gso_packets', 'gso_segments'),
                                    map(int, m.groups())))
                continue
            m = self._local.match(line)
            if m:
                self.local[m[1]] = int(m[2])
                continue
            m = self._reasm.match(line)
            if m:
                self.reasm_datagrams = int(m[1])
                continue
            m = self._punt.match(line)
            if m:
                self.punt[m[1]] = int(m[2])
                continue
            m = self._accounting.match(line)
            if m:
                self.accounting = (int(m['rx']), int(m['tx']), int(m['drop']), m['verdict'])
                self.gso_added, self.gro_merged = int(m['gso']), int(m['gro'])
                self.frag_added = int(m['frag'])
                self.originated, self.held = int(m['orig']), int(m['held'])
                self.consumed = int(m['cons'])
                self.reasm_absorbed, self.reasm_held = int(m['rabs']), int(m['rheld'])
                self.punt_in, self.punted = int(m['pin']), int(m['punted'])
                continue
            m = self._mbufs.match(line)
            if m:
                v = (int(m[2]), int(m[3]), m[4])
                if m[1]:
                    self.indirect_mbufs = v
                else:
                    self.mbufs = v

    @property
    def printed(self):
        return self.accounting is not None


# --- pcap files -------------------------------------------------------------

def write_pcap(path, frames):
    """Write frames (scapy packets or bytes) as an Ethernet pcap."""
    w = PcapWriter(path, linktype=1, sync=False)
    for f in frames:
        w.write(bytes(f))
    w.close()
    return path


def read_frames(path):
    return [bytes(p) for p in rdpcap(path)]


def _tshark(args):
    p = subprocess.run([Config.tshark, '-n'] + args, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        raise RuntimeError('tshark %s failed (%d): %s' % (' '.join(args), p.returncode,
                                                          p.stderr))
    return p.stdout


CHECKSUM_PREFS = ['-o', 'ip.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE']


def fou_prefs(ports=FOU_LUA_PORTS):
    """tshark options that decode FOU with tests/tshark/fou.lua."""
    return ['-X', 'lua_script:' + os.path.abspath(FOU_LUA), '-o', 'fou.ports:' + ports]


def tshark_fields(path, fields, checksums=True, fou_ports=None, prefs=()):
    """One dict per frame: field -> list of values (one per occurrence).
    fou_ports: decode those UDP ports as FOU ('5555:4,...')."""
    args = ['-r', path, '-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=a',
            '-E', 'aggregator=|'] + list(prefs)
    if checksums:
        args += CHECKSUM_PREFS
    if fou_ports:
        args += fou_prefs(fou_ports)
    for f in fields:
        args += ['-e', f]
    rows = []
    for line in _tshark(args).splitlines():
        cols = line.split('\t')
        cols += [''] * (len(fields) - len(cols))
        rows.append({f: (c.split('|') if c != '' else []) for f, c in zip(fields, cols)})
    return rows


PI_ERROR = 0x00800000      # expert info severity "error" (epan/proto.h)


def tshark_problems(path, fou_ports=FOU_LUA_PORTS, tcp=True, prefs=()):
    """Expert infos of severity error (bad checksums included: the IPv4,
    UDP, GRE, ICMP and, with tcp, TCP checksum checks are on) and malformed
    packets in a capture, as [(frame number, message)]; empty when tshark
    finds nothing wrong. (tshark 4.0 checks the TCP checksum of the cut
    segment an ICMP error quotes: tcp=False for ICMP errors.) prefs: more
    tshark options."""
    if frame_count(path) == 0:
        return []
    rows = tshark_fields(path, ['frame.number', '_ws.expert.severity', '_ws.expert.message',
                                '_ws.malformed'], fou_ports=fou_ports,
                         prefs=(['-o', 'tcp.check_checksum:TRUE'] if tcp else []) +
                         list(prefs))
    problems = []
    for r in rows:
        sev = r['_ws.expert.severity']
        msgs = r['_ws.expert.message']
        for i, v in enumerate(sev):
            if int(v) >= PI_ERROR:
                problems.append((r['frame.number'][0], msgs[i] if i < len(msgs) else '?'))
        if r['_ws.malformed']:
            problems.append((r['frame.number'][0], 'malformed: %s' % r['_ws.malformed']))
    return problems


def _is_pcap(path):
    """A classic pcap file (what the pcap PMD writes), not pcapng."""
    with open(path, 'rb') as f:
        return f.read(4) in (b'\xd4\xc3\xb2\xa1', b'\xa1\xb2\xc3\xd4',
                             b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')


def capture_frames(path):
    """The bytes of every frame of a capture. A classic pcap file is read
    here (its records hold the frames as written; nothing is decoded), a
    pcapng file (dumpcap's) by tshark (-T ek -x)."""
    if _is_pcap(path):
        return [frame for _, frame in pcap_records(path)[1]]
    frames = []
    for line in _tshark(['-r', path, '-T', 'ek', '-x']).splitlines():
        doc = json.loads(line)
        if 'layers' in doc:
            frames.append(bytes.fromhex(doc['layers']['frame_raw']))
    return frames


PCAP_GLOBAL_HEADER_LEN = 24


def frame_count(path):
    """Frames in a capture (none if it does not exist or is only the pcap
    global header): counted from a classic pcap file's records, by tshark
    for pcapng."""
    if not os.path.exists(path) or os.path.getsize(path) == PCAP_GLOBAL_HEADER_LEN:
        return 0
    if _is_pcap(path):
        return len(pcap_records(path)[1])
    return len(_tshark(['-r', path, '-T', 'fields', '-e', 'frame.number']).splitlines())


# --- packets ------------------------------------------------------------------

def ip4_cksum(hdr):
    """RFC 1071 checksum of an IPv4 header, its checksum field taken as 0."""
    b = bytearray(hdr)
    b[10:12] = b'\0\0'
    s = sum(int.from_bytes(b[i:i + 2], 'big') for i in range(0, len(b), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4_cksum_ok(hdr):
    s = sum(int.from_bytes(hdr[i:i + 2], 'big') for i in range(0, len(hdr), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


def forwarded_l3(inner, ecn=None):
    """What the gateway must send for the inner packet: cut to the inner IP
    length, TTL / hop limit - 1, ECN as given, IPv4 checksum following."""
    b = bytearray(inner)
    if b[0] >> 4 == 4:
        b = b[:int.from_bytes(b[2:4], 'big')]
        b[8] -= 1
        if ecn is not None:
            b[1] = (b[1] & 0xfc) | ecn
        hl = (b[0] & 0xf) * 4
        b[10:12] = ip4_cksum(b[:hl]).to_bytes(2, 'big')
    else:
        b = b[:40 + int.from_bytes(b[4:6], 'big')]
        b[7] -= 1
        if ecn is not None:
            b[1] = (b[1] & 0xcf) | (ecn << 4)
    return bytes(b)


def tunnel_payload(frame, gre_ports=(5556,)):
    """The inner IP packet (and anything after it up to the UDP length) of a
    FOU frame, dissected with scapy: outer Ethernet [802.1Q], IPv4, UDP and,
    for a GRE port, GRE removed."""
    pkt = Ether(frame)
    udp = pkt[UDP]
    data = bytes(udp.payload)[:udp.len - 8]
    if udp.dport in gre_ports:
        g = GRE(data)
        hl = 4 + 4 * ((g.chksum_present or g.routing_present) + g.key_present +
                      g.seqnum_present)
        data = data[hl:]
    return data


def decap_key(frame, gre_ports=(5556,)):
    """(FOU UDP port, 'ipv4'|'ipv6') a valid FOU frame is counted under."""
    pkt = Ether(frame)
    inner = tunnel_payload(frame, gre_ports)
    return pkt[UDP].dport, 'ipv4' if inner[0] >> 4 == 4 else 'ipv6'


def l3_of(frame):
    """The IP packet of an Ethernet frame (802.1Q tags skipped), cut to its
    IP length."""
    b = bytes(frame)
    off = 12
    while b[off:off + 2] in (b'\x81\x00', b'\x88\xa8'):
        off += 4
    ip = b[off + 2:]
    if ip[0] >> 4 == 4:
        return ip[:int.from_bytes(ip[2:4], 'big')]
    return ip[:40 + int.from_bytes(ip[4:6], 'big')]


def inet_sum(data, start=0):
    """RFC 1071 one's complement sum (not inverted) of data."""
    if len(data) % 2:
        data = bytes(data) + b'\0'
    s = start + sum(int.from_bytes(data[i:i + 2], 'big') for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def inet_cksum(data, start=0):
    return ~inet_sum(data, start) & 0xffff


def ip4_header(src, dst, proto, payload_len, tos=0, ttl=64, ident=0, df=False):
    """A 20-byte IPv4 header with a valid checksum."""
    h = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, tos, 20 + payload_len, ident,
                              0x4000 if df else 0, ttl, proto, 0, socket.inet_aton(src),
                              socket.inet_aton(dst)))
    h[10:12] = inet_cksum(h).to_bytes(2, 'big')
    return bytes(h)


ICMP_QUOTE4 = 576 - 28          # RFC 1812 4.3.2.3, Linux icmp_send
ICMP_QUOTE6 = 1280 - 48         # RFC 4443 2.4 (c), Linux icmp6_send

# kind: (type, code) of the errors, as the gateway counts them
ICMP4_ERRORS = {'icmp_frag_needed': (3, 4), 'icmp_time_exceeded': (11, 0),
                'icmp_reasm_exceeded': (11, 1),
                'icmp_net_unreach': (3, 0), 'icmp_proto_unreach': (3, 2),
                'icmp_port_unreach': (3, 3)}
ICMP6_ERRORS = {'icmp6_pkt_too_big': (2, 0), 'icmp6_time_exceeded': (3, 0),
                'icmp6_no_route': (1, 0), 'icmp6_port_unreach': (1, 4),
                'icmp6_param_problem': (4, 1), 'icmp6_param_option': (4, 2)}


def icmp4_error(orig, src, kind, mtu=0, egress_mtu=1500, length=None):
    """The ICMP error Linux' icmp_send builds about the IPv4 packet orig
    (as received: TTL not decremented): from src to the source of orig,
    TTL 64, TOS = orig's TOS bits | 0xc0, no DF, as much of orig as fits
    in min(egress MTU, 576). kind: a key of ICMP4_ERRORS ('icmp_frag_needed'
    with mtu). length: where orig ends for the quote (UDP trims a packet to
    its datagram). The IP ID is not predictable: compare with
    ignore=ICMP4_IGNORE."""
    orig = bytes(orig)[:int.from_bytes(bytes(orig)[2:4], 'big')]
    if length is not None:
        orig = orig[:length]
    quote = orig[:min(egress_mtu, 576) - 28]
    hdr = bytes(ICMP4_ERRORS[kind]) + bytes(2) + \
        (mtu if kind == 'icmp_frag_needed' else 0).to_bytes(4, 'big')
    msg = bytearray(hdr + quote)
    msg[2:4] = inet_cksum(msg).to_bytes(2, 'big')
    return ip4_header(src, socket.inet_ntoa(orig[12:16]), 1, len(msg),
                      tos=(orig[1] & 0x1e) | 0xc0) + bytes(msg)


ICMP4_IGNORE = ((4, 6),)        # the IPv4 ID of a packet the gateway builds


def icmp6_error(orig, src, kind, mtu=0, length=None):
    """The ICMPv6 error Linux' icmp6_send builds about the IPv6 packet orig:
    from src to its source, hop limit 64, traffic class and flow label 0,
    as much of orig as fits in 1280 bytes. kind: a key of ICMP6_ERRORS;
    mtu: the second word ('icmp6_pkt_too_big': the MTU,
    'icmp6_param_problem': the pointer). length: as for icmp4_error."""
    orig = bytes(orig)[:40 + int.from_bytes(bytes(orig)[4:6], 'big')]
    if length is not None:
        orig = orig[:length]
    quote = orig[:ICMP_QUOTE6]
    hdr = bytes(ICMP6_ERRORS[kind]) + bytes(2) + mtu.to_bytes(4, 'big')
    msg = bytearray(hdr + quote)
    return _ip6_icmp(src, orig[8:24], 0, msg)


def _ip6_icmp(src, dst, tc, msg):
    """IPv6 from src (text) to dst (16 bytes), hop limit 64, flow label 0,
    carrying the ICMPv6 message msg, whose checksum is computed here."""
    msg = bytearray(msg)
    s = socket.inet_pton(socket.AF_INET6, src)
    msg[2:4] = b'\0\0'
    phdr = s + dst + len(msg).to_bytes(4, 'big') + b'\0\0\0\x3a'
    msg[2:4] = inet_cksum(phdr + bytes(msg)).to_bytes(2, 'big')
    return (bytes([0x60 | tc >> 4, (tc & 0xf) << 4, 0, 0]) + len(msg).to_bytes(2, 'big') +
            bytes([58, 64]) + s + dst + bytes(msg))


def echo_reply4(req, ecn=None):
    """The echo reply Linux' icmp_reply sends for the IPv4 echo request
    req: from the address pinged to its source, TTL 64, the request's
    whole TOS byte (ECN as given, after decapsulation), no DF, no options;
    type 0, the rest of the message as it came, the checksum computed
    again. The IP ID is not predictable: compare with ignore=ICMP4_IGNORE."""
    req = bytes(req)[:int.from_bytes(bytes(req)[2:4], 'big')]
    hl = (req[0] & 0xf) * 4
    msg = bytearray(req[hl:])
    msg[0] = 0
    msg[2:4] = b'\0\0'
    msg[2:4] = inet_cksum(msg).to_bytes(2, 'big')
    tos = req[1] if ecn is None else (req[1] & 0xfc) | ecn
    return ip4_header(socket.inet_ntoa(req[16:20]), socket.inet_ntoa(req[12:16]), 1, len(msg),
                      tos=tos) + bytes(msg)


def echo_reply6(req, ecn=None):
    """The echo reply Linux' icmpv6_echo_reply sends for the ICMPv6 echo
    request req: from the address pinged, hop limit 64, the request's
    traffic class, flow label 0; type 129, the rest as it came."""
    req = bytes(req)[:40 + int.from_bytes(bytes(req)[4:6], 'big')]
    tc = (req[0] & 0xf) << 4 | req[1] >> 4
    if ecn is not None:
        tc = (tc & 0xfc) | ecn
    msg = bytearray(req[40:])
    msg[0] = 129
    return _ip6_icmp(socket.inet_ntop(socket.AF_INET6, req[24:40]), req[8:24], tc, msg)


# --- scapy builders ------------------------------------------------------------

def v4(dst='192.168.4.1', src='192.168.3.2', ttl=64, tos=0, size=None, seq=1, **kw):
    """An inner IPv4 ICMP echo request; size: total length."""
    p = IP(src=src, dst=dst, ttl=ttl, tos=tos, id=0x1000 + seq, **kw) / ICMP(id=0x77, seq=seq)
    pad = 0 if size is None else size - len(p)
    return p / Raw(bytes((seq + i) & 0xff for i in range(pad if size else 19 + seq % 7)))


def v6(dst='fd00:41::1', src='fd00:40::2', hlim=64, tc=0, size=None, seq=1):
    """An inner IPv6 ICMPv6 echo request; size: total length."""
    p = IPv6(src=src, dst=dst, hlim=hlim, tc=tc, fl=0x12345) / ICMPv6EchoRequest(id=0x66, seq=seq)
    pad = 0 if size is None else size - len(p)
    return p / Raw(bytes((seq * 3 + i) & 0xff for i in range(pad if size else 13 + seq % 5)))


def fou(dport, payload, sport=40000, tos=0, ttl=64, chksum=None, eth_dst=MAC_P0,
        dst=IP_P0, options=None, flags=0, vlans=None):
    """Ethernet / [tags] / IPv4 / UDP(dport) / payload from the FOU peer."""
    l2 = Ether(src=MAC_PEER, dst=eth_dst)
    if vlans:
        for tag in vlans:
            l2 = l2 / tag
    ip = IP(src=IP_PEER, dst=dst, tos=tos, ttl=ttl, flags=flags, id=4242)
    if options:
        ip.options = options
    return l2 / ip / UDP(sport=sport, dport=dport, chksum=chksum) / payload


def gre(inner, c=0, k=0, s=0, seq=1):
    """GRE with the C, K and S flags as given (scapy computes the checksum)."""
    proto = 0x0800 if isinstance(inner, IP) else 0x86dd
    return GRE(chksum_present=c, key_present=k, seqnum_present=s, key=0x0a0b0c0d + seq,
               sequence_number=seq, proto=proto) / inner


class Expected:
    """One input frame: received on port rx, then either dropped for reason
    or sent on port to eth_dst with the l3 bytes."""

    def __init__(self, name, frame, reason=None, port=None, eth_dst=None, l3=None,
                 decap=None, rx=0, icmp=None, ignore=()):
        self.name = name
        self.icmp = icmp            # the ICMP error kind it leaves as
        self.ignore = ignore        # (start, end) ranges of l3 not predictable
        self.frame = bytes(frame)
        self.rx = rx
        self.reason = reason
        self.port = port
        self.eth_dst = eth_dst
        self.l3 = l3
        self.decap = decap


class Traffic:
    """Input captures (one per receiving port, port 0 unless said) and what
    the gateway must do with each frame."""

    def __init__(self, gre_ports=(5556,)):
        self.cases = []
        self.gre_ports = gre_ports

    def fwd(self, name, frame, port, eth_dst, ecn=None, l3=None, rx=0):
        """frame must leave on port to eth_dst, carrying its inner packet
        (or l3) routed."""
        frame = bytes(frame)
        inner = tunnel_payload(frame, self.gre_ports)
        self.cases.append(Expected(name, frame, port=port, eth_dst=eth_dst,
                                   l3=l3 if l3 is not None else forwarded_l3(inner, ecn),
                                   decap=decap_key(frame, self.gre_ports), rx=rx))

    def drop(self, name, frame, reason, decap=None, rx=0, plain=False, icmp=None):
        """plain: frame is not FOU for us (an IP packet routed as it is).
        icmp: the kind of the ICMP message the gateway built in answer (so
        counted as sent), which waited for a neighbour and is the drop."""
        assert reason in DROP_REASONS, reason
        assert icmp is None or icmp in ICMP_KINDS, icmp
        frame = bytes(frame)
        if decap is None and reason in POST_DECAP_DROPS and not plain:
            decap = decap_key(frame, self.gre_ports)
        self.cases.append(Expected(name, frame, reason=reason, decap=decap, rx=rx, icmp=icmp))

    def route(self, name, frame, port, eth_dst, rx=0, ecn=None):
        """frame is an IP packet not for us: it must leave on port to
        eth_dst, routed as it is (TTL - 1)."""
        frame = bytes(frame)
        self.cases.append(Expected(name, frame, port=port, eth_dst=eth_dst,
                                   l3=forwarded_l3(l3_of(frame), ecn), rx=rx))

    def consume(self, name, frame, rx=0):
        """frame is taken in by the gateway's own stack (an ARP reply, an
        NA): neither sent nor dropped, counted as consumed."""
        e = Expected(name, frame, rx=rx)
        e.consumed = True
        self.cases.append(e)

    def consumed(self):
        return sum(1 for c in self.cases if getattr(c, 'consumed', False))

    def answer(self, name, frame, ours, rx=0):
        """frame is an ARP request for our address ours: the gateway answers
        it on the receiving port (a frame of run.own, not of out()); the
        reply goes to the asker's MAC and address."""
        frame = bytes(frame)
        e = Expected(name, frame, rx=rx)
        off = 12
        while frame[off:off + 2] in (b'\x81\x00', b'\x88\xa8'):
            off += 4
        a = frame[off + 2:]
        e.reply = (ours, ':'.join('%02x' % x for x in a[8:14]), socket.inet_ntoa(a[14:18]))
        self.cases.append(e)

    def arp_replies(self, port):
        """The replies of answer() for frames received on port, in order."""
        return [c.reply for c in self.cases if getattr(c, 'reply', None) and c.rx == port]

    def icmp(self, name, frame, port, eth_dst, l3, kind, rx=0, plain=False, ignore=None):
        """frame must come back as the ICMP message l3 (icmp4_error,
        icmp6_error, echo_reply4, echo_reply6) of kind, leaving on port to
        eth_dst. ignore: the ranges of l3 not predictable (default: the
        IPv4 ID)."""
        assert kind in ICMP_KINDS, kind
        frame = bytes(frame)
        if ignore is None:
            ignore = ICMP4_IGNORE if l3[0] >> 4 == 4 else ()
        self.cases.append(Expected(name, frame, port=port, eth_dst=eth_dst, l3=l3, rx=rx,
                                   decap=None if plain else decap_key(frame, self.gre_ports),
                                   icmp=kind, ignore=ignore))

    def write(self, path):
        """The capture of port 0 (all frames must be for port 0)."""
        assert all(c.rx == 0 for c in self.cases)
        return write_pcap(path, [c.frame for c in self.cases])

    def write_ports(self, tmpdir):
        """One capture per receiving port: {port: path}."""
        return {p: write_pcap(os.path.join(tmpdir, 'in%d.pcap' % p),
                              [c.frame for c in self.cases if c.rx == p])
                for p in sorted({c.rx for c in self.cases})}

    def received(self, port):
        return len([c for c in self.cases if c.rx == port])

    def out(self, port):
        return [c for c in self.cases if c.reason is None and c.port == port]

    def drops(self):
        return dict(collections.Counter(c.reason for c in self.cases if c.reason))

    def decap(self):
        return [c.decap for c in self.cases if c.decap is not None]

    def icmp_sent(self):
        return dict(collections.Counter(c.icmp for c in self.cases if c.icmp))


# --- test case base -----------------------------------------------------------

def hexdiff(a, b):
    n = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    return ('lengths %d/%d, first difference at byte %d\n  got      %s\n  expected %s' %
            (len(a), len(b), n, a[max(0, n - 8):n + 24].hex(), b[max(0, n - 8):n + 24].hex()))


class Netns:
    """A network namespace of the test's own, named fou-TAG-PID, deleted by
    close(): lo up, IPv6 off on every interface (no router solicitations or
    other kernel traffic on the taps) until a test turns it on for one."""

    def __init__(self, tag):
        self.name = 'fou-%s-%d' % (tag, os.getpid())
        subprocess.run(['ip', 'netns', 'add', self.name], check=True)
        self.run(['ip', 'link', 'set', 'lo', 'up'])
        for conf in ('default', 'all'):
            self.run(['sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=1' % conf])

    def cmd(self, args):
        return ['ip', 'netns', 'exec', self.name] + list(args)

    def run(self, args, check=True, **kw):
        return subprocess.run(self.cmd(args), check=check, **kw)

    def out(self, args):
        return self.run(args, capture_output=True, text=True).stdout

    def dumpcap(self, iface, path, timeout):
        """Linux' dumpcap on iface in the namespace, writing path: the
        process once its pcap header is written (its packet socket is
        bound), or (None, why) if it did not start within timeout."""
        p = subprocess.Popen(self.cmd(['dumpcap', '-q', '-P', '-i', iface, '-w', path]),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = wait_for(lambda: p.poll() is not None or (
            os.path.exists(path) and os.path.getsize(path) >= PCAP_GLOBAL_HEADER_LEN), timeout)
        if started and p.poll() is None:
            return p, None
        if p.poll() is None:
            p.kill()
        why = p.communicate()[1].decode(errors='replace')
        return None, why or 'not within %s s' % timeout

    def gateway(self, tmpdir, taps, opts):
        """A dpdk-fou started in the namespace on a net_tap port per name
        in taps (port i on taps[i]), with opts."""
        def make_cmd(prefix):
            cmd = [Config.gateway, '-l', '0-1', '--no-huge', '-m', '512', '--no-pci',
                   '--file-prefix', prefix, '--log-level=lib.eal:warning',
                   '--log-level=pmd.net.tap:error']
            for i, tap in enumerate(taps):
                cmd += ['--vdev', 'net_tap%d,iface=%s' % (i, tap)]
            return self.cmd(cmd + ['--'] + list(opts)), {}
        return Gateway(tmpdir, None, 0, opts, make_cmd=make_cmd)

    def close(self):
        subprocess.run(['ip', 'netns', 'del', self.name])


class GatewayTestCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='fou-func-')
        self._gateways = []

    def tearDown(self):
        for gw in self._gateways:
            gw.stop()
        if Config.keep:
            sys.stderr.write('\nkept %s\n' % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def start(self, rx, opts, nb_ports=2, idle_exit=None):
        gw = Gateway(self.tmp, rx, nb_ports, opts, idle_exit)
        self._gateways.append(gw)
        return gw

    def run_gw(self, rx, opts, nb_ports=2, idle_exit=IDLE_EXIT_MS):
        run = run_gateway(self.tmp, rx, opts, nb_ports, idle_exit)
        self.assertIsNotNone(run.rc, 'the gateway did not stop\n' + run.describe())
        return run

    def run_reading(self, rx, opts, n, read, timeout=60):
        """Run the gateway until it has received n frames, then read(client)
        over telemetry and stop it: (the run, what read returned)."""
        gw = self.start(rx, opts)
        client = TelemetryClient(gw.prefix)
        try:
            done = wait_for(lambda: client.cmd('/fou/stats')['rx'] >= n, timeout)
            got = read(client)
        finally:
            client.close()
        gw.signal(signal.SIGTERM)
        run = gw.wait()
        self.assertTrue(done, 'the gateway did not receive the capture\n' + run.describe())
        return run, got

    # -- counters

    def assertHealthy(self, run):
        """Exit 0, every packet and every mbuf accounted for."""
        s = run.summary
        ctx = '\n' + run.describe()
        self.assertEqual(run.rc, 0, 'exit status' + ctx)
        self.assertTrue(s.printed, 'no summary' + ctx)
        rx, tx, dropped, verdict = s.accounting
        self.assertEqual(verdict, 'ok', ctx)
        self.assertEqual(rx, sum(s.rx.values()), ctx)
        self.assertEqual(tx, sum(s.tx.values()), ctx)
        self.assertEqual(dropped, s.dropped, ctx)
        self.assertEqual(dropped, sum(s.drops.values()), ctx)
        self.assertIsNotNone(s.gro, 'no gro line' + ctx)
        self.assertEqual(s.gso_added, s.gro['gso_segments'] - s.gro['gso_packets'], ctx)
        self.assertEqual(s.gro_merged, s.gro['merged'], ctx)
        # at exit nothing waits for a neighbour any more: it was dropped
        self.assertEqual(s.held, 0, 'packets still held' + ctx)
        # nor for the rest of a datagram: its fragments were dropped
        self.assertEqual(s.reasm_held, 0, 'fragments still held' + ctx)
        self.assertIsNotNone(s.frag, 'no frag line' + ctx)
        self.assertEqual(s.frag_added, s.frag[1] - s.frag[0], ctx)
        self.assertEqual(rx + s.originated + s.gso_added + s.frag_added + s.punt_in,
                         tx + dropped + s.gro_merged + s.held + s.consumed +
                         s.reasm_absorbed + s.reasm_held + s.punted, ctx)
        self.assertEqual(s.punt_in, s.punt.get('from_kernel', 0) + s.punt.get('copies', 0), ctx)
        self.assertEqual(s.punted, sum(v for k, v in s.punt.items() if k.startswith('up_')),
                         ctx)
        self.assertEqual(s.consumed, s.local.get('consumed', 0), ctx)
        # what the gateway's own stack says it sent is what the ports sent
        own = [f for port in sorted(run.own) for f in run.own[port]]
        arp = sum(1 for f in own if neigh_kind(f) == 'arp')
        if run.raw_outputs and all(p.endswith('.pcap') for p in run.raw_outputs.values()):
            self.assertEqual(arp, s.local.get('arp_requests_out', 0) +
                             s.local.get('arp_replies_out', 0), 'ARP frames sent' + ctx)
            self.assertEqual(len(own) - arp, s.local.get('ns_out', 0) + s.local.get('na_out', 0),
                             'ND frames sent' + ctx)
        for what, v in (('mbufs', s.mbufs), ('indirect mbufs', s.indirect_mbufs)):
            self.assertIsNotNone(v, 'no %s line' % what + ctx)
            self.assertEqual(v[0], v[1], '%s missing from the pool' % what + ctx)
            self.assertEqual(v[2], 'ok', ctx)
        self.assertEqual(s.decap, s.decap_ipv4 + s.decap_ipv6, ctx)
        self.assertEqual(s.decap, sum(s.decap_port.values()) + s.decap_plain, ctx)
        for name in s.drops:
            self.assertIn(name, DROP_REASONS, 'unknown drop reason' + ctx)

    def assertCounters(self, run, rx, tx, drops, decap=None, fou_ports=FOU_PORTS, icmp=None):
        """rx, tx: {port: n} for every port, tx without the gateway's own ARP
        and ND frames (run.own, counted on top); drops: {reason: n},
        exactly; decap: list of (udp port, 'ipv4'|'ipv6'), one per
        decapsulated packet (udp port 0: a plain tunnel); icmp: {kind: n}
        ICMP errors sent."""
        self.assertHealthy(run)
        s = run.summary
        ctx = '\n' + run.describe()
        self.assertEqual(s.rx, rx, 'rx per port' + ctx)
        self.assertEqual({p: n - len(run.own.get(p, ())) for p, n in s.tx.items()}, tx,
                         'tx per port (the own ARP/ND frames aside)' + ctx)
        self.assertEqual(s.drops, {k: v for k, v in drops.items() if v}, 'drops' + ctx)
        if decap is not None:
            by_fam = collections.Counter(f for _, f in decap)
            by_port = collections.Counter(p for p, _ in decap)
            self.assertEqual((s.decap, s.decap_ipv4, s.decap_ipv6),
                             (len(decap), by_fam['ipv4'], by_fam['ipv6']), 'decap' + ctx)
            self.assertEqual(s.decap_port, {p: by_port[p] for p in fou_ports},
                             'decap per FOU port' + ctx)
            self.assertEqual(s.decap_plain, by_port[0], 'decap plain' + ctx)
        if icmp is not None:
            self.assertEqual(s.icmp, {k: v for k, v in icmp.items() if v}, 'ICMP sent' + ctx)

    def assertTraffic(self, run, traffic, nb_ports=2, port_macs=None, fou_ports=FOU_PORTS):
        """Counters and every output frame of a Traffic run."""
        self.assertCounters(run, rx={p: traffic.received(p) for p in range(nb_ports)},
                            tx={p: len(traffic.out(p)) for p in range(nb_ports)},
                            drops=traffic.drops(), decap=traffic.decap(), fou_ports=fou_ports,
                            icmp=traffic.icmp_sent())
        for port in range(nb_ports):
            self.assertOutput(run.outputs[port], traffic.out(port), port_macs[port])

    # -- output frames

    def assertOutput(self, pcap, expected, src_mac):
        """The frames of pcap are exactly expected (list of Expected), in
        order (the frames of one port's capture keep their order; between
        two ports' captures it is not defined): Ethernet to eth_dst from
        src_mac, then the l3 bytes (the IPv4 checksum compared by validity,
        which fixes its value)."""
        raw = capture_frames(pcap)
        fields = tshark_fields(pcap, ['eth.dst', 'eth.src', 'eth.type', 'vlan.id', 'ip.ttl',
                                      'ip.checksum.status', 'ip.dsfield.ecn', 'ipv6.hlim',
                                      'ipv6.tclass.ecn', 'icmp.type', 'icmp.checksum.status',
                                      'icmpv6.type', 'icmpv6.checksum.status'])
        names = [e.name for e in expected]
        self.assertEqual(len(raw), len(expected),
                         '%s: %d frames, expected %d: %s' % (os.path.basename(pcap), len(raw),
                                                             len(expected), names))
        self.assertEqual(len(fields), len(expected))
        for got, f, exp in zip(raw, fields, expected):
            what = '%s: frame for %r' % (os.path.basename(pcap), exp.name)
            # the first occurrence is the packet's own header (an ICMP error
            # quotes another)
            f = {k: v[:1] for k, v in f.items()}
            self.assertEqual(f['eth.dst'], [exp.eth_dst], what + ': eth dst')
            self.assertEqual(f['eth.src'], [src_mac.lower()], what + ': eth src')
            self.assertEqual(f['vlan.id'], [], what + ': VLAN tag left')
            l3 = exp.l3
            if l3[0] >> 4 == 4:
                self.assertEqual(f['eth.type'], ['0x0800'], what)
                self.assertEqual(f['ip.ttl'], [str(l3[8])], what + ': ttl')
                self.assertEqual(f['ip.checksum.status'], ['1'],
                                 what + ': IPv4 checksum (tshark: 0 bad, 1 good)')
                self.assertEqual(f['ip.dsfield.ecn'], [str(l3[1] & 3)], what + ': ECN')
            else:
                self.assertEqual(f['eth.type'], ['0x86dd'], what)
                self.assertEqual(f['ipv6.hlim'], [str(l3[7])], what + ': hop limit')
                self.assertEqual(f['ipv6.tclass.ecn'], [str((l3[1] >> 4) & 3)], what + ': ECN')
            # an ICMP message sent as it is (one that leaves through a
            # tunnel is compared byte for byte below)
            if exp.icmp and l3[9 if l3[0] >> 4 == 4 else 6] in (1, 58):
                fam = 'icmp' if l3[0] >> 4 == 4 else 'icmpv6'
                self.assertEqual(f[fam + '.type'], [str(l3[40 if fam == 'icmpv6' else 20])],
                                 what + ': ICMP type')
                self.assertEqual(f[fam + '.checksum.status'], ['1'], what + ': ICMP checksum')
            self.assertEqual(got[0:6], bytes.fromhex(exp.eth_dst.replace(':', '')), what)
            self.assertEqual(got[6:12], bytes.fromhex(src_mac.replace(':', '')), what)
            body = got[14:]
            for a, b in exp.ignore:
                l3 = l3[:a] + body[a:b] + l3[b:]
            if l3[0] >> 4 == 4:
                hl = (l3[0] & 0xf) * 4
                self.assertTrue(ip4_cksum_ok(body[:hl]), what + ': IPv4 header checksum')
                body = body[:10] + l3[10:12] + body[12:]
            self.assertTrue(body == l3, what + ': inner packet not bit-exact\n' +
                            hexdiff(body, l3))

    def assertNeighOut(self, run, port, mac, announce=(), resolve=None, replies=()):
        """The ARP and ND frames port sent (run.own[port]), decoded by
        tshark, are exactly: one announcement per address of announce (a
        gratuitous ARP request, sender = target; an unsolicited NA to all
        nodes for IPv6), for each target of resolve ({target: our source
        address}) one to three broadcast requests (the first at once, one a
        second after while unanswered: how many fit before the gateway
        exits is timing), and the ARP replies of replies ([(our address,
        asker MAC, asker address)]), in order among themselves. Returns the
        decoded frames."""
        frames = neigh_decode(run.own[port], self.path('own%d-%d.pcap' % (port, id(run))))
        ctx = '\nport %d sent %s\n%s' % (port, frames, run.describe())
        mac = mac.lower()
        rest = []
        for f in frames:
            self.assertEqual(f['eth_src'], mac, 'source MAC' + ctx)
            if f['kind'] == 'arp-request':
                self.assertEqual((f['eth_dst'], f['sha'], f['tha']), (BCAST, mac, '00:00:00:00:00:00'),
                                 'ARP request fields' + ctx)
            if f['kind'] == 'na':
                self.assertEqual((f['eth_dst'], f['ip_dst'], f['ip_src']),
                                 (ALL_NODES, 'ff02::1', f['target']), 'NA fields' + ctx)
        for a in announce:
            if ':' in a:
                n = [f for f in frames if f['kind'] == 'na' and f['target'] == a]
            else:
                n = [f for f in frames if f['kind'] == 'arp-request' and f['sip'] == a and
                     f['tip'] == a]
            self.assertEqual(len(n), 1, 'one announcement of %s' % a + ctx)
        for target, src in (resolve or {}).items():
            if ':' in target:
                n = [f for f in frames if f['kind'] == 'ns' and f['target'] == target]
                self.assertTrue(all(f['ip_src'] == src for f in n), 'NS from %s' % src + ctx)
            else:
                n = [f for f in frames if f['kind'] == 'arp-request' and f['tip'] == target]
                self.assertTrue(all(f['sip'] == src for f in n), 'requests from %s' % src + ctx)
            self.assertTrue(1 <= len(n) <= 3, '1 to 3 requests for %s' % target + ctx)
        got = [(f['sip'], f['eth_dst'], f['tip']) for f in frames if f['kind'] == 'arp-reply']
        for f in frames:
            if f['kind'] == 'arp-reply':
                self.assertEqual((f['sha'], f['tha']), (mac, f['eth_dst']), 'ARP reply' + ctx)
        self.assertEqual(got, [(a, m.lower(), t) for a, m, t in replies], 'ARP replies' + ctx)
        rest = [f for f in frames
                if not (f['kind'] == 'arp-reply' or
                        (f['kind'] == 'na' and f['target'] in announce) or
                        (f['kind'] == 'ns' and f['target'] in (resolve or {})) or
                        (f['kind'] == 'arp-request' and
                         ((f['sip'] == f['tip'] and f['sip'] in announce) or
                          f['tip'] in (resolve or {}))))]
        self.assertEqual(rest, [], 'frames nobody expected' + ctx)
        return frames

    def assertNoOutput(self, run, nb_ports=2):
        for port in range(nb_ports):
            self.assertEqual(frame_count(run.outputs[port]), 0,
                             'port %d sent something' % port)


BCAST = 'ff:ff:ff:ff:ff:ff'
ALL_NODES = '33:33:00:00:00:01'


class NetnsTestCase(GatewayTestCase):
    """A case whose gateway runs in a namespace of its own (named from
    NS_TAG), watched through one telemetry connection (self.client, closed
    with the case if the case left it open)."""
    NS_TAG = 'ns'

    def setUp(self):
        super().setUp()
        self.ns = Netns(self.NS_TAG)
        self.client = None

    def tearDown(self):
        if self.client is not None:
            self.client.close()
            self.client = None
        super().tearDown()      # the gateway first: the taps go with it
        self.ns.close()

    def capture(self, iface, name):
        """dumpcap on the kernel's side of a tap, until stop_capture()."""
        path = self.path(name)
        p, why = self.ns.dumpcap(iface, path, 30)
        self.assertIsNotNone(p, 'dumpcap did not start: %s' % why)
        time.sleep(0.5)
        return p, path

    def stop_capture(self, cap):
        """What capture() wrote, once dumpcap has had what came last."""
        p, path = cap
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        p.stderr.close()
        return path

    def send(self, iface, frames, name):
        """Frames into the gateway's port from the kernel's side (AF_PACKET)."""
        path = write_pcap(self.path(name), frames)
        self.ns.run([PYTHON, '-c', 'import sys\nfrom scapy.all import rdpcap, sendp\n'
                     'sendp(rdpcap(sys.argv[1]), iface=sys.argv[2], verbose=0)', path, iface])


def neigh_decode(frames, path):
    """The ARP and ND frames (bytes) as tshark decodes them, written to
    path: one dict each with kind ('arp-request', 'arp-reply', 'ns', 'na',
    or the ICMPv6 type), eth_dst, eth_src, and for ARP sha, sip, tha, tip,
    for ND target, ip_src, ip_dst."""
    write_pcap(path, frames)
    if not frames:
        return []
    rows = tshark_fields(path, ['eth.dst', 'eth.src', 'arp.opcode', 'arp.src.hw_mac',
                                'arp.src.proto_ipv4', 'arp.dst.hw_mac', 'arp.dst.proto_ipv4',
                                'icmpv6.type', 'icmpv6.nd.ns.target_address',
                                'icmpv6.nd.na.target_address', 'ipv6.src', 'ipv6.dst'])
    out = []
    for r in rows:
        one = {k: (v[0] if v else None) for k, v in r.items()}
        d = {'eth_dst': one['eth.dst'], 'eth_src': one['eth.src']}
        if one['arp.opcode'] is not None:
            d.update(kind={'1': 'arp-request', '2': 'arp-reply'}.get(one['arp.opcode'],
                                                                      'arp-' + one['arp.opcode']),
                     sha=one['arp.src.hw_mac'], sip=one['arp.src.proto_ipv4'],
                     tha=one['arp.dst.hw_mac'], tip=one['arp.dst.proto_ipv4'])
        else:
            d.update(kind={'135': 'ns', '136': 'na'}.get(one['icmpv6.type'], one['icmpv6.type']),
                     target=one['icmpv6.nd.ns.target_address'] or
                     one['icmpv6.nd.na.target_address'],
                     ip_src=one['ipv6.src'], ip_dst=one['ipv6.dst'])
        out.append(d)
    return out


def wait_for(predicate, timeout, interval=0.05):
    """Poll predicate until it returns a true value or timeout seconds pass."""
    end = time.monotonic() + timeout
    while True:
        v = predicate()
        if v or time.monotonic() > end:
            return v
        time.sleep(interval)



class TelemetryClient:
    """One connection to a gateway's telemetry socket (as dpdk-telemetry.py
    makes), for many commands in a row: cmd() returns the decoded reply."""

    def __init__(self, prefix, timeout=20):
        path = os.path.join(runtime_dir(prefix), 'dpdk_telemetry.v2')
        if not wait_for(lambda: os.path.exists(path), timeout):
            raise RuntimeError('no telemetry socket at %s' % path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.max_len = json.loads(self.sock.recv(1024).decode())['max_output_len']
        # the socket and the commands are there from EAL start; the commands
        # answer NOT_READY until the workers run
        if not wait_for(lambda: self.cmd('/fou/stats') not in (None, NOT_READY), timeout):
            raise RuntimeError('the gateway did not get ready')

    def cmd(self, command):
        self.sock.send(command.encode())
        reply = json.loads(self.sock.recv(self.max_len).decode())
        return reply[command.split(',')[0]]

    def pages(self, command):
        """Every entry of a paged table, following "next"."""
        entries, offset = [], 0
        while True:
            page = self.cmd('%s,offset=%d' % (command, offset))
            # by position, or /fou/ports' UDP ports ('5555', '5555_6')
            keys = sorted((k for k in page if k not in ('count', 'offset', 'next')),
                          key=lambda k: (int(k.split('_')[0]), k))
            entries += [page[k] for k in keys]
            if 'next' not in page:
                return entries, page['count']
            offset = page['next']

    def close(self):
        self.sock.close()


def config_lines(client):
    """/fou/config as config-file lines NAME = ARG."""
    entries, _ = client.pages('/fou/config')
    return ['%s = %s' % (e[0], ','.join(e[1:])) for e in entries]
