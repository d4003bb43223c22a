#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The rules lib/fou's layout keeps (doc/layout.md), checked on the sources.

- No include cycle among lib/fou's files.
- The text layer (statements, config files, telemetry) includes public
  headers only: it sits on fou.h / fou_stmt.h like any other user.
- The data path never calls a control function: its files do not include
  fou_ctl.h, the header of what the control files share.
- Control never calls the text layer: no control or data-path file
  includes fou_stmt.h.
- The data path never logs or prints (a syscall per message on a worker):
  its files call no FOU_LOG, rte_log, RTE_LOG, printf, fprintf or puts.

Each file's role comes from the table below; a new file in lib/fou must be
given one here, so that the rules cover it.
"""
import os
import re
import sys

PUBLIC = {'fou.h', 'fou_stmt.h'}
ROLES = {
    # the public headers
    'fou.h': 'public', 'fou_stmt.h': 'public',
    # shared private headers: the tables and the helpers both sides inline
    'fou_private.h': 'shared', 'fou_rib.h': 'shared', 'fou_lcore.h': 'shared',
    'fou_hdr.h': 'shared',
    # control, by object, and the header only control files share
    'fou_ctl.h': 'control', 'fou_gw.c': 'control', 'fou_iface.c': 'control',
    'fou_rib.c': 'control', 'fou_nhgroup.c': 'control', 'fou_neigh.c': 'control', 'fou_tunnel.c': 'control',
    'fou_stats.c': 'control', 'fou_idpool.h': 'control',
    # the kernel interfaces (--punt): the control thread's side
    'fou_punt.c': 'control',
    # the far end's commands, written from the tables (read only)
    'fou_peer.c': 'control',
    # the path MTU search (DPLPMTUD): the control thread's
    'fou_plpmtu.c': 'control', 'fou_plpmtu.h': 'control',
    # tunnel health: the control thread's probes
    'fou_probe.c': 'control',
    # the rte_log types (fou.ctl, fou.telemetry, ...)
    'fou_log.c': 'control',
    # the per-lcore context: created by control, driven by its worker
    'fou_lcore.c': 'datapath',
    # the data path by stage
    'fou_rx.c': 'datapath', 'fou_rx.h': 'datapath', 'fou_fwd.h': 'datapath',
    'fou_encap.c': 'datapath', 'fou_encap.h': 'datapath', 'fou_icmp.c': 'datapath',
    'fou_icmp.h': 'datapath', 'fou_pmtu.c': 'datapath', 'fou_pmtu.h': 'datapath',
    'fou_gro.c': 'datapath', 'fou_gro.h': 'datapath',
    'fou_frag.c': 'datapath', 'fou_frag.h': 'datapath',
    'fou_reasm.c': 'datapath', 'fou_reasm.h': 'datapath',
    'fou_arp.c': 'datapath', 'fou_arp.h': 'datapath', 'fou_nd.h': 'datapath',
    'fou_ndisc.c': 'datapath', 'fou_ndisc.h': 'datapath',
    'fou_local.c': 'datapath', 'fou_local.h': 'datapath',
    'fou_punt.h': 'datapath',
    'fou_probe.h': 'datapath',
    # the text layer
    'fou_parse.c': 'text', 'fou_stmt.c': 'text', 'fou_config.c': 'text',
    'fou_telemetry.c': 'text',
}


def includes(path):
    with open(path) as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


# A call that writes a message; snprintf and the like format into memory.
LOG_CALL = re.compile(r'\b(FOU_LOG|rte_log|rte_vlog|RTE_LOG|printf|fprintf|puts|fputs|'
                      r'syslog)\s*\(')


def log_calls(path):
    """Lines of path that log or print, comments left out."""
    with open(path) as f:
        text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m[0].count('\n'), f.read(), flags=re.S)
    return [n for n, line in enumerate(text.splitlines(), 1)
            if LOG_CALL.search(re.sub(r'//.*', '', line))]


def find_cycle(graph):
    state = {}

    def visit(n, stack):
        state[n] = 'open'
        for m in graph.get(n, ()):
            if state.get(m) == 'open':
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m, stack + [m])
                if c:
                    return c
        state[n] = 'done'
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n, [n])
            if c:
                return c
    return None


def main(root):
    libdir = os.path.join(root, 'lib', 'fou')
    files = sorted(f for f in os.listdir(libdir) if f.endswith(('.c', '.h')))
    errors = []
    graph = {}
    for f in files:
        if f not in ROLES:
            errors.append(f'{f}: no role in tests/check_layout.py (public, shared, control, '
                          'datapath or text): give it one')
            continue
        inc = [i for i in includes(os.path.join(libdir, f)) if i in ROLES or
               os.path.exists(os.path.join(libdir, i))]
        graph[f] = inc
        role = ROLES[f]
        if role == 'datapath':
            for n in log_calls(os.path.join(libdir, f)):
                errors.append(f'{f}:{n}: the data path logs or prints (a worker never does: '
                              'count it, or leave it to the control thread)')
        for i in inc:
            if i not in ROLES:
                errors.append(f'{f} includes {i}, which has no role')
                continue
            if role == 'text' and i not in PUBLIC:
                errors.append(f'{f} (text layer) includes the private header {i}: '
                              'the text layer uses the public API only')
            if role in ('datapath', 'shared') and ROLES[i] == 'control':
                errors.append(f'{f} ({role}) includes {i}: the data path never calls a '
                              'control function')
            if role in ('control', 'datapath', 'shared') and i == 'fou_stmt.h':
                errors.append(f'{f} ({role}) includes fou_stmt.h: control never calls the '
                              'text layer')
            if role == 'public' and i not in PUBLIC:
                errors.append(f'{f} (public) includes the private header {i}')
    cycle = find_cycle(graph)
    if cycle:
        errors.append('include cycle: ' + ' -> '.join(cycle))
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f'{len(graph)} files of lib/fou: no include cycle, every file keeps its layer')


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
