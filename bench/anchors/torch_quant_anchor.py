# Quantized Linear anchors (bench/quant_bench.cpp's twins): nn.Linear in f32 and PyTorch's dynamic int8 Linear
# (torch.ao.quantization.quantize_dynamic, per-channel int8 weights) on the same shapes, 2 threads. Debian's
# python3-torch is built without fbgemm: its x86 quantized engine is oneDNN (qnnpack where oneDNN is missing).
# --gpu: on the GPU, nn.Linear in f32 and torch._int_mm (PyTorch's int8 x int8 -> int32 product on cuBLASLt), the
# product Scorch's Cuda quantized_linear runs between its quantization and its epilogue.
import json, os, statistics, sys, time
import torch
import torch.nn as nn

SHAPES = ((1, 1024, 1024), (64, 1024, 1024), (256, 1024, 4096))
GPU = "--gpu" in sys.argv
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
torch.manual_seed(0)
res = {}


def bench(fn, warm=3, reps=15):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        if GPU:
            torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        if GPU:
            torch.cuda.synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def rec(name, ms, extra=""):
    res[name] = ms
    print(f"{name:40s} {ms:9.3f} ms  {extra}", flush=True, file=sys.stderr)


def cpu():
    from torch.ao.quantization import quantize_dynamic, per_channel_dynamic_qconfig
    engines = torch.backends.quantized.supported_engines
    engine = "fbgemm" if "fbgemm" in engines else ("onednn" if "onednn" in engines else "qnnpack")
    torch.backends.quantized.engine = engine
    for m, k, n in SHAPES:
        tag = f"m{m}_k{k}_n{n}"
        layer = nn.Sequential(nn.Linear(k, n)).eval()
        x = torch.randn(m, k)
        rec(f"linear_f32_{tag}", bench(lambda: layer(x)))
        dynamic = quantize_dynamic(layer, {nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
        rec(f"linear_int8_dynamic_{tag}", bench(lambda: dynamic(x)), engine)


def gpu():
    for m, k, n in SHAPES:
        tag = f"m{m}_k{k}_n{n}"
        layer = nn.Linear(k, n).cuda().eval()
        x = torch.randn(m, k, device="cuda")
        rec(f"linear_f32_{tag}", bench(lambda: layer(x), reps=50))
        a = torch.randint(-128, 127, (max(m, 17), k), dtype=torch.int8, device="cuda")  # _int_mm needs m > 16
        b = torch.randint(-128, 127, (k, n), dtype=torch.int8, device="cuda")
        try:
            rec(f"int8_mm_{tag}", bench(lambda: torch._int_mm(a, b), reps=50), f"rows {a.shape[0]}")
        except (RuntimeError, AttributeError) as e:
            print(f"int8_mm_{tag}: {e}", file=sys.stderr)


with torch.no_grad():
    gpu() if GPU else cpu()
print(json.dumps(res))
