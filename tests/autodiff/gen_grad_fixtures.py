#!/usr/bin/python3
"""Generates the gradient-check fixtures from PyTorch (the independent reference).

Each case has a name, inputs (float inputs float64, int64 index tensors, bool masks; the float
inputs come first), the output of a torch function that mirrors the C++ case body
(tests/autodiff/grad_cases_*.cpp) flattened to rank 1, and the gradient of the loss
Σ_k out_k · w_k, w_k = sin(0.7·k + 0.3), with respect to each float input, in input order
(zeros where torch gives none). A case with several outputs concatenates their flattenings.

Output: fixtures/gradients.json, a top-level JSON list of case objects
  {"name": str, "inputs": [tensor...], "output": tensor, "grads": [tensor...]}
where a tensor is {"dtype": "f64"|"i64"|"bool", "shape": [...], "data": [...]}.

Inputs keep clear of kinks (≥ 1e-3 from non-differentiable points, ties excluded) so that
central finite differences with h = 1e-6 agree with the analytic gradients; the script checks
that itself (central differences of the torch twin) and fails on a mismatch.
Run: /usr/bin/python3 tests/autodiff/gen_grad_fixtures.py [out_dir]
"""
import json, math, os, sys
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fixture_encoding import DT, enc  # noqa: E402
import registry  # noqa: E402
import torch.nn.functional as F

torch.manual_seed(0)
f64 = torch.float64
CASES = []
FD_H, FD_TOL = 1e-6, 1e-6  # the C++ harness's step; the check here: |fd - autograd| <= tol · (1 + |autograd|)




def weights(n):
    return torch.sin(0.7 * torch.arange(n, dtype=f64) + 0.3)


def flat_out(out):
    if isinstance(out, (tuple, list)):
        return torch.cat([o.flatten() for o in out])
    return out.flatten()


def loss_of(fn, inputs):
    out = flat_out(fn(*inputs))
    return (out * weights(out.numel())).sum(), out


def fd_check(name, fn, inputs, grads):
    """Central differences of the loss for every element of every float input."""
    worst = 0.0
    for i, x in enumerate(inputs):
        if not x.dtype.is_floating_point:
            continue
        g = grads[i].flatten()
        for k in range(x.numel()):
            vals = []
            for h in (FD_H, -FD_H):
                xs = [t.detach().clone() for t in inputs]
                xs[i].view(-1)[k] += h
                with torch.no_grad():
                    vals.append(loss_of(fn, xs)[0].item())
            fd = (vals[0] - vals[1]) / (2 * FD_H)
            err = abs(fd - g[k].item()) / (1 + abs(g[k].item()))
            worst = max(worst, err)
    if worst > FD_TOL:
        raise SystemExit(f"{name}: finite differences disagree with autograd (worst relative error {worst:.2e})")


def case(name, inputs, fn):
    if any(c["name"] == name for c in CASES):
        raise SystemExit(f"duplicate case {name}")
    kinds = [x.dtype.is_floating_point for x in inputs]
    if kinds != sorted(kinds, reverse=True):
        raise SystemExit(f"{name}: float inputs must come first")
    for x in inputs:
        if x.dtype not in DT:
            raise SystemExit(f"{name}: input dtype {x.dtype}")
    leaves = [x.detach().clone().requires_grad_(True) if x.dtype.is_floating_point else x.clone() for x in inputs]
    loss, out = loss_of(fn, leaves)
    floats = [x for x in leaves if x.dtype.is_floating_point]
    if loss.requires_grad:
        grads = torch.autograd.grad(loss, floats, allow_unused=True)
    else:
        grads = [None] * len(floats)
    grads = [torch.zeros_like(x) if g is None else g for x, g in zip(floats, grads)]
    fd_check(name, fn, [x.detach() for x in leaves], grads)
    CASES.append({"name": name, "inputs": [enc(x) for x in inputs], "output": enc(out), "grads": [enc(g) for g in grads]})


# ---- input makers (all float64)
def redraw(x, draw, ok):
    """x with every element where ok fails redrawn until ok holds everywhere."""
    for _ in range(10000):
        bad = ~ok(x)
        if not bad.any():
            return x
        x = torch.where(bad, draw(x.shape), x)
    raise SystemExit("could not draw a valid input")


def rn(*shape, scale=1.0):
    return torch.randn(*shape, dtype=f64) * scale


def uniform(*shape, lo, hi):
    return torch.rand(*shape, dtype=f64) * (hi - lo) + lo


def pos(*shape, lo=0.2, hi=2.0):
    return uniform(*shape, lo=lo, hi=hi)


def signed(*shape, lo=0.3, hi=2.0):
    """Magnitudes in [lo, hi], half of them negative (in random places)."""
    n = math.prod(shape)
    s = torch.tensor([1.0 if i % 2 else -1.0 for i in range(n)], dtype=f64)[torch.randperm(n)]
    return uniform(*shape, lo=lo, hi=hi) * s.reshape(*shape)


def away(*shape, lo, hi, points, margin=0.02):
    """Uniform values in [lo, hi], none within margin of any point."""
    ok = lambda t: torch.stack([(t - p).abs() >= margin for p in points]).all(0)
    return redraw(uniform(*shape, lo=lo, hi=hi), lambda s: uniform(*s, lo=lo, hi=hi), ok)


def rn_where(*shape, scale=1.0, ok):
    """randn · scale, redrawn where ok fails."""
    return redraw(rn(*shape, scale=scale), lambda s: torch.randn(s, dtype=f64) * scale, ok)


def frac_between(q, lo, hi):
    f = q - torch.floor(q)
    return (f >= lo) & (f <= hi)


def non_integer(q):
    return frac_between(q, 0.05, 0.95)


def distinct(*shape, spacing=0.3):
    """A random permutation of values spaced by at least ~spacing (no ties anywhere)."""
    n = math.prod(shape)
    v = (torch.randperm(n).to(f64) - (n - 1) / 2) * spacing + uniform(n, lo=-0.1, hi=0.1) * spacing
    return v.reshape(*shape)


def rb(*shape):
    m = torch.rand(*shape) > 0.5
    m.view(-1)[0], m.view(-1)[-1] = True, False  # both values present
    return m


# ---- arithmetic, powers, matmul (grad_cases_math.cpp)
rem_y = torch.tensor([[2.0, -3.0, 1.5]], dtype=f64)
rem_x = rn_where(2, 3, scale=5, ok=lambda t: non_integer(t / rem_y))
case("remainder_bcast", [rem_x, rem_y], lambda x, y: torch.remainder(x, y))
case("add_scalar", [rn(2, 3)], lambda x: x + 2.5)
case("sub_scalar", [rn(2, 3)], lambda x: x - 1.5)
case("mul_scalar", [rn(2, 3)], lambda x: x * -3.0)
case("div_scalar", [rn(2, 3)], lambda x: x / 4.0)
rs = rn_where(2, 3, scale=2, ok=lambda t: non_integer(t / 0.7))
case("remainder_scalar", [rs], lambda x: (torch.remainder(x, 0.7), torch.remainder(x, -0.7)))
case("powf_scalar", [pos(2, 3, lo=0.3, hi=2.0), signed(2, 3)], lambda p, x: (p ** 1.7, p ** -0.5, x ** 2.0, x ** 3))
case("powi", [signed(2, 3, lo=0.4, hi=1.8), torch.randint(-2, 4, (2, 3))], lambda x, e: torch.pow(x, e))
case("neg", [rn(2, 3)], lambda x: -x)
case("matmul", [rn(3, 4), rn(4, 2)], lambda x, y: x @ y)
case("matmul_bcast", [rn(2, 3, 4), rn(1, 4, 5)], lambda x, y: x @ y)
case("matmul_bcast4", [rn(2, 1, 3, 4), rn(1, 2, 4, 2)], lambda x, y: x @ y)

# ---- clamps, masks, device and dtype round trips
case("clamp", [away(3, 4, lo=-0.9, hi=0.9, points=[-0.5, 0.5])], lambda x: x.clamp(-0.5, 0.5))
case("clamp_min", [away(3, 4, lo=-1.0, hi=1.2, points=[0.1])], lambda x: x.clamp(min=0.1))
case("clamp_max", [away(3, 4, lo=-1.4, hi=1.0, points=[-0.2])], lambda x: x.clamp(max=-0.2))
case("mask_where", [rn(2, 3), rn(1, 3), rb(2, 3)], lambda x, v, m: torch.where(m, v, x))
case("mask_fill", [rn(2, 3), rb(2, 3)], lambda x, m: x.masked_fill(m, -1.5))
case("to_device", [rn(2, 3)], lambda x: x.to("cpu"))
# f64 → f32 → f64: tiny values, so the f32 rounding of x ± h stays far below the finite-difference noise.
case("cast_roundtrip", [rn(2, 3, scale=1e-6)], lambda x: x.float().double())

# ---- binary math: one case "binary_<op>" per binary op with a test attribute in op_table.txt, on [2, 3] and [1, 3]
for name, domain_a, domain_b, expr in registry.binary_cases():
    case("binary_" + name, registry.binary_inputs(name, domain_a, domain_b), registry.torch_fn2(expr))

# ---- unary math: one case "unary_<op>" per unary op with a test attribute in op_table.txt, on a [2, 3] input
for name, domain, expr in registry.unary_cases():
    case("unary_" + name, [registry.draw(domain, (2, 3), name)], registry.torch_fn(expr))

# ---- ops along a dim: one case "dim_<op>" per (x, dim) op with a test attribute, along dim 1 of a [2, 3] input
for name, domain, expr in registry.dim_cases():
    case("dim_" + name, [registry.draw(domain, (2, 3), name)], registry.torch_fn(expr))

# ---- activations
case("relu", [signed(2, 5, lo=0.05, hi=3.0)], F.relu)
case("leaky_relu", [signed(2, 5, lo=0.05, hi=3.0)], lambda x: F.leaky_relu(x, 0.2))
case("gelu", [rn(2, 5, scale=2)], F.gelu)
case("sigmoid", [rn(2, 5, scale=3)], torch.sigmoid)
case("log_sigmoid", [rn(2, 5, scale=3)], F.logsigmoid)
case("hard_sigmoid", [away(2, 5, lo=-3.5, hi=3.5, points=[-2.5, 2.5], margin=0.05)], lambda x: torch.clamp(x * 0.2 + 0.5, 0, 1))
case("softmax", [rn(3, 4)], lambda x: (F.softmax(x, 1), F.softmax(x, 0)))
case("log_softmax", [rn(3, 4)], lambda x: (F.log_softmax(x, 1), F.log_softmax(x, 0)))
case("softmax_3d", [rn(2, 3, 4, scale=2)], lambda x: (F.softmax(x, 1), F.log_softmax(x, 2)))

# ---- reductions (grad_cases_reduce.cpp); *_dim keep the dim (keepdim=True); full ones give shape [1]
case("sum", [rn(2, 3, 4)], lambda x: x.sum().reshape(1))
case("sum_dim", [rn(2, 3, 4)], lambda x: (x.sum(1, keepdim=True), x.sum(2, keepdim=True)))
case("mean", [rn(2, 3, 4)], lambda x: x.mean().reshape(1))
case("mean_dim", [rn(2, 3, 4)], lambda x: (x.mean(2, keepdim=True), x.mean(0, keepdim=True)))
case("prod", [signed(2, 3, lo=0.5, hi=1.5)], lambda x: x.prod().reshape(1))
case("prod_dim", [signed(3, 4, lo=0.5, hi=1.5)], lambda x: (x.prod(0, keepdim=True), x.prod(1, keepdim=True)))
pz = signed(2, 3, lo=0.5, hi=1.5)
pz[0, 1] = 0.0  # one zero: in the full product, row 0 and column 1
case("prod_zero", [pz], lambda x: (x.prod().reshape(1), x.prod(1, keepdim=True), x.prod(0, keepdim=True)))
case("max", [distinct(2, 3, 4)], lambda x: x.max().reshape(1))
case("min", [distinct(2, 3, 4)], lambda x: x.min().reshape(1))
case("max_dim", [distinct(2, 3, 4)], lambda x: (x.max(1, keepdim=True).values, x.max(2, keepdim=True).values))
case("min_dim", [distinct(2, 3, 4)], lambda x: (x.min(2, keepdim=True).values, x.min(0, keepdim=True).values))
case("max_dim_with_indices", [distinct(2, 3, 4)], lambda x: x.max(0, keepdim=True).values)
case("min_dim_with_indices", [distinct(2, 3, 4)], lambda x: x.min(1, keepdim=True).values)
case("cumsum", [rn(3, 4)], lambda x: (x.cumsum(1), x.cumsum(0)))
case("cumprod", [signed(3, 4, lo=0.5, hi=1.5)], lambda x: (x.cumprod(1), x.cumprod(0)))
cz = signed(3, 4, lo=0.5, hi=1.5)
cz[0, 1], cz[0, 3], cz[1, 0], cz[2, 3] = 0.0, 0.0, 0.0, 0.0  # one and two zeros in a row, zeros first and last
case("cumprod_zeros", [cz], lambda x: (x.cumprod(1), x.cumprod(0)))
case("cummin", [distinct(3, 4)], lambda x: (x.cummin(0).values, x.cummin(1).values))
case("cummax", [distinct(3, 4)], lambda x: (x.cummax(1).values, x.cummax(0).values))

# ---- layout (grad_cases_layout.cpp)
case("reshape", [rn(2, 3, 4)], lambda x: x.reshape(4, 6).t())
case("permute", [rn(2, 3, 4)], lambda x: x.permute(2, 0, 1))
case("swap_dims", [rn(2, 3, 4)], lambda x: x.transpose(0, 2))
case("flip", [rn(2, 3, 4)], lambda x: (x.flip(0, 2), x.flip(1)))
case("expand", [rn(3, 1)], lambda x: x.expand(2, 3, 4))
case("expand_same_rank", [rn(1, 3)], lambda x: x.expand(4, 3))
case("slice", [rn(2, 3, 4)], lambda x: (x[:, 1:3, ::2], x[1:, :, 2:3]))
case("slice_reverse", [rn(5)], lambda x: (x.flip(0)[::2], x[1:4].flip(0)))


def slice_assign(x, v):
    y = x.clone()
    y[1:3, 1:3] = v
    return y


case("slice_assign", [rn(3, 4), rn(2, 2)], slice_assign)
case("cat", [rn(2, 3), rn(1, 3), rn(2, 2)], lambda x, y, z: (torch.cat([x, y], 0), torch.cat([x, z, x], 1)))
case("repeat_dim", [rn(2, 3)], lambda x: (x.repeat(1, 3), x.repeat(2, 1)))
case("unfold", [rn(2, 3, 4)], lambda x: (x.unfold(2, 3, 1), x.unfold(1, 2, 1), x.unfold(2, 2, 2)))
gi = torch.tensor([[0, 2, 1, 0], [2, 2, 0, 1]])
case("gather", [rn(3, 4), gi], lambda x, i: x.gather(0, i))
case("scatter_add", [rn(3, 4), rn(2, 4), gi], lambda x, v, i: x.scatter_add(0, i, v))
si = torch.tensor([2, 0, 2])
case("select", [rn(3, 4), si], lambda x, i: x.index_select(1, i))
case("select_add", [rn(3, 4), rn(3, 3), si], lambda x, v, i: x.index_add(1, i, v))
case("sort", [distinct(3, 4)], lambda x: (torch.sort(x, 1).values, torch.sort(x, 0, descending=True).values))
case("sort_with_indices", [distinct(3, 4)], lambda x: (torch.sort(x, 1).values, x.topk(2, 1).values))

# ---- module ops (grad_cases_module.cpp)
case("conv1d", [rn(1, 4, 7), rn(4, 2, 3), rn(4)], lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2))
case("conv1d_nobias", [rn(2, 2, 6), rn(3, 2, 2)], lambda x, w: F.conv1d(x, w))
case("conv2d", [rn(1, 2, 5, 4), rn(3, 2, 3, 2), rn(3)], lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)))
case("conv2d_groups", [rn(1, 4, 4, 3), rn(4, 2, 2, 2), rn(4)], lambda x, w, b: F.conv2d(x, w, b, padding=(1, 0), groups=2))
case("conv3d", [rn(1, 2, 3, 3, 3), rn(2, 2, 2, 2, 2), rn(2)], lambda x, w, b: F.conv3d(x, w, b, padding=(1, 0, 0)))
case("conv_transpose1d", [rn(1, 4, 4), rn(4, 3, 3), rn(6)],
     lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1, groups=2))
case("conv_transpose2d", [rn(1, 2, 3, 3), rn(2, 2, 3, 2), rn(2)],
     lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(1, 0), output_padding=(1, 0)))
case("conv_transpose2d_groups", [rn(1, 4, 2, 3), rn(4, 1, 2, 2)],
     lambda x, w: F.conv_transpose2d(x, w, stride=2, dilation=(1, 2), groups=2))
case("avg_pool1d", [rn(2, 2, 9)], lambda x: (
    F.avg_pool1d(x, 3, 2, 1, count_include_pad=True), F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)))
case("avg_pool2d", [rn(1, 2, 5, 6)], lambda x: (
    F.avg_pool2d(x, (3, 2), (2, 2), (1, 1), count_include_pad=True), F.avg_pool2d(x, (3, 2), (2, 2), (1, 1), count_include_pad=False),
    F.avg_pool2d(x, (2, 3), (2, 2), (0, 1), ceil_mode=True, count_include_pad=False)))
case("max_pool1d", [distinct(2, 2, 9)], lambda x: (F.max_pool1d(x, 3, 2, 1), F.max_pool1d(x, 3, 2, 1, dilation=2, return_indices=True)[0]))
case("max_pool2d", [distinct(1, 2, 5, 5)], lambda x: (
    F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2, 2, return_indices=True)[0],
    F.max_pool2d(x, 3, 2, 1, dilation=(1, 2), ceil_mode=True, return_indices=True)[0]))
case("adaptive_avg_pool", [rn(2, 2, 7), rn(1, 2, 5, 6)], lambda x1, x2: (F.adaptive_avg_pool1d(x1, 3), F.adaptive_avg_pool2d(x2, (3, 4))))
case("adaptive_max_pool", [distinct(2, 2, 7), distinct(1, 2, 5, 6)], lambda x1, x2: (
    F.adaptive_max_pool1d(x1, 3), F.adaptive_max_pool2d(x2, (3, 4))))


def interp(x, size, mode, ac=None):
    return F.interpolate(x, size=size, mode=mode, align_corners=ac)


case("interpolate_nearest", [rn(1, 2, 4, 5)], lambda x: (interp(x, (7, 8), "nearest"), interp(x, (3, 3), "nearest")))
case("interpolate_bilinear", [rn(1, 2, 4, 5)], lambda x: (
    interp(x, (6, 7), "bilinear", False), interp(x, (6, 7), "bilinear", True), interp(x, (3, 4), "bilinear", False)))
case("interpolate_bicubic", [rn(1, 2, 4, 5)], lambda x: (
    interp(x, (6, 7), "bicubic", False), interp(x, (6, 7), "bicubic", True), interp(x, (3, 3), "bicubic", True)))
case("unfold4d", [rn(1, 2, 5, 4)], lambda x: F.unfold(x, (3, 2), dilation=(1, 1), padding=(1, 0), stride=(2, 1)))
case("fold4d", [rn(1, 4, 6), rn(1, 9, 4)], lambda c, c1: (
    F.fold(c, (3, 4), (2, 2)), F.fold(c1, (4, 4), (3, 3), padding=1, stride=2)))


def attention_ref(q, k, v, mask=None, scale=None):
    """softmax(q kᵀ · scale, masked where mask is TRUE) v; scale defaults to 1/√d."""
    s = (q @ k.transpose(-2, -1)) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, -1) @ v


case("attention", [rn(1, 2, 3, 4), rn(1, 2, 5, 4), rn(1, 2, 5, 3)], lambda q, k, v: (
    attention_ref(q, k, v), attention_ref(q, k, v, scale=0.3)))
causal = torch.ones(1, 1, 4, 4, dtype=torch.bool).triu(1)
case("attention_mask", [rn(1, 2, 4, 3), rn(1, 2, 4, 3), rn(1, 2, 4, 3), causal],
     lambda q, k, v, m: (attention_ref(q, k, v, m), attention_ref(q, k, v, m, 0.7)))


case("layer_norm", [rn(2, 3, 6), rn(6), rn(6)], lambda x, g, b: (
    F.layer_norm(x, (6,), g, b), F.layer_norm(x, (6,), None, None, 1e-3)))
case("rms_norm", [rn(3, 5), rn(5)], lambda x, g: (
    x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * g, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-2)))

case("attention_causal", [rn(1, 2, 3, 4), rn(1, 2, 5, 4), rn(1, 2, 5, 3)], lambda q, k, v: (
    attention_ref(q, k, v, torch.ones(3, 5, dtype=torch.bool).triu(1)),
    attention_ref(k, q, q, torch.ones(5, 3, dtype=torch.bool).triu(1), 0.4)))
case("cross_entropy", [rn(4, 6), torch.tensor([5, 0, 2, 3])], lambda x, t: F.cross_entropy(x, t, reduction="none"))
case("linear", [rn(3, 5), rn(5, 4), rn(4)], lambda x, w, b: (torch.relu(x @ w + b), x @ w, x @ w + b))


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "gradients.json"), "w") as f:
        json.dump(CASES, f, separators=(",", ":"))
    print(f"wrote {len(CASES)} cases")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
