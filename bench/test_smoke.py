#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Smoke test of the benchmark (meson test --suite bench): bench/run --tiny
must produce well-formed output -- every case and stage present, every rate
and count a positive number, charts that are PNG files. The numbers
themselves are never judged: tests check behaviour, not timing.

    /usr/bin/python3 bench/test_smoke.py --build BUILD
"""
import argparse
import csv
import os
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

    def test_micro_csv(self):
        r = rows(os.path.join(self.out, 'micro.csv'))
        levels = [(x['tunnels'], x['routes']) for x in r if x['stage'] == 'decap']
        self.assertEqual(levels, [('1', '10'), ('10', '10'), ('10', '100')])
        self.assertEqual({x['stage'] for x in r}, {'fwd', 'decap', 'encap'})
        for x in r:
            for col in ('packets', 'cycles_per_pkt', 'cycles_per_pkt_min',
                        'reset_cycles_per_pkt', 'tsc_mhz'):
                positive(self, x[col], '%s of %s' % (col, x))
            self.assertLessEqual(float(x['cycles_per_pkt_min']), float(x['cycles_per_pkt']))

    def test_callgrind_csv(self):
        r = rows(os.path.join(self.out, 'callgrind.csv'))
        totals = {x['stage']: x for x in r if x['function'] == 'TOTAL'}
        self.assertEqual(set(totals), {'fwd', 'decap', 'encap'})
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
        self.assertIn('Machine: ', text)
        self.assertIn('| udp-csum-set | gro on, egress mtu 9000 (whole) |', text)
        self.assertIn('| tunnel_add | 10 |', text)


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    args, rest = ap.parse_known_args()
    BUILD = os.path.abspath(args.build)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
