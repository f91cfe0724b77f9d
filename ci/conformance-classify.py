#!/usr/bin/env python3
"""Classify the HIP column's failures of NVIDIA's Python suites (shared/conformance).

    python3 ci/conformance-classify.py JUNIT [--rules FILE] [--out REPORT.md] [--list]

JUNIT is the runner's `pysuites-junit.tgz` or a folder holding `<suite>.nvidia.xml` and
`<suite>.hip.xml` (at any depth). Every test that passed on the nvidia column and failed,
errored, was skipped or was not run on the hip column is classified with the ordered rules of
`ci/conformance-hip-classes.txt` (first match wins; see that file's header). The markdown report
goes to stdout (or --out): counts per suite and class, then per class the reason groups with
their test counts and three example test ids; --list adds every test id under its group.
Standard library only. Exits 0 (a bad rules line is reported and skipped).
"""

import argparse
import collections
import fnmatch
import io
import os
import re
import sys
import tarfile
import xml.etree.ElementTree as ET

CLASSES = [
    "anycuda",
    "hip-nvidia-gap",
    "no-amd-equivalent",
    "precompiled",
    "static-runtime",
    "unclassified",
]
SUITE_NAMES = {"core": "cuda.core", "bindings": "cuda.bindings", "numba": "numba-cuda"}
# The runner's per-column checkout folder appears in parametrised ids (test_examples):
# /tmp/pysuites.XXXX/<suite>/<column>/... ; the same test must have the same id in both columns.
_COLUMN_PATH = re.compile(r"/tmp/pysuites\.[^/]+/[^/]+/(?:nvidia|cuda|hip)/")
_FRAME = re.compile(r"^\S+\.(?:py|pyx|pxd):\d+: in \S+")


def read_junit(src):
    """{(suite, column): xml bytes} from a tgz or a folder."""
    found = {}
    name_re = re.compile(r"(?:^|/)(\w+)\.(nvidia|cuda|hip)\.xml$")
    if os.path.isdir(src):
        for root, _, files in os.walk(src):
            for f in files:
                m = name_re.search(f)
                if m:
                    with open(os.path.join(root, f), "rb") as fh:
                        found[(m.group(1), m.group(2))] = fh.read()
    else:
        with tarfile.open(src) as tf:
            for mem in tf.getmembers():
                m = name_re.search(mem.name)
                if m and mem.isfile():
                    found[(m.group(1), m.group(2))] = tf.extractfile(mem).read()
    return found


def condense(text):
    """The lines of a failure text that name its cause: frames and pytest's `E` lines."""
    keep = [l for l in text.splitlines() if _FRAME.match(l) or l.startswith("E ")]
    return "\n".join(keep)


def parse(xml_bytes):
    """{test id: (status, message)}; status passed/failed/error/skipped; collection errors
    ({module: message}) apart."""
    root = ET.parse(io.BytesIO(xml_bytes)).getroot()
    tests, collect = {}, {}
    rank = {"passed": 0, "skipped": 1, "error": 2, "failed": 3}
    for tc in root.iter("testcase"):
        cls, name = tc.get("classname") or "", tc.get("name") or ""
        status, msg = "passed", ""
        for ch in tc:
            if ch.tag in ("failure", "error", "skipped"):
                st = {"failure": "failed", "error": "error", "skipped": "skipped"}[ch.tag]
                if rank[st] > rank[status]:
                    status = st
                    m = ch.get("message") or ""
                    msg = m + "\n" + condense(ch.text or "")
        if not cls and status == "error" and msg.startswith("collection failure"):
            # A module that failed to collect: classname empty, name the module.
            collect.setdefault(name, msg)
            continue
        tid = _COLUMN_PATH.sub("<root>/", cls + "::" + name)
        old = tests.get(tid)
        if old is None or rank[status] > rank[old[0]]:
            tests[tid] = (status, msg)
    return tests, collect


def load_rules(path):
    rules = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 5 or parts[0] not in CLASSES:
                print(f"{path}:{n}: skipped (want `class | suite | id | message | reason`)",
                      file=sys.stderr)
                continue
            cls, suite, tid, msg, reason = parts
            try:
                tid_re = None if tid == "-" else re.compile(tid)
                msg_re = None if msg == "-" else re.compile(msg)
            except re.error as e:
                print(f"{path}:{n}: bad regex: {e}", file=sys.stderr)
                continue
            rules.append((cls, suite, tid_re, msg_re, reason))
    return rules


def classify(rules, suite, tid, msg):
    for cls, sg, tid_re, msg_re, reason in rules:
        if not fnmatch.fnmatch(suite, sg):
            continue
        if tid_re and not tid_re.search(tid):
            continue
        if msg_re and not msg_re.search(msg):
            continue
        return cls, reason
    return "unclassified", "no rule matched: " + (msg.strip().splitlines() or ["(no message)"])[0][:160]


def differences(nv, hip, hip_collect):
    """(test id, hip status, message) for every test that passed on nvidia but not on hip."""
    out = []
    for tid, (st, _) in nv.items():
        if st != "passed":
            continue
        h = hip.get(tid)
        if h is None:
            module = tid.split("::")[0]
            cause = ""
            for mod, m in hip_collect.items():
                if module == mod or module.startswith(mod + "."):
                    cause = m
                    break
            out.append((tid, "not run", "not run: " + (cause or "(no collection error recorded)")))
        elif h[0] != "passed":
            msg = ("skipped: " if h[0] == "skipped" else "") + h[1]
            out.append((tid, h[0], msg))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit", help="pysuites-junit.tgz or a folder of <suite>.<column>.xml")
    ap.add_argument("--rules", default=os.path.join(here, "conformance-hip-classes.txt"))
    ap.add_argument("--out", help="write the report here (default: stdout)")
    ap.add_argument("--list", action="store_true", help="list every test id under its group")
    a = ap.parse_args()

    files = read_junit(a.junit)
    rules = load_rules(a.rules)
    suites = [s for s in ("core", "bindings", "numba") if (s, "nvidia") in files and (s, "hip") in files]
    suites += sorted({s for s, c in files if c == "nvidia" and (s, "hip") in files} - set(suites))

    counts = collections.OrderedDict()          # suite -> Counter(class)
    groups = collections.defaultdict(list)      # (class, reason) -> [(suite, id, status)]
    for s in suites:
        nv, _ = parse(files[(s, "nvidia")])
        hp, hp_collect = parse(files[(s, "hip")])
        c = collections.Counter()
        for tid, st, msg in differences(nv, hp, hp_collect):
            cls, reason = classify(rules, s, tid, msg)
            c[cls] += 1
            groups[(cls, reason)].append((s, tid, st))
        counts[s] = c

    w = io.StringIO()
    w.write("Tests that passed on the nvidia column and failed, errored, were skipped or were not "
            "run on the hip column, by class (rules: `ci/conformance-hip-classes.txt`).\n\n")
    w.write("| suite | " + " | ".join(f"`{c}`" for c in CLASSES) + " | total |\n")
    w.write("|---|" + "---:|" * (len(CLASSES) + 1) + "\n")
    tot = collections.Counter()
    for s, c in counts.items():
        tot.update(c)
        w.write(f"| {SUITE_NAMES.get(s, s)} | " + " | ".join(str(c[k]) for k in CLASSES)
                + f" | {sum(c.values())} |\n")
    w.write("| **all** | " + " | ".join(f"**{tot[k]}**" for k in CLASSES)
            + f" | **{sum(tot.values())}** |\n")
    for cls in CLASSES:
        gs = [(r, t) for (c, r), t in groups.items() if c == cls]
        if not gs:
            continue
        gs.sort(key=lambda g: (-len(g[1]), g[0]))
        w.write(f"\n#### `{cls}` ({sum(len(t) for _, t in gs)} tests)\n\n")
        w.write("| tests | suites | reason | examples |\n|---:|---|---|---|\n")
        for reason, tests in gs:
            per = collections.Counter(s for s, _, _ in tests)
            suites_s = ", ".join(f"{SUITE_NAMES.get(s, s)} {n}" for s, n in per.items())
            ex = "; ".join(f"`{t}`" for _, t, _ in tests[:3])
            w.write(f"| {len(tests)} | {suites_s} | {reason.replace('|', '/')} | {ex} |\n")
            if a.list:
                for s, t, st in tests:
                    w.write(f"|  | {SUITE_NAMES.get(s, s)} | {st} | `{t}` |\n")
    report = w.getvalue()
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            fh.write(report)
    else:
        sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
