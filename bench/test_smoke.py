#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Smoke test of the benchmark (meson test --suite bench): bench/run --tiny
must produce well-formed output -- every case and stage present, every rate
and count a positive number, charts that are PNG files. The numbers
themselves are never judged: tests check behaviour, not timing.

Hugepages: where the bench can have them (root, 2 MB pages, memory free) the
app-level cases run on them from its own hugetlbfs mount and the in-process
benchmark runs on them and on 4 KB pages; where it cannot, everything runs
on 4 KB pages and its log says why. Either way the mount is gone afterwards.

    /usr/bin/python3 bench/test_smoke.py --build BUILD
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = None


def rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def positive(testcase, value, what):
    try:
        v = float(value)
    except (TypeError, ValueError):
        testcase.fail('%s: %r is not a number' % (what, value))
    testcase.assertGreater(v, 0, what)


class BenchTiny(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix='fou-bench-')
        cls.out = cls.tmp.name
        cls.proc = subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'run'), '--tiny',
                                   '--build', BUILD, '--out', cls.out],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  timeout=600)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-3000:])

    def assertSaysWhyNoHugepages(self, what):
        """Hugepages not used for what: the log must say why."""
        self.assertRegex(self.proc.stderr,
                         r'bench: hugepages: .+; (4 KB pages throughout|'
                         r'the app-level cases on 4 KB pages)',
                         '%s on 4 KB pages without a reason in the log' % what)

    def test_app_csv(self):
        r = rows(os.path.join(self.out, 'app.csv'))
        cases = {(x['input'], x['inner_bytes'], x['app']) for x in r}
        self.assertEqual(cases, {(i, '64', a) for i in ('decap-ipip', 'encap-gre')
                                 for a in ('testpmd-io', 'testpmd-csum', 'dpdk-fou')})
        for x in r:
            positive(self, x['mpps'], 'Mpps of %s' % (x,))
            positive(self, x['ratio_to_testpmd_io'], 'ratio of %s' % (x,))
            if x['app'] == 'testpmd-io':
                self.assertEqual(x['ratio_to_testpmd_io'], '1.000')
        pages = {x['pages'] for x in r}
        self.assertIn(pages, ({'huge'}, {'4k'}))
        if pages == {'4k'}:
            self.assertSaysWhyNoHugepages('the app-level cases')

    def test_app_memory(self):
        """Each case's command line (its log's first line): on hugepages
        from a hugetlbfs mount that no longer exists, else --no-huge."""
        huge = rows(os.path.join(self.out, 'app.csv'))[0]['pages'] == 'huge'
        logs = os.path.join(self.out, 'logs')
        cases = [f for f in os.listdir(logs) if f.endswith('.log')]
        self.assertEqual(len(cases), 6 + 2 * 3, cases)     # app cases, GRO cases of both inputs
        with open('/proc/mounts') as f:
            mounts = f.read()
        for name in cases:
            with open(os.path.join(logs, name)) as f:
                cmd = f.readline().split()
            if huge:
                self.assertNotIn('--no-huge', cmd, name)
                self.assertIn('--huge-unlink', cmd, name)
                mount = cmd[cmd.index('--huge-dir') + 1]
                self.assertNotIn(' %s ' % mount, mounts, 'still mounted after the run')
                self.assertFalse(os.path.exists(mount), mount)
            else:
                self.assertIn('--no-huge', cmd, name)
                self.assertNotIn('--huge-dir', cmd, name)

    def test_micro_csv(self):
        r = rows(os.path.join(self.out, 'micro.csv'))
        self.assertEqual(list(r[0])[0], 'pages')
        kinds = list(dict.fromkeys(x['pages'] for x in r))
        self.assertIn(kinds, (['huge', '4k'], ['4k']))
        if kinds == ['4k']:
            self.assertSaysWhyNoHugepages('the in-process benchmark')
        for pages in kinds:
            levels = [(x['tunnels'], x['routes']) for x in r
                      if x['stage'] == 'decap' and x['pages'] == pages]
            self.assertEqual(levels, [('1', '10'), ('10', '10'), ('10', '100')], pages)
            self.assertEqual({x['stage'] for x in r if x['pages'] == pages},
                             {'fwd', 'decap', 'encap', 'decap-gue', 'encap-gue', 'decap6',
                              'encap6'},
                             pages)
        for x in r:
            for col in ('packets', 'cycles_per_pkt', 'cycles_per_pkt_min',
                        'reset_cycles_per_pkt', 'tsc_mhz'):
                positive(self, x[col], '%s of %s' % (col, x))
            self.assertLessEqual(float(x['cycles_per_pkt_min']), float(x['cycles_per_pkt']))

    def test_callgrind_csv(self):
        r = rows(os.path.join(self.out, 'callgrind.csv'))
        totals = {x['stage']: x for x in r if x['function'] == 'TOTAL'}
        self.assertEqual(set(totals), {'fwd', 'decap', 'encap', 'decap6', 'encap6'})
        for stage, t in totals.items():
            positive(self, t['instructions_per_pkt'], 'instructions of ' + stage)
            funcs = [x for x in r if x['stage'] == stage and x['function'] != 'TOTAL']
            self.assertTrue(any('fou_rx_burst' in x['function'] for x in funcs), funcs)
            for x in funcs:
                self.assertRegex(x['function'], r'^\S+:\w+', x)
                positive(self, x['instructions_per_pkt'], 'instructions of %s' % (x,))

    def test_control_csv(self):
        r = rows(os.path.join(self.out, 'control.csv'))
        self.assertEqual([x['operation'] for x in r],
                         ['tunnel_add', 'route_add_tunnel', 'route_add', 'neigh_add',
                          'route_del', 'neigh_del', 'tunnel_del'])
        counts = {x['operation']: int(x['count']) for x in r}
        self.assertEqual(counts['tunnel_add'], 10)
        self.assertEqual(counts['route_add'], 100)
        self.assertEqual(counts['route_del'], 100)
        self.assertGreater(counts['neigh_add'], 0)
        for x in r:
            for col in ('seconds', 'us_per_op'):
                self.assertGreaterEqual(float(x[col]), 0, '%s of %s' % (col, x))

    def test_mix_csv(self):
        """Every outcome of the mix, the same in bursts and one per call, and
        as many as its kinds say (fou-microbench exits 1 otherwise: the run
        would have stopped)."""
        r = rows(os.path.join(self.out, 'mix.csv'))
        rounds = {x['round'] for x in r}
        self.assertEqual(rounds, {'icmp errors sent', 'icmp errors off'})
        for rnd in rounds:
            got = {x['outcome']: x for x in r if x['round'] == rnd}
            for outcome in ('received', 'sent on port 0', 'sent on port 1', 'decapsulated',
                            'encapsulated', 'taken in', 'sent icmp_echo_reply', 'drop no_tunnel',
                            'drop ttl_exceeded', 'drop ip_cksum_bad', 'drop no_route'):
                self.assertIn(outcome, got, rnd)
                positive(self, got[outcome]['bursts'], '%s: %s' % (rnd, outcome))
            self.assertEqual(got['received']['bursts'], '512')
        self.assertIn('sent icmp_time_exceeded', {x['outcome'] for x in r
                                                  if x['round'] == 'icmp errors sent'})
        for x in r:
            self.assertEqual(x['bursts'], x['one_per_call'], x)
            self.assertIn(x['expected'], ('-', x['bursts']), x)
            self.assertEqual(x['verdict'], 'ok', x)

    def test_gro_csv(self):
        r = rows(os.path.join(self.out, 'gro.csv'))
        cases = ['gro off', 'gro on, egress mtu 1500 (rte_gso)', 'gro on, egress mtu 9000 (whole)']
        self.assertEqual([(x['input'], x['case']) for x in r],
                         [(i, c) for i in ('udp-csum-zero', 'udp-csum-set') for c in cases])
        for x in r:
            for col in ('packets_in_mpps', 'frames_out_mpps', 'segments_out_mpps',
                        'ratio_to_gro_off'):
                positive(self, x[col], '%s of %s' % (col, x))
            if x['case'] == 'gro off':
                self.assertEqual(x['ratio_to_gro_off'], '1.000')

    def test_charts(self):
        for name in ('app.png', 'micro.png'):
            with open(os.path.join(self.out, name), 'rb') as f:
                self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n', name)

    def test_results_md(self):
        with open(os.path.join(self.out, 'results.md')) as f:
            text = f.read()
        self.assertIn('| decap-ipip | 64 |', text)
        self.assertIn('| encap | 10 | 100 |', text)
        kinds = list(dict.fromkeys(x['pages'] for x in rows(os.path.join(self.out,
                                                                         'micro.csv'))))
        head = re.search(r'^\| stage \| tunnels \| routes \|(.*)$', text, re.M)
        self.assertIsNotNone(head, text)
        self.assertEqual(re.findall(r'(\S+ \S+) pages: cycles/packet', head[1]),
                         [{'huge': '2 MB', '4k': '4 KB'}[k] for k in kinds])
        self.assertIn('app-level cases on %s' % (
            '2 MB hugepages' if rows(os.path.join(self.out, 'app.csv'))[0]['pages'] == 'huge'
            else '4 KB pages (--no-huge)'), text)
        self.assertIn('Machine: ', text)
        self.assertIn('| udp-csum-set | gro on, egress mtu 9000 (whole) |', text)
        self.assertIn('| tunnel_add | 10 |', text)
        self.assertIn('the same in bursts of 32 and one packet per call', text)


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    args, rest = ap.parse_known_args()
    BUILD = os.path.abspath(args.build)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
