#!/usr/bin/env bash
# Checks that every relative link of the committed Markdown files (README.md, docs/, the crates'
# READMEs, ...) resolves: the file or folder exists, and a `#fragment` names a heading of the
# target file (GitHub's rule: lower case, punctuation dropped, spaces to hyphens). Web links are
# not fetched. Prints each broken link as FILE:LINE: LINK and exits 1 if there is any.
#   bash ci/doc-links.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git ls-files -z '*.md' | python3 -c '
import os, re, sys
def slug(h):
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)  # a link in a heading keeps its text
    h = h.strip().lower().replace("`", "")
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")
def anchors(path):
    seen, out = {}, set()
    fence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6} +(.*?) *#* *$", line)
        if m:
            s = slug(m.group(1)); n = seen.get(s, 0); seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out
bad = 0
for f in sys.stdin.read().split("\0"):
    if not f:
        continue
    fence = False
    for no, line in enumerate(open(f, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for link in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", link):
                continue
            path, _, frag = link.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            ok = os.path.exists(target)
            if ok and frag:
                ok = os.path.isfile(target) and frag in anchors(target)
            if not ok:
                print(f"{f}:{no}: {link}"); bad += 1
sys.stdout.flush(); print(f"doc-links: {bad} broken", file=sys.stderr)
sys.exit(1 if bad else 0)
'
