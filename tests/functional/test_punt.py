#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The exception path to the kernel (--punt), against Linux kernels.

One gateway runs in a network namespace of the test's (G) on two net_tap
ports, whose kernel sides are moved into a peer namespace (P): port 0
(10.77.0.1, fd77::1) has a kernel interface (--punt), port 1 (10.78.0.1)
has none. The kernel interface is in G with the port's MAC, MTU and
addresses; listeners and bgpd run there.

- Through port 0: a TCP connection (IPv4 and IPv6) and a UDP datagram from
  P reach listeners on the kernel interface and their answers come back
  through the port; a ping of 10.77.0.1 is answered by the gateway itself,
  a ping from the kernel interface to P gets its replies; the kernel
  resolves P with ARP and ND through the gateway, whose answers are the
  only ones on the wire (the kernel's are punt_kernel_answer). Addresses
  added and deleted through telemetry follow onto the interface; /fou/punt
  and /fou/config show it.
- Through port 1, without --punt: the same TCP is dropped (local_not_udp)
  and the UDP gets a port unreachable, as without the feature.
- Scaling out: Debian's FRR, a bgpd without zebra in each namespace, peers
  through the gateway's port; P learns the tunnel endpoint 192.0.2.1/32
  that G announces.

Every wait is on an event, with a generous timeout.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402

WAIT = 30
TAG = os.getpid() % 100000
TAP0, TAP1, KIF = 'fpt%d-0' % TAG, 'fpt%d-1' % TAG, 'fpk%d' % TAG
MAC_P0, MAC_P1 = '02:00:0a:4d:00:01', '02:00:0a:4e:00:01'
MAC_N0, MAC_N1 = '02:00:0a:4d:00:02', '02:00:0a:4e:00:02'
GW0, GW0_6, GW1 = '10.77.0.1', 'fd77::1', '10.78.0.1'
PEER0, PEER0_6, PEER1 = '10.77.0.2', 'fd77::2', '10.78.0.2'
ENDPOINT = '192.0.2.1/32'
# port 0's rate limit: far above what the cases but the flood send, and
# far below what the flood's FLOOD datagrams ask for (they would need
# (FLOOD - BURST) / RATE seconds to pass whole)
RATE, BURST, FLOOD = 1000, 200, 6000
BGPD = '/usr/lib/frr/bgpd'
VTYSH = shutil.which('vtysh') or '/usr/bin/vtysh'

# An echo server on (addr, port): TCP answers each connection's bytes back
# reversed, UDP sends each datagram back reversed. Prints "ready".
SERVER = r"""
import socket, sys, threading
addr, port = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
t = socket.socket(fam, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((addr, port)); t.listen(4)
u = socket.socket(fam, socket.SOCK_DGRAM); u.bind((addr, port))
def udp():
    while True:
        d, a = u.recvfrom(2048); u.sendto(d[::-1], a)
threading.Thread(target=udp, daemon=True).start()
print('ready', flush=True)
while True:
    c, _ = t.accept()
    d = c.recv(2048); c.sendall(d[::-1]); c.close()
"""

# A TCP exchange, then a UDP one, with addr:port: prints what came back
# ("tcp-error ..." / "udp-error ..." when nothing did).
CLIENT = r"""
import socket, sys
addr, port, msg = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
try:
    c = socket.create_connection((addr, port), timeout=float(sys.argv[4]))
    c.sendall(msg); print('tcp', c.recv(2048).decode()); c.close()
except OSError as e:
    print('tcp-error', type(e).__name__)
u = socket.socket(fam, socket.SOCK_DGRAM); u.settimeout(float(sys.argv[4]))
u.connect((addr, port))
try:
    u.send(msg); print('udp', u.recv(2048).decode())
except OSError as e:
    print('udp-error', type(e).__name__)
"""

# n UDP datagrams to dst:port, as fast as the socket takes them.
FLOOD_SEND = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[3])):
    s.sendto(b'flood', (sys.argv[1], int(sys.argv[2])))
"""

# n echo requests to dst from the namespace's kernel (a raw socket; the
# kernel resolves dst first): prints the sequence numbers answered.
PING = r"""
import socket, struct, sys, time
dst, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.settimeout(1.0)
def csum(b):
    t = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xffff); t += t >> 16
    return ~t & 0xffff
got = []
for seq in range(1, n + 1):
    body = struct.pack('!BBHHH', 8, 0, 0, 0x4d4d, seq) + b'dpdk-fou punt!'
    body = body[:2] + struct.pack('!H', csum(body)) + body[4:]
    end = time.monotonic() + 5
    s.sendto(body, (dst, 0))
    while time.monotonic() < end:
        try:
            b, a = s.recvfrom(2048)
        except socket.timeout:
            s.sendto(body, (dst, 0))
            continue
        ihl = (b[0] & 15) * 4
        if a[0] == dst and b[ihl] == 0 and struct.unpack('!HH', b[ihl + 4:ihl + 8]) == (0x4d4d, seq):
            got.append(seq)
            break
print(*got)
"""


def why_not():
    """Why this cannot run here, or None."""
    if os.getuid() != 0:
        return 'needs root (network namespaces, tap devices)'
    if not os.path.exists('/dev/net/tun'):
        return 'no /dev/net/tun'
    return None


def frr_missing():
    if not os.access(BGPD, os.X_OK) or not os.access(VTYSH, os.X_OK):
        return 'Debian frr is not installed (%s, %s)' % (BGPD, VTYSH)
    return None


class Bgpd:
    """A bgpd without zebra in namespace ns, its config, pid file and vty
    socket in dir; stop() ends it by its PID."""

    def __init__(self, ns, d, conf):
        os.makedirs(d)
        os.chmod(d, 0o777)
        self.dir = d
        path = os.path.join(d, 'bgpd.conf')
        with open(path, 'w') as f:
            f.write(conf)
        self.log = open(os.path.join(d, 'bgpd.log'), 'w+')
        self.proc = subprocess.Popen(
            ns.cmd([BGPD, '-Z', '-S', '-n', '-f', path, '-i', os.path.join(d, 'bgpd.pid'),
                    '--vty_socket', d, '-P', '0', '--log', 'stdout', '--log-level', 'info']),
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.ns = ns

    def show(self, cmd):
        p = subprocess.run(self.ns.cmd([VTYSH, '--vty_socket', self.dir, '-d', 'bgpd',
                                        '-c', cmd]),
                           capture_output=True, text=True, timeout=WAIT)
        try:
            return json.loads(p.stdout)
        except ValueError:
            return None

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def bgp_conf(asn, me, peer, peer_as, announce=None):
    # short timers: the session comes up and the route arrives in seconds
    lines = ['hostname ns%d' % asn, 'router bgp %d' % asn, ' bgp router-id %s' % me,
             ' no bgp ebgp-requires-policy', ' no bgp network import-check',
             ' timers bgp 1 3', ' neighbor %s remote-as %d' % (peer, peer_as),
             ' neighbor %s timers connect 1' % peer,
             ' neighbor %s advertisement-interval 0' % peer,
             ' address-family ipv4 unicast']
    if announce:
        lines.append('  network %s' % announce)
    lines += [' exit-address-family', '']
    return '\n'.join(lines)


@unittest.skipIf(why_not(), why_not())
class Punt(ft.GatewayTestCase):
    """One gateway for every case (they leave each other's counters alone:
    each checks what it added)."""

    @classmethod
    def setUpClass(cls):
        cls.tmpc = tempfile.mkdtemp(prefix='fou-func-punt-')
        cls.nsg = ft.Netns('pg')
        cls.nsp = ft.Netns('pp')
        cls.procs = []
        cls.gw = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        g, p = cls.nsg, cls.nsp
        # the kernel interface the gateway makes in G gets IPv6 (the taps
        # too, but they leave for P before it matters)
        g.run(['sysctl', '-qw', 'net.ipv6.conf.default.disable_ipv6=0'])

        def make_cmd(prefix):
            cmd = [ft.Config.gateway, '-l', '0-1', '--no-huge', '-m', '512', '--no-pci',
                   '--file-prefix', prefix, '--log-level=lib.eal:warning',
                   '--log-level=pmd.net.tap:error',
                   '--vdev', 'net_tap0,iface=' + TAP0, '--vdev', 'net_tap1,iface=' + TAP1,
                   '--', '--link', '0,address=' + MAC_P0, '--link', '1,address=' + MAC_P1,
                   '--addr', '0,%s/24' % GW0, '--addr', '0,%s/64' % GW0_6,
                   '--addr', '1,%s/24' % GW1,
                   '--punt', '0,iface=%s,rate=%d,burst=%d' % (KIF, RATE, BURST)]
            return g.cmd(cmd), {}
        cls.gw = ft.Gateway(cls.tmpc, None, 0, [], make_cmd=make_cmd)

        def up():
            r = cls.gw.running() and cls.gw.telemetry('/fou/punt')
            return r and r[0].get('/fou/punt')
        if not ft.wait_for(up, WAIT, 0.2):
            raise AssertionError('the gateway did not come up\n' + cls.gw.stop().describe())
        # the ports' kernel sides are the peer, in P, with MACs of their own
        for tap, mac, addr in ((TAP0, MAC_N0, PEER0), (TAP1, MAC_N1, PEER1)):
            g.run(['ip', 'link', 'set', tap, 'netns', p.name])
            p.run(['ip', 'link', 'set', tap, 'address', mac])
            p.run(['ip', 'addr', 'add', addr + '/24', 'dev', tap])
        for k, v in (('accept_dad', 0), ('router_solicitations', 0), ('disable_ipv6', 0)):
            p.run(['sysctl', '-qw', 'net.ipv6.conf.%s.%s=%d' % (TAP0, k, v)])
        p.run(['ip', '-6', 'addr', 'add', PEER0_6 + '/64', 'dev', TAP0, 'nodad'])
        for tap in (TAP0, TAP1):
            p.run(['ip', 'link', 'set', tap, 'up'])
        # the kernel interface has the port's addresses
        if not ft.wait_for(lambda: GW0_6 in g.out(['ip', 'addr', 'show', 'dev', KIF]), WAIT):
            raise AssertionError(g.out(['ip', 'addr', 'show', 'dev', KIF]))
        for addr in (GW0, GW0_6):
            srv = subprocess.Popen(g.cmd([ft.PYTHON, '-c', SERVER, addr, '7000']),
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            cls.procs.append(srv)
            if srv.stdout.readline().strip() != 'ready':
                raise AssertionError('the listener on %s did not start' % addr)

    @classmethod
    def tearDownClass(cls):
        for proc in cls.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if cls.gw is not None:
            cls.gw.stop()
        cls.nsp.close()
        cls.nsg.close()
        if ft.Config.keep:
            sys.stderr.write('\nkept %s\n' % cls.tmpc)
        else:
            shutil.rmtree(cls.tmpc, ignore_errors=True)

    def stats(self):
        r = self.gw.telemetry('/fou/stats', '/fou/punt')
        self.assertIsNotNone(r)
        return r[0]['/fou/stats'], r[1]['/fou/punt']

    def client(self, addr, msg, timeout=5):
        return self.nsp.out([ft.PYTHON, '-c', CLIENT, addr, '7000', msg, str(timeout)])

    def test_a_tcp_udp_up(self):
        """TCP and UDP to the port's addresses reach the listeners on the
        kernel interface and the answers come back through the port."""
        before, _ = self.stats()
        for addr, msg in ((GW0, 'over-ipv4'), (GW0_6, 'over-ipv6')):
            out = self.client(addr, msg).split('\n')
            self.assertEqual(out[:2], ['tcp ' + msg[::-1], 'udp ' + msg[::-1]], (addr, out))
        after, punt = self.stats()
        up = {k: after['punt'][k] - before['punt'][k] for k in after['punt']}
        self.assertGreaterEqual(up['up_tcp'], 2 * 3, up)     # SYN, data, ACKs, FIN...
        self.assertEqual(up['up_udp'], 2, up)
        self.assertGreaterEqual(up['to_kernel'], up['up_tcp'] + up['up_udp'], up)
        self.assertGreaterEqual(up['from_kernel'], 2 * 3, up)
        self.assertEqual(punt['0']['iface'], KIF, punt)
        self.assertGreater(punt['0']['ifindex'], 0, punt)
        # ARP and ND: the peer asked for the gateway; the kernel learnt the
        # peer from the copies and its answers stayed off the wire
        self.assertGreaterEqual(after['local']['arp_replies_out'], 1, after['local'])
        self.assertGreaterEqual(up['up_copy'], 2, up)
        self.assertGreaterEqual(after['drops']['punt_kernel_answer'], 2, after['drops'])
        for fam, addr in (('-4', PEER0), ('-6', PEER0_6)):
            out = self.nsg.out(['ip', fam, 'neigh', 'show', addr, 'dev', KIF])
            self.assertIn(MAC_N0, out, out)
        for name in ('punt_ring_full', 'punt_ratelimited', 'punt_down_bad'):
            self.assertEqual(after['drops'][name], 0, after['drops'])

    def test_b_ping(self):
        """A ping of the port's address is the gateway's to answer; a ping
        from the kernel interface gets its replies up."""
        before, _ = self.stats()
        got = self.nsp.out([ft.PYTHON, '-c', PING, GW0, '2']).split()
        self.assertEqual(got, ['1', '2'])
        got = self.nsg.out([ft.PYTHON, '-c', PING, PEER0, '2']).split()
        self.assertEqual(got, ['1', '2'])
        after, _ = self.stats()
        self.assertEqual(after['icmp_sent']['icmp_echo_reply'] -
                         before['icmp_sent']['icmp_echo_reply'], 2)
        self.assertEqual(after['punt']['up_icmp'] - before['punt']['up_icmp'], 2)

    def test_c_no_punt(self):
        """Port 1 has no kernel interface: the same TCP is dropped as
        local_not_udp, the UDP gets a port unreachable, as without --punt."""
        before, _ = self.stats()
        out = self.nsp.out([ft.PYTHON, '-c', CLIENT, GW1, '7000', 'x', '1'])
        self.assertEqual(out.split('\n')[:2], ['tcp-error TimeoutError', 'udp-error ConnectionRefusedError'],
                         out)
        after, _ = self.stats()
        self.assertGreaterEqual(after['drops']['local_not_udp'] - before['drops']['local_not_udp'],
                                1)
        self.assertEqual(after['icmp_sent']['icmp_port_unreach'] -
                         before['icmp_sent']['icmp_port_unreach'], 1)
        for k in ('up_tcp', 'up_udp'):
            self.assertEqual(after['punt'][k], before['punt'][k], k)

    def test_d_addresses_follow(self):
        """An address added to port 0 at run time appears on the kernel
        interface, and goes when it is deleted; the running config has the
        punt statement."""
        r = self.gw.telemetry('/fou/addr/add,0,10.77.9.1/24')
        self.assertEqual(r, [{'/fou/addr/add': {'status': 'ok'}}])
        show = ['ip', '-4', 'addr', 'show', 'dev', KIF]
        self.assertTrue(ft.wait_for(lambda: '10.77.9.1/24' in self.nsg.out(show), WAIT),
                        self.nsg.out(show))
        r = self.gw.telemetry('/fou/addr/del,0,10.77.9.1/24')
        self.assertEqual(r, [{'/fou/addr/del': {'status': 'ok'}}])
        self.assertTrue(ft.wait_for(lambda: '10.77.9.1' not in self.nsg.out(show), WAIT),
                        self.nsg.out(show))
        client = ft.TelemetryClient(self.gw.prefix)
        try:
            lines = ft.config_lines(client)
        finally:
            client.close()
        self.assertIn('punt = 0,iface=%s,rate=%d,burst=%d' % (KIF, RATE, BURST), lines)
        # fouctl, built beside the gateway, shows the interface and its counters
        fouctl = os.path.join(os.path.dirname(ft.Config.gateway), 'fouctl')
        show = subprocess.run([fouctl, '-p', self.gw.prefix, 'punt', 'show'],
                              capture_output=True, text=True, timeout=WAIT)
        self.assertEqual(show.returncode, 0, show.stderr)
        self.assertRegex(show.stdout, r'^port 0: %s ifindex [1-9]\d*, rate %d/s burst %d per lcore\n'
                         r'    up tcp [1-9]\d* udp [1-9]' % (KIF, RATE, BURST))
        stats = subprocess.run([fouctl, '-p', self.gw.prefix, 'stats'],
                               capture_output=True, text=True, timeout=WAIT)
        self.assertRegex(stats.stdout, r'\nkernel interface:\n(    .*\n)*    up_tcp ')
        r = self.gw.telemetry('/fou/punt/add,1', '/fou/punt/del,0')
        self.assertEqual([e[c]['errno'] for e, c in zip(r, ('/fou/punt/add', '/fou/punt/del'))],
                         [-16, -16], r)

    def test_f_rate_limit(self):
        """A flood of datagrams for the kernel interface: what is over the
        port's rate is punt_ratelimited, the rest goes up, and the workers
        go on (the TCP exchange right after still works)."""
        before, _ = self.stats()
        self.nsp.run([ft.PYTHON, '-c', FLOOD_SEND, GW0, '9', str(FLOOD)])

        def settled():
            s, _ = self.stats()
            n = s['punt']['up_udp'] - before['punt']['up_udp'] + \
                s['drops']['punt_ratelimited'] - before['drops']['punt_ratelimited']
            return n if s['rx'] - before['rx'] >= n and n > 0 and \
                s['punt']['to_kernel'] + s['punt']['to_kernel_failed'] == \
                s['punt']['up_tcp'] + s['punt']['up_udp'] + s['punt']['up_icmp'] + \
                s['punt']['up_other'] + s['punt']['up_neigh'] + s['punt']['up_copy'] else None
        self.assertTrue(ft.wait_for(settled, WAIT, 0.2))
        after, punt = self.stats()
        limited = after['drops']['punt_ratelimited'] - before['drops']['punt_ratelimited']
        self.assertGreater(limited, 0, after['drops'])
        self.assertLess(after['punt']['up_udp'] - before['punt']['up_udp'], FLOOD, after['punt'])
        self.assertEqual((punt['0']['rate'], punt['0']['burst']), (RATE, BURST), punt)
        out = self.client(GW0, 'after-flood').split('\n')
        self.assertEqual(out[0], 'tcp ' + 'after-flood'[::-1], out)

    @unittest.skipIf(frr_missing(), frr_missing())
    def test_e_bgp(self):
        """bgpd on the kernel interface (G, AS 65001) peers through the
        gateway's port with bgpd in P (AS 65002), which then holds the
        tunnel endpoint G announces."""
        g = Bgpd(self.nsg, os.path.join(self.tmpc, 'bgp-g'),
                 bgp_conf(65001, GW0, PEER0, 65002, ENDPOINT))
        p = Bgpd(self.nsp, os.path.join(self.tmpc, 'bgp-p'),
                 bgp_conf(65002, PEER0, GW0, 65001))
        try:
            def route():
                j = p.show('show bgp ipv4 unicast json')
                return j and ENDPOINT in j.get('routes', {}) and j['routes'][ENDPOINT]
            paths = ft.wait_for(route, 60, 0.5)
            self.assertTrue(paths, 'no route\n--- bgpd G\n%s--- bgpd P\n%s' %
                            (g.output(), p.output()))
            self.assertEqual(paths[0]['nexthops'][0]['ip'], GW0, paths)
            summ = p.show('show bgp ipv4 unicast summary json')
            self.assertEqual(summ['peers'][GW0]['state'], 'Established', summ)
        finally:
            g.stop()
            p.stop()

    def test_z_exit(self):
        """At exit: every packet accounted for, punted ones as their own
        term, and every mbuf back."""
        gw = type(self).gw
        gw.signal(signal.SIGINT)
        run = gw.wait()
        self.assertHealthy(run)
        s = run.summary
        self.assertGreater(s.punted, 0, run.describe())
        self.assertGreater(s.punt_in, 0, run.describe())
        self.assertEqual(s.punt.get('to_kernel_failed', 0), 0, run.describe())


if __name__ == '__main__':
    ft.main()
