#!/usr/bin/python3
"""ONNX Runtime (Python onnxruntime, CPU execution provider) on the models scorch-bench materialized
(SCORCH_BENCH_ONNX_KEEP=DIR) and on onnx_bench.cpp's fixed-cost chain and NonMaxSuppression, built here the same
way: the Python twin of ort_anchor.js for machines with onnxruntime in Python (the GPU machine; pin it to the cores
scorch-bench ran on).
Usage: ort_anchor.py DIR [THREADS]; prints one JSON object, workload name -> median ms (21 runs after 3 warm)."""
import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

MODELS = {  # folder -> workload name, input dims, dtype (bench/onnx, as gen_models.py exported them)
    "resnet18": ("onnx_resnet18_b1_224", [1, 3, 224, 224], np.float32),
    "mobilenet_v2": ("onnx_mobilenet_v2_b1_224", [1, 3, 224, 224], np.float32),
    "encoder": ("onnx_encoder_b8_s128", [8, 128], np.int64),
    "lstm_tagger": ("onnx_lstm_tagger_b16_s64", [16, 64], np.int64),
}


BATCH8 = {"resnet18": "onnx_resnet18_b8_224", "mobilenet_v2": "onnx_mobilenet_v2_b8_224"}  # the same, 8 images


def with_batch(path, batch):
    """The model at path (its weights read in) with its input's and output's first dim set to batch, serialized."""
    model = onnx.load(path)
    for value in list(model.graph.input) + list(model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_value = batch
    return model.SerializeToString()


def feed(dims, dtype):
    n = int(np.prod(dims))
    if dtype == np.int64:
        return (1 + (np.arange(n) * 7) % 40).astype(np.int64).reshape(dims)
    return np.sin(np.arange(n)).astype(np.float32).reshape(dims)


def chain(pairs=16):
    """x [1, 64] through pairs × (Add an initializer, Relu), as onnx_bench.cpp's fixed_cost_chain."""
    nodes, inits, last = [], [], "x"
    for i in range(pairs):
        w = np.random.default_rng(990 + i).random((1, 64), dtype=np.float32) - 0.5
        inits.append(helper.make_tensor(f"w{i}", TensorProto.FLOAT, [1, 64], w.flatten().tolist()))
        out = "y" if i == pairs - 1 else f"r{i}"
        nodes += [helper.make_node("Add", [last, f"w{i}"], [f"s{i}"]), helper.make_node("Relu", [f"s{i}"], [out])]
        last = out
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8).SerializeToString()


def uniform01(seed, index):
    """onnx_fixture_weights.h's uniform01: u in [0, 1) with 24 bits, splitmix64 of seed << 32 | index."""
    mask = (1 << 64) - 1
    z = ((seed << 32) + index + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    return np.float32(z >> 40) / np.float32(1 << 24)


def nms(count=16592):
    """onnx_bench.cpp's NonMaxSuppression workload: the model and the same boxes and scores."""
    u = lambda seed: np.array([uniform01(seed, i) for i in range(count)], dtype=np.float32)
    cy, cx = u(980), u(981)
    h, w = np.float32(0.005) + np.float32(0.03) * u(982), np.float32(0.005) + np.float32(0.03) * u(983)
    boxes = np.stack([cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2], axis=1).reshape(1, count, 4)
    scores = u(984).reshape(1, 1, count)
    inits = [helper.make_tensor("max_out", TensorProto.INT64, [1], [count]),
             helper.make_tensor("iou", TensorProto.FLOAT, [1], [0.55])]
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou"], ["selected"])
    inputs = [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, count, 4]),
              helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, count])]
    outputs = [helper.make_tensor_value_info("selected", TensorProto.INT64, None)]
    graph = helper.make_graph([node], "nms", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    return model.SerializeToString(), {"boxes": boxes, "scores": scores}


def median_ms(session, feeds, inner=1):
    for _ in range(3):
        session.run(None, feeds)
    times = []
    for _ in range(21):
        t = time.perf_counter()
        for _ in range(inner):
            session.run(None, feeds)
        times.append((time.perf_counter() - t) * 1e3 / inner)
    return sorted(times)[10]


def main():
    folder, threads = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    result = {}
    for sub, (name, dims, dtype) in MODELS.items():
        path = os.path.join(folder, sub, "model.onnx")
        if os.path.exists(path):
            session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
            result[name] = median_ms(session, {session.get_inputs()[0].name: feed(dims, dtype)})
            if sub in BATCH8:
                session = ort.InferenceSession(with_batch(path, 8), options, providers=["CPUExecutionProvider"])
                result[BATCH8[sub]] = median_ms(session, {session.get_inputs()[0].name: feed([8] + dims[1:], dtype)})
    session = ort.InferenceSession(chain(), options, providers=["CPUExecutionProvider"])
    result["onnx_fixed_cost_chain32_1x64"] = median_ms(session, {"x": feed([1, 64], np.float32)}, inner=100)
    model, feeds = nms()
    result["onnx_nms_16592_boxes"] = median_ms(ort.InferenceSession(model, options, providers=["CPUExecutionProvider"]),
                                               feeds)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
