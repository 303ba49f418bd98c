"""PyTorch DDP twin of bench/dp_bench.cpp (scorch-dp-bench), same workload names and JSON fields: the guide CNN's Adam
step at batch 1024 per GPU and the 6-layer GPT's AdamW step (batch 16 × 512 tokens per GPU), one process per GPU
under torchrun (python3 -m torch.distributed.run --nproc_per_node N torch_ddp_anchor.py), NCCL, DDP's default 25 MiB
buckets; one process alone trains without DDP (the 1-GPU baseline). Rank 0 prints one JSON line per workload."""
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_model import GPT  # noqa: E402
from guide_model import Guide  # noqa: E402

REPS = int(os.environ.get("DP_REPS", "20"))
world = int(os.environ.get("WORLD_SIZE", "1"))
local = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local)
dev = torch.device("cuda", local)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
if world > 1:
    dist.init_process_group("nccl", device_id=dev)


def wrap(model):
    model = model.to(dev)
    return torch.nn.parallel.DistributedDataParallel(model, device_ids=[local]) if world > 1 else model


def median_ms(step):
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def report(name, ms, per_gpu):
    slowest = torch.tensor([ms], device=dev)
    if world > 1:
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    if int(os.environ.get("RANK", "0")) == 0:
        ms = slowest.item()
        print(json.dumps({"bench": name, "backend": "torch-ddp", "world": world, "ms": round(ms, 3),
                          "samples_per_s": round(per_gpu * world / ms * 1e3, 1)}), flush=True)


def guide():
    torch.manual_seed(0)
    model = Guide(512)
    model.drop.p = 0.0
    model = wrap(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    x = torch.randn(1024, 28, 28, device=dev)
    y = torch.randint(0, 10, (1024,), device=dev)

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    report("dp_guide_b1024_per_gpu", median_ms(step), 1024)


def gpt():
    torch.manual_seed(0)
    model = wrap(GPT())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    idx = torch.randint(0, 8192, (16, 512), device=dev)
    tgt = torch.randint(0, 8192, (16, 512), device=dev)

    def step():
        loss = F.cross_entropy(model(idx).view(-1, 8192), tgt.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    report("dp_gpt6_d512_s512_b16_per_gpu", median_ms(step), 16 * 512)


guide()
gpt()
if world > 1:
    dist.destroy_process_group()
