#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Interop test: dpdk-fou against the Linux kernel's FOU, both directions.

A Debian kernel boots once in QEMU (TCG) with a busybox initramfs and is the
Linux FOU peer: ipip, gre and sit tunnels with `encap fou` towards dpdk-fou
(IPv4 through ipip and gre, IPv6 through gre and sit).
dpdk-fou runs in a network namespace on two net_af_packet ports: port 0 on
the tap of the VM, port 1 on a veth to a client namespace. The client pings
and sends TCP through dpdk-fou into every tunnel (dpdk-fou encapsulates, the
guest decapsulates, and the guest's replies come back encapsulated by Linux
and decapsulated by dpdk-fou); the guest pings the client the other way; a
datagram too big for a tunnel must bring an ICMP error from dpdk-fou; one
datagram per ECN codepoint shows the outer ECN field. The
whole matrix runs with encap-csum off and on at both ends (dpdk-fou is
restarted, the guest's tunnels re-created); in the second combination
dpdk-fou starts with only `--port 5555:ipip` and gets every other statement
as a command on its telemetry socket once it runs. dumpcap records the tap for the
whole run; tshark checks every FOU packet dpdk-fou sent.
One more dpdk-fou run has the new tunnels (NEW_TUNNELS): ipip, gre and sit
with `encap gue`, and ip6tnl (ipip6, ip6ip6) and ip6gre with `encap fou` and
`encap gue` over an IPv6 underlay, all at once, the checksum settings spread
over them; the client and the guest ping and send TCP through each.
A last dpdk-fou run has port 0 on a net_tap bridged with the tap (af_packet's
fanout defragments): the guest's nopmtudisc ipip tunnel sends a ping too big
for its narrowed link as outer fragments, and dpdk-fou reassembles them.

    netns fouc-PID (client)        netns foug-PID (gateway)             QEMU guest
    c0 10.1.0.2/24 ========= veth  g1 <- dpdk-fou port 1
       10.1.4.2, 10.1.47.2            10.1.0.1/24, fd00:1::1/64
       fd00:1::2/64, fd00:1:47::2  g0 <- dpdk-fou port 0 == tap == eth0 10.99.0.2/24
                                      10.99.0.10/24                fou_ipip 192.168.4.2/24
                                                                   fou_gre  192.168.47.2/24
                                                                            fd00:47::2/64
                                                                   fou_sit  fd00:41::2/64

Needs root, /dev/net/tun, qemu-system-x86_64, a Debian kernel
(linux-image-amd64), busybox-static, cpio, iproute2, dumpcap and tshark.

    /usr/bin/python3 tests/interop/test_linux_peer.py --gateway build/app/dpdk-fou
    ... --hold               set everything up, start dpdk-fou, wait for Ctrl-C
    ... --guest-exec WORKDIR 'ip -s link'    a command in a held guest

See README.md in this directory.
"""
import argparse
import collections
import ctypes
import fcntl
import hashlib
import ipaddress
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
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = '/usr/bin/python3'
SELF = os.path.abspath(__file__)

# --- the topology --------------------------------------------------------------

NS_CLIENT = 'fouc-%d' % os.getpid()
NS_GW = 'foug-%d' % os.getpid()
TAP = 'g0'                      # gateway namespace, QEMU's tap, dpdk-fou port 0
VETH_GW = 'g1'                  # gateway namespace, dpdk-fou port 1
VETH_CLIENT = 'c0'              # client namespace

# Locally administered MACs (02:...): the second byte says who it is.
MAC_GW0 = '02:f0:00:63:00:0a'
MAC_GW1 = '02:f0:00:01:00:01'
MAC_CLIENT = '02:f1:00:01:00:02'
MAC_GUEST = '02:f2:00:63:00:02'

GUEST_IP = '10.99.0.2'
GW_OUTER_IP = '10.99.0.10'
GW4 = '10.1.0.1'
GW6 = 'fd00:1::1'
CLIENT4 = '10.1.0.2'
CLIENT6 = 'fd00:1::2'
OUTER_TTL = 64
ECHO_PORT = 7000

# What goes through each tunnel: `kind` is the tunnel type, `family` the
# inner IP version (gre carries both: gre and gre6 are one tunnel). One client
# source network per entry: the guest routes each back through the tunnel it
# came by (see tunnels() in guest/peer.sh). The tunnel MTU is the 1500 of the
# outer network minus IPv4, UDP and GRE headers.
TUNNELS = (
    dict(name='ipip', gw_addr='192.168.4.1', kind='ipip', port=5555, gw_dev='tunipip', family=4,
         inner_net='192.168.4.0/24', guest='192.168.4.2', probe='192.168.4.%d',
         client_net='10.1.4.0/24', client='10.1.4.2', mtu=1500 - 20 - 8),
    dict(name='gre', gw_addr='192.168.47.1', kind='gre', port=5556, gw_dev='tungre', family=4,
         inner_net='192.168.47.0/24', guest='192.168.47.2', probe='192.168.47.%d',
         client_net='10.1.47.0/24', client='10.1.47.2', mtu=1500 - 20 - 8 - 4),
    dict(name='gre6', gw_addr='fd00:47::1', kind='gre', port=5556, gw_dev='tungre', family=6,
         inner_net='fd00:47::/64', guest='fd00:47::2', probe='fd00:47::%x',
         client_net='fd00:1:47::/64', client='fd00:1:47::2', mtu=1500 - 20 - 8 - 4),
    dict(name='sit', gw_addr='fd00:41::1', kind='sit', port=5557, gw_dev='tunsit', family=6,
         inner_net='fd00:41::/64', guest='fd00:41::2', probe='fd00:41::%x',
         client_net='fd00:1::/64', client=CLIENT6, mtu=1500 - 20 - 8),
)
# The FOU ports: UDP port -> tunnel kind.
FOU_PORTS = {t['port']: t['kind'] for t in TUNNELS}

# The run of GUE over IPv4 and FOU / GUE over an IPv6 underlay ("new
# tunnels", one dpdk-fou run after the four above): every tunnel at once,
# the checksum settings spread over them instead of a matrix. `gcsum` /
# `dcsum`: the guest's / dpdk-fou's UDP checksum (encap-csum over IPv4,
# encap-udp6-csum over IPv6: Linux's ip6tnl and ip6gre look only at the
# latter, and iproute2 turns it on unless told noencap-udp6-csum);
# `glimit` / `dlimit`: the encapsulation limit (None: the default 4, whose
# destination options header goes between the outer IPv6 header and UDP;
# 'none': no such header). ip6tnl takes one tunnel per pair of addresses
# (whatever the mode), ip6gre likewise: the guest has four IPv6 underlay
# addresses for the four ip6tnl tunnels.
GW_OUTER_IP6 = 'fd00:99::10'
GUEST_IP6 = ('fd00:99::2', 'fd00:99::3', 'fd00:99::4', 'fd00:99::5')
GUE4_PORT, GUE6_PORT = 5560, 5568


def _new(name, kind, encap, port, family, outer, n, gcsum, dcsum, mode=None, glimit=None,
         dlimit=None):
    if family == 4:
        inner = dict(inner_net='192.168.%d.0/24' % n, gw_addr='192.168.%d.1' % n,
                     guest='192.168.%d.2' % n, client_net='10.1.%d.0/24' % n,
                     client='10.1.%d.2' % n)
    else:
        inner = dict(inner_net='fd00:%x::/64' % n, gw_addr='fd00:%x::1' % n,
                     guest='fd00:%x::2' % n, client_net='fd00:1:%x::/64' % n,
                     client='fd00:1:%x::2' % n)
    return dict(name=name, kind=kind, mode=mode, encap=encap, port=port, family=family,
                outer=outer, gw_outer=GW_OUTER_IP if ':' not in outer else GW_OUTER_IP6,
                gw_dev='t' + name.replace('-', ''), guest_dev='n' + name.replace('-', ''),
                gcsum=gcsum, dcsum=dcsum, glimit=glimit, dlimit=dlimit, **inner)


NEW_TUNNELS = (
    _new('gue-ipip', 'ipip', 'gue', GUE4_PORT, 4, GUEST_IP, 0x14, 1, 0),
    _new('gue-gre', 'gre', 'gue', GUE4_PORT, 4, GUEST_IP, 0x15, 0, 1),
    _new('gue-sit', 'sit', 'gue', GUE4_PORT, 6, GUEST_IP, 0x16, 1, 1),
    _new('ipip6-fou', 'ip6tnl', 'fou', 5565, 4, GUEST_IP6[0], 0x60, 1, 0, mode='ipip6'),
    _new('ip6ip6-fou', 'ip6tnl', 'fou', 5566, 6, GUEST_IP6[1], 0x61, 0, 1, mode='ip6ip6',
         glimit='none'),
    _new('ipip6-gue', 'ip6tnl', 'gue', GUE6_PORT, 4, GUEST_IP6[2], 0x62, 0, 0, mode='ipip6',
         dlimit='none'),
    _new('ip6ip6-gue', 'ip6tnl', 'gue', GUE6_PORT, 6, GUEST_IP6[3], 0x63, 1, 1, mode='ip6ip6',
         glimit='none', dlimit='none'),
    _new('ip6gre-fou', 'ip6gre', 'fou', 5567, 4, GUEST_IP6[0], 0x64, 0, 1, glimit='none'),
    _new('ip6gre-gue', 'ip6gre', 'gue', GUE6_PORT, 6, GUEST_IP6[1], 0x65, 1, 0),
)
# dpdk-fou's receive ports of that run, as (UDP port, family) -> protocol,
# and the guest's (`ip fou add`).
NEW_PORTS = {(GUE4_PORT, 4): 'gue', (5565, 6): 'ipip', (5566, 6): 'sit', (5567, 6): 'gre',
             (GUE6_PORT, 6): 'gue'}
FOU_IPPROTO = dict(ipip=4, sit=41, gre=47)

# The peer-config run: two tunnels of dpdk-fou's to the guest, whose side
# is made only of what /fou/tunnel/peer_config printed for each (`port`:
# the tunnel's encap-dport, the guest's `ip fou add` port; the guest sends
# to dpdk-fou's own receive ports, PEER_GW_PORTS). Behind the guest, its
# network PEER_NET4 / PEER_NET6 (an address on its loopback, the one thing
# set up besides the printed commands); dpdk-fou routes it into the
# tunnels, the guest routes dpdk-fou's port-1 network back through them.
PEER_GW_PORTS = ('5555:ipip', '%d:gue' % GUE4_PORT)
# dpdk-fou routes PEER_NET4 into both tunnels, pc-ipip first (metric 10, the
# backup pc-gre 20); the guest's routes back mirror those metrics, so its two
# routes to port 1's network do not collide. Traffic checks go to `guest`
# (the family of `net`) through each tunnel.
PEER_NET4, PEER_NET6 = '10.77.0.0/24', 'fd00:77::/64'
# Both tunnels probe the guest (echo probes it forwards back, see the
# README's tunnel health): down after PROBE_TIMEOUT unanswered probes of
# PROBE_INTERVAL_MS, which takes pc-ipip's route out of use and leaves
# PEER_NET4 to pc-gre. PROBE_SLACK: what a loaded two-core machine running
# QEMU under TCG may add to that time, and to the telemetry polling.
PROBE_INTERVAL_MS, PROBE_TIMEOUT, PROBE_SLACK = 150, 3, 10
PROBE_OPTS = 'probe=on,interval=%d,timeout=%d' % (PROBE_INTERVAL_MS, PROBE_TIMEOUT)
# The path MTU search (RFC 8899 style, over the echo probes): the tap in
# the gateway namespace goes down to an MTU of PLPMTU_PATH, so the kernel
# drops bigger frames dpdk-fou's af_packet port sends, without a word: an
# ICMP black hole towards the guest. The search must find it to the byte;
# PLPMTU_BOUND: the seconds it may take (3 probe intervals per failing
# size, one probe in flight, and TCG). PLPMTU_DGRAM: a datagram that fits
# the tunnel's MTU before the search (1472) but not the path.
PLPMTU_PATH, PLPMTU_BOUND, PLPMTU_DGRAM = 1400, 60, 1450
PEER_TUNNELS = (
    dict(name='pc-ipip', gw_dev='pcipip', kind='ipip', encap='fou', port=5570, family=4,
         opts='ttl=64,encap-csum,' + PROBE_OPTS, addrs=('192.168.70.1/30',),
         routes=('%s,metric=10' % PEER_NET4,), net=PEER_NET4, guest='10.77.0.1',
         client=CLIENT4),
    dict(name='pc-gre', gw_dev='pcgre', kind='gre', encap='gue', port=5571, family=6,
         opts='ttl=64,key=7,csum,' + PROBE_OPTS, addrs=('192.168.71.1/30', 'fd00:71::1/64'),
         routes=('%s,metric=20' % PEER_NET4, '%s,metric=20' % PEER_NET6), net=PEER_NET6,
         guest='fd00:77::1', client=CLIENT6),
)

# (guest encap-csum, dpdk-fou encap-csum); ordered so the guest's tunnels are
# re-created once.
COMBOS = ((0, 0), (0, 1), (1, 1), (1, 0))

KERNEL_MODULES = ('virtio_pci', 'virtio_net', 'fou', 'fou6', 'ipip', 'ip_gre', 'sit',
                  'ip6_tunnel', 'ip6_gre')

BOOT_TIMEOUT = 180
GUEST_CMD_TIMEOUT = 60


def guest_new_lines():
    """The guest's iproute2 commands (without `ip`) for the new-tunnels run,
    one a line: its FOU / GUE receive ports, then per tunnel the link, its
    address, up, and the route back to the client through it."""
    lines = []
    for (port, fam), proto in sorted(NEW_PORTS.items()):
        lines.append('fou add port %d %s%s' % (
            port, 'gue' if proto == 'gue' else 'ipproto %d' % FOU_IPPROTO[proto],
            ' -6' if fam == 6 else ''))
    for t in NEW_TUNNELS:
        encap = 'encap %s encap-sport auto encap-dport %d' % (t['encap'], t['port'])
        if t['kind'] in ('ipip', 'gre', 'sit'):
            link = 'type %s remote %s local %s ttl %d %s %s' % (
                t['kind'], GW_OUTER_IP, t['outer'], OUTER_TTL, encap, csum_name(t['gcsum']))
        else:
            link = 'type %s%s remote %s local %s hoplimit %d%s %s %s' % (
                t['kind'], ' mode ' + t['mode'] if t['mode'] else '', GW_OUTER_IP6, t['outer'],
                OUTER_TTL, ' encaplimit ' + t['glimit'] if t['glimit'] else '', encap,
                'encap-udp6-csum' if t['gcsum'] else 'noencap-udp6-csum')
        six = '-6 ' if t['family'] == 6 else ''
        lines += ['link add name %s %s' % (t['guest_dev'], link),
                  '%saddr add %s/%d dev %s%s' % (six, t['guest'], 24 if t['family'] == 4 else 64,
                                                 t['guest_dev'],
                                                 ' nodad' if t['family'] == 6 else ''),
                  'link set %s up' % t['guest_dev'],
                  '%sroute add %s dev %s' % (six, t['client_net'], t['guest_dev'])]
    return lines


class SetupError(Exception):
    """The test could not be set up: no verdict on dpdk-fou."""


def log(msg):
    print('[interop %s] %s' % (time.strftime('%H:%M:%S'), msg), flush=True)


def client_connected(t):
    """Is t's client address on the veth's network (no extra address and
    route needed)?"""
    return t['client'] in (CLIENT4, CLIENT6)


def csum_name(on):
    return 'encap-csum' if on else 'noencap-csum'


# --- commands, namespaces, processes ----------------------------------------------

def run(cmd, ns=None, check=True, timeout=30):
    cmd = [str(c) for c in cmd]
    if ns is not None:
        cmd = ['ip', 'netns', 'exec', ns] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SetupError('%s: no exit within %d s' % (' '.join(cmd), timeout))
    if check and p.returncode != 0:
        raise SetupError('%s failed (exit %d): %s' % (' '.join(cmd), p.returncode,
                                                      (p.stderr or p.stdout).strip()))
    return p


def sysctl(ns, key, value):
    run(['sh', '-c', 'echo %s > /proc/sys/%s' % (value, key.replace('.', '/'))], ns=ns)


def _die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)      # PR_SET_PDEATHSIG


class Proc:
    """A process this test started; stop() signals that PID only."""

    def __init__(self, name, cmd, logpath, ns=None):
        self.name = name
        self.logpath = logpath
        if ns is not None:
            # `ip netns exec` execs the command: the PID is the command's.
            cmd = ['ip', 'netns', 'exec', ns] + list(cmd)
        self.cmd = cmd
        self.log = open(logpath, 'w+')
        # Its own session: a Ctrl-C reaches this script, which stops
        # everything in order. SIGTERM if this script dies without cleaning up.
        self.popen = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log,
                                      stderr=subprocess.STDOUT, start_new_session=True,
                                      preexec_fn=_die_with_parent)

    @property
    def pid(self):
        return self.popen.pid

    def running(self):
        return self.popen.poll() is None

    def output(self):
        with open(self.logpath, errors='replace') as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM, timeout=10):
        """Signal, wait, SIGKILL if still there; the exit status (None if
        it had to be killed)."""
        if self.running():
            try:
                os.kill(self.popen.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
                self.log.close()
                return None
        self.log.close()
        return self.popen.returncode


# --- ethtool, without the ethtool package -------------------------------------------

SIOCETHTOOL = 0x8946
ETHTOOL_OFF = (0x17, 0x19, 0x1f, 0x24, 0x2c)  # STXCSUM, SSG, STSO, SGSO, SGRO


def offloads_off(ifname):
    """Checksum offload, TSO, GSO and GRO off on a veth end: af_packet would
    otherwise read partial checksums and 64 KiB GSO frames off the veth."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for cmd in ETHTOOL_OFF:
            val = ctypes.create_string_buffer(struct.pack('II', cmd, 0))
            ifr = struct.pack('16sP', ifname.encode(), ctypes.addressof(val)).ljust(40, b'\0')
            fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
    finally:
        s.close()


# --- the guest: initramfs, QEMU, control port -----------------------------------------

def find_kernel(kernel=None):
    """(vmlinuz, version): the newest /boot/vmlinuz-* with its modules."""
    if kernel:
        ver = os.path.basename(kernel).replace('vmlinuz-', '', 1)
        return kernel, ver
    found = []
    for name in os.listdir('/boot') if os.path.isdir('/boot') else []:
        if name.startswith('vmlinuz-'):
            ver = name[len('vmlinuz-'):]
            if os.path.exists('/lib/modules/%s/modules.dep' % ver):
                found.append(ver)
    if not found:
        raise SetupError('no /boot/vmlinuz-* with /lib/modules/*/modules.dep: '
                         'apt-get install linux-image-amd64')

    def key(v):
        return [int(x) if x.isdigit() else x for x in re.split(r'[.-]', v)]
    ver = sorted(found, key=key)[-1]
    return '/boot/vmlinuz-' + ver, ver


def is_static_elf(path):
    """No PT_INTERP program header: statically linked."""
    with open(path, 'rb') as f:
        hdr = f.read(64)
        if hdr[:4] != b'\x7fELF' or hdr[4] != 2:
            return False
        phoff = struct.unpack_from('<Q', hdr, 0x20)[0]
        phentsize, phnum = struct.unpack_from('<HH', hdr, 0x36)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    return all(struct.unpack_from('<I', ph, i * phentsize)[0] != 3 for i in range(phnum))


def module_order(kver, wanted):
    """Module paths from modules.dep, each after its dependencies."""
    moddir = '/lib/modules/' + kver
    deps = {}
    with open(moddir + '/modules.dep') as f:
        for line in f:
            path, _, rest = line.partition(':')
            deps[re.sub(r'\.ko.*$', '', os.path.basename(path)).replace('-', '_')] = \
                (path, rest.split())
    order, seen = [], set()

    def visit(name):
        name = name.replace('-', '_')
        if name in seen:
            return
        seen.add(name)
        if name not in deps:
            return          # built into the kernel
        path, needs = deps[name]
        for d in needs:
            visit(re.sub(r'\.ko.*$', '', os.path.basename(d)))
        order.append(path)
    for m in wanted:
        if m.replace('-', '_') not in deps:
            with open(moddir + '/modules.builtin') as f:
                if not any(os.path.basename(l.strip()).startswith(m + '.ko') for l in f):
                    raise SetupError('kernel %s has no module %s' % (kver, m))
        visit(m)
    return [os.path.join(moddir, p) for p in order]


def build_initramfs(workdir, kver, conf):
    """busybox + iproute2's ip + the tunnel modules + guest/*: a gzip'd newc
    cpio in workdir."""
    busybox = shutil.which('busybox') or '/bin/busybox'
    if not os.path.exists(busybox) or not is_static_elf(busybox):
        raise SetupError('%s is not a static busybox: apt-get install busybox-static' % busybox)
    ip_bin = '/usr/sbin/ip' if os.path.exists('/usr/sbin/ip') else '/sbin/ip'
    if not os.path.exists(ip_bin):
        raise SetupError('no iproute2 ip: apt-get install iproute2')
    if not shutil.which('cpio'):
        raise SetupError('no cpio: apt-get install cpio')
    stage = os.path.join(workdir, 'initramfs')
    for d in ('bin', 'sbin', 'proc', 'sys', 'dev', 'tmp', 'run', 'interop'):
        os.makedirs(os.path.join(stage, d))
    shutil.copy(busybox, os.path.join(stage, 'bin/busybox'))
    applets = run([busybox, '--list']).stdout.split()
    for a in applets:
        # `busybox` itself would become a self-loop; `ip` must be iproute2's.
        if a not in ('busybox', 'ip'):
            os.symlink('busybox', os.path.join(stage, 'bin', a))
    shutil.copy(ip_bin, os.path.join(stage, 'sbin/ip'))
    for lib in re.findall(r'(/\S+) \(0x', run(['ldd', ip_bin]).stdout):
        dst = stage + lib
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.realpath(lib), dst)
    mods = module_order(kver, KERNEL_MODULES)
    for m in mods:
        dst = stage + m
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(m, dst)
    with open(os.path.join(stage, 'interop/modules'), 'w') as f:
        f.write(''.join(m + '\n' for m in mods))
    shutil.copy(os.path.join(HERE, 'guest/init'), os.path.join(stage, 'init'))
    os.chmod(os.path.join(stage, 'init'), 0o755)
    shutil.copy(os.path.join(HERE, 'guest/peer.sh'), os.path.join(stage, 'interop/peer.sh'))
    with open(os.path.join(stage, 'interop/guest.conf'), 'w') as f:
        for k, v in conf.items():
            f.write("%s='%s'\n" % (k, v))
    with open(os.path.join(stage, 'interop/tunnels-new'), 'w') as f:
        f.write(''.join(line + '\n' for line in guest_new_lines()))
    out = os.path.join(workdir, 'initramfs.cpio.gz')
    run(['sh', '-c', 'cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1 > "$2"',
         'sh', stage, out], timeout=120)
    shutil.rmtree(stage)
    return out


def strip_console(text):
    text = text.replace('\r', '')
    return re.sub(r'\x1b(\[[0-9;?]*[A-Za-z]|[c78])', '', text)


class GuestCtl:
    """The guest's control port (ttyS1 behind a QEMU socket chardev)."""

    def __init__(self, path, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise SetupError('cannot connect to the guest control socket %s' % path)
                time.sleep(0.2)
        self.buf = b''
        self.seq = 0

    def run(self, cmd, timeout=GUEST_CMD_TIMEOUT):
        """(exit status, output) of a one-line shell command in the guest;
        status None on timeout."""
        if '\n' in cmd:
            raise ValueError('one line only')
        self.seq += 1
        tag = 'c%d' % self.seq
        self.sock.sendall(('%s %s\n' % (tag, cmd)).encode())
        end = re.compile(rb'@@END %s (\d+)\n' % tag.encode())
        deadline = time.monotonic() + timeout
        while True:
            m = end.search(self.buf)
            if m:
                out = self.buf[:m.start()]
                self.buf = self.buf[m.end():]
                return int(m.group(1)), out.decode(errors='replace')
            left = deadline - time.monotonic()
            if left <= 0:
                return None, self.buf.decode(errors='replace')
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                return None, self.buf.decode(errors='replace') + '\n(control socket closed)'
            self.buf += data

    def poweroff(self):
        try:
            self.sock.sendall(b'poweroff\n')
        except OSError:
            pass

    def close(self):
        self.sock.close()


# --- dpdk-fou ------------------------------------------------------------------------------

# The combination whose dpdk-fou starts with only --port 5555:ipip and gets
# everything else over its telemetry socket, a command per statement.
TELEMETRY_COMBO = 1
TELEMETRY_SCRIPT = '/usr/bin/dpdk-telemetry.py'
START_PORT = ('--port', '5555:ipip')


def telemetry_command(name, arg):
    """The telemetry command of a statement: /fou/NAME/add|set,ARG."""
    verb = 'set' if name in ('link', 'sport-range', 'icmp-rate') else 'add'
    return '/fou/%s/%s,%s' % (name.replace('-', '_'), verb, arg)


def gateway_opts(gw_csum):
    """dpdk-fou's statements for the FOU runs: TUNNELS, encap-csum on or off."""
    csum = 'encap-csum' if gw_csum else 'noencap-csum'
    opts = [
        '--link', '0,address=' + MAC_GW0,
        '--link', '1,address=' + MAC_GW1,
        '--addr', '0,%s/24' % GW_OUTER_IP,
        '--addr', '1,%s/24' % GW4,
        '--addr', '1,%s/64' % GW6,
    ]
    for port, kind in FOU_PORTS.items():
        opts += ['--port', '%d:%s' % (port, kind)]
    tunnels = set()
    for t in TUNNELS:
        if t['gw_dev'] not in tunnels:
            tunnels.add(t['gw_dev'])
            opts += ['--tunnel', '%s,type=%s,local=%s,remote=%s,ttl=%d,encap=fou,'
                     'encap-sport=auto,encap-dport=%d,%s' % (
                         t['gw_dev'], t['kind'], GW_OUTER_IP, GUEST_IP, OUTER_TTL,
                         t['port'], csum)]
        # the tunnel's address brings the route into it (connected)
        opts += ['--addr', '%s,%s/%d' % (t['gw_dev'], t['gw_addr'],
                                         24 if t['family'] == 4 else 64)]
        if not client_connected(t):
            opts += ['--route', '%s,dev=1,via=%s' % (
                t['client_net'], CLIENT4 if t['family'] == 4 else CLIENT6)]
    return opts


def new_ports(tunnels):
    """The (port, family) -> protocol of NEW_PORTS these tunnels use."""
    return {(port, fam): proto for (port, fam), proto in NEW_PORTS.items()
            if any(t['port'] == port and (':' in t['outer']) == (fam == 6) for t in tunnels)}


def gateway_new_opts(tunnels=NEW_TUNNELS):
    """dpdk-fou's statements for the new-tunnels run: the ports and tunnels
    of `tunnels` (of NEW_TUNNELS), an IPv6 underlay address on port 0 (the
    guest resolves it with ND)."""
    opts = ['--link', '0,address=' + MAC_GW0, '--link', '1,address=' + MAC_GW1,
            '--addr', '0,%s/24' % GW_OUTER_IP, '--addr', '0,%s/64' % GW_OUTER_IP6,
            '--addr', '1,%s/24' % GW4, '--addr', '1,%s/64' % GW6]
    for (port, fam), proto in sorted(new_ports(tunnels).items()):
        opts += ['--port', '%d:%s%s' % (port, proto, ',family=6' if fam == 6 else '')]
    for t in tunnels:
        common = 'encap=%s,encap-sport=auto,encap-dport=%d' % (t['encap'], t['port'])
        if t['kind'] in ('ipip', 'gre', 'sit'):
            spec = 'type=%s,local=%s,remote=%s,ttl=%d,%s,%s' % (
                t['kind'], GW_OUTER_IP, t['outer'], OUTER_TTL, common, csum_name(t['dcsum']))
        else:
            spec = 'type=%s%s,local=%s,remote=%s,hoplimit=%d%s,%s%s' % (
                t['kind'], ',mode=' + t['mode'] if t['mode'] else '', GW_OUTER_IP6, t['outer'],
                OUTER_TTL, ',encaplimit=' + t['dlimit'] if t['dlimit'] else '', common,
                ',encap-udp6-csum' if t['dcsum'] else ',noencap-udp6-csum')
        opts += ['--tunnel', '%s,%s' % (t['gw_dev'], spec),
                 '--addr', '%s,%s/%d' % (t['gw_dev'], t['gw_addr'], 24 if t['family'] == 4 else 64),
                 '--route', '%s,dev=1,via=%s' % (t['client_net'],
                                                 CLIENT4 if t['family'] == 4 else CLIENT6)]
    return opts


def gateway_peer_opts():
    """dpdk-fou's statements for the peer-config run (PEER_TUNNELS)."""
    opts = ['--link', '0,address=' + MAC_GW0, '--link', '1,address=' + MAC_GW1,
            '--addr', '0,%s/24' % GW_OUTER_IP,
            '--addr', '1,%s/24' % GW4, '--addr', '1,%s/64' % GW6]
    for port in PEER_GW_PORTS:
        opts += ['--port', port]
    for t in PEER_TUNNELS:
        opts += ['--tunnel', '%s,type=%s,local=%s,remote=%s,%s,encap=%s,encap-dport=%d' % (
            t['gw_dev'], t['kind'], GW_OUTER_IP, GUEST_IP, t['opts'], t['encap'], t['port'])]
        for a in t['addrs']:
            opts += ['--addr', '%s,%s' % (t['gw_dev'], a)]
    for t in PEER_TUNNELS:
        for r in t['routes']:
            prefix, rest = r.split(',', 1)
            opts += ['--route', '%s,dev=%s,%s' % (prefix, t['gw_dev'], rest)]
    return opts


class Gateway:
    """dpdk-fou in the gateway namespace on the tap and the veth; with
    via_telemetry, started with only --port 5555:ipip and configured by
    telemetry commands once it runs."""

    seq = 0

    def __init__(self, binary, workdir, gw_csum, via_telemetry=False, port0=None, new=None,
                 peer=False):
        Gateway.seq += 1
        self.prefix = 'fou-interop-%d-%d' % (os.getpid(), Gateway.seq)
        opts = gateway_peer_opts() if peer else gateway_new_opts(new) if new else \
            gateway_opts(gw_csum)
        self.nports = sum(o == '--port' for o in opts)
        self.via_telemetry = via_telemetry
        self.commands = []
        self.replies = ''
        if via_telemetry:
            pairs = [(opts[i][2:], opts[i + 1]) for i in range(0, len(opts), 2)]
            self.commands = [telemetry_command(n, a) for n, a in pairs
                             if ('--' + n, a) != START_PORT]
            opts = list(START_PORT)
        # qdisc_bypass=0: what the PMD sends passes the kernel's packet taps,
        # so dumpcap on the same interface sees it. port0: another vdev for
        # port 0 (see outer_reasm()).
        cmd = [binary, '-l', '0-1', '--no-huge', '-m', '512', '--no-pci',
               '--file-prefix', self.prefix, '--log-level=lib.eal:warning',
               '--vdev', port0 or 'net_af_packet0,iface=%s,qdisc_bypass=0' % TAP,
               '--vdev', 'net_af_packet1,iface=%s,qdisc_bypass=0' % VETH_GW,
               '--'] + opts
        self.proc = Proc('dpdk-fou', cmd, os.path.join(workdir, '%s.log' % self.prefix),
                         ns=NS_GW)
        self.status = None

    def wait_ready(self, timeout=30):
        """True once the configuration is printed (ports started, workers
        about to launch) and, with via_telemetry, every command answered
        ok."""
        deadline = time.monotonic() + timeout
        ports = 1 if self.via_telemetry else self.nports
        while time.monotonic() < deadline:
            out = self.proc.output()
            if len(re.findall(r'^fou port \d+', out, re.M)) >= ports:
                time.sleep(0.5)
                return self.proc.running() and self.configure()
            if not self.proc.running():
                return False
            time.sleep(0.1)
        return False

    def configure(self):
        """Send the statements as telemetry commands, one session; True if
        every one answered {"status": "ok"}."""
        if not self.commands:
            return True
        p = subprocess.run([PYTHON, TELEMETRY_SCRIPT, '-f', self.prefix],
                           input=''.join(c + '\n' for c in self.commands),
                           capture_output=True, text=True, timeout=60)
        replies = [json.loads(line) for line in p.stdout.splitlines()
                   if line.startswith('{')]
        self.replies = '\n'.join('%s -> %s' % (c, json.dumps(r))
                                 for c, r in zip(self.commands, replies))
        return len(replies) == len(self.commands) and all(
            r == {c.split(',', 1)[0]: {'status': 'ok'}}
            for c, r in zip(self.commands, replies))

    def query(self, cmd):
        """One telemetry read command's reply (a dict), or None."""
        p = subprocess.run([PYTHON, TELEMETRY_SCRIPT, '-f', self.prefix], input=cmd + '\n',
                           capture_output=True, text=True, timeout=30)
        for line in p.stdout.splitlines():
            if line.startswith('{'):
                return json.loads(line).get(cmd.split(',', 1)[0])
        return None

    def stop(self):
        self.status = self.proc.stop(signal.SIGTERM, timeout=15)
        shutil.rmtree('/var/run/dpdk/' + self.prefix, ignore_errors=True)
        return self.status

    def command(self):
        return ' '.join(self.proc.cmd)


# --- traffic from the client namespace (run as subcommands of this script) -------------------

def client_tcp(dst, port, nbytes, timeout):
    """Send nbytes random bytes to the guest's echo server and read the echo
    back, all within timeout seconds; a dict with the verdict."""
    data = os.urandom(nbytes)
    fam = socket.AF_INET6 if ':' in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    deadline = time.monotonic() + timeout
    res = dict(sent=0, received=0, ok=False, error=None)
    errors = []
    t0 = time.monotonic()

    def sender():
        view = memoryview(data)
        try:
            while view:
                n = s.send(view[:1 << 16])
                view = view[n:]
                res['sent'] += n
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            errors.append('send after %d bytes: %r' % (res['sent'], e))
    chunks = []
    th = None
    try:
        s.settimeout(timeout)
        s.connect((dst, port))
        th = threading.Thread(target=sender, daemon=True)
        th.start()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout('no end of the echo within %.0f s' % timeout)
            s.settimeout(left)
            b = s.recv(1 << 16)
            if not b:
                break
            chunks.append(b)
            res['received'] += len(b)
    except OSError as e:
        errors.append('%r' % e)
    finally:
        s.close()       # also ends a sender still blocked
        if th is not None:
            th.join(5)
    got = b''.join(chunks)
    res['ok'] = got == data and not errors
    if got != data:
        n = min(len(got), len(data))
        res['first_difference'] = next((i for i in range(n) if got[i] != data[i]), n)
    res['sha256_sent'] = hashlib.sha256(data).hexdigest()
    res['sha256_received'] = hashlib.sha256(got).hexdigest()
    res['error'] = '; '.join(errors) or None
    res['seconds'] = round(time.monotonic() - t0, 2)
    return res


def client_pmtu(dst, size, timeout):
    """Send one UDP datagram of `size` bytes of IP with DF (IPv6: never
    fragmented) and read the ICMP error back from the socket's error queue:
    a dict with the error's origin, type, code, MTU and source."""
    v6 = ':' in dst
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if v6:
        s.setsockopt(41, 23, 2)     # IPV6_MTU_DISCOVER = IPV6_PMTUDISC_DO
        s.setsockopt(41, 25, 1)     # IPV6_RECVERR
        payload = size - 40 - 8
    else:
        s.setsockopt(0, 10, 2)      # IP_MTU_DISCOVER = IP_PMTUDISC_DO
        s.setsockopt(0, 11, 1)      # IP_RECVERR
        payload = size - 20 - 8
    s.connect((dst, 9))
    res = dict(sent=False, error=None)
    try:
        s.send(b'\xa5' * payload)
        res['sent'] = True
    except OSError as e:
        res['error'] = 'send: %r' % e
        return res
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            _, anc, _, _ = s.recvmsg(2048, 512, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except BlockingIOError:
            time.sleep(0.05)
            continue
        for level, typ, data in anc:
            if (level, typ) in ((0, 11), (41, 25)):
                errno_, origin, etype, code, _, info, _ = struct.unpack_from('IBBBBII', data)
                off = data[16:]
                if v6:
                    src = socket.inet_ntop(socket.AF_INET6, off[8:24])
                else:
                    src = socket.inet_ntop(socket.AF_INET, off[4:8])
                res.update(errno=errno_, origin=origin, type=etype, code=code, mtu=info,
                           source=src)
                return res
    res['error'] = 'no ICMP error within %.1f s' % timeout
    return res


def client_big(dst, size):
    """One UDP datagram of `size` bytes of IPv4 without DF, sent whole up to
    the link's MTU whatever path MTU the client learnt before
    (IP_PMTUDISC_OMIT; DONT would cut it to a learnt one, INTERFACE refuse
    it over the MTU)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(0, 10, 5)          # IP_MTU_DISCOVER = IP_PMTUDISC_OMIT
    try:
        s.sendto(b'\x5a' * (size - 20 - 8), (dst, ECN_PORT))
    except OSError as e:
        return dict(ok=False, error='send: %r' % e)
    finally:
        s.close()
    return dict(ok=True)


ECN_NAMES = ('Not-ECT', 'ECT(1)', 'ECT(0)', 'CE')
ECN_PORT = 9            # discard: the guest answers port unreachable


def client_ecn(dst):
    """One UDP datagram per ECN codepoint (0-3), payload 'ecnN'."""
    v6 = ':' in dst
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    for ecn in range(4):
        if v6:
            s.setsockopt(41, 67, ecn)   # IPV6_TCLASS
        else:
            s.setsockopt(0, 1, ecn)     # IP_TOS
        s.sendto(b'ecn%d' % ecn, (dst, ECN_PORT))
    s.close()
    return dict(ok=True)


def client_main(argv):
    ap = argparse.ArgumentParser(prog='test_linux_peer.py --client')
    ap.add_argument('what', choices=('tcp', 'pmtu', 'ecn', 'big'))
    ap.add_argument('dst')
    ap.add_argument('--port', type=int, default=ECHO_PORT)
    ap.add_argument('--bytes', type=int, default=1 << 20)
    ap.add_argument('--size', type=int, default=1500)
    ap.add_argument('--timeout', type=float, default=30)
    a = ap.parse_args(argv)
    if a.what == 'tcp':
        res = client_tcp(a.dst, a.port, a.bytes, a.timeout)
    elif a.what == 'ecn':
        res = client_ecn(a.dst)
    elif a.what == 'big':
        res = client_big(a.dst, a.size)
    else:
        res = client_pmtu(a.dst, a.size, a.timeout)
    print(json.dumps(res))
    return 0


def offloads_main(argv):
    for ifname in argv:
        offloads_off(ifname)
    return 0


# --- checks ---------------------------------------------------------------------------------

class Checks:
    def __init__(self):
        self.results = []

    def check(self, name, ok, detail=''):
        self.results.append((name, bool(ok), detail))
        line = '%-4s %s' % ('PASS' if ok else 'FAIL', name)
        if not ok and detail:
            line += '\n       ' + detail.replace('\n', '\n       ')
        print(line, flush=True)
        return ok

    def failed(self):
        return [r for r in self.results if not r[1]]


# --- capture analysis ------------------------------------------------------------------------

TSHARK_FIELDS = ('frame.number', 'frame.time_epoch', 'ip.src', 'ip.dst', 'ip.ttl',
                 'ip.flags.df', 'ip.proto', 'ip.dsfield.ecn', 'udp.srcport', 'udp.dstport',
                 'udp.checksum', 'udp.checksum.status', 'gre.proto', 'ipv6.src', 'ipv6.dst',
                 'ipv6.nxt', 'ipv6.hlim', 'ipv6.tclass.ecn', 'tcp.srcport', 'tcp.dstport',
                 'icmp.type', 'icmp.ident', 'icmpv6.type', 'icmpv6.echo.identifier',
                 '_ws.expert.severity', '_ws.expert.message', 'data.data')
EXPERT_ERROR = 0x00800000       # PI_ERROR
DECODE_AS = dict(ipip='ip', gre='gre', sit='ipv6', gue='data')  # Wireshark 4.0 has no GUE
GRE_PROTO = {4: '0x0800', 6: '0x86dd'}


def tshark_rows(tshark, pcap, display_filter, decode=None):
    """One dict per frame: field -> list of values. FOU is decoded with
    decode-as (Wireshark 4.0 maps a UDP port to ip, gre or ipv6); the TCP
    payload goes to the data dissector, so no application dissector (port
    7000 is Gryphon's) reports errors on segments of a byte stream."""
    cmd = [tshark, '-n', '-r', pcap,
           '-o', 'ip.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE',
           '-o', 'tcp.check_checksum:TRUE', '-o', 'tcp.desegment_tcp_streams:FALSE',
           '-d', 'tcp.port==%d,data' % ECHO_PORT]
    for port, kind in (decode or FOU_PORTS).items():
        cmd += ['-d', 'udp.port==%d,%s' % (port, DECODE_AS[kind])]
    cmd += ['-Y', display_filter, '-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=a',
            '-E', 'aggregator=|']
    for f in TSHARK_FIELDS:
        cmd += ['-e', f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SetupError('tshark failed (%d): %s' % (p.returncode, p.stderr.strip()))
    rows = []
    for line in p.stdout.splitlines():
        cols = line.split('\t') + [''] * len(TSHARK_FIELDS)
        rows.append({f: (c.split('|') if c else []) for f, c in zip(TSHARK_FIELDS, cols)})
    return rows


def expert_errors(row, ignore=()):
    errs = []
    for sev, msg in zip(row['_ws.expert.severity'], row['_ws.expert.message'] + [''] * 99):
        try:
            v = int(sev, 0)
        except ValueError:
            continue
        if v >= EXPERT_ERROR and msg not in ignore:
            errs.append(msg or 'severity %s' % sev)
    return errs


def inner_flow(row, t):
    """(inner src, inner dst, protocol, ports or ICMP type/id) of a FOU packet,
    or None if it does not decode as the tunnel's inner protocol."""
    if t['family'] == 4:
        if len(row['ip.src']) < 2:
            return None
        src, dst, proto = row['ip.src'][1], row['ip.dst'][1], row['ip.proto'][-1]
    else:
        if not row['ipv6.src']:
            return None
        src, dst, proto = row['ipv6.src'][0], row['ipv6.dst'][0], row['ipv6.nxt'][0]
    if t['kind'] == 'gre' and row['gre.proto'][:1] != [GRE_PROTO[t['family']]]:
        return None
    if row['tcp.srcport']:
        l4 = ('tcp', row['tcp.srcport'][0], row['tcp.dstport'][0])
    elif row['icmp.type']:
        l4 = ('icmp', row['icmp.type'][0], (row['icmp.ident'] or ['-'])[0])
    elif row['icmpv6.type']:
        l4 = ('icmpv6', row['icmpv6.type'][0], (row['icmpv6.echo.identifier'] or ['-'])[0])
    elif len(row['udp.srcport']) > 1:
        # inner UDP (after the outer): two sockets are two flows
        l4 = ('udp', row['udp.srcport'][1], row['udp.dstport'][1])
    else:
        # (a fragment but the last: Linux hashes every fragment of a
        # datagram without its ports, so they are a flow of their own)
        l4 = (proto,)
    return (src, dst) + l4


def carries(row, t):
    """Is this FOU packet one of t's: its port, and for GRE its inner
    protocol?"""
    if row['udp.dstport'][:1] != [str(t['port'])]:
        return False
    return t['kind'] != 'gre' or row['gre.proto'][:1] == [GRE_PROTO[t['family']]]


def analyse_window(checks, label, rows, guest_csum, gw_csum, tunnels):
    """The checks on the FOU packets of one run of dpdk-fou."""
    sent = [r for r in rows if r['ip.src'][:1] == [GW_OUTER_IP]]
    from_guest = [r for r in rows if r['ip.src'][:1] == [GUEST_IP]]
    for t in tunnels:
        mine = [r for r in sent if carries(r, t)]
        n = t['name']
        if not checks.check('%s: %s: capture has FOU packets from dpdk-fou' % (label, n),
                            mine, 'no UDP packet from %s to port %d on the tap'
                            % (GW_OUTER_IP, t['port'])):
            continue
        # what dpdk-fou itself sent into the tunnel: the echo replies to the
        # guest's pings of the tunnel's address (see local_stack()); the
        # rest is the client's traffic it forwarded
        own = [r for r in mine if (inner_flow(r, t) or ('',))[0] == t['gw_addr']]
        mine = [r for r in mine if r not in own]
        want = ('icmp', '0') if t['family'] == 4 else ('icmpv6', '129')
        bad = ['frame %s: %s' % (r['frame.number'][0], '; '.join(expert_errors(r)) or
                                 'inner %s, TTL/hop limit %s' % (
                                     inner_flow(r, t), r['ip.ttl'][1:2] or r['ipv6.hlim'][:1]))
               for r in own
               if expert_errors(r) or inner_flow(r, t)[1] != t['guest'] or
               inner_flow(r, t)[2:4] != want or
               (r['ip.ttl'][1:2] if t['family'] == 4 else r['ipv6.hlim'][:1]) != ['64']]
        checks.check('%s: %s: %d echo replies from dpdk-fou\'s tunnel address %s to the guest, '
                     'TTL/hop limit 64, no expert error' % (label, n, len(own), t['gw_addr']),
                     own and not bad, '\n'.join(bad[:10]))
        bad = []
        for r in mine:
            errs = expert_errors(r)
            flow = inner_flow(r, t)
            if errs:
                bad.append('frame %s: %s' % (r['frame.number'][0], '; '.join(errs)))
            elif flow is None:
                bad.append('frame %s: does not decode as FOU/%s' % (r['frame.number'][0], n))
            elif flow[0] != t['client'] or \
                    ipaddress.ip_address(flow[1]) not in ipaddress.ip_network(t['inner_net']):
                bad.append('frame %s: inner %s -> %s is not client -> %s network'
                           % (r['frame.number'][0], flow[0], flow[1], n))
        checks.check('%s: %s: all %d FOU packets from dpdk-fou decode without expert errors'
                     % (label, n, len(mine)), not bad, '\n'.join(bad[:10]))
        bad = []
        for r in mine:
            ck, st = r['udp.checksum'][:1], r['udp.checksum.status'][:1]
            if gw_csum and (ck == ['0x0000'] or st != ['1']):
                bad.append('frame %s: checksum %s status %s (want non-zero and good)'
                           % (r['frame.number'][0], ck, st))
            if not gw_csum and ck != ['0x0000']:
                bad.append('frame %s: checksum %s (want 0x0000)' % (r['frame.number'][0], ck))
        checks.check('%s: %s: dpdk-fou UDP checksums %s' % (
            label, n, 'valid' if gw_csum else 'zero'), not bad, '\n'.join(bad[:10]))
        bad = []
        for r in mine:
            ttl, df = r['ip.ttl'][:1], r['ip.flags.df'][:1]
            if ttl != [str(OUTER_TTL)] or df not in (['1'], ['True']) \
                    or r['ip.dst'][:1] != [GUEST_IP]:
                bad.append('frame %s: dst %s ttl %s df %s (want %s, %d, set)' % (
                    r['frame.number'][0], r['ip.dst'][:1], ttl, df, GUEST_IP, OUTER_TTL))
        checks.check('%s: %s: outer TTL %d, DF set, to %s' % (label, n, OUTER_TTL, GUEST_IP),
                     not bad, '\n'.join(bad[:10]))
        # Everything dpdk-fou sends into a tunnel comes from the client,
        # whose TTL / hop limit is 64: one hop through dpdk-fou leaves 63.
        inner_ttl = [(r['ip.ttl'][1:2] if t['family'] == 4 else r['ipv6.hlim'][:1])
                     for r in mine]
        bad = ['frame %s: %s' % (r['frame.number'][0], v)
               for r, v in zip(mine, inner_ttl) if v != ['63']]
        checks.check('%s: %s: inner %s 63 (the client\'s 64, one hop)' % (
            label, n, 'TTL' if t['family'] == 4 else 'hop limit'), not bad, '\n'.join(bad[:10]))
        # RFC 6040 normal mode, as Linux' INET_ECN_encapsulate: the outer
        # ECN field is the inner one, CE sent as ECT(0); the inner unchanged.
        seen, bad = {}, []
        for r in mine:
            if r['udp.dstport'][1:2] != [str(ECN_PORT)]:
                continue
            outer = int(r['ip.dsfield.ecn'][0])
            inner = int((r['ip.dsfield.ecn'][1:2] if t['family'] == 4
                         else r['ipv6.tclass.ecn'][:1])[0])
            seen[inner] = outer
            if outer != (2 if inner == 3 else inner):
                bad.append('frame %s: inner %s, outer %s' % (
                    r['frame.number'][0], ECN_NAMES[inner], ECN_NAMES[outer]))
        missing = [ECN_NAMES[e] for e in range(4) if e not in seen]
        checks.check('%s: %s: outer ECN from the inner (%s)' % (
            label, n, ', '.join('%s -> %s' % (ECN_NAMES[i], ECN_NAMES[o])
                                for i, o in sorted(seen.items()))),
            not bad and not missing,
            '\n'.join(bad[:10] + ['no packet with inner %s' % m for m in missing]))
        flows = collections.defaultdict(set)
        for r in mine:
            f = inner_flow(r, t)
            if f is not None:
                flows[f].add(r['udp.srcport'][0])
        unstable = ['%s: source ports %s' % (' '.join(f), sorted(p))
                    for f, p in flows.items() if len(p) != 1]
        checks.check('%s: %s: UDP source port stable per inner flow (%d flows, ports %s)' % (
            label, n, len(flows), sorted({p for ps in flows.values() for p in ps})),
            flows and not unstable, '\n'.join(unstable[:10]))
        theirs = [r for r in from_guest if carries(r, t)]
        bad = [r['frame.number'][0] for r in theirs
               if (r['udp.checksum'][:1] != ['0x0000']) != bool(guest_csum)
               or (guest_csum and r['udp.checksum.status'][:1] != ['1'])]
        checks.check('%s: %s: guest sent FOU with %s (test set-up)' % (
            label, n, 'valid checksums' if guest_csum else 'checksum zero'),
            theirs and not bad, 'frames %s' % bad[:10] if theirs else 'no FOU from the guest')


GUE_PROTO = dict(ipip=4, sit=41, gre=47, ip6gre=47)
ZERO_CSUM6 = 'Illegal checksum value (0)'   # tshark's word for UDP/IPv6 checksum 0


def new_inner_proto(t):
    """The IP protocol a tunnel of NEW_TUNNELS carries after UDP (GUE's
    protocol field)."""
    if t['kind'] == 'ip6tnl':
        return 4 if t['mode'] == 'ipip6' else 41
    return GUE_PROTO[t['kind']]


def new_carries(row, t, src, dst):
    """Is this UDP packet t's, from src to dst (outer addresses)?"""
    six = ':' in src
    osrc, odst = (row['ipv6.src'], row['ipv6.dst']) if six else (row['ip.src'], row['ip.dst'])
    if osrc[:1] != [src] or odst[:1] != [dst] or row['udp.dstport'][:1] != [str(t['port'])]:
        return False
    if t['encap'] == 'gue':
        # GUE ports are shared: the protocol field says whose
        return (row['data.data'] or [''])[0][2:4] == '%02x' % new_inner_proto(t)
    return True


def analyse_new_window(checks, label, rows, tunnels):
    """The checks on the packets of the new-tunnels run: per tunnel, both
    sides' UDP checksums as configured, dpdk-fou's GUE header as Linux's
    __gue_build_header writes it, its IPv6 hop limit and encapsulation limit
    header as configured, no expert error (FOU packets decode inside)."""
    for t in tunnels:
        n, six = t['name'], ':' in t['outer']
        mine = [r for r in rows if new_carries(r, t, t['gw_outer'], t['outer'])]
        theirs = [r for r in rows if new_carries(r, t, t['outer'], t['gw_outer'])]
        # (no `continue` when there are none: the guest's checks below
        # still say whether Linux sent what it was told to)
        checks.check('%s: %s: capture has packets from dpdk-fou to %s port %d' % (
            label, n, t['outer'], t['port']), mine, 'none on the tap')
        ignore = (ZERO_CSUM6,) if six and not t['dcsum'] else ()
        bad = ['frame %s: %s' % (r['frame.number'][0], '; '.join(expert_errors(r, ignore)))
               for r in mine if expert_errors(r, ignore)]
        checks.check('%s: %s: all %d packets from dpdk-fou decode without expert errors%s' % (
            label, n, len(mine), ' (FOU: inner included)' if t['encap'] == 'fou' else ''),
            mine and not bad, '\n'.join(bad[:10]))
        for who, pkts, on in (('dpdk-fou', mine, t['dcsum']), ('guest (test set-up)', theirs,
                                                                t['gcsum'])):
            bad = ['frame %s: checksum %s status %s' % (
                r['frame.number'][0], r['udp.checksum'][:1], r['udp.checksum.status'][:1])
                for r in pkts
                if (on and (r['udp.checksum'][:1] == ['0x0000'] or
                            r['udp.checksum.status'][:1] != ['1'])) or
                (not on and r['udp.checksum'][:1] != ['0x0000'])]
            checks.check('%s: %s: %s sent %d packets with UDP checksums %s' % (
                label, n, who, len(pkts), 'valid' if on else 'zero'),
                pkts and not bad, '\n'.join(bad[:10]) or 'no packets')
        if t['encap'] == 'gue':
            want = '00%02x0000' % new_inner_proto(t)
            bad = ['frame %s: %s' % (r['frame.number'][0], r['data.data'][0][:8])
                   for r in mine if r['data.data'][0][:8] != want]
            checks.check('%s: %s: dpdk-fou\'s GUE header %s (version 0, no flags, protocol %d)'
                         % (label, n, want, new_inner_proto(t)), mine and not bad,
                         '\n'.join(bad[:10]))
        if six:
            for who, pkts, limit in (('dpdk-fou', mine, t['dlimit']),
                                     ('guest (test set-up)', theirs, t['glimit'])):
                nxt = '17' if limit == 'none' else '60'
                bad = ['frame %s: hop limit %s, next header %s' % (
                    r['frame.number'][0], r['ipv6.hlim'][:1], r['ipv6.nxt'][:1])
                    for r in pkts if r['ipv6.hlim'][:1] != [str(OUTER_TTL)] or
                    r['ipv6.nxt'][:1] != [nxt]]
                checks.check('%s: %s: %s: outer hop limit %d, %s' % (
                    label, n, who, OUTER_TTL, 'no destination options header'
                    if limit == 'none' else 'destination options (encapsulation limit) '
                    'before UDP'), pkts and not bad, '\n'.join(bad[:10]) or 'no packets')


# --- outer reassembly against Linux's own fragmentation (issue 17) -----------------------------
#
# net_af_packet cannot take this case: its queues join a fanout with
# PACKET_FANOUT_FLAG_DEFRAG, so the gateway namespace's kernel reassembles the
# outer fragments before dpdk-fou reads them. For this case port 0 is a
# net_tap whose kernel interface is bridged with QEMU's tap: a Linux bridge
# hands frames on as they came (bridge-nf-call-* is turned off in the
# namespace, so no netfilter defragmentation either), and dpdk-fou reads the
# guest's fragments as the guest sent them. --reasm-port0 af_packet runs the
# case on the af_packet port instead, to show the difference: the ping gets
# through but the reassembly checks fail.
REASM_BRIDGE = 'gbr'
REASM_TAP = 'gd0'                       # net_tap's kernel interface, port 0 in this case
# Neither bridge port may carry the gateway's MAC (QEMU's tap has it for the
# af_packet runs): a bridge delivers a frame for one of its ports' own MACs
# to its own stack, not out of a port.
MAC_REASM_TAP = '02:f0:00:63:00:0b'
MAC_REASM_BRIDGED = '02:f0:00:63:00:0c'
REASM_PATH_MTU = 576                    # the guest's outer link during the case
REASM_PAYLOAD = 1400                    # ICMP payload: an inner packet of 1428 bytes


def reasm_fragments(payload, mtu):
    """Outer fragments of one ping through fou_ipip on a link of MTU mtu:
    inner IPv4 + ICMP + payload inside UDP, cut as ip_fragment() does (every
    fragment but the last carries a multiple of 8 bytes)."""
    outer_payload = 8 + 20 + 8 + payload
    per = (mtu - 20) // 8 * 8
    return -(-outer_payload // per)


def reasm_rows(tshark, pcap, display_filter, fields):
    """One dict of field values per frame (the first occurrence: the outer
    header), IP reassembly in tshark off: each frame as it was on the wire."""
    cmd = [tshark, '-n', '-r', pcap, '-o', 'ip.defragment:FALSE',
           '-o', 'ip.check_checksum:TRUE', '-d', 'udp.port==5555,ip',
           '-Y', display_filter, '-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=f']
    for f in fields:
        cmd += ['-e', f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SetupError('tshark failed (%d): %s' % (p.returncode, p.stderr.strip()))
    return [dict(zip(fields, line.split('\t'))) for line in p.stdout.splitlines()]


# --- the test -------------------------------------------------------------------------------

class InteropTest:
    def __init__(self, args):
        self.a = args
        self.checks = Checks()
        self.cleanups = []
        self.guest = None
        self.qemu = None
        self.gw = None
        self.workdir = None
        self.windows = []
        self.reasm_window = None
        self.new_window = None
        self.new_tunnels = []

    # -- set-up ------------------------------------------------------------------------------

    def preflight(self):
        if os.geteuid() != 0:
            raise SetupError('must run as root (network namespaces, tap, af_packet)')
        if not os.path.exists('/dev/net/tun'):
            raise SetupError('no /dev/net/tun: the tap for QEMU cannot be created')
        for tool, package in (('ip', 'iproute2'), (self.a.qemu, 'qemu-system-x86'),
                              (self.a.tshark, 'tshark'), (self.a.dumpcap, 'tshark'),
                              ('busybox', 'busybox-static'), ('cpio', 'cpio')):
            if not shutil.which(tool):
                raise SetupError('missing %s (apt-get install %s)' % (tool, package))
        if not self.a.hold and not os.access(self.a.gateway, os.X_OK):
            raise SetupError('no dpdk-fou binary at %s' % self.a.gateway)
        if not self.a.hold and self.a.peer_run and not os.access(self.a.fouctl, os.X_OK):
            raise SetupError('no fouctl binary at %s (--fouctl, or --peer-run off)'
                             % self.a.fouctl)
        for ns in (NS_CLIENT, NS_GW):
            if os.path.exists('/run/netns/' + ns):
                raise SetupError('namespace %s exists already' % ns)

    def add_cleanup(self, fn, *args):
        self.cleanups.append((fn, args))

    def cleanup(self):
        for fn, args in reversed(self.cleanups):
            try:
                fn(*args)
            except Exception as e:      # keep cleaning up
                log('cleanup %s: %s' % (getattr(fn, '__name__', fn), e))
        self.cleanups = []

    def start(self, name, cmd, ns=None):
        return Proc(name, cmd, os.path.join(self.workdir, name + '.log'), ns=ns)

    def setup_namespaces(self):
        run(['ip', 'netns', 'add', NS_GW])
        self.add_cleanup(run, ['ip', 'netns', 'del', NS_GW], None, False)
        run(['ip', 'netns', 'add', NS_CLIENT])
        self.add_cleanup(run, ['ip', 'netns', 'del', NS_CLIENT], None, False)
        for ns in (NS_GW, NS_CLIENT):
            run(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
        run(['ip', 'link', 'add', 'name', VETH_CLIENT, 'address', MAC_CLIENT, 'netns', NS_CLIENT,
             'type', 'veth', 'peer', 'name', VETH_GW, 'address', MAC_GW1, 'netns', NS_GW])
        run(['ip', '-n', NS_GW, 'tuntap', 'add', 'dev', TAP, 'mode', 'tap'])
        self.add_cleanup(run, ['ip', '-n', NS_GW, 'link', 'del', TAP], None, False)
        run(['ip', '-n', NS_GW, 'link', 'set', TAP, 'address', MAC_GW0])
        # The gateway namespace's kernel must stay silent on both ports: no
        # addresses, no IPv6 (no link-local, no router solicitations).
        for dev in (TAP, VETH_GW):
            sysctl(NS_GW, 'net.ipv6.conf.%s.disable_ipv6' % dev, 1)
        run([PYTHON, SELF, '--offloads-off', VETH_GW], ns=NS_GW)
        run(['ip', '-n', NS_GW, 'link', 'set', TAP, 'up'])
        run(['ip', '-n', NS_GW, 'link', 'set', VETH_GW, 'up'])

        # The client: no static neighbour (it resolves dpdk-fou with ARP and
        # ND, as dpdk-fou resolves it), no DAD, no link-local address, no
        # router solicitations.
        for k, v in (('accept_dad', 0), ('addr_gen_mode', 1), ('router_solicitations', 0)):
            sysctl(NS_CLIENT, 'net.ipv6.conf.%s.%s' % (VETH_CLIENT, k), v)
        run([PYTHON, SELF, '--offloads-off', VETH_CLIENT], ns=NS_CLIENT)
        c = ['ip', '-n', NS_CLIENT]
        run(c + ['addr', 'add', CLIENT4 + '/24', 'dev', VETH_CLIENT])
        run(c + ['-6', 'addr', 'add', CLIENT6 + '/64', 'dev', VETH_CLIENT, 'nodad'])
        for t in TUNNELS + NEW_TUNNELS:
            if not client_connected(t):
                run(c + ['addr', 'add', t['client'], 'dev', VETH_CLIENT, 'nodad'])
        run(c + ['link', 'set', VETH_CLIENT, 'up'])
        for t in TUNNELS + NEW_TUNNELS:
            run(c + ['route', 'add', t['inner_net'], 'via', GW4 if t['family'] == 4 else GW6,
                     'src', t['client']])
        for t in PEER_TUNNELS:
            run(c + ['route', 'add', t['net'], 'via', GW4 if t['family'] == 4 else GW6,
                     'src', t['client']])

    def start_capture(self):
        self.pcaps = {}
        for dev in (TAP, VETH_GW):
            path = os.path.join(self.workdir, dev + '.pcap')
            p = self.start('dumpcap-' + dev, [self.a.dumpcap, '-q', '-i', dev, '-P', '-w', path],
                           ns=NS_GW)
            self.add_cleanup(p.stop, signal.SIGINT)
            self.pcaps[dev] = path
        deadline = time.monotonic() + 15
        while not all(os.path.exists(p) and os.path.getsize(p) >= 24 for p in self.pcaps.values()):
            if time.monotonic() > deadline:
                raise SetupError('dumpcap did not start (see dumpcap-*.log in %s)' % self.workdir)
            time.sleep(0.1)

    def boot_guest(self, guest_csum):
        kernel, kver = find_kernel(self.a.kernel)
        conf = dict(GUEST_IP=GUEST_IP, OUTER_PLEN=24, GW_IP=GW_OUTER_IP, GW_MAC=MAC_GW0,
                    GUEST_IP6=' '.join(GUEST_IP6),
                    TTL=OUTER_TTL, ENCAP_CSUM=guest_csum, ECHO_PORT=ECHO_PORT,
                    CTL_TTY='/dev/ttyS1')
        for t in TUNNELS:
            u = t['name'].upper()
            conf[u + '_PORT'] = t['port']
            conf[u + '_GUEST'] = t['guest']
            conf[u + '_CLIENT'] = t['client_net']
        t0 = time.monotonic()
        initrd = build_initramfs(self.workdir, kver, conf)
        log('initramfs for %s built in %.1f s' % (kver, time.monotonic() - t0))
        self.console = os.path.join(self.workdir, 'console.log')
        self.ctl_path = os.path.join(self.workdir, 'ctl.sock')
        cmd = [self.a.qemu, '-name', 'fou-interop', '-machine', 'pc', '-accel', self.a.accel,
               '-cpu', 'max' if self.a.accel == 'tcg' else 'host', '-smp', '1', '-m', '256',
               '-display', 'none', '-nodefaults', '-no-reboot',
               '-kernel', kernel, '-initrd', initrd,
               '-append', 'console=ttyS0 quiet panic=-1 mitigations=off',
               '-chardev', 'file,id=con,path=' + self.console, '-serial', 'chardev:con',
               '-chardev', 'socket,id=ctl,path=%s,server=on,wait=off' % self.ctl_path,
               '-serial', 'chardev:ctl',
               # vnet_hdr=off: no offloads between guest and tap, the frames
               # on the tap are what a wire would carry.
               '-netdev', 'tap,id=n0,ifname=%s,script=no,downscript=no,vnet_hdr=off' % TAP,
               '-device', 'virtio-net-pci,netdev=n0,mac=%s,romfile=' % MAC_GUEST]
        t0 = time.monotonic()
        self.qemu = self.start('qemu', cmd, ns=NS_GW)
        self.add_cleanup(self.stop_guest)
        while True:
            text = strip_console(open(self.console, errors='replace').read()) \
                if os.path.exists(self.console) else ''
            # SERVING: the control port is in raw mode (input sent earlier
            # would be echoed and then flushed by stty).
            if re.search(r'^@@GUEST SERVING', text, re.M):
                break
            if re.search(r'^@@GUEST (FATAL|POWEROFF)', text, re.M) or not self.qemu.running():
                raise SetupError('the guest did not come up:\n%s\n%s' % (
                    '\n'.join(text.splitlines()[-30:]), self.qemu.output()[-2000:]))
            if time.monotonic() - t0 > BOOT_TIMEOUT:
                raise SetupError('the guest was not ready after %d s; console:\n%s' % (
                    BOOT_TIMEOUT, '\n'.join(text.splitlines()[-30:])))
            time.sleep(0.3)
        log('guest ready after %.1f s' % (time.monotonic() - t0))
        failed = re.findall(r'^@@GUEST (?:FAILED|WARN) .*', text, re.M)
        if failed:
            raise SetupError('guest set-up: ' + '; '.join(failed))
        self.guest = GuestCtl(self.ctl_path)
        rc, out = self.guest.run('echo ok')
        if rc != 0 or 'ok' not in out:
            raise SetupError('the guest control port does not answer: %r' % out)
        self.guest_csum = guest_csum

    def stop_guest(self):
        if self.guest is not None:
            self.guest.poweroff()
            self.guest.close()
            self.guest = None
        if self.qemu is not None:
            deadline = time.monotonic() + 10
            while self.qemu.running() and time.monotonic() < deadline:
                time.sleep(0.2)
            self.qemu.stop(signal.SIGTERM)

    # -- traffic -----------------------------------------------------------------------------

    def client(self, *args, timeout=90):
        p = run([PYTHON, SELF, '--client'] + [str(a) for a in args], ns=NS_CLIENT,
                check=False, timeout=timeout)
        try:
            return json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return dict(ok=False, error='client failed (%d): %s %s' % (
                p.returncode, p.stdout, p.stderr))

    def ping(self, ns, dst, count=3):
        p = run(['busybox', 'ping', '-c', count, '-i', '0.2', '-W', 3, '-w', 15, dst],
                ns=ns, check=False, timeout=30)
        m = re.search(r'(\d+) packets transmitted, (\d+) packets received', p.stdout)
        return (int(m[1]), int(m[2])) if m else (0, 0), p.stdout + p.stderr

    def guest_ping(self, src, dst, count=3):
        six = '-6' if ':' in dst else '-4'
        rc, out = self.guest.run('ping %s -c %d -i 0.2 -W 3 -w 15 -I %s %s' % (
            six, count, src, dst), timeout=30)
        m = re.search(r'(\d+) packets transmitted, (\d+) packets received', out)
        return (int(m[1]), int(m[2])) if m else (0, 0), out

    def guest_gro(self, on):
        """GRO on the guest's NIC on, or in effect off (no merge of two
        full-size frames). Linux 6.1 (Debian 6.1.0-57 at least) drops
        GRE-in-FOU packets that GRO merged, whoever sent them:
        gre_gro_complete() overwrites gso_type with SKB_GSO_GRE, losing the
        SKB_GSO_UDP_TUNNEL that udp_gro_complete() set, and
        udp_unexpected_gso() (\"udp: do not accept non-tunnel GSO skbs landing
        in a tunnel\") then has the FOU socket resegment and drop them (Udp
        InErrors, kfree_skb in udp_queue_rcv_skb). A TCP transfer through
        fou_gre stalls. --gre-gro keeps GRO on to show it."""
        rc, out = self.guest.run('ip link set dev $(cat /tmp/outer-dev) gro_max_size %d'
                                 % (65536 if on else 1600))
        if rc != 0:
            raise SetupError('guest: cannot set gro_max_size: %s' % out)

    def local_stack(self, label):
        """No static neighbour on either side: the guest and the client
        resolve dpdk-fou with ARP / ND and ping its addresses (outer, port,
        and every tunnel's, through the tunnel), dpdk-fou resolves them;
        `ip neigh` shows dpdk-fou REACHABLE right after, and /fou/neighs
        shows what dpdk-fou learnt."""
        a, c = self.a, self.checks
        # forget dpdk-fou, so this run's ARP/ND is what makes it reachable
        self.guest.run('ip neigh flush dev $(cat /tmp/outer-dev)')
        run(['ip', '-n', NS_CLIENT, 'neigh', 'flush', 'dev', VETH_CLIENT], check=False)
        run(['ip', '-n', NS_CLIENT, '-6', 'neigh', 'flush', 'dev', VETH_CLIENT], check=False)
        (tx, rx), out = self.guest_ping(GUEST_IP, GW_OUTER_IP, a.pings)
        c.check('%s: guest pings dpdk-fou\'s outer address %s: %d/%d replies'
                % (label, GW_OUTER_IP, rx, a.pings), tx == a.pings and rx == a.pings, out)
        rc, out = self.guest.run('ip neigh show %s dev $(cat /tmp/outer-dev)' % GW_OUTER_IP)
        c.check('%s: guest resolved dpdk-fou by ARP: %s' % (label, out.strip()),
                MAC_GW0.lower() in out.lower() and 'REACHABLE' in out, out)
        for dst in (GW4, GW6):
            (tx, rx), out = self.ping(NS_CLIENT, dst, a.pings)
            c.check('%s: client pings dpdk-fou\'s %s: %d/%d replies' % (label, dst, rx, a.pings),
                    tx == a.pings and rx == a.pings, out)
            p = run(['ip', '-n', NS_CLIENT, 'neigh', 'show', dst, 'dev', VETH_CLIENT], check=False)
            c.check('%s: client resolved dpdk-fou\'s %s by %s: %s'
                    % (label, dst, 'ND' if ':' in dst else 'ARP', p.stdout.strip()),
                    MAC_GW1.lower() in p.stdout.lower() and 'REACHABLE' in p.stdout, p.stdout)
        for t in self.tunnels:
            (tx, rx), out = self.guest_ping(t['guest'], t['gw_addr'], a.pings)
            c.check('%s: %s: guest pings dpdk-fou\'s tunnel address %s through the tunnel: '
                    '%d/%d replies' % (label, t['name'], t['gw_addr'], rx, a.pings),
                    tx == a.pings and rx == a.pings, out)
        neighs = self.gw.query('/fou/neighs') or {}
        seen = {(e.get('ip'), e.get('lladdr', '').lower(), e.get('state'))
                for k, e in neighs.items() if isinstance(e, dict)}
        for ip, mac in ((GUEST_IP, MAC_GUEST), (CLIENT4, MAC_CLIENT), (CLIENT6, MAC_CLIENT)):
            states = {st for i, m, st in seen if i == ip and m == mac.lower()}
            c.check('%s: dpdk-fou learnt %s at %s: %s' % (label, ip, mac, ', '.join(states)),
                    states and states <= {'REACHABLE', 'STALE', 'DELAY', 'PROBE'},
                    json.dumps(neighs))

    def both_ways(self, label, t, nbytes):
        """Through tunnel t: the client pings the guest, sends nbytes over
        TCP to its echo server and reads them back; the guest pings the
        client (a flow that starts on the Linux side)."""
        a, c, n = self.a, self.checks, t['name']
        (tx, rx), out = self.ping(NS_CLIENT, t['guest'], a.pings)
        c.check('%s: %s: client pings %s through dpdk-fou: %d/%d replies'
                % (label, n, t['guest'], rx, a.pings), tx == a.pings and rx == a.pings, out)
        workaround = t['kind'] in ('gre', 'ip6gre') and not a.gre_gro
        if workaround:
            self.guest_gro(False)
        res = self.client('tcp', t['guest'], '--port', ECHO_PORT, '--bytes', nbytes,
                          '--timeout', 30)
        if workaround:
            self.guest_gro(True)
        c.check('%s: %s: TCP %d bytes client -> guest echo -> client identical (%ss%s)'
                % (label, n, nbytes, res.get('seconds', '?'),
                   ', guest GRO off' if workaround else ''), res.get('ok'), json.dumps(res))
        (tx, rx), out = self.guest_ping(t['guest'], t['client'], a.pings)
        c.check('%s: %s: guest pings %s through dpdk-fou: %d/%d replies'
                % (label, n, t['client'], rx, a.pings), tx == a.pings and rx == a.pings, out)

    def traffic(self, label, combo_index):
        a, c = self.a, self.checks
        self.local_stack(label)
        for t in self.tunnels:
            n = t['name']
            self.both_ways(label, t, a.bytes)
            self.client('ecn', t['guest'])
            if t['family'] == 4:
                self.big_datagram(label, t)
            # A destination of its own per run (the guest needs no such
            # address: dpdk-fou answers before the tunnel), so no PMTU the
            # client learnt in an earlier run hides this run's ICMP error.
            probe = t['probe'] % (100 + combo_index)
            res = self.client('pmtu', probe, '--size', 1500, '--timeout', 3)
            want_src = GW6 if t['family'] == 6 else GW4
            want = ((3, 2, 0) if t['family'] == 6 else (2, 3, 4))  # origin, type, code
            got = (res.get('origin'), res.get('type'), res.get('code'))
            c.check('%s: %s: 1500-byte DF packet to %s: %s from %s, mtu %d'
                    % (label, n, probe, 'ICMPv6 packet too big' if t['family'] == 6 else
                       'ICMP fragmentation needed', want_src, t['mtu']),
                    got == want and res.get('mtu') == t['mtu'] and res.get('source') == want_src,
                    json.dumps(res))

    # -- a datagram larger than the tunnel MTU, without DF: dpdk-fou fragments it

    # The client's link MTU: sent whole, over every tunnel's MTU. (A larger
    # one would reach dpdk-fou reassembled, and cut at the af_packet frame
    # size: the PMD's fanout asks the kernel to defragment.)
    BIG_DATAGRAM = 1500

    def guest_snmp(self):
        """The guest's /proc/net/snmp as {'Ip': {counter: n}, 'Udp': {...}}."""
        rc, out = self.guest.run('cat /proc/net/snmp')
        rows = {}
        for line in out.splitlines():
            name, _, rest = line.partition(':')
            rows.setdefault(name.strip(), []).append(rest.split())
        return {k: dict(zip(v[0], map(int, v[1]))) for k, v in rows.items()
                if len(v) == 2 and all(x.lstrip('-').isdigit() for x in v[1])}

    def big_datagram(self, label, t):
        """The client sends BIG_DATAGRAM bytes of UDP without DF to the guest,
        over the tunnel MTU: dpdk-fou cuts it and encapsulates each fragment;
        the guest reassembles the datagram whole (ReasmOKs) and hands it to
        UDP (no one listens on the discard port: NoPorts)."""
        c = self.checks
        before, st0 = self.guest_snmp(), self.gw.query('/fou/stats') or {}
        sent = self.client('big', t['guest'], '--size', self.BIG_DATAGRAM)
        deadline = time.monotonic() + 10
        while True:
            after = self.guest_snmp()
            reasm = after.get('Ip', {}).get('ReasmOKs', 0) - before.get('Ip', {}).get('ReasmOKs', 0)
            noports = (after.get('Udp', {}).get('NoPorts', 0) -
                       before.get('Udp', {}).get('NoPorts', 0))
            if (reasm >= 1 and noports >= 1) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        st1 = self.gw.query('/fou/stats') or {}
        cut = st1.get('frag_packets', 0) - st0.get('frag_packets', 0)
        c.check('%s: %s: %d-byte UDP without DF to %s, fragmented by dpdk-fou (%d packets '
                'cut), reassembled whole by the guest (ReasmOKs +%d, Udp NoPorts +%d)'
                % (label, t['name'], self.BIG_DATAGRAM, t['guest'], cut, reasm, noports),
                sent.get('ok') and cut >= 1 and reasm >= 1 and noports >= 1,
                json.dumps(dict(client=sent, before=before, after=after)))

    def combo(self, index, guest_csum, gw_csum):
        label = 'guest %s / dpdk-fou %s' % (csum_name(guest_csum), csum_name(gw_csum))
        log('--- %s' % label)
        c = self.checks
        if guest_csum != self.guest_csum:
            rc, out = self.guest.run('tunnels %d' % guest_csum)
            if not c.check('%s: guest tunnels re-created with %s' % (label, csum_name(guest_csum)),
                           rc == 0, out):
                return
            self.guest_csum = guest_csum
        t0 = time.time()
        via_telemetry = index == TELEMETRY_COMBO
        self.gw = Gateway(self.a.gateway, self.workdir, gw_csum, via_telemetry)
        ready = self.gw.wait_ready()
        if c.check('%s: dpdk-fou started%s' % (
                label, ' with only %s, configured by %d telemetry commands' % (
                    ' '.join(START_PORT), len(self.gw.commands)) if via_telemetry else ''),
                   ready, '%s\n%s\n%s' % (self.gw.command(), self.gw.replies,
                                          self.gw.proc.output())):
            self.traffic(label, index)
        self.windows.append((label, guest_csum, gw_csum, t0, self.stop_gateway(label)))

    def stop_gateway(self, label, allowed=None):
        """Stop dpdk-fou: exit status 0, its accounting and mbufs ok, no
        drop but those allowed: {(reason, ...): (at most, why)}, the
        reasons' drops together at most that many; the time it stopped."""
        c = self.checks
        status = self.gw.stop()
        out = self.gw.proc.output()
        t1 = time.time()
        acc = re.search(r'^accounting: .*: (\S+)$', out, re.M)
        mbufs = re.search(r'^mbufs: .*: (\S+)$', out, re.M)
        c.check('%s: dpdk-fou exit status 0 (got %s), accounting %s, mbufs %s'
                % (label, status, acc[1] if acc else 'missing', mbufs[1] if mbufs else 'missing'),
                status == 0 and acc and acc[1] == 'ok' and mbufs and mbufs[1] == 'ok',
                '%s\n%s' % (self.gw.command(), out))
        # Every packet here has a way through: a drop is a packet dpdk-fou
        # refused that Linux sent or would accept (a checksum, a length...).
        dropped = re.search(r'^dropped: (\d+)$', out, re.M)
        drops = {m[0]: int(m[1]) for m in re.findall(r'^drop (\w+): (\d+)', out, re.M)}
        excused, why = 0, []
        for reasons, (most, what) in (allowed or {}).items():
            n = sum(drops.get(r, 0) for r in reasons)
            excused += min(n, most)
            why.append('%d %s (%s) of %d' % (n, what, '+'.join(reasons), most))
        c.check('%s: dpdk-fou dropped nothing%s (dropped: %s)'
                % (label, ' but ' + ', '.join(why) if why else '',
                   dropped[1] if dropped else 'missing'),
                dropped and int(dropped[1]) == excused,
                '\n'.join(re.findall(r'^drop \w+: .*$', out, re.M)))
        for line in re.findall(r'^(?:port \d+: rx|decapsulated|tunnel \w+: encap|sent |drop ).*$',
                               out, re.M):
            print('       dpdk-fou: ' + line)
        self.gw = None
        return t1

    # -- GUE over IPv4, FOU and GUE over an IPv6 underlay: one more run ------------------------

    NEW_LABEL = 'new tunnels (GUE, IPv6 underlay)'

    def new_round(self):
        """One dpdk-fou run with every tunnel of NEW_TUNNELS at once (the
        guest's FOU tunnels make way for them and come back after)."""
        c, label = self.checks, self.NEW_LABEL
        log('--- %s' % label)
        t0 = time.time()
        rc, out = self.guest.run('new_tunnels on')
        if not c.check('%s: guest tunnels created (%s)' % (
                label, ', '.join(t['name'] for t in NEW_TUNNELS)), rc == 0, out):
            return
        self.gw = Gateway(self.a.gateway, self.workdir, 0, new=self.new_tunnels)
        started = c.check('%s: dpdk-fou started' % label, self.gw.wait_ready(),
                          '%s\n%s' % (self.gw.command(), self.gw.proc.output()))
        if started:
            self.traffic_new(label)
        t1 = self.stop_gateway(label)
        # no capture checks of a run that never was
        self.new_window = (t0, t1) if started else None
        rc, out = self.guest.run('new_tunnels off; tunnels %d' % self.guest_csum)
        c.check('%s: guest FOU tunnels restored' % label, rc == 0, out)
        log('%s took %.0f s' % (label, time.time() - t0))

    def traffic_new(self, label):
        """The guest resolves dpdk-fou's IPv6 underlay address with ND;
        through every new tunnel, the client pings the guest and sends TCP
        to its echo server, the guest pings the client."""
        a, c = self.a, self.checks
        self.guest.run('ip neigh flush dev $(cat /tmp/outer-dev)')
        for src, dst in ((GUEST_IP, GW_OUTER_IP), (GUEST_IP6[0], GW_OUTER_IP6)):
            (tx, rx), out = self.guest_ping(src, dst, a.pings)
            c.check('%s: guest pings dpdk-fou\'s outer address %s: %d/%d replies'
                    % (label, dst, rx, a.pings), tx == a.pings and rx == a.pings, out)
            rc, out = self.guest.run('ip neigh show %s dev $(cat /tmp/outer-dev)' % dst)
            c.check('%s: guest resolved dpdk-fou\'s %s by %s: %s' % (
                label, dst, 'ND' if ':' in dst else 'ARP', out.strip()),
                MAC_GW0.lower() in out.lower() and 'REACHABLE' in out, out)
        for t in self.new_tunnels:
            self.both_ways(label, t, a.new_bytes)

    # -- the guest configured by what dpdk-fou wrote for it -----------------------------------

    PEER_LABEL = 'peer config'

    def peer_commands(self, t):
        """The commands `fouctl tunnel peer-config` prints for tunnel t, and
        whether /fou/tunnel/peer_config's JSON says the same (its entries'
        parts joined by spaces), with the evidence."""
        p = run([self.a.fouctl, '-p', self.gw.prefix, 'tunnel', 'peer-config', t['gw_dev']],
                check=False)
        lines = p.stdout.splitlines() if p.returncode == 0 else []
        r = self.gw.query('/fou/tunnel/peer_config,%s' % t['gw_dev']) or {}
        json_lines = [' '.join(r.get(str(i)) or []) for i in range(r.get('count', 0))]
        return lines, lines and lines == json_lines, '%s%s\n%s' % (
            p.stdout, p.stderr, json.dumps(r))

    def peer_round(self):
        """dpdk-fou with PEER_TUNNELS; the guest's FOU tunnels make way and
        the guest gets, besides its network on its loopback, only the
        commands fouctl printed for each tunnel, run verbatim; then traffic
        both ways through each; afterwards the guest is put back."""
        a, c, label = self.a, self.checks, self.PEER_LABEL
        log('--- %s' % label)
        t0 = time.time()
        rc, out = self.guest.run(
            'for t in ipip gre sit; do ip link del fou_$t; done; '
            + '; '.join('ip addr add %s/%d dev lo' % (t['guest'], 32 if t['family'] == 4 else 128)
                        for t in PEER_TUNNELS))
        if not c.check('%s: guest FOU tunnels out of the way, its networks on lo' % label,
                       rc == 0, out):
            return
        icmp0 = self.guest_icmp_out()
        self.gw = Gateway(a.gateway, self.workdir, 0, peer=True)
        ran = []
        if c.check('%s: dpdk-fou started' % label, self.gw.wait_ready(),
                   '%s\n%s' % (self.gw.command(), self.gw.proc.output())):
            ran = self.peer_apply(label)
            if len(ran) == len(PEER_TUNNELS):
                before = self.tunnel_counters()
                for t in PEER_TUNNELS:
                    self.both_ways(label, t, a.new_bytes)
                after = self.tunnel_counters()
                for t in PEER_TUNNELS:
                    b, e = before.get(t['gw_dev'], {}), after.get(t['gw_dev'], {})
                    grew = {k: e.get(k, 0) - b.get(k, 0) for k in ('tx_packets', 'rx_packets')}
                    c.check('%s: %s: dpdk-fou\'s counters of the tunnel grew: %s'
                            % (label, t['name'], grew), all(v > 0 for v in grew.values()),
                            json.dumps(after))
                self.peer_failover(label)
                self.peer_plpmtu(label)
        self.stop_gateway(label, allowed=self.peer_excused(icmp0, self.guest_icmp_out()))
        self.peer_undo(ran)
        log('%s took %.0f s' % (label, time.time() - t0))

    # -- tunnel health and failover through the configured guest -----------------------------

    def health(self, t):
        return self.gw.query('/fou/tunnel/health,%s' % t['gw_dev']) or {}

    def wait_health(self, t, state, bound):
        """Poll t's health until it is state, at most bound seconds: (the
        seconds it took or None, the last reply)."""
        t0 = time.monotonic()
        while True:
            h = self.health(t)
            if h.get('state') == state:
                return time.monotonic() - t0, h
            if time.monotonic() - t0 > bound:
                return None, h
            time.sleep(0.05)

    def window(self, start):
        """Probes sent and tunnel counters, read so that the probes' window
        holds the counters' (at the start the probes first, at the end
        last): a tunnel's tx growth above its probes' is traffic."""
        if start:
            sent = {t['gw_dev']: self.health(t).get('sent', 0) for t in PEER_TUNNELS}
            return sent, self.tunnel_counters()
        counters = self.tunnel_counters()
        return {t['gw_dev']: self.health(t).get('sent', 0) for t in PEER_TUNNELS}, counters

    def growth(self, w0, w1, t):
        """(tx packets, probes sent) of tunnel t between two windows."""
        d = t['gw_dev']
        return (w1[1].get(d, {}).get('tx_packets', 0) - w0[1].get(d, {}).get('tx_packets', 0),
                w1[0].get(d, 0) - w0[0].get(d, 0))

    def route_use(self, prefix):
        """{tunnel: in_use} of dpdk-fou's routes to prefix."""
        r = self.gw.query('/fou/routes') or {}
        return {e.get('dev'): e.get('in_use') for e in r.values()
                if isinstance(e, dict) and e.get('prefix') == prefix}

    def peer_failover(self, label):
        """Both tunnels up by their probes, with a plausible RTT; the
        guest's pc-ipip link down: its health goes down within timeout x
        interval (and the slack), its route out of use, and traffic to the
        guest's IPv4 network flows through pc-gre, none into pc-ipip but
        probes; the link up: up again, the route back in use, and that
        traffic through pc-ipip again, none into pc-gre but probes."""
        a, c = self.a, self.checks
        main, backup = PEER_TUNNELS
        bound = PROBE_TIMEOUT * PROBE_INTERVAL_MS / 1000 + PROBE_SLACK
        for t in PEER_TUNNELS:
            took, h = self.wait_health(t, 'up', 2 * bound)
            rtt = [h.get(k, 0) for k in ('rtt_last_us', 'rtt_min_us', 'rtt_avg_us')]
            c.check('%s: %s: probes through the guest say up, RTT last/min/avg %s us '
                    '(between 0 and 1 s)' % (label, t['name'], '/'.join(map(str, rtt))),
                    took is not None and all(0 < v < 1000000 for v in rtt), json.dumps(h))

        def through(tun, other, what):
            """Ping and TCP from the client to the guest's IPv4 network go
            through tun only: tun's tx grows by more than its probes, the
            other's by no more than its probes."""
            w0 = self.window(True)
            (tx, rx), out = self.ping(NS_CLIENT, main['guest'], a.pings)
            workaround = tun['kind'] == 'gre' and not a.gre_gro
            if workaround:
                self.guest_gro(False)
            res = self.client('tcp', main['guest'], '--port', ECHO_PORT, '--bytes', 1 << 16,
                              '--timeout', 30)
            if workaround:
                self.guest_gro(True)
            w1 = self.window(False)
            (tx1, p1), (tx2, p2) = self.growth(w0, w1, tun), self.growth(w0, w1, other)
            c.check('%s: %s: client pings %s (%d/%d) and sends 64 KiB over TCP (%s) through '
                    '%s: its tx grew by %d, %d of them probes; %s\'s by %d, probes %d'
                    % (label, what, main['guest'], rx, a.pings, 'ok' if res.get('ok') else
                       'failed', tun['name'], tx1, p1, other['name'], tx2, p2),
                    tx == a.pings and rx == a.pings and res.get('ok') and
                    tx1 - p1 >= a.pings and tx2 <= p2, '%s\n%s' % (out, json.dumps(res)))

        rc, out = self.guest.run('ip link set %s down' % main['gw_dev'])
        took, h = self.wait_health(main, 'down', bound)
        if not c.check('%s: guest %s link down: dpdk-fou says down %s (timeout %d x interval '
                       '%d ms, + %d s slack)' % (
                           label, main['name'], 'after %.1f s' % took if took is not None else
                           'not within %.1f s' % bound, PROBE_TIMEOUT, PROBE_INTERVAL_MS,
                           PROBE_SLACK), rc == 0 and took is not None,
                       '%s\n%s' % (out, json.dumps(h))):
            return
        use = self.route_use(PEER_NET4)
        c.check('%s: %s down: the route to %s through it out of use, through %s in use: %s'
                % (label, main['name'], PEER_NET4, backup['name'], use),
                use.get(main['gw_dev']) == 0 and use.get(backup['gw_dev']) == 1, json.dumps(use))
        through(backup, main, '%s down' % main['name'])

        rc, out = self.guest.run('ip link set %s up' % main['gw_dev'])
        took, h = self.wait_health(main, 'up', bound)
        c.check('%s: guest %s link up: dpdk-fou says up %s' % (
            label, main['name'], 'after %.1f s' % took if took is not None else
            'not within %.1f s' % bound), rc == 0 and took is not None,
            '%s\n%s' % (out, json.dumps(h)))
        use = self.route_use(PEER_NET4)
        c.check('%s: %s up: the route to %s through it in use again, through %s not: %s'
                % (label, main['name'], PEER_NET4, backup['name'], use),
                use.get(main['gw_dev']) == 1 and use.get(backup['gw_dev']) == 0, json.dumps(use))
        through(main, backup, '%s up again' % main['name'])

    def peer_plpmtu(self, label):
        """A black hole towards the guest (the tap's MTU at PLPMTU_PATH):
        a datagram with DF that fits the tunnel is lost without a word;
        an on-demand search of pc-ipip's path MTU finds PLPMTU_PATH
        (probed_mtu), the tunnel MTU follows, the same datagram now brings
        fragmentation needed with it from dpdk-fou, and TCP through the
        tunnel with DF completes. The tap's MTU is restored after."""
        a, c = self.a, self.checks
        t = PEER_TUNNELS[0]
        mtu = PLPMTU_PATH - 20 - 8
        run(['ip', '-n', NS_GW, 'link', 'set', TAP, 'mtu', str(PLPMTU_PATH)])
        try:
            res = self.client('pmtu', t['guest'], '--size', PLPMTU_DGRAM, '--timeout', 3)
            c.check('%s: %s: tap MTU %d, a black hole: %d bytes with DF to %s are lost '
                    'without an error (%s)' % (label, t['name'], PLPMTU_PATH, PLPMTU_DGRAM,
                                              t['guest'], res.get('error')),
                    res.get('sent') and res.get('type') is None, json.dumps(res))
            r = self.gw.query('/fou/tunnel/mtu_probe,%s' % t['gw_dev'])
            c.check('%s: %s: /fou/tunnel/mtu_probe started a search' % (label, t['name']),
                    r == {'status': 'ok'}, json.dumps(r))
            t0 = time.monotonic()
            while True:
                e = self.tunnel_counters().get(t['gw_dev'], {})
                if (e.get('probed_mtu') == PLPMTU_PATH and
                        e.get('mtu_search') == 'search_complete') or \
                        time.monotonic() - t0 > PLPMTU_BOUND:
                    break
                time.sleep(0.2)
            c.check('%s: %s: the search found the %d-byte path in %.1f s: probed_mtu %s '
                    '(%s), tunnel MTU %s (want %d)' % (
                        label, t['name'], PLPMTU_PATH, time.monotonic() - t0,
                        e.get('probed_mtu'), e.get('mtu_search'), e.get('mtu'), mtu),
                    e.get('probed_mtu') == PLPMTU_PATH and e.get('mtu') == mtu, json.dumps(e))
            res = self.client('pmtu', t['guest'], '--size', PLPMTU_DGRAM, '--timeout', 3)
            c.check('%s: %s: the same datagram now brings fragmentation needed, MTU %s from %s'
                    % (label, t['name'], res.get('mtu'), res.get('source')),
                    res.get('type') == 3 and res.get('code') == 4 and res.get('mtu') == mtu
                    and res.get('source') == GW4, json.dumps(res))
            res = self.client('tcp', t['guest'], '--port', ECHO_PORT, '--bytes', a.new_bytes,
                              '--timeout', 30)
            c.check('%s: %s: TCP %d bytes with DF through the narrower path, echoed identical '
                    '(%ss)' % (label, t['name'], a.new_bytes, res.get('seconds', '?')),
                    res.get('ok'), json.dumps(res))
        finally:
            run(['ip', '-n', NS_GW, 'link', 'set', TAP, 'mtu', '1500'])

    def peer_apply(self, label):
        """Each tunnel's printed commands, run one by one in the guest; the
        commands of the tunnels whose every command succeeded."""
        c, ran = self.checks, []
        for t in PEER_TUNNELS:
            lines, same, evidence = self.peer_commands(t)
            c.check('%s: %s: fouctl printed %d commands, the same as the telemetry JSON'
                    % (label, t['name'], len(lines)), same, evidence)
            failed = []
            for line in lines:
                rc, out = self.guest.run(line)
                if rc != 0:
                    failed.append('%s -> %s %s' % (line, rc, out.strip()))
            if c.check('%s: %s: the guest ran them verbatim, every one exit 0'
                       % (label, t['name']), lines and not failed,
                       '\n'.join(failed or lines)):
                ran.append(lines)
        return ran

    def guest_icmp_out(self):
        """What the guest sent so far of the ICMP that dpdk-fou drops:
        MLDv2 reports, port unreachable, redirects."""
        rc, out = self.guest.run('grep Icmp6OutMLDv2Reports /proc/net/snmp6')
        m = re.search(r'Icmp6OutMLDv2Reports\s+(\d+)', out)
        icmp = self.guest_snmp().get('Icmp', {})
        return dict(mld=int(m[1]) if m else 0, unreach=icmp.get('OutDestUnreachs', 0),
                    redirect=icmp.get('OutRedirects', 0))

    @staticmethod
    def peer_excused(before, after):
        """The drops the guest's own messages explain, as many as it sent:
        net.ipv6.conf.all.forwarding=1 joins the all-routers group, and the
        guest's NIC, without a link-local address, reports it from ::
        (outer_martian); the probes reach the guest's FOU ports before the
        commands made them, and its tunnel while its link is down, which
        Linux answers with port unreachable (icmp_local); Linux forwards a
        probe back out of the tunnel it came in by, and tells the sender
        with a redirect (inner_local)."""
        d = {k: after[k] - before[k] for k in after}
        return {('outer_martian',): (d['mld'], 'MLD reports from ::'),
                ('icmp_local', 'inner_local'): (d['unreach'] + d['redirect'],
                                                'unreachables and redirects')}

    def tunnel_counters(self):
        """dpdk-fou's tunnels by name: their counters."""
        r = self.gw.query('/fou/tunnels') or {}
        return {e['name']: e for k, e in r.items() if isinstance(e, dict) and 'name' in e}

    def peer_undo(self, ran):
        """What the printed commands made goes (the links with their
        addresses and routes, the FOU ports), forwarding off again, the
        loopback addresses away, and the guest's FOU tunnels back."""
        undo = []
        for lines in ran:
            for line in lines:
                w = line.split()
                if w[:3] == ['ip', 'link', 'add']:
                    undo.append('ip link del %s' % w[3])
                elif w[:4] == ['ip', 'fou', 'add', 'port']:
                    undo.append('ip fou del port %s%s' % (w[4], ' -6' if w[-1] == '-6' else ''))
        undo += ['ip addr del %s/%d dev lo' % (t['guest'], 32 if t['family'] == 4 else 128)
                 for t in PEER_TUNNELS]
        undo += ['echo 0 > /proc/sys/net/ipv4/ip_forward',
                 'echo 0 > /proc/sys/net/ipv6/conf/all/forwarding',
                 'tunnels %d' % self.guest_csum]
        rc, out = self.guest.run('; '.join(undo))
        self.checks.check('%s: guest FOU tunnels restored' % self.PEER_LABEL, rc == 0, out)

    def analyse(self):
        rows = tshark_rows(self.a.tshark, self.pcaps[TAP], ' || '.join(
            'udp.port == %d' % port for port in FOU_PORTS))
        c = self.checks
        if self.windows and self.tunnels:
            c.check('capture: %s has FOU packets' % TAP, rows, self.pcaps[TAP])
        for label, g, d, t0, t1 in self.windows:
            win = [r for r in rows if t0 <= float(r['frame.time_epoch'][0]) <= t1]
            analyse_window(c, label, win, g, d, self.tunnels)
        if self.new_window:
            ports = {port: proto for (port, fam), proto in NEW_PORTS.items()}
            t0, t1 = self.new_window
            rows = [r for r in tshark_rows(self.a.tshark, self.pcaps[TAP], ' || '.join(
                'udp.port == %d' % port for port in sorted(ports)), decode=ports)
                if t0 <= float(r['frame.time_epoch'][0]) <= t1]
            analyse_new_window(c, self.NEW_LABEL, rows, self.new_tunnels)
        if self.reasm_window:
            self.analyse_reasm()

    # -- outer reassembly against Linux's own fragmentation (issue 17) -------------------------

    def reasm_bridge(self, up):
        """QEMU's tap into a bridge with the net_tap's kernel interface (up),
        or back on its own for the af_packet runs."""
        g = ['ip', '-n', NS_GW]
        if not up:
            run(g + ['link', 'set', TAP, 'nomaster'], check=False)
            run(g + ['link', 'del', REASM_BRIDGE], check=False)
            run(g + ['link', 'set', TAP, 'address', MAC_GW0], check=False)
            return
        # no IPv6 on the interfaces created from here on (the bridge, the
        # net_tap's): the namespace's kernel stays silent
        sysctl(NS_GW, 'net.ipv6.conf.default.disable_ipv6', 1)
        # With br_netfilter loaded, bridged IPv4 would pass the namespace's
        # netfilter hooks, where conntrack (if anything loads it) defragments.
        for k in ('iptables', 'ip6tables', 'arptables'):
            if os.path.exists('/proc/sys/net/bridge/bridge-nf-call-' + k):
                sysctl(NS_GW, 'net.bridge.bridge-nf-call-' + k, 0)
        # no STP, no multicast snooping: the bridge itself sends nothing (with
        # snooping it joins 224.0.0.106 by IGMP, which dpdk-fou would drop)
        run(g + ['link', 'add', REASM_BRIDGE, 'type', 'bridge', 'stp_state', 0,
                 'mcast_snooping', 0])
        self.add_cleanup(self.reasm_bridge, False)
        run(g + ['link', 'set', TAP, 'address', MAC_REASM_BRIDGED, 'master', REASM_BRIDGE])
        run(g + ['link', 'set', REASM_BRIDGE, 'up'])

    def outer_reasm(self):
        """The guest's fou_ipip with nopmtudisc and a 576-byte outer link:
        its ping of REASM_PAYLOAD bytes without DF to the client leaves as
        outer fragments that the guest's kernel cut; dpdk-fou reassembles
        them, decapsulates and forwards the inner packet to the client whole,
        and the reply comes back through the tunnel."""
        a, c = self.a, self.checks
        pmd = a.reasm_port0
        label = 'outer reassembly (port 0 %s)' % pmd
        log('--- %s' % label)
        port0 = None
        if pmd == 'net_tap':
            self.reasm_bridge(True)
            port0 = 'net_tap0,iface=%s' % REASM_TAP
        t0 = time.time()
        self.gw = Gateway(a.gateway, self.workdir, 0, port0=port0)
        ready = self.gw.wait_ready()
        if ready and pmd == 'net_tap':
            run(['ip', '-n', NS_GW, 'link', 'set', REASM_TAP, 'address', MAC_REASM_TAP,
                 'master', REASM_BRIDGE, 'up'])
        if c.check('%s: dpdk-fou started' % label, ready,
                   '%s\n%s' % (self.gw.command(), self.gw.proc.output())):
            rc, out = self.guest.run('narrow_path %d %d' % (REASM_PATH_MTU, self.guest_csum))
            if c.check('%s: guest fou_ipip re-created with ttl inherit nopmtudisc, outer link '
                       'MTU %d' % (label, REASM_PATH_MTU),
                       rc == 0 and 'nopmtudisc' in out, out):
                ipip = [t for t in TUNNELS if t['name'] == 'ipip'][0]
                rc, out = self.guest.run('ping -4 -c %d -s %d -i 0.2 -W 3 -w 15 -I %s %s' % (
                    a.pings, REASM_PAYLOAD, ipip['guest'], ipip['client']), timeout=30)
                m = re.search(r'(\d+) packets transmitted, (\d+) packets received', out)
                tx, rx = (int(m[1]), int(m[2])) if m else (0, 0)
                br = run(['sh', '-c', 'bridge link; bridge fdb show br %s; ip -s link'
                          % REASM_BRIDGE], ns=NS_GW, check=False).stdout \
                    if pmd == 'net_tap' else ''
                c.check('%s: guest pings %s with %d bytes through the tunnel: %d/%d replies'
                        % (label, ipip['client'], REASM_PAYLOAD, rx, a.pings),
                        tx == a.pings and rx == a.pings, out + br)
            rc, out = self.guest.run('narrow_path off; tunnels %d' % self.guest_csum)
            c.check('%s: guest link and tunnels restored' % label, rc == 0, out)
        status = self.gw.stop()
        out = self.gw.proc.output()
        self.gw = None
        if pmd == 'net_tap':
            self.reasm_bridge(False)
        self.reasm_window = (t0, time.time())
        acc = re.search(r'^accounting: .*: (\S+)$', out, re.M)
        mbufs = re.search(r'^mbufs: .*: (\S+)$', out, re.M)
        dropped = re.search(r'^dropped: (\d+)$', out, re.M)
        c.check('%s: dpdk-fou exit status 0 (got %s), accounting %s, mbufs %s, dropped %s'
                % (label, status, acc[1] if acc else 'missing', mbufs[1] if mbufs else 'missing',
                   dropped[1] if dropped else 'missing'),
                status == 0 and acc and acc[1] == 'ok' and mbufs and mbufs[1] == 'ok' and
                dropped and dropped[1] == '0', out)
        # Each ping is one datagram of n fragments: n - 1 of them are
        # absorbed into the first, which goes on as the whole datagram.
        n = reasm_fragments(REASM_PAYLOAD, REASM_PATH_MTU)
        m = re.search(r'^reassembly: datagrams (\d+), fragments absorbed (\d+)$', out, re.M)
        got = (int(m[1]), int(m[2])) if m else None
        c.check('%s: dpdk-fou reassembled %d datagrams of %d fragments (reassembly: %s)'
                % (label, a.pings, n, 'datagrams %d, fragments absorbed %d' % got
                   if got else 'missing'),
                got == (a.pings, a.pings * (n - 1)), out)
        for line in re.findall(r'^(?:port \d+: rx|decapsulated|reassembly|drop ).*$', out, re.M):
            print('       dpdk-fou: ' + line)

    def analyse_reasm(self):
        """The wire on both sides of dpdk-fou during the reassembly case:
        the guest's outer fragments on the tap, the inner packets whole on
        the client's side."""
        c = self.checks
        t0, t1 = self.reasm_window
        label = 'outer reassembly (port 0 %s)' % self.a.reasm_port0
        ipip = [t for t in TUNNELS if t['name'] == 'ipip'][0]
        n = reasm_fragments(REASM_PAYLOAD, REASM_PATH_MTU)
        rows = [r for r in reasm_rows(
            self.a.tshark, self.pcaps[TAP],
            'ip.src == %s && ip.dst == %s && (ip.flags.mf == 1 || ip.frag_offset > 0)'
            % (GUEST_IP, GW_OUTER_IP),
            ('frame.time_epoch', 'ip.id', 'ip.flags.df', 'ip.flags.mf', 'ip.frag_offset',
             'ip.len'))
            if t0 <= float(r['frame.time_epoch']) <= t1]
        ids = collections.Counter(r['ip.id'] for r in rows)
        c.check('capture: %s: the guest sent %d datagrams of %d outer fragments, no DF, none '
                'over %d bytes (%s)' % (label, self.a.pings, n, REASM_PATH_MTU, dict(ids)),
                len(ids) == self.a.pings and set(ids.values()) == {n} and
                all(r['ip.flags.df'] in ('0', 'False') and int(r['ip.len']) <= REASM_PATH_MTU
                    for r in rows), json.dumps(rows))
        inner_len = 20 + 8 + REASM_PAYLOAD
        rows = [r for r in reasm_rows(
            self.a.tshark, self.pcaps[VETH_GW],
            'icmp.type == 8 && ip.src == %s && ip.dst == %s' % (ipip['guest'], ipip['client']),
            ('frame.time_epoch', 'ip.len', 'ip.flags.mf', 'ip.frag_offset', 'ip.checksum.status',
             'icmp.checksum.status', 'data.len'))
            if t0 <= float(r['frame.time_epoch']) <= t1]
        c.check('capture: %s: %d echo requests of %d bytes reached the client whole (no MF, '
                'offset 0, IP and ICMP checksums good, %d bytes of data)'
                % (label, self.a.pings, inner_len, REASM_PAYLOAD),
                len(rows) == self.a.pings and all(
                    int(r['ip.len']) == inner_len and r['ip.flags.mf'] in ('0', 'False') and
                    r['ip.frag_offset'] == '0' and r['ip.checksum.status'] == '1' and
                    r['icmp.checksum.status'] == '1' and r['data.len'] == str(REASM_PAYLOAD)
                    for r in rows), json.dumps(rows))

    # -- the whole run -----------------------------------------------------------------------

    def run_all(self):
        self.preflight()
        self.workdir = self.a.workdir or tempfile.mkdtemp(prefix='fou-interop-')
        os.makedirs(self.workdir, exist_ok=True)
        log('work directory %s, namespaces %s %s' % (self.workdir, NS_CLIENT, NS_GW))
        self.tunnels = [t for t in TUNNELS if t['name'] in self.a.tunnels.split(',')]
        self.new_tunnels = [t for t in NEW_TUNNELS if t['name'] in self.a.tunnels.split(',')]
        combos = COMBOS if not self.a.combos else [] if self.a.combos == 'none' else \
            [COMBOS[int(i)] for i in self.a.combos.split(',')]
        try:
            self.setup_namespaces()
            self.start_capture()
            self.boot_guest(combos[0][0] if combos else 0)
            if self.a.hold:
                return self.hold()
            for i, (g, d) in enumerate(combos):
                self.combo(i, g, d)
            if self.new_tunnels:
                self.new_round()
            if self.a.peer_run:
                self.peer_round()
            if self.a.reasm_port0 != 'none':
                self.outer_reasm()
        finally:
            if self.gw is not None:
                self.gw.stop()
            self.save_guest_stats()
            self.cleanup()
        with open(os.path.join(self.workdir, 'windows.json'), 'w') as f:
            json.dump(dict(tunnels=self.a.tunnels, windows=self.windows,
                           reasm=self.reasm_window, reasm_port0=self.a.reasm_port0,
                           new=self.new_window,
                           new_tunnels=[t['name'] for t in self.new_tunnels]), f)
        self.analyse()
        return self.verdict()

    def verdict(self):
        failed = self.checks.failed()
        print('%d checks, %d failed' % (len(self.checks.results), len(failed)))
        if failed:
            print('artifacts kept in %s (console.log, *.pcap, dpdk-fou logs)' % self.workdir)
        elif not self.a.keep and not self.a.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        else:
            print('artifacts in %s' % self.workdir)
        return 1 if failed else 0

    def save_guest_stats(self):
        """The guest's counters, for whoever reads a failure."""
        if self.guest is None or not self.qemu.running():
            return
        rc, out = self.guest.run('ip -s -s link show; cat /proc/net/snmp; cat /proc/net/netstat',
                                 timeout=20)
        with open(os.path.join(self.workdir, 'guest-stats.txt'), 'w') as f:
            f.write(out)

    def reanalyse(self, workdir):
        """The capture checks again on a kept work directory."""
        self.workdir = workdir
        with open(os.path.join(workdir, 'windows.json')) as f:
            saved = json.load(f)
        self.tunnels = [t for t in TUNNELS if t['name'] in saved['tunnels'].split(',')]
        self.windows = [tuple(w) for w in saved['windows']]
        self.reasm_window = saved.get('reasm')
        self.new_window = saved.get('new')
        self.new_tunnels = [t for t in NEW_TUNNELS if t['name'] in saved.get('new_tunnels', [])]
        self.a.reasm_port0 = saved.get('reasm_port0', self.a.reasm_port0)
        self.pcaps = {dev: os.path.join(workdir, dev + '.pcap') for dev in (TAP, VETH_GW)}
        self.a.keep = True
        self.analyse()
        return self.verdict()

    def hold(self):
        gw_csum = self.a.hold_gw_csum
        if os.access(self.a.gateway, os.X_OK):
            self.gw = Gateway(self.a.gateway, self.workdir, gw_csum)
            if not self.gw.wait_ready():
                log('dpdk-fou did not start:\n' + self.gw.proc.output())
        self.guest.close()
        self.guest = None
        guest = '%s %s --guest-exec %s' % (PYTHON, SELF, self.workdir)
        print('''
Everything is up until Ctrl-C (or SIGTERM to %d):
  client     : ip netns exec %s busybox ping 192.168.4.2
               ip netns exec %s %s %s --client tcp 192.168.4.2 --bytes 1000000
  gateway ns : ip netns exec %s ...   (dpdk-fou log: %s)
  guest      : %s 'ip -s link show fou_gre'
               (TCP through fou_gre: %s 'ip link set eth0 gro_max_size 1600' first)
  captures   : %s
''' % (os.getpid(), NS_CLIENT, NS_CLIENT, PYTHON, SELF, NS_GW,
       self.gw.proc.logpath if self.gw else '(not running)', guest, guest,
       ' '.join(self.pcaps.values())), flush=True)
        try:
            while self.qemu.running():
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        self.guest = GuestCtl(self.ctl_path, timeout=2) if self.qemu.running() else None
        return 0


def guest_exec_main(workdir, cmd):
    g = GuestCtl(os.path.join(workdir, 'ctl.sock'), timeout=5)
    rc, out = g.run(cmd)
    g.close()
    sys.stdout.write(out)
    return 2 if rc is None else rc


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--client':
        return client_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == '--offloads-off':
        return offloads_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == '--guest-exec':
        return guest_exec_main(sys.argv[2], ' '.join(sys.argv[3:]))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--gateway', help='the built dpdk-fou (required unless --analyse)')
    ap.add_argument('--tshark', default='tshark')
    ap.add_argument('--dumpcap', default='dumpcap')
    ap.add_argument('--qemu', default='qemu-system-x86_64')
    ap.add_argument('--kernel', help='guest kernel (default: newest /boot/vmlinuz-*)')
    ap.add_argument('--accel', default='tcg', help='QEMU accelerator (default tcg)')
    ap.add_argument('--tunnels', default=','.join(t['name'] for t in TUNNELS + NEW_TUNNELS),
                    help='a subset of %(default)s (the last nine: the new-tunnels run)')
    ap.add_argument('--new-bytes', type=int, default=1 << 18,
                    help='TCP transfer size through each tunnel of the new-tunnels run')
    ap.add_argument('--combos', help='indexes into %s (guest, dpdk-fou encap-csum), or none'
                    % (COMBOS,))
    ap.add_argument('--bytes', type=int, default=1 << 20, help='TCP transfer size')
    ap.add_argument('--pings', type=int, default=3)
    ap.add_argument('--workdir', help='keep everything here (default: a temporary directory, '
                    'removed when every check passed)')
    ap.add_argument('--keep', action='store_true', help='keep the work directory')
    ap.add_argument('--hold', action='store_true',
                    help='set up, boot, start dpdk-fou, then wait for Ctrl-C')
    ap.add_argument('--hold-gw-csum', type=int, default=0)
    ap.add_argument('--gre-gro', action='store_true',
                    help="keep the guest's GRO on for the GRE TCP transfer (Linux 6.1 then "
                    'drops merged GRE-in-FOU packets, see guest_gro)')
    ap.add_argument('--reasm-port0', choices=('net_tap', 'af_packet', 'none'),
                    default='net_tap',
                    help="port 0's PMD in the outer reassembly case (af_packet shows that "
                    'its fanout defragments; none leaves the case out)')
    ap.add_argument('--fouctl', help='the built fouctl (default: next to --gateway)')
    ap.add_argument('--peer-run', choices=('on', 'off'), default='on',
                    help='the run whose guest is configured by /fou/tunnel/peer_config')
    ap.add_argument('--analyse', metavar='WORKDIR',
                    help='only the capture checks, on the files a kept run left')
    args = ap.parse_args()
    if not args.gateway and not args.analyse:
        ap.error('--gateway is required')
    args.gateway = os.path.abspath(args.gateway or '.')
    args.fouctl = os.path.abspath(args.fouctl or os.path.join(os.path.dirname(args.gateway),
                                                              'fouctl'))
    args.peer_run = args.peer_run == 'on'

    def terminate(signum, frame):
        raise KeyboardInterrupt('signal %d' % signum)
    signal.signal(signal.SIGTERM, terminate)
    t0 = time.monotonic()
    try:
        if args.analyse:
            return InteropTest(args).reanalyse(args.analyse)
        rc = InteropTest(args).run_all()
    except SetupError as e:
        print('SETUP ERROR: %s' % e, flush=True)
        print('(logs in the work directory named above, if any)')
        rc = 2
    except KeyboardInterrupt as e:
        print('INTERRUPTED: %s' % (e or 'Ctrl-C'), flush=True)
        rc = 2
    log('done in %.0f s, exit %d' % (time.monotonic() - t0, rc))
    return rc


if __name__ == '__main__':
    sys.exit(main())
