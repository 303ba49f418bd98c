"""Writes circle.onnx, the model examples/onnx-inference runs: a PyTorch MLP (Linear 2->16, ReLU, Linear 16->2)
trained to tell points inside the unit circle from those outside, exported with a symbolic batch dim. Run with
Debian's python3-torch: /usr/bin/python3 examples/onnx-inference/make_model.py examples/onnx-inference/circle.onnx"""
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(300):
    x = torch.rand(256, 2) * 3 - 1.5
    y = (x.pow(2).sum(1) < 1).long()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
probe = torch.tensor([[0.0, 0.0], [1.2, 1.2], [0.5, -0.5], [-1.4, 0.1]])
print("PyTorch's logits for", probe.tolist(), ":", model(probe).tolist())
torch.onnx.export(model, (probe,), sys.argv[1], opset_version=13, input_names=["points"], output_names=["logits"],
                  dynamic_axes={"points": {0: "batch"}, "logits": {0: "batch"}})
