"""Data-parallel scaling from scorch-dp-bench and torch_ddp_anchor.py lines (scripts/gpu-run.sh distributed writes
them, one or more rounds): for each workload, backend and world size, the median samples/s over the rounds, the
weak-scaling efficiency samples_per_s(N) / (N · samples_per_s(1)) and Scorch's efficiency over DDP's.
    python3 bench/dp_scaling.py dp_bench.jsonl"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                runs[(r["bench"], r["backend"], r["world"])].append(r["samples_per_s"])
    rate = {key: statistics.median(v) for key, v in runs.items()}
    eff = {}
    for (bench, backend, world), value in sorted(rate.items()):
        one = rate.get((bench, backend, 1))
        if one:
            eff[(bench, backend, world)] = value / (world * one)
    for (bench, backend, world), e in sorted(eff.items()):
        if world == 1 or backend != "scorch-cuda":
            continue
        ddp = eff.get((bench, "torch-ddp", world))
        print(json.dumps({"bench": bench, "world": world, "rounds": len(runs[(bench, backend, world)]),
                          "scorch_samples_per_s": round(rate[(bench, backend, world)], 1),
                          "ddp_samples_per_s": round(rate.get((bench, "torch-ddp", world), 0), 1),
                          "scorch_efficiency": round(e, 3), "ddp_efficiency": round(ddp, 3) if ddp else None,
                          "efficiency_vs_ddp": round(e / ddp, 3) if ddp else None}))


if __name__ == "__main__":
    main(sys.argv[1])
