#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The drop-counter table (doc/counters.md) and the statements (doc/running.md)
must match the code.

Drop names come from the FOU_DROP_REASONS X-macro in lib/fou/fou.h;
doc/counters.md documents each with its description. A counter added without
documentation, or documented but gone, fails here.
"""
import re
import sys


def main(root):
    header = open(f"{root}/lib/fou/fou.h").read()
    counters = open(f"{root}/doc/counters.md").read()
    running = open(f"{root}/doc/running.md").read()
    code = dict(re.findall(r'X\(\w+, (\w+), "([^"]*)"\)', header))
    if len(code) < 10:
        sys.exit(f"found only {len(code)} drop reasons in fou.h: parser out of date")
    docs = dict(re.findall(r"^\| `(\w+)` \| ([^|]*?) \|$", counters, re.M))
    errors = []
    for name, desc in code.items():
        if name not in docs:
            errors.append(f"drop counter {name} is not in doc/counters.md")
        elif docs[name] != desc:
            errors.append(f"drop counter {name}: doc/counters.md says {docs[name]!r}, fou.h {desc!r}")
    drop_rows = {n for n in docs if n in code or re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", n)}
    for name in sorted(drop_rows - set(code)):
        errors.append(f"doc/counters.md documents drop counter {name}, which fou.h does not have")
    for stmt in ("port", "addr", "route", "neigh", "link", "tunnel", "sport-range",
                 "icmp-rate"):
        if f"`--{stmt} " not in running:
            errors.append(f"statement --{stmt} is not in doc/running.md")
    for e in errors:
        print(e)
    print(f"{len(code)} drop counters checked, {len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
