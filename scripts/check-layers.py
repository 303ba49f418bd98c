#!/usr/bin/env python3
"""Checks the floor plan of docs/design.md §1: the generic layers and the decorators include no concrete backend.

A backend's own code (its executors, its NCCL communicator, its Dyn stack, Remote's server over it) lives with the
backend (scorch/backends/<name>/) or its stack (scorch/stacks/<name>/); everything else reaches backends through the
contract (scorch/backend/) or Dyn. Prints each include that breaks this and exits 1.
"""
import pathlib
import re
import sys

CONCRETE = re.compile(r'#include\s+[<"]scorch/backends/(cpu|cuda|libtorch|vulkan|reference)/')
# Layers that must stay backend-free: the contract, the generic layers and the decorators.
LAYERS = ["autodiff", "backend", "core", "data", "distributed", "dyn", "fusion", "ir", "module", "nn", "optim",
          "quant", "remote", "router", "tensor", "train", "vision"]
# Files that are a backend's by design, with the reason.
ALLOWED = {
    "scorch/import/onnx/runtime/ops_recurrent.cpp": "the recurrent cells' host loop on Cpu tensors",
    "scorch/web/web_model.h": "the web pages run on Cpu (the WebAssembly build has no other backend)",
}


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    bad = []
    for layer in LAYERS:
        for path in sorted((root / "scorch" / layer).rglob("*")):
            if path.suffix not in (".h", ".cpp", ".cu", ".cuh") or str(path.relative_to(root)) in ALLOWED:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if CONCRETE.search(line):
                    bad.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    for line in bad:
        print(f"check-layers: {line} (a generic layer or decorator includes a concrete backend: move the code to "
              "scorch/backends/<name>/ or scorch/stacks/<name>/, or reach the backend through Dyn)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
