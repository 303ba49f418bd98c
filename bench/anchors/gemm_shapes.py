# PyTorch twin of scorch-bench's gemm_* workloads (bench/gpu_bench.cpp): the f32 products of a
# transformer layer, NN, NT (a @ b.T) and TN (a.T @ b), in f32 and bf16 (_bf16), timed with triton's do_bench
# (median ms).
import torch
from triton.testing import do_bench
torch.backends.cuda.matmul.allow_tf32 = False
for dt, suffix in [(torch.float32, ""), (torch.bfloat16, "_bf16")]:
    for m, k, n in [(8192, 512, 512), (8192, 512, 2048), (8192, 2048, 512), (512, 8192, 512), (512, 8192, 2048)]:
        a = torch.randn(m, k, device="cuda", dtype=dt); b = torch.randn(k, n, device="cuda", dtype=dt)
        at = torch.randn(k, m, device="cuda", dtype=dt).t(); bt = torch.randn(n, k, device="cuda", dtype=dt).t()
        for tag, x, y in [("NN", a, b), ("NT", a, bt), ("TN", at, b)]:
            ms = do_bench(lambda: x @ y, warmup=20, rep=100, return_mode="median")
            print(f"gemm_{m}x{k}x{n}_{tag}{suffix:5s} {ms:8.4f} ms {2*m*k*n/ms/1e9:6.1f} TFLOP/s", flush=True)
