#!/usr/bin/python3
"""PyTorch eager twins of scorch-bench's onnx_* workloads: the architectures of bench/onnx built from
tests/module/fixtures/onnx/gen_models.py (same classes, same generated weights), inference under torch.no_grad.
Prints one JSON object, workload name -> median ms over 21 runs after 3 warm runs (threads: OMP_NUM_THREADS)."""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "module", "fixtures",
                                "onnx"))
import gen_models  # noqa: E402

NAMES = {"resnet18": "onnx_resnet18_b1_224", "mobilenet_v2": "onnx_mobilenet_v2_b1_224",
         "encoder": "onnx_encoder_b8_s128", "lstm_tagger": "onnx_lstm_tagger_b16_s64"}


def median_ms(fn, reps=21, warm=3):
    for _ in range(warm):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[reps // 2]


def main():
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    result = {}
    for folder, (model, example) in gen_models.bench_models().items():
        model.eval()
        gen_models.fill(model)
        model, example = model.to(device), example.to(device)

        def step():
            with torch.no_grad():
                model(example)
            if device == "cuda":
                torch.cuda.synchronize()
        result[NAMES[folder] + ("" if device == "cpu" else "_" + device)] = median_ms(step)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
