#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Ready means ready, systemd's readiness protocol, and the log.

- A client that connects to the telemetry socket as soon as it appears
  gets {"error": "not ready: dpdk-fou is starting", "errno": -11} from every
  /fou command (never null, never a change) until the gateway runs; then
  the same command works, and the state is exactly the start's plus what
  was added once ready. The start is held deterministically: the
  gateway's stdout is a pipe the test has filled, so it waits at its first
  line (which comes after the telemetry socket exists) until the test
  reads.
- sd_notify: with $NOTIFY_SOCKET (an abstract name, or a path) the gateway
  sends READY=1 only once /fou/ports answers, STOPPING=1 when SIGTERM comes,
  and from then on the commands answer the stopping error (-108). The stop
  is held the same way: with its stdout full it cannot print its summary
  and exit until the test reads.
- rte_log: --log-level=fou.*:debug shows each telemetry change with its
  statement and result (a newline in it as '?'), the reads, and the
  statements of the start; fou.telemetry:warning hides the changes;
  `--syslog daemon` is accepted; with stdout as systemd's journal stream
  ($JOURNAL_STREAM) each log line carries its syslog priority ("<6>"), and
  the exit summary does not.
"""
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402

WAIT = 30       # a safety net only: every wait below ends on an event


class Proc:
    """A gateway on two pcap ports without input, running until a signal,
    with its own environment, EAL options and stdout (a file by default)."""

    def __init__(self, tmp, opts, env=None, stdout=None, eal=()):
        self.prefix = ft.unique_prefix()
        self.cmd, _ = ft.gateway_cmd(tmp, {}, 2, opts, self.prefix, idle_exit=None)
        i = self.cmd.index('--')
        self.cmd[i:i] = list(eal)
        self.out_path = os.path.join(tmp, self.prefix + '.stdout')
        self.err = open(os.path.join(tmp, self.prefix + '.stderr'), 'w+')
        self.out = stdout if stdout is not None else open(self.out_path, 'w+')
        self.env = dict(os.environ, **(env or {}))
        self.sock_path = os.path.join(ft.runtime_dir(self.prefix), 'dpdk_telemetry.v2')
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(self.cmd, stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=self.env)
        return self

    def connect(self):
        """A telemetry connection as soon as the socket is there."""
        ok = ft.wait_for(lambda: os.path.exists(self.sock_path) or self.proc.poll() is not None,
                         WAIT, 0.01)
        assert ok and self.proc.poll() is None, 'no telemetry socket\n' + self.describe()
        return Client(self.sock_path)

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def stdout(self):
        with open(self.out_path) as f:
            return f.read()

    def describe(self):
        self.err.seek(0)
        out = self.stdout() if os.path.exists(self.out_path) else ''
        return 'command: %s\n--- stdout\n%s--- stderr\n%s' % (' '.join(self.cmd), out,
                                                              self.err.read())

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


class Client:
    """One telemetry connection: cmd() sends a command and returns its
    reply, whatever it is (no waiting for readiness here)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.settimeout(WAIT)
        self.s.connect(path)
        self.max_len = json.loads(self.s.recv(1024).decode())['max_output_len']

    def cmd(self, command):
        self.s.send(command.encode())
        reply = json.loads(self.s.recv(self.max_len).decode())
        return reply[command.split(',')[0]]

    def close(self):
        self.s.close()


class NotifySocket:
    """The service manager's end of sd_notify: a Unix datagram socket."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # '@name' is abstract: a NUL byte first, as systemd reads it
        self.s.bind('\0' + path[1:] if path.startswith('@') else path)
        self.address = path

    def recv(self, timeout=WAIT):
        """The next datagram as {KEY: VALUE}, or None."""
        self.s.settimeout(timeout)
        try:
            data = self.s.recv(4096).decode()
        except socket.timeout:
            return None
        return dict(line.split('=', 1) for line in data.split('\n') if line)

    def pending(self):
        """A datagram already there, without waiting (None: nothing)."""
        self.s.setblocking(False)
        try:
            return self.s.recv(4096)
        except BlockingIOError:
            return None

    def close(self):
        self.s.close()


class StdoutPipe:
    """The gateway's stdout as a pipe the test reads in a thread, or stops
    reading and fills, so that the gateway's next write waits until the
    test reads again."""

    def __init__(self):
        self.r, self.w = os.pipe()
        self.data = bytearray()
        self.reading = threading.Event()
        self.reading.set()
        self.idle = threading.Event()
        self.done = False
        self.th = threading.Thread(target=self._read, daemon=True)
        self.th.start()

    def _read(self):
        while not self.done:
            if not self.reading.is_set():
                self.idle.set()
                self.reading.wait(0.05)
                continue
            self.idle.clear()
            ready, _, _ = select.select([self.r], [], [], 0.05)
            if ready:
                chunk = os.read(self.r, 65536)
                if not chunk:
                    self.done = True
                self.data += chunk

    def fill(self):
        """Stop reading and fill the pipe to the last byte, through a file
        description of our own (O_NONBLOCK on the one the gateway shares
        would make its writes fail instead of wait)."""
        self.reading.clear()
        assert self.idle.wait(WAIT)
        fd = os.open('/proc/self/fd/%d' % self.w, os.O_WRONLY | os.O_NONBLOCK)
        n = 0
        try:
            for size in (65536, 4096, 1):
                while True:
                    try:
                        n += os.write(fd, b'\0' * size)
                    except BlockingIOError:
                        break
        finally:
            os.close(fd)
        return n

    def drain(self):
        """Read again: the gateway's write goes on. Our write end closes,
        so that the gateway's exit is the end of the stream."""
        if self.w is not None:
            os.close(self.w)
            self.w = None
        self.reading.set()

    def text(self, eof=False):
        """What was read, the filler left out; with eof, all of it (once
        the gateway has exited and the test reads)."""
        if eof:
            self.th.join(WAIT)
        return self.data.replace(b'\0', b'').decode()

    def close(self):
        self.done = True
        self.reading.set()
        self.th.join(WAIT)
        if self.w is not None:
            os.close(self.w)
        os.close(self.r)


class Readiness(ft.GatewayTestCase):
    def setUp(self):
        super().setUp()
        self.cleanup = []

    def tearDown(self):
        for c in reversed(self.cleanup):
            c()
        super().tearDown()

    def proc(self, opts, **kw):
        p = Proc(self.tmp, opts, **kw)
        self.cleanup.append(p.close)
        return p

    def notify_socket(self, path):
        n = NotifySocket(path)
        self.cleanup.append(n.close)
        return n

    def stdout_pipe(self):
        out = StdoutPipe()
        self.cleanup.append(out.close)
        return out

    def test_commands_wait_for_the_start(self):
        """Connected while the start is held (its stdout is full from the
        start; the EAL and the PMDs are kept quiet, so that the first line
        comes once the socket is there): every command, read or change,
        answers NOT_READY and changes nothing, and systemd hears nothing. Once stdout is read,
        /fou/port/add is sent until it succeeds: every answer before is
        NOT_READY, and the state is the start's plus that port, none of the
        refused changes."""
        notify = self.notify_socket(self.path('notify.sock'))
        out = self.stdout_pipe()
        self.assertGreater(out.fill(), 0)
        gw = self.proc(ft.BASE_OPTS, env={'NOTIFY_SOCKET': notify.address}, stdout=out.w,
                       eal=['--log-level=lib.*:error', '--log-level=pmd.*:error']).start()
        gw.out_path = self.path('unused')      # stdout is the pipe
        s = gw.connect()
        early = ['/fou/port/add,7000:gre',
                 '/fou/tunnel/add,early,type=ipip,local=10.99.0.1,remote=10.99.0.9',
                 '/fou/route/del,192.168.4.0/24', '/fou/link/set,0,mtu=1400',
                 '/fou/stats/reset', '/fou/neigh/flush', '/fou/stats', '/fou/ports',
                 '/fou/config', '/fou/port/add']
        for c in early:
            self.assertEqual(s.cmd(c), ft.NOT_READY, c)
        self.assertIsNone(gw.proc.poll(), out.text())
        self.assertIsNone(notify.pending(), 'READY=1 before the start is done')
        out.drain()
        answers = []

        def added():
            answers.append(s.cmd('/fou/port/add,6000:ipip'))
            return answers[-1] != ft.NOT_READY
        self.assertTrue(ft.wait_for(added, WAIT, 0.005), gw.describe())
        self.assertEqual(answers[-1], {'status': 'ok'}, answers)
        self.assertEqual([a for a in answers[:-1] if a != ft.NOT_READY], [])
        ports = s.cmd('/fou/ports')
        self.assertEqual(sorted(k for k in ports if k.isdigit()), ['5555', '5556', '5557', '6000'])
        self.assertEqual(s.cmd('/fou/tunnels')['count'], 0)
        routes = [e['prefix'] for k, e in s.cmd('/fou/routes').items() if k.isdigit()]
        self.assertIn('192.168.4.0/24', routes)
        config = [e for k, e in s.cmd('/fou/config').items() if k.isdigit()]
        link0 = [e for e in config if e[0] == 'link' and e[1].startswith('0,')]
        self.assertEqual(len(link0), 1, config)
        self.assertTrue(link0[0][-1].endswith(',mtu=1500'), link0)
        ready = notify.recv()
        self.assertEqual(ready and ready.get('READY'), '1', ready)
        s.close()
        self.assertEqual(gw.stop(), 0, out.text())
        stopping = notify.recv()
        self.assertEqual(stopping and stopping.get('STOPPING'), '1', stopping)
        text = out.text(eof=True)
        self.assertRegex(text, r'(?m)^port 0 \(net_pcap0\): mac ')
        self.assertRegex(text, r'(?m)^accounting: .*: ok$')

    def test_sd_notify_ready_and_stopping(self):
        """READY=1 (with a STATUS line) on an abstract socket, and at that
        moment /fou/ports answers. SIGTERM: STOPPING=1, then every command
        answers the stopping error while the gateway, its stdout full,
        cannot exit yet; once read, it exits 0 with its summary."""
        notify = self.notify_socket('@fou-notify-%d-%s' % (os.getpid(), self.id()[-12:]))
        out = self.stdout_pipe()
        gw = self.proc(ft.BASE_OPTS, env={'NOTIFY_SOCKET': notify.address}, stdout=out.w)
        gw.out_path = self.path('unused')      # stdout is the pipe
        gw.start()
        ready = notify.recv()
        self.assertIsNotNone(ready, 'no READY=1\n' + gw.describe())
        self.assertEqual(ready.get('READY'), '1', ready)
        self.assertIn('forwarding', ready.get('STATUS', ''), ready)
        s = gw.connect()
        ports = s.cmd('/fou/ports')
        self.assertEqual(ports.get('count'), 3, ports)
        self.assertEqual(s.cmd('/fou/port/add,6000:ipip'), {'status': 'ok'})
        s.close()

        self.assertGreater(out.fill(), 0)
        gw.proc.send_signal(signal.SIGTERM)
        stopping = notify.recv()
        self.assertEqual(stopping and stopping.get('STOPPING'), '1', stopping)
        s = gw.connect()
        for c in ('/fou/ports', '/fou/stats', '/fou/port/add,6001:ipip', '/fou/port/del,6000'):
            self.assertEqual(s.cmd(c), ft.STOPPING, c)
        s.close()
        self.assertIsNone(gw.proc.poll(), 'exited with its stdout full')
        out.drain()
        self.assertEqual(gw.stop(), 0, out.text())
        text = out.text(eof=True)
        self.assertRegex(text, r'(?m)^dpdk-fou: stopped after ')
        self.assertRegex(text, r'(?m)^decap fou port 6000: 0$')
        self.assertNotRegex(text, r'(?m)^decap fou port 6001')
        self.assertRegex(text, r'(?m)^accounting: .*: ok$')
        self.assertIsNone(notify.pending(), 'a datagram after STOPPING=1')

    def run_logged(self, eal, changes):
        """Start with these EAL options, send changes once ready, SIGTERM;
        (stdout, replies)."""
        gw = self.proc(ft.BASE_OPTS, eal=eal).start()
        s = gw.connect()
        ok = ft.wait_for(lambda: s.cmd('/fou/stats') != ft.NOT_READY, WAIT, 0.01)
        self.assertTrue(ok, gw.describe())
        replies = [s.cmd(c) for c in changes]
        s.close()
        self.assertEqual(gw.stop(), 0, gw.describe())
        return gw.stdout(), replies

    def test_log_levels(self):
        """fou.*:debug: the start's statements (fou.ctl), each change and its
        result, the reads (fou.telemetry), before the summary and in the
        startup lines' stdout; a newline a client sent shows as '?'.
        fou.telemetry:warning: the same change, unlogged."""
        changes = ['/fou/route/add,10.77.0.0/16,dev=1,via=192.168.1.2',
                   '/fou/route/del,10.88.0.0/16', '/fou/route/del,10.99.0.0/16\nforged',
                   '/fou/routes', '/fou/stats/reset']
        out, replies = self.run_logged(['--log-level=fou.*:debug'], changes)
        self.assertEqual(replies[0], {'status': 'ok'})
        self.assertLess(replies[1]['errno'], 0, replies)
        lines = out.splitlines()
        stopped = next(i for i, ln in enumerate(lines) if ln.startswith('dpdk-fou: stopped'))
        want = ['telemetry: route add 10.77.0.0/16,dev=1,via=192.168.1.2: ok',
                'telemetry: route del 10.88.0.0/16: ' + replies[1]['error'],
                'telemetry: route del 10.99.0.0/16?forged: ' + replies[2]['error'],
                'telemetry: /fou/routes',
                'telemetry: stats reset: ok',
                'config: --port 5555:ipip: ok']
        for w in want:
            self.assertIn(w, lines[:stopped], out)
        self.assertFalse([ln for ln in lines if ln.startswith('forged')], out)
        self.assertRegex(out, r'(?m)^port 0 \(net_pcap0\): mac %s mtu 1500, ' % ft.MAC_P0.upper())
        self.assertRegex(out, r'(?m)^port 1 \(net_pcap1\): Link up at ')

        out, replies = self.run_logged(['--log-level=fou.telemetry:warning'], changes[:1])
        self.assertEqual(replies, [{'status': 'ok'}])
        self.assertNotIn('telemetry:', out)
        self.assertNotIn('config: ', out)       # fou.ctl: INFO, the statements are DEBUG
        self.assertRegex(out, r'(?m)^port 0 \(net_pcap0\): mac ')

    def test_journal_stream_and_syslog(self):
        """stdout is the journal's ($JOURNAL_STREAM names it): every log
        line starts with its priority, INFO <6>, DEBUG <7>, the EAL's as
        ours; the summary has none. `--syslog daemon` is accepted and the
        log stays on stdout as it was."""
        for journal, eal in ((True, []), (False, ['--syslog', 'daemon'])):
            path = self.path('journal-%d.stdout' % journal)
            f = open(path, 'w+')
            self.cleanup.append(f.close)
            st = os.fstat(f.fileno())
            # DPDK 22.11's --syslog takes the facility (bare, it would take
            # the next option for one)
            gw = self.proc(ft.BASE_OPTS, stdout=f, eal=eal + ['--log-level=fou.ctl:debug'],
                           env={'JOURNAL_STREAM': '%d:%d' % (st.st_dev, st.st_ino + (not journal))})
            gw.out_path = path
            gw.start()
            s = gw.connect()
            self.assertTrue(ft.wait_for(lambda: s.cmd('/fou/stats') != ft.NOT_READY,
                                        WAIT, 0.01), gw.describe())
            s.close()
            self.assertEqual(gw.stop(), 0, gw.describe())
            out = gw.stdout()
            p6, p7 = ('<6>', '<7>') if journal else ('', '')
            self.assertRegex(out, r'(?m)^%sport 0 \(net_pcap0\): mac ' % re.escape(p6))
            self.assertRegex(out, r'(?m)^%sport 0 \(net_pcap0\): Link up ' % re.escape(p6))
            self.assertRegex(out, r'(?m)^%sconfig: --port 5555:ipip: ok$' % re.escape(p7))
            self.assertRegex(out, r'(?m)^dpdk-fou: stopped after ')
            self.assertRegex(out, r'(?m)^port 0: rx 0 tx ')
            self.assertRegex(out, r'(?m)^accounting: .*: ok$')
            if journal:
                self.assertFalse([ln for ln in out.splitlines() if ln.startswith('port 0 (')],
                                 'a log line without its priority')


if __name__ == '__main__':
    ft.main()
