"""The test-case registry (tests/registry/*.h) for the fixture scripts: the unary and binary float
ops' cases and their input domains. Each case draws its input from a generator seeded by its own name, so a
new registry line changes no other case's fixture."""
import pathlib
import re
import zlib

import torch

REGISTRY = pathlib.Path(__file__).resolve().parent.parent / "registry"
UNARY = re.compile(r'X\((\w+),\s*(\w+),\s*"([^"]*)"\)')
BINARY = re.compile(r'X\((\w+),\s*(\w+),\s*(\w+),\s*"([^"]*)"\)')
# The shapes every binary case runs on (tests/registry/binary_cases.h).
BINARY_SHAPES = ((2, 3), (1, 3))


def _cases(file, macro, pattern):
    text = (REGISTRY / file).read_text()
    cases = pattern.findall(text[text.find(f"#define {macro}(X)"):])
    if not cases:
        raise SystemExit(f"tests/registry/{file}: no cases found")
    return cases


def unary_cases():
    """(op, domain, PyTorch expression of x) for every line of SCORCH_UNARY_CASES."""
    return _cases("unary_cases.h", "SCORCH_UNARY_CASES", UNARY)


def binary_cases():
    """(op, domain of a, domain of b, PyTorch expression of a and b) for every line of SCORCH_BINARY_CASES."""
    return _cases("binary_cases.h", "SCORCH_BINARY_CASES", BINARY)


def torch_fn(expr):
    """The expression as a function of x."""
    return lambda x: eval(expr, {"torch": torch}, {"x": x})


def torch_fn2(expr):
    """The expression as a function of a and b."""
    return lambda a, b: eval(expr, {"torch": torch}, {"a": a, "b": b})


def binary_inputs(op, domain_a, domain_b):
    """A binary case's two f64 inputs, each from its own seed (op/a, op/b)."""
    return [draw(domain_a, BINARY_SHAPES[0], op + "/a"), draw(domain_b, BINARY_SHAPES[1], op + "/b")]


def _away(x, points_of, margin, redraw):
    for _ in range(10000):
        bad = (x - points_of(x)).abs() < margin
        if not bad.any():
            return x
        x = torch.where(bad, redraw(x.shape), x)
    raise SystemExit("could not draw a valid input")


def draw(domain, shape, seed_name):
    """An f64 input of the given shape from the domain, drawn from a generator seeded by seed_name."""
    g = torch.Generator().manual_seed(zlib.crc32(seed_name.encode()))
    u = lambda lo, hi, s=shape: torch.rand(*s, generator=g, dtype=torch.float64) * (hi - lo) + lo
    n = lambda s=shape: torch.randn(*s, generator=g, dtype=torch.float64)
    if domain == "Normal":
        return n()
    if domain == "Positive":
        return u(0.2, 2.0)
    if domain == "Unit":
        return u(-0.9, 0.9)
    if domain == "AboveOne":
        return u(1.1, 3.0)
    if domain == "Open01":
        return u(0.05, 0.95)
    if domain == "NonZero":
        signs = torch.where(torch.rand(*shape, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
        return u(0.3, 2.0) * signs
    if domain == "NonInteger":
        return _away(n() * 3, torch.round, 0.05, lambda s: n(s) * 3)
    if domain == "NonHalf":
        return _away(n() * 3, lambda t: torch.floor(t) + 0.5, 0.05, lambda s: n(s) * 3)
    raise SystemExit(f"unknown domain {domain}")
