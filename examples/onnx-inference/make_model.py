"""Writes circle.onnx, the model examples/onnx-inference runs: the MLP of examples/pytorch-import (Linear 2->16,
ReLU, Linear 16->2, trained to tell points inside the unit circle from those outside), taken from that example's
checkpoint circle.pt and exported with a symbolic batch dim. Run with Debian's python3-torch:
/usr/bin/python3 examples/onnx-inference/make_model.py examples/pytorch-import/circle.pt examples/onnx-inference/circle.onnx"""
import sys

import torch

model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
model.load_state_dict(torch.load(sys.argv[1])["model"])
probe = torch.tensor([[0.0, 0.0], [1.2, 1.2], [0.5, -0.5], [-1.4, 0.1]])
print("PyTorch's logits for", probe.tolist(), ":", model(probe).tolist())
torch.onnx.export(model, (probe,), sys.argv[2], opset_version=13, input_names=["points"], output_names=["logits"],
                  dynamic_axes={"points": {0: "batch"}, "logits": {0: "batch"}})
