"""Tabulates ci/nccl-bench.sh's rounds: per program and size the best round (lowest time),
ratios to NCCL called from C, a Markdown table and, when matplotlib is installed, a plot of bus
bandwidth against size.

    python3 ci/bench/nccl_report.py RESULTS_DIR     (reads RESULTS_DIR/<program>.round<N>.csv)
"""
import csv
import glob
import os
import re
import sys

out = sys.argv[1]
best = {}  # program -> bytes -> (time_us, busbw)
for f in sorted(glob.glob(os.path.join(out, "*.round*.csv"))):
    prog = re.sub(r"\.round\d+\.csv$", "", os.path.basename(f))
    with open(f) as fh:
        rows = [r for r in csv.reader(l for l in fh if not l.startswith("#")) if r and r[0].isdigit()]
    for r in rows:
        b, t, bus = int(r[0]), float(r[1]), float(r[3])
        cur = best.setdefault(prog, {}).get(b)
        if cur is None or t < cur[0]:
            best[prog][b] = (t, bus)
if "c" not in best:
    sys.exit("no C baseline results in " + out)
progs = ["c"] + sorted(p for p in best if p != "c")
names = {"c": "NCCL from C", "torch": "PyTorch", "anycuda-cuda": "anycuda (cuda)",
         "anycuda-hip": "anycuda (hip)"}
sizes = sorted(best["c"])


def human(b):
    for unit, s in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= s:
            return f"{b // s} {unit}"
    return f"{b} B"


lines = ["| size | " + " | ".join(f"{names.get(p, p)} µs | busbw GB/s" for p in progs)
         + " | " + " | ".join(f"{names.get(p, p)} / C" for p in progs[1:]) + " |",
         "|---" * (1 + 2 * len(progs) + len(progs) - 1) + "|"]
for b in sizes:
    cells = []
    for p in progs:
        t, bus = best[p].get(b, (float("nan"), float("nan")))
        cells += [f"{t:.2f}", f"{bus:.2f}"]
    ratios = []
    for p in progs[1:]:
        t, bus = best[p].get(b, (float("nan"), float("nan")))
        ct, cbus = best["c"][b]
        ratios.append(f"{bus / cbus:.3f} bw, {t - ct:+.2f} µs" if cbus > 0 else "—")
    lines.append(f"| {human(b)} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
summary = []
for p in progs[1:]:
    large = [best[p][b][1] / best["c"][b][1] for b in sizes if b >= 256 << 20 and b in best[p]]
    small = [best[p][b][0] - best["c"][b][0] for b in sizes if b <= 1024 and b in best[p]]
    if large and small:
        summary.append(f"- {names.get(p, p)}: large messages (≥ 256 MiB) busbw ratio to C "
                       f"min {min(large):.3f}, mean {sum(large) / len(large):.3f} (target ≥ 0.98); "
                       f"small messages (≤ 1 KiB) latency over C max {max(small):+.2f} µs, mean "
                       f"{sum(small) / len(small):+.2f} µs (target ≤ 1 µs)")
text = "\n".join(lines) + "\n\n" + "\n".join(summary) + "\n"
with open(os.path.join(out, "nccl-bench.md"), "w") as fh:
    fh.write(text)
print(text)
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in progs:
        xs = [b for b in sizes if b in best[p]]
        ax.plot(xs, [best[p][b][1] for b in xs], marker="o", ms=3, label=names.get(p, p))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("all-reduce bus bandwidth (GB/s)")
    ax.set_title("all-reduce, 2 GPUs, float32 sum (best of interleaved rounds)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "nccl-bench.png"), dpi=120)
    print("plot:", os.path.join(out, "nccl-bench.png"))
except ImportError:
    print("matplotlib not installed: no plot")
