#!/usr/bin/env python3
"""Summarises and compares logs of ci/fuzz-capi/fuzz.c (docs/bad-input.md, "The C ABI under a
differential fuzzer").

    compare.py [--headers DIR] [--no-enum-check] [--ci] [--names A,B,...] [--md FILE] LOG [LOG...]

Per log (a column): calls, crashes, timeouts, absent symbols, and every returned code that is not
a member of its API's enum (CUresult from cuda.h, cudaError from driver_types.h, nvrtcResult
from nvrtc.h, read from the headers in DIR, never copied by hand), by function. With two logs or
more, the first is the reference (NVIDIA's libraries): for every call both columns made (same
case, step, function and argument classes), a code mismatch is a call where the reference
returned a code and the other column a different one; a crash where the reference returned a
code is counted apart. All grouped by function, and split by whether the call's arguments were
defined on NVIDIA's library: a dangling, made-up or wrong-kind handle (classes D, M..., W) is
undefined behaviour there, so a mismatch on such a call is listed apart ("undefined inputs").
Each row also counts its calls made in a case whose process started at another case in the two
columns ("another process history": a crash restarted one column's process; the fuzzer puts back
what a case changes, but not everything can be, e.g. a context a case broke).

Exit status 1 when a column other than the reference crashed or timed out, or (unless
--no-enum-check) returned a code outside its enum; 0 otherwise. A single log is its own column:
then it is checked, not compared. --ci (no device, anycuda's backends only): every column is
checked, the first included, and all must have made the same calls with the same argument
classes (the sequence depends on the seed alone; a difference is a fuzzer bug).
"""
import argparse
import collections
import os
import re
import sys

DEFAULT_HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".cache", "inputs",
                               "cuda", "nvidia", "cu13", "include")


def parse_enum(text, start_re, end_re):
    """The members of the C enum whose body follows start_re and ends at end_re: {value: name}."""
    m = re.search(start_re, text)
    if not m:
        raise SystemExit(f"compare.py: enum {start_re!r} not found")
    body = text[m.end():]
    e = re.search(end_re, body)
    if not e:
        raise SystemExit(f"compare.py: end of enum {start_re!r} not found")
    body = body[:e.start()]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    values, by_name, nxt = {}, {}, 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            name, expr = (s.strip() for s in item.split("=", 1))
            expr = expr.strip("() ")
            if expr in by_name:
                v = by_name[expr]
            else:
                v = int(expr.rstrip("uUlL"), 0)
        else:
            name, v = item, nxt
        by_name[name] = v
        values.setdefault(v, name)
        nxt = v + 1
    return values


def load_enums(headers):
    def read(name):
        path = os.path.join(headers, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError as err:
            raise SystemExit(f"compare.py: {err} (pass --headers with CUDA's include folder)")
    return {
        "driver": parse_enum(read("cuda.h"), r"typedef\s+enum\s+cudaError_enum\s*\{", r"\}\s*CUresult\s*;"),
        "runtime": parse_enum(read("driver_types.h"), r"enum\s+__device_builtin__\s+cudaError\s*\{", r"\}\s*;"),
        "nvrtc": parse_enum(read("nvrtc.h"), r"typedef\s+enum\s*\{(?=\s*NVRTC_SUCCESS)", r"\}\s*nvrtcResult\s*;"),
    }


def api_of(fn):
    if fn.startswith("nvrtc"):
        return "nvrtc"
    if fn.startswith("cuda"):
        return "runtime"
    return "driver"


BAD = ("CRASH", "TIMEOUT", "EXIT")
# Argument classes that are undefined behaviour on NVIDIA's libraries: a dangling (D), made-up
# (M...) or wrong-kind (W) handle, which the library may dereference. (Freed or made-up DEVICE
# pointers are F and B...: the driver looks those up, so they count as defined.)
UNDEFINED = re.compile(r"=(D|W|M1|M16|Mneg|Mr|Mk|Mdead)(,|$)")


class Column:
    def __init__(self, path, name):
        self.path, self.name = path, name
        self.calls = {}  # (case, step) -> (fn, classes, result)
        self.order = []
        self.stats = collections.Counter()
        self.bad = []  # (case, step, fn, classes, result)
        self.header = []
        self.process = {}  # case -> the case its process started at
        start = None
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                if line.startswith("#"):
                    m = re.match(r"# process from case (\d+)", line)
                    if m:
                        start = int(m.group(1))
                    else:
                        self.header.append(line)
                    continue
                parts = line.split(" ")
                if len(parts) != 5:
                    self.stats["malformed"] += 1
                    continue
                case, step, fn, classes, result = parts
                key = (int(case), step)
                self.process.setdefault(key[0], start)
                self.calls[key] = (fn, classes, result)
                self.order.append(key)
                if result.startswith(BAD):
                    self.bad.append((case, step, fn, classes, result))
                    self.stats["timeouts" if result == "TIMEOUT" else "crashes"] += 1
                elif result == "ABSENT":
                    self.stats["absent"] += 1
                else:
                    self.stats["calls"] += 1
        self.cases = len({k[0] for k in self.order})


def code_name(enums, fn, result):
    try:
        v = int(result)
    except ValueError:
        return result
    name = enums[api_of(fn)].get(v) if enums else None
    return f"{v} {name}" if name else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--headers", default=os.environ.get("FUZZ_CAPI_HEADERS", DEFAULT_HEADERS))
    ap.add_argument("--no-enum-check", action="store_true",
                    help="report codes outside their enum without failing")
    ap.add_argument("--names", help="column names, comma-separated (default: the file names)")
    ap.add_argument("--md", help="also write the summary as Markdown to this file")
    ap.add_argument("--examples", type=int, default=3, help="examples per function and finding")
    ap.add_argument("--ci", action="store_true",
                    help="check every column (the first too) and require identical call sequences")
    args = ap.parse_args()

    names = args.names.split(",") if args.names else [os.path.basename(p) for p in args.logs]
    if len(names) != len(args.logs):
        raise SystemExit("compare.py: --names needs one name per log")
    enums = load_enums(args.headers)
    cols = [Column(p, n) for p, n in zip(args.logs, names)]
    out = []

    def emit(s=""):
        out.append(s)

    emit("| column | cases | calls | crashes | timeouts | absent symbols | codes outside their enum |")
    emit("|---|---:|---:|---:|---:|---:|---:|")
    nonmember = {}
    for c in cols:
        nm = collections.defaultdict(collections.Counter)
        examples = collections.defaultdict(list)
        for key in c.order:
            fn, classes, result = c.calls[key]
            try:
                v = int(result)
            except ValueError:
                continue
            if v not in enums[api_of(fn)]:
                nm[fn][v] += 1
                if len(examples[(fn, v)]) < args.examples:
                    examples[(fn, v)].append(f"case {key[0]} step {key[1]} {classes}")
        nonmember[c.name] = (nm, examples)
        emit(f"| {c.name} | {c.cases} | {c.stats['calls']} | {c.stats['crashes']} | {c.stats['timeouts']} | "
             f"{c.stats['absent']} | {sum(sum(x.values()) for x in nm.values())} |")
    emit()

    for c in cols:
        if c.bad:
            emit(f"**{c.name}: crashes and timeouts** (case step function classes → result)")
            emit()
            for case, step, fn, classes, result in c.bad[:50]:
                emit(f"- {case} {step} `{fn}` {classes} → {result}")
            if len(c.bad) > 50:
                emit(f"- ... {len(c.bad) - 50} more")
            emit()
        nm, examples = nonmember[c.name]
        if nm:
            emit(f"**{c.name}: codes outside their API's enum** (function: code × calls; examples)")
            emit()
            for fn in sorted(nm):
                for v, n in nm[fn].most_common():
                    emit(f"- `{fn}`: {v} × {n} ({'; '.join(examples[(fn, v)])})")
            emit()

    failed = False
    ref = cols[0] if len(cols) > 1 else None
    if args.ci and ref:
        seq = [(k, ref.calls[k][:2]) for k in ref.order]
        for c in cols[1:]:
            if [(k, c.calls[k][:2]) for k in c.order] != seq:
                emit(f"**{c.name} made other calls than {ref.name}** (same seed): a fuzzer bug, or a crash")
                emit()
                failed = True
    for c in cols:
        if c is ref and not args.ci:
            continue
        if c.stats["crashes"] or c.stats["timeouts"]:
            failed = True
        if nonmember[c.name][0] and not args.no_enum_check:
            failed = True

    if ref and not args.ci:
        for c in cols[1:]:
            per_fn = collections.defaultdict(collections.Counter)
            ex = collections.defaultdict(list)
            counts = collections.Counter()
            history = collections.Counter()
            for key in c.order:
                if key not in ref.calls:
                    counts["only in this column"] += 1
            for key in ref.order:
                rfn, rcls, rres = ref.calls[key]
                if key not in c.calls:
                    counts["not reached"] += 1
                    continue
                fn, cls, res = c.calls[key]
                if (fn, cls) != (rfn, rcls):
                    counts["diverged"] += 1
                    continue
                counts["compared"] += 1
                r_code = re.fullmatch(r"-?\d+", rres) is not None
                if res.startswith(BAD) and rres.startswith(BAD):
                    kind = "crashed in both"
                elif res.startswith(BAD):
                    kind = "crash where the reference did not"
                elif rres.startswith(BAD) and not res.startswith(BAD):
                    kind = "reference crashed, this column did not"
                elif r_code and res != rres and res != "ABSENT":
                    kind = "code mismatch"
                elif rres in ("ptr", "null") and res != rres and res in ("ptr", "null"):
                    kind = "string mismatch"
                else:
                    counts["same"] += 1
                    continue
                if not kind.startswith("crash") and UNDEFINED.search(cls):
                    kind += " (undefined inputs)"
                if ref.process.get(key[0]) != c.process.get(key[0]):
                    history[(kind, fn)] += 1
                counts[kind] += 1
                pat = f"{code_name(enums, rfn, rres)} → {code_name(enums, fn, res)}"
                per_fn[(kind, fn)][pat] += 1
                if len(ex[(kind, fn, pat)]) < args.examples:
                    ex[(kind, fn, pat)].append(f"{key[0]}/{key[1]} {cls}")
            emit(f"### {c.name} against {ref.name}")
            emit()
            emit(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
            emit()
            kinds = ["crash where the reference did not", "crashed in both"]
            for base in ("code mismatch", "string mismatch", "reference crashed, this column did not"):
                kinds += [base, base + " (undefined inputs)"]
            for kind in kinds:
                rows = sorted(((fn, pats) for (k, fn), pats in per_fn.items() if k == kind),
                              key=lambda r: -sum(r[1].values()))
                if not rows:
                    continue
                emit(f"**{kind}**, by function ({ref.name} → {c.name} × calls; examples case/step classes)")
                emit()
                emit("| function | calls | in another process history | patterns |")
                emit("|---|---:|---:|---|")
                for fn, pats in rows:
                    cells = "; ".join(f"{p} × {n} (e.g. {', '.join(ex[(kind, fn, p)][:1])})"
                                      for p, n in pats.most_common(4))
                    if len(pats) > 4:
                        cells += f"; {len(pats) - 4} more"
                    emit(f"| `{fn}` | {sum(pats.values())} | {history[(kind, fn)]} | {cells} |")
                emit()

    text = "\n".join(out)
    print(text)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
