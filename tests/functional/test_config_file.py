#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 6: the setup of case 1 given by --config files (NAME = ARG lines,
'#' comments) must behave exactly as the same setup on the command line:
same counters, same bytes out of every port."""
import os
import re
import shutil
import signal
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from test_linux_captures import capture_traffic  # noqa: E402

# ft.BASE_OPTS as a commented config file
CONFIG = """\
# dpdk-fou functional test: the FOU peer 10.99.0.2 on port 0, the inner
# networks behind next hops on port 1.

# ports: MAC addresses
link = 0,address=%(MAC_P0)s
link = 1,address=%(MAC_P1)s      # port 1: the inner side

# local addresses
addr = 0,10.99.0.1/24
addr = 1,192.168.1.1/24
   addr   =   1,fd00:1::1/64

# FOU receive ports, as `ip fou add port N ipproto P`
port = 5555:ipip
port = 5556:gre
port = 5557:sit

# inner routes, each through its own next hop
route = 192.168.4.0/24,dev=1,via=192.168.1.2
route = 192.168.47.0/24,dev=1,via=192.168.1.3
route = fd00:41::/64,dev=1,via=fd00:1::2
neigh = 192.168.1.2,dev=1,lladdr=%(MAC_NH_IPIP)s
neigh = 192.168.1.3,dev=1,lladdr=%(MAC_NH_GRE)s
neigh = fd00:1::2,dev=1,lladdr=%(MAC_NH_SIT)s
""" % vars(ft)


def statements(text):
    """The non-comment lines of a config text."""
    return [ln.split('#')[0].strip() for ln in text.splitlines() if ln.split('#')[0].strip()]


def arp_probes(run):
    """{port: ARP requests it sent to resolve a neighbour} (not the
    announcements, whose sender is their target)."""
    return {p: sum(1 for f in own if f[12:14] == b'\x08\x06' and f[20:22] == b'\x00\x01' and
                   f[28:32] != f[38:42]) for p, own in run.own.items()}


def summary_lines(run):
    """The summary without the time it took, and without the resolution
    requests a run had time for: the gateway asks for a neighbour again
    every second until it stops (--idle-exit), one request or two."""
    probes = arp_probes(run)
    total = sum(probes.values())

    def less(m, n):
        return m[1] + str(int(m[2]) - n)
    out = []
    for ln in run.stdout.splitlines():
        if ln.startswith('dpdk-fou: stopped after'):
            continue
        port = re.match(r'^port (\d+): rx \d+ tx ', ln)
        if port:
            ln = re.sub(r'^(port \d+: rx \d+ tx )(\d+)',
                        lambda m: less(m, probes[int(port[1])]), ln)
        ln = re.sub(r'^(local (?:arp_requests_out|originated): )(\d+)',
                    lambda m: less(m, total), ln)
        if ln.startswith('accounting:'):
            ln = re.sub(r'( originated )(\d+)', lambda m: less(m, total), ln)
            ln = re.sub(r'(= tx )(\d+)', lambda m: less(m, total), ln)
        out.append(ln)
    return out


class ConfigFile(ft.GatewayTestCase):
    @classmethod
    def setUpClass(cls):
        """One command-line run over all six captures: the reference."""
        cls.class_tmp = tempfile.mkdtemp(prefix='fou-func-')
        cls.traffic = ft.Traffic()
        for name in ft.LINUX_CAPTURES:
            cls.traffic.cases += capture_traffic(name).cases
        cls.input = cls.traffic.write(os.path.join(cls.class_tmp, 'linux-all.pcap'))
        os.mkdir(os.path.join(cls.class_tmp, 'ref'))
        cls.ref = ft.run_gateway(os.path.join(cls.class_tmp, 'ref'), {0: cls.input},
                                 ft.BASE_OPTS)
        cls.ref_out = {p: ft.capture_frames(cls.ref.outputs[p]) for p in (0, 1)}

    @classmethod
    def tearDownClass(cls):
        if not ft.Config.keep:
            shutil.rmtree(cls.class_tmp, ignore_errors=True)

    def write(self, name, text):
        with open(self.path(name), 'w') as f:
            f.write(text)
        return self.path(name)

    def check_traffic(self, run):
        self.assertTraffic(run, self.traffic, port_macs={0: ft.MAC_P0, 1: ft.MAC_P1})
        # the 12 ICMP errors to 10.99.0.3 wait for ARP until the end
        self.assertEqual(run.summary.drops, {'neigh_stopped': 12})
        self.assertNeighOut(run, 0, ft.MAC_P0, ft.BASE_ANNOUNCE[0],
                            resolve={'10.99.0.3': ft.IP_P0})
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1])
        self.assertEqual(run.summary.tx, {0: len(run.own[0]), 1: 54 + 2})

    def check_same_as_command_line(self, opts):
        run = self.run_gw({0: self.input}, opts)
        self.check_traffic(run)
        self.assertEqual(summary_lines(run), summary_lines(self.ref))
        for port in (0, 1):
            self.assertEqual(ft.capture_frames(run.outputs[port]), self.ref_out[port],
                             'port %d output differs from the command-line run' % port)

    def test_command_line(self):
        """The reference run itself."""
        self.check_traffic(self.ref)

    def test_config_file(self):
        self.assertEqual(len(statements(CONFIG)), len(ft.BASE_OPTS) // 2)
        self.check_same_as_command_line(['--config', self.write('gw.conf', CONFIG)])

    def test_config_file_any_order(self):
        """Statements refer to others defined later in the file."""
        text = '\n'.join(reversed(CONFIG.splitlines())) + '\n'
        self.check_same_as_command_line(['--config', self.write('gw.conf', text)])

    def test_config_files_and_command_line(self):
        """Two config files and command-line statements make one setup."""
        lines = statements(CONFIG)
        ports = [ln for ln in lines if ln.startswith('port')]
        routes = [ln for ln in lines if ln.startswith(('route', 'neigh'))]
        rest = [ln for ln in lines if ln not in ports and ln not in routes]
        opts = ['--config', self.write('routes.conf', '# routes\n' + '\n'.join(routes) + '\n')]
        for ln in ports:
            name, arg = (x.strip() for x in ln.split('=', 1))
            opts += ['--' + name, arg]
        opts += ['--config', self.write('base.conf', '\r\n'.join(rest) + '\r\n')]
        self.check_same_as_command_line(opts)

    def test_config_file_limits(self):
        """Smaller tables from the file's limits statement: the same traffic
        and summary; the startup line says the sizes, and less memory."""
        run = self.run_gw({0: self.input}, ['--config', self.write(
            'gw.conf', '# small tables\nlimits = tunnels=8,routes4=100\n' + CONFIG)])
        self.check_traffic(run)
        tables = re.compile(r'^tables: tunnels (\d+), routes4 (\d+), routes6 (\d+), '
                            r'neigh (\d+): (\d+\.\d) MiB$')

        def split(r):
            lines = summary_lines(r)
            t = [tables.match(ln) for ln in lines if tables.match(ln)]
            self.assertEqual(len(t), 1, r.describe())
            return [ln for ln in lines if not tables.match(ln)], t[0]
        lines, small = split(run)
        ref_lines, ref = split(self.ref)
        self.assertEqual(lines, ref_lines)
        self.assertEqual(small.groups()[:4], ('8', '100', '65536', '4096'))
        self.assertEqual(ref.groups()[:4], ('1024', '65536', '65536', '4096'))
        self.assertLess(float(small[5]), float(ref[5]))
        for port in (0, 1):
            self.assertEqual(ft.capture_frames(run.outputs[port]), self.ref_out[port])


class Demo(ft.GatewayTestCase):
    def test_demo(self):
        """`make demo`: config/demo.conf with the Linux captures on port 0 and
        tests/data/inside-replies.pcap on port 1 gives the README's summary:
        every echo reply encapsulated toward the peer (no tshark error), the
        too-big packet answered with ICMP, only the ICMP errors to 10.99.0.3
        dropped (they wait for 10.99.0.3 to answer ARP, until the end)."""
        conf = os.path.join(os.path.dirname(ft.Config.data), '..', 'config', 'demo.conf')
        gw = self.start({0: ft.data_file('linux-6.1-all.pcap'),
                         1: ft.data_file('inside-replies.pcap')},
                        ['--config', os.path.normpath(conf)])

        def done():
            r = gw.telemetry('/fou/tunnels') if gw.running() else None
            t = r[0].get('/fou/tunnels') if r and isinstance(r[0], dict) else None
            return t if t and sum(t[k]['tx_packets'] for k in t if k.isdigit()) == 18 \
                else None
        tel = ft.wait_for(done, 60, interval=0.1)
        # the names have '-', which a telemetry key may not: listed by position
        self.assertEqual(tel and [tel[k]['name'] for k in ('0', '1', '2')],
                         ['fou-ipip', 'fou-gre', 'fou-sit'], tel)
        self.assertEqual(tel['count'], 3)
        gw.signal(signal.SIGTERM)
        run = gw.wait(ft.RUN_TIMEOUT)
        self.assertHealthy(run)
        s = run.summary
        own = {p: len(f) for p, f in run.own.items()}
        self.assertEqual((s.rx, s.tx), ({0: 66, 1: 19}, {0: 18 + own[0], 1: 55 + own[1]}),
                         run.describe())
        self.assertEqual(s.drops, {'neigh_stopped': 12}, run.describe())
        self.assertEqual(s.icmp, {'icmp_frag_needed': 1}, run.describe())
        self.assertEqual(s.tunnels, {'fou-ipip': (6, 504), 'fou-gre': (6, 504),
                                     'fou-sit': (6, 624)}, run.describe())
        self.assertEqual({n: p for n, (p, _) in s.tunnels_rx.items()},
                         {'fou-ipip': 18, 'fou-gre': 18, 'fou-sit': 18}, run.describe())
        self.assertEqual(ft.tshark_problems(run.outputs[0]), [])
        self.assertEqual(ft.tshark_problems(run.outputs[1], tcp=False), [])


if __name__ == '__main__':
    ft.main()
