#!/usr/bin/python3
"""PyTorch twin of scorch-bench's autodiff overhead workloads (op_overhead_add_4x4_*): a chain of
adds on 4x4 tensors, plain, with requires_grad (graph recorded), and recorded + backward.
The figure is ms per chain (1000 ops; 100 for fwd_bwd), as scorch-bench's median_ms. Python's own
loop costs ~0.03 µs per iteration, included (it is what a PyTorch user pays).
Prints one JSON object on the last line, like bench/anchors/torch_cpu_anchor.py."""
import json, statistics, time
import torch

torch.set_num_threads(2)
torch.manual_seed(0)
res = {}


def bench(fn, warm=20, reps=15):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def chain(x, y, n, backward=False):
    a = x
    for _ in range(n):
        a = a + y
    if backward:
        a.sum().backward()


x = torch.randn(4, 4); y = torch.randn(4, 4)
xg = x.clone().requires_grad_()
res["op_overhead_add_4x4_cpu"] = bench(lambda: chain(x, y, 1000))
with torch.no_grad():
    res["op_overhead_add_4x4_autodiff_untracked"] = bench(lambda: chain(xg, y, 1000))
res["op_overhead_add_4x4_autodiff_tracked"] = bench(lambda: chain(xg, y, 1000))
res["op_overhead_add_4x4_autodiff_fwd_bwd"] = bench(lambda: chain(xg, y, 100, True))
for k, v in res.items():
    print(f"{k:40s} {v:8.3f} ms  ({v * 1e3 / (100 if 'bwd' in k else 1000):.2f} us/op)")
print(json.dumps(res))
