"""The test-case registry for the fixture scripts: the unary and binary float ops' test attributes in
scorch/backend/op_table.txt (`test: DOMAIN ; expr` under an op) and their input domains (tests/registry/domains.h).
Each case draws its input from a generator seeded by its own name, so a new case changes no other case's fixture."""
import pathlib
import sys
import zlib

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import gen_ops  # noqa: E402

# The shapes every binary case runs on (scorch/gen/test_registry.h).
BINARY_SHAPES = ((2, 3), (1, 3))


def _cases(form):
    ops = gen_ops.parse_table(ROOT / "scorch" / "backend" / "op_table.txt")
    cases = []
    for op in ops:
        if "test" in op.attrs and gen_ops.test_form(op) == form:
            domains, expr = op.attrs["test"].split(" ; ", 1)
            cases.append((op.name, *domains.split(), expr))
    if not cases:
        raise SystemExit(f"op_table.txt: no {form} test attributes found")
    return cases


def unary_cases():
    """(op, domain, PyTorch expression of x) for every unary float op with a test attribute."""
    return _cases("unary")


def binary_cases():
    """(op, domain of a, domain of b, PyTorch expression of a and b) for every binary float op with a test attribute."""
    return _cases("binary")


def dim_cases():
    """(op, domain, PyTorch expression of x and d) for every (F x, size_t dim) -> F op with a test attribute."""
    return _cases("dim")


def torch_fn(expr):
    """The expression as a function of x (d: x's last dim, for the dim cases)."""
    return lambda x: eval(expr, {"torch": torch}, {"x": x, "d": x.dim() - 1})


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
