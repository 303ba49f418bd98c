# Quantized Linear anchors (bench/quant_bench.cpp's twins): nn.Linear in f32 and PyTorch's dynamic int8 Linear
# (torch.ao.quantization.quantize_dynamic, per-channel int8 weights) on the same shapes, 2 threads. Debian's
# python3-torch is built without fbgemm: its x86 quantized engine is oneDNN (qnnpack where oneDNN is missing).
import json, os, statistics, sys, time
import torch
import torch.nn as nn
from torch.ao.quantization import quantize_dynamic, per_channel_dynamic_qconfig

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
torch.manual_seed(0)
engines = torch.backends.quantized.supported_engines
torch.backends.quantized.engine = "fbgemm" if "fbgemm" in engines else ("onednn" if "onednn" in engines else "qnnpack")
res = {}


def bench(fn, warm=3, reps=15):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def rec(name, ms, extra=""):
    res[name] = ms
    print(f"{name:40s} {ms:9.3f} ms  {extra}", flush=True, file=sys.stderr)


with torch.no_grad():
    for m, k, n in ((1, 1024, 1024), (64, 1024, 1024), (256, 1024, 4096)):
        tag = f"m{m}_k{k}_n{n}"
        layer = nn.Sequential(nn.Linear(k, n)).eval()
        x = torch.randn(m, k)
        rec(f"linear_f32_{tag}", bench(lambda: layer(x)))
        dynamic = quantize_dynamic(layer, {nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
        rec(f"linear_int8_dynamic_{tag}", bench(lambda: dynamic(x)), torch.backends.quantized.engine)
print(json.dumps(res))
