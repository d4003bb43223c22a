#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The reference in doc/ must match the code, and no link may lead nowhere.

- doc/counters.md: each counter table (drop reasons, ICMP messages sent, the
  gateway's own stack) has exactly the counters of its X-macro list in
  lib/fou/fou.h, each with fou.h's description. A counter added without
  documentation, or documented but gone, fails here.
- doc/running.md documents every statement of lib/fou/fou_stmt.c's table as
  `--NAME ...`.
- Every relative link of README.md and doc/**/*.md leads to a file that exists
  and, into a Markdown file, to a heading it has (GitHub's anchors).
"""
import os
import re
import sys

# Files being written on another branch, which links may name before they
# land (none now: every link must lead somewhere).
NOT_YET_WRITTEN = frozenset()

# The tables of doc/counters.md, by the heading above them, and their lists.
COUNTER_TABLES = {
    "Drop counters": "FOU_DROP_REASONS",
    "ICMP messages sent": "FOU_ICMP_KINDS",
    "The gateway's own stack": "FOU_LOCAL_COUNTERS",
    "The exception path to the kernel": "FOU_PUNT_COUNTERS",
}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def xmacro(header, name):
    m = re.search(rf"^#define {name}\(X\) \\\n((?:.*\\\n)*.*\n)", header, re.M)
    if not m:
        return None
    return re.findall(r'X\(\w+, (\w+), "([^"]*)"\)', m.group(1))


def sections(text):
    """{heading: body} for the ## sections of a Markdown file."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def check_counters(root, errors):
    header = read(f"{root}/lib/fou/fou.h")
    doc = sections(read(f"{root}/doc/counters.md"))
    total = 0
    for heading, macro in COUNTER_TABLES.items():
        code = xmacro(header, macro)
        if not code or len(code) < 10:
            sys.exit(f"found {len(code or [])} counters in fou.h's {macro}: parser out of date")
        total += len(code)
        if heading not in doc:
            errors.append(f"doc/counters.md has no section '## {heading}' for {macro}")
            continue
        rows = re.findall(r"^\| `(\w+)` \| ([^|]*?) \|$", doc[heading], re.M)
        docs = dict(rows)
        if len(docs) != len(rows):
            errors.append(f"doc/counters.md, {heading}: a counter is listed twice")
        code = dict(code)
        for name, desc in code.items():
            if name not in docs:
                errors.append(f"counter {name} ({macro}) is not in doc/counters.md, {heading}")
            elif docs[name] != desc:
                errors.append(f"counter {name}: doc/counters.md says {docs[name]!r}, "
                              f"fou.h {desc!r}")
        for name in sorted(set(docs) - set(code)):
            errors.append(f"doc/counters.md, {heading}, documents {name}, which fou.h's "
                          f"{macro} does not have")
    return total


def check_statements(root, errors):
    src = read(f"{root}/lib/fou/fou_stmt.c")
    m = re.search(r"fou_stmts\[\] = \{\n(.*?)^\};", src, re.M | re.S)
    names = re.findall(r'^\t\{ "([a-z-]+)",', m.group(1), re.M) if m else []
    if len(names) < 8:
        sys.exit(f"found {len(names)} statements in fou_stmt.c: parser out of date")
    doc = read(f"{root}/doc/running.md")
    for name in names:
        if f"`--{name} " not in doc:
            errors.append(f"statement --{name} is not in doc/running.md")
    return len(names)


def strip_code_blocks(text):
    return re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.M | re.S)


def strip_code(text):
    """Markdown without its code blocks and code spans, where nothing is a link."""
    return re.sub(r"`[^`]*`", "", strip_code_blocks(text))


def anchors(text):
    """GitHub's anchors for a Markdown file's headings."""
    seen, out = {}, set()
    for line in strip_code_blocks(text).splitlines():
        m = re.match(r"^#{1,6} +(.+?)\s*#*\s*$", line)
        if not m:
            continue
        h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def markdown_files(root):
    files = ["README.md"]
    for d, _, names in os.walk(os.path.join(root, "doc")):
        files += sorted(os.path.relpath(os.path.join(d, n), root) for n in names
                        if n.endswith(".md"))
    return files


def check_links(root, errors):
    files = markdown_files(root)
    count = 0
    for rel in files:
        text = read(os.path.join(root, rel))
        body = strip_code(text)
        targets = re.findall(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", body)
        targets += re.findall(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)", body, re.M)
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue    # a URL: not checked offline
            count += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(rel), path)) if path else rel
            if dest.startswith(".."):
                errors.append(f"{rel}: link {target} leaves the repository")
                continue
            full = os.path.join(root, dest)
            if not os.path.exists(full):
                if dest not in NOT_YET_WRITTEN:
                    errors.append(f"{rel}: link {target}: {dest} does not exist")
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(read(full)):
                errors.append(f"{rel}: link {target}: {dest} has no heading #{anchor}")
    return len(files), count


def main(root):
    errors = []
    counters = check_counters(root, errors)
    statements = check_statements(root, errors)
    files, links = check_links(root, errors)
    for e in errors:
        print(e)
    print(f"{counters} counters, {statements} statements, {links} links in {files} files "
          f"checked, {len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
