#!/usr/bin/python3
"""Two builds of scorch-bench side by side on one machine: before / after a change, rounds interleaved
(before, after, before, ...), each workload's median over the rounds, and after / before (< 1: after is faster).
Issue 62's "no slowdown" check: the same workloads before and after a rewiring, in one run.
Usage: bench/compare_builds.py BEFORE AFTER [--rounds 3] [--taskset 0,1] [-- scorch-bench args...]
Prints one JSON line per workload ({"bench", "before_ms", "after_ms", "ratio"}), then a table sorted by ratio."""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(binary, args, taskset):
    command = (["taskset", "-c", taskset] if taskset else []) + [binary, *args]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["bench"]: r["median_ms"] for r in rows if "median_ms" in r}


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--taskset", default="", help="CPU list both runs are pinned to (taskset -c)")
    o = ap.parse_args(argv)
    for binary in (o.before, o.after):
        if not os.access(binary, os.X_OK):
            sys.exit(f"compare_builds: {binary} is not an executable scorch-bench")
    times = {"before": {}, "after": {}}
    for _ in range(o.rounds):
        for side, binary in (("before", o.before), ("after", o.after)):
            for name, ms in run(binary, extra, o.taskset).items():
                times[side].setdefault(name, []).append(ms)
    rows = []
    for name in sorted(set(times["before"]) & set(times["after"])):
        b, a = statistics.median(times["before"][name]), statistics.median(times["after"][name])
        rows.append({"bench": name, "before_ms": b, "after_ms": a, "ratio": a / b if b > 0 else float("nan")})
        print(json.dumps(rows[-1]))
    only = sorted(set(times["before"]) ^ set(times["after"]))
    print(f"# {len(rows)} workloads in both builds ({len(only)} in one only); args: {' '.join(extra)}")
    for r in sorted(rows, key=lambda r: r["ratio"]):
        print(f"{r['bench']:44s} {r['before_ms']:10.4f} {r['after_ms']:10.4f} {r['ratio']:6.3f}")
    if rows:
        ratios = [r["ratio"] for r in rows]
        print(f"# after/before: median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
