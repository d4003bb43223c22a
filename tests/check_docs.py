#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's drop-counter table and statement table must match the code.

Drop names come from the FOU_DROP_REASONS X-macro in lib/fou/fou.h; the
README documents each with its description. A counter added without
documentation, or documented but gone, fails here.
"""
import re
import sys


def main(root):
    header = open(f"{root}/lib/fou/fou.h").read()
    readme = open(f"{root}/README.md").read()
    code = dict(re.findall(r'X\(\w+, (\w+), "([^"]*)"\)', header))
    if len(code) < 10:
        sys.exit(f"found only {len(code)} drop reasons in fou.h: parser out of date")
    docs = dict(re.findall(r"^\| `(\w+)` \| ([^|]*?) \|$", readme, re.M))
    errors = []
    for name, desc in code.items():
        if name not in docs:
            errors.append(f"drop counter {name} is not in the README table")
        elif docs[name] != desc:
            errors.append(f"drop counter {name}: README says {docs[name]!r}, fou.h {desc!r}")
    drop_rows = {n for n in docs if n in code or re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", n)}
    for name in sorted(drop_rows - set(code)):
        errors.append(f"README documents drop counter {name}, which fou.h does not have")
    for stmt in ("port", "addr", "route", "neigh", "link", "tunnel", "sport-range",
                 "icmp-rate", "limits"):
        if f"`--{stmt} " not in readme:
            errors.append(f"statement --{stmt} is not in the README")
    for e in errors:
        print(e)
    print(f"{len(code)} drop counters checked, {len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
