#!/usr/bin/python3
"""Generates the conformance fixtures from PyTorch (the independent reference).

Each case has a name, input tensors and the outputs PyTorch computes for them. The C++ side
(tests/conformance/cases_*.cpp) registers a case of the same name that applies Scorch's op to
the same inputs; the runner compares the outputs. Run: make fixtures
"""
import json, math, os, sys
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fixture_encoding import enc  # noqa: E402
import registry  # noqa: E402
import torch.nn.functional as F

torch.manual_seed(0)
CASES = []
BASE = []  # (name, inputs, fn, tol) of every case, for the edge variants (edge_variants.py)


def case(name, inputs, fn, tol=None):
    outs = fn(*[i.clone() for i in inputs])
    if not isinstance(outs, (tuple, list)):
        outs = [outs]
    c = {"name": name, "inputs": [enc(i) for i in inputs], "outputs": [enc(o) for o in outs]}
    if tol:
        c["tolerance"] = tol
    CASES.append(c)
    BASE.append((name, [i.clone() for i in inputs], fn, tol))


def rn(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def ri(*shape, lo=-5, hi=6, dtype=torch.int64):
    return torch.randint(lo, hi, shape, dtype=torch.int64).to(dtype)


def rb(*shape):
    return torch.rand(*shape) > 0.5


def pos(*shape, dtype=torch.float32):
    return (torch.rand(*shape, dtype=torch.float64) * 2 + 0.1).to(dtype)


# ---- creation, data, casts
case("from_data_float", [rn(2, 3)], lambda x: x)
case("from_data_int", [ri(2, 3)], lambda x: x)
case("from_data_bool", [rb(2, 3)], lambda x: x)
case("full_float", [], lambda: torch.full((2, 3), 2.5))
case("full_int", [], lambda: torch.full((3,), 7, dtype=torch.int64))
case("full_bool", [], lambda: torch.full((2, 2), True))
case("zeros_ones", [], lambda: (torch.zeros(2, 2), torch.ones(3), torch.zeros(2, dtype=torch.int64),
                               torch.ones(2, dtype=torch.int64), torch.zeros(2, dtype=torch.bool), torch.ones(2, dtype=torch.bool)))
case("empty_shapes", [], lambda: (torch.zeros(2, 3), torch.zeros(4, dtype=torch.int64), torch.zeros(1, 2, dtype=torch.bool)))
case("random_degenerate", [], lambda: (torch.full((3, 2), 2.0), torch.ones(4), torch.full((3,), 3, dtype=torch.int64)))
case("cast_float", [torch.tensor([1.0, -2.5, 3.14159265, 1e-3, 65504.0, 1e5])],
     lambda x: (x.double(), x.half(), x.bfloat16()))
case("cast_int", [ri(5, lo=-100, hi=100)], lambda x: (x.int(), x.to(torch.int16), x.to(torch.int8)))
case("float_into_int", [torch.tensor([1.7, -1.7, 0.2, -0.0, 100.9])], lambda x: x.long())
case("int_into_float", [ri(4)], lambda x: x.float())
case("bool_into", [rb(5)], lambda x: (x.long(), x.float()))
case("arange", [], lambda: (torch.arange(2, 9), torch.arange(1, 10, 3)))

# ---- float arithmetic
a, b = rn(2, 3), rn(2, 3)
case("remainder_float", [rn(2, 3) * 5, torch.tensor([[2.0, -3.0, 1.5]])], lambda x, y: torch.remainder(x, y))
case("scalar_ops_float", [a], lambda x: (x + 2.5, x - 1.5, x * -3.0, x / 4.0, torch.remainder(x, 0.7), x.abs() ** 1.7, x ** 2))
case("powi_float", [pos(2, 3), ri(2, 3, lo=-2, hi=4)], lambda x, y: torch.pow(x, y.to(x.dtype)))
case("neg_float", [a], lambda x: -x)
case("matmul_float", [rn(2, 3, 4), rn(1, 4, 5)], lambda x, y: x @ y)
case("matmul_f64", [rn(3, 4, dtype=torch.float64), rn(4, 2, dtype=torch.float64)], lambda x, y: x @ y)
case("add_f16", [rn(2, 3, dtype=torch.float16), rn(2, 3, dtype=torch.float16)], lambda x, y: x + y, tol=[1e-3, 1e-3])
case("exp_bf16", [rn(4, dtype=torch.bfloat16)], lambda x: x.exp(), tol=[1e-2, 1e-2])
case("add_inplace_chain", [a, b], lambda x, y: ((x + y) * 2 - y) / 3)

# ---- int arithmetic
ia, ib = ri(2, 3), ri(2, 3, lo=1, hi=5) * torch.tensor([1, -1, 1])
case("add_int", [ia, ri(1, 3)], lambda x, y: x + y)
case("sub_int", [ia, ri(2, 1)], lambda x, y: x - y)
case("mul_int", [ia, ib], lambda x, y: x * y)
case("div_int", [ia, ib], lambda x, y: torch.div(x, y, rounding_mode="floor"))
case("remainder_int", [ia, ib], lambda x, y: torch.remainder(x, y))
case("scalar_ops_int", [ia], lambda x: (x + 2, x - 3, x * -2, torch.div(x, 2, rounding_mode="floor"), torch.remainder(x, 3)))
case("powi_int", [ri(2, 3, lo=-3, hi=4), ri(2, 3, lo=0, hi=4)], lambda x, y: torch.pow(x, y))
case("powi_scalar_int", [ri(2, 3, lo=-3, hi=4)], lambda x: torch.pow(x, 3))
case("neg_int", [ia], lambda x: -x)
case("matmul_int", [ri(2, 3, 4), ri(2, 4, 2)], lambda x, y: x @ y)
case("arith_i32", [ri(4, dtype=torch.int32), ri(4, lo=1, hi=4, dtype=torch.int32)], lambda x, y: (x + y, x * y, torch.div(x, y, rounding_mode="floor")))

# ---- binary float math: one case "binary_<op>" per binary op with a test attribute in op_table.txt, on f32
for name, domain_a, domain_b, expr in registry.binary_cases():
    case("binary_" + name, [t.float() for t in registry.binary_inputs(name, domain_a, domain_b)], registry.torch_fn2(expr))

# ---- unary float math: one case "unary_<op>" per unary op with a test attribute in op_table.txt, on f32
for name, domain, expr in registry.unary_cases():
    case("unary_" + name, [registry.draw(domain, (2, 3), name).float()], registry.torch_fn(expr))
# ---- ops along a dim: one case "dim_<op>" per (x, dim) op with a test attribute, along dim 1 of a [2, 3] input
for name, domain, expr in registry.dim_cases():
    case("dim_" + name, [registry.draw(domain, (2, 3), name).float()], registry.torch_fn(expr))
case("round_ties", [torch.tensor([0.5, 1.5, 2.5, -0.5, -1.7, 2.3])], torch.round)
case("unary_strided", [rn(3, 4)], lambda x: x.t().exp())
case("sign_float", [torch.tensor([-2.0, 0.0, 3.0, -0.5])], torch.sign)
case("nan_inf", [torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0])],
     lambda x: (x.isnan(), x.isinf(), x.isfinite()))
case("abs_sign_int", [ri(6)], lambda x: (x.abs(), x.sign()))

# ---- comparison and logic
fa, fb = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), torch.tensor([[1.0, 5.0, 2.0]])
case("compare_float", [fa, fb], lambda x, y: (x == y, x != y, x > y, x >= y, x < y, x <= y))
case("compare_elem_float", [fa], lambda x: (x == 2.0, x != 2.0, x > 2.0, x >= 2.0, x < 2.0, x <= 2.0))
ca, cb = torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([[1, 5, 2]])
case("compare_int", [ca, cb], lambda x, y: (x == y, x != y, x > y, x >= y, x < y, x <= y))
case("compare_elem_int", [ca], lambda x: (x == 2, x != 2, x > 2, x >= 2, x < 2, x <= 2))
case("logic_bool", [rb(2, 3), rb(1, 3)], lambda x, y: (x == y, x != y, ~x, x & y, x | y, x ^ y))
case("bitwise", [ri(2, 3, lo=0, hi=64), ri(2, 3, lo=0, hi=4)],
     lambda x, y: (x & y, x | y, x ^ y, x & 5, x | 5, x ^ 5, ~x, x << y, x >> y, x << 2, x >> 1))

# ---- clamp and masks
case("clamp_float", [rn(2, 3)], lambda x: (x.clamp(-0.5, 0.5), x.clamp(min=0.0), x.clamp(max=0.1)))
case("clamp_int", [ri(2, 3)], lambda x: (x.clamp(-2, 2), x.clamp(min=0), x.clamp(max=1)))
m23 = rb(2, 3)
case("mask_float", [rn(2, 3), m23, rn(2, 3)], lambda x, m, v: (torch.where(m, v, x), x.masked_fill(m, -1.5)))
case("mask_int", [ri(2, 3), m23, ri(2, 3)], lambda x, m, v: (torch.where(m, v, x), x.masked_fill(m, 9)))
case("mask_bool", [rb(2, 3), m23, rb(2, 3)], lambda x, m, v: (torch.where(m, v, x), x.masked_fill(m, True)))
case("mask_broadcast", [rn(2, 3), torch.tensor([[True, False, True]])], lambda x, m: x.masked_fill(m, 0.0))

# ---- reductions
r = rn(2, 3, 4)
case("reduce_float", [r], lambda x: (x.sum().reshape(1), x.sum(1, keepdim=True), x.mean().reshape(1), x.mean(2, keepdim=True),
                                     x.prod().reshape(1), x.prod(0, keepdim=True)))
case("extreme_float", [r], lambda x: (x.max().reshape(1), x.min().reshape(1), x.max(1, keepdim=True).values,
                                      x.min(2, keepdim=True).values, x.argmax(1, keepdim=True), x.argmin(2, keepdim=True),
                                      x.max(0, keepdim=True).indices, x.min(0, keepdim=True).indices))
ir = ri(2, 3, 4)
case("reduce_int", [ir], lambda x: (x.sum().reshape(1), x.sum(1, keepdim=True), torch.div(x.sum(), x.numel(), rounding_mode="floor").reshape(1),
                                    torch.div(x.sum(2, keepdim=True), 4, rounding_mode="floor"), x.prod().reshape(1), x.prod(0, keepdim=True)))
case("extreme_int", [ir], lambda x: (x.max().reshape(1), x.min().reshape(1), x.max(1, keepdim=True).values,
                                     x.min(2, keepdim=True).values, x.argmax(1, keepdim=True), x.argmin(2, keepdim=True),
                                     x.max(0, keepdim=True).indices, x.min(0, keepdim=True).indices))
az = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
case("any_all_float", [az], lambda x: (x.bool().any().reshape(1), x.bool().all().reshape(1), x.bool().any(1, keepdim=True), x.bool().all(0, keepdim=True)))
case("any_all_int", [ri(2, 3, lo=0, hi=2)], lambda x: (x.bool().any().reshape(1), x.bool().all().reshape(1), x.bool().any(1, keepdim=True), x.bool().all(0, keepdim=True)))
case("any_all_bool", [rb(3, 4)], lambda x: (x.any().reshape(1), x.all().reshape(1), x.any(1, keepdim=True), x.all(0, keepdim=True)))
case("cumulative_float", [rn(2, 4)], lambda x: (x.cumsum(1), x.cumprod(1), x.cummin(0).values, x.cummax(1).values))
case("cumulative_int", [ri(2, 4)], lambda x: (x.cumsum(1), x.cumprod(1), x.cummin(0).values, x.cummax(1).values))
case("reduce_nan", [torch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])], lambda x: (x.max(1, keepdim=True).values, x.argmax(1, keepdim=True)))
case("sum_f16", [rn(64, dtype=torch.float16)], lambda x: x.sum().reshape(1), tol=[1e-2, 1e-2])

# ---- layout
l = rn(2, 3, 4)
case("layout_float", [l], lambda x: (x.reshape(6, 4), x.permute(2, 0, 1), x.transpose(0, 2), x.flip(1), x.flip(0, 2),
                                     x[:, 1:3, ::2], x[:, :, 1:2], x.unfold(2, 2, 1)))
case("expand_float", [rn(3, 1)], lambda x: x.expand(2, -1, 4))
case("slice_reverse", [rn(5)], lambda x: (x.flip(0)[::2], x[1:4].flip(0)))
case("slice_assign_float", [rn(3, 4), rn(2, 2)], lambda x, v: torch.cat([x[:1], torch.cat([x[1:, :1], v, x[1:, 3:]], 1)], 0))
case("cat_repeat_float", [rn(2, 3), rn(1, 3)], lambda x, y: (torch.cat([x, y], 0), x.repeat(1, 3), x.repeat(2, 1)))
case("layout_int", [ri(2, 3, 4)], lambda x: (x.reshape(6, 4), x.permute(2, 0, 1), x.transpose(0, 2), x.flip(1),
                                            x[:, 1:3, ::2], x.unfold(2, 2, 1), x[:, :1].expand(2, 3, 4)))
case("cat_repeat_int", [ri(2, 3), ri(1, 3)], lambda x, y: (torch.cat([x, y], 0), x.repeat(1, 3)))
case("slice_assign_int", [ri(3, 4), ri(2, 2)], lambda x, v: torch.cat([x[:1], torch.cat([x[1:, :1], v, x[1:, 3:]], 1)], 0))
case("layout_bool", [rb(2, 3, 4)], lambda x: (x.reshape(6, 4), x.permute(2, 0, 1), x.transpose(0, 2), x.flip(1),
                                             x[:, 1:3, ::2], x.unfold(2, 2, 1), x[:, :1].expand(2, 3, 4)))
case("cat_repeat_bool", [rb(2, 3), rb(1, 3)], lambda x, y: (torch.cat([x, y], 0), x.repeat(1, 3)))
case("slice_assign_bool", [rb(3, 4), rb(2, 2)], lambda x, v: torch.cat([x[:1], torch.cat([x[1:, :1], v, x[1:, 3:]], 1)], 0))

# ---- indexing
g = rn(3, 4)
gi = torch.tensor([[0, 2, 1, 0], [2, 2, 0, 1]])
case("gather_scatter_float", [g, gi, rn(2, 4)], lambda x, i, v: (x.gather(0, i), x.scatter_add(0, i, v)))
case("gather_int", [ri(3, 4), torch.tensor([[3, 0], [1, 1], [2, 0]])], lambda x, i: x.gather(1, i))
case("scatter_int", [ri(3, 4), torch.tensor([[3, 0], [1, 1], [2, 0]]), ri(3, 2)], lambda x, i, v: x.scatter_add(1, i, v))
si = torch.tensor([2, 0, 2])
case("select_float", [rn(3, 4), si, rn(3, 3)], lambda x, i, v: (x.index_select(1, i), x.index_add(1, i, v)))
case("select_int", [ri(3, 4), si, ri(3, 3)], lambda x, i, v: (x.index_select(0, i), x.index_add(1, i, v)))
case("index_bool", [rb(3, 4), torch.tensor([[3, 0], [1, 1], [2, 0]]), si], lambda x, i, s: (x.gather(1, i), x.index_select(0, s)))
case("argwhere", [torch.tensor([[True, False, True], [False, False, True]])], lambda m: (torch.argwhere(m), m.nonzero(as_tuple=True)[0], m.nonzero(as_tuple=True)[1]))
case("mask_select", [rn(2, 3), m23], lambda x, m: x.masked_select(m))

# ---- sorting
s = torch.tensor([[3.0, 1.0, 2.0, 1.0], [float("nan"), -1.0, 5.0, 0.0]])
case("sort_float", [s], lambda x: (torch.sort(x, dim=1, stable=True).values, torch.sort(x, dim=1, stable=True).indices,
                                   torch.sort(x, dim=1, descending=True, stable=True).values, torch.sort(x, dim=0, stable=True).indices))
si2 = torch.tensor([[3, 1, 2, 1], [0, -1, 5, 0]])
case("sort_int", [si2], lambda x: (torch.sort(x, dim=1, stable=True).values, torch.sort(x, dim=1, stable=True).indices,
                                   torch.sort(x, dim=1, descending=True, stable=True).values, torch.sort(x, dim=1, descending=True, stable=True).indices))
case("topk", [torch.tensor([[1.0, 5.0, 3.0, 4.0], [2.0, 0.0, 9.0, 7.0]])], lambda x: (x.topk(2, 1).values, x.topk(2, 1).indices))

# ---- activations
act = rn(2, 5) * 3
case("act_relu", [act], F.relu)
case("act_leaky_relu", [act], lambda x: F.leaky_relu(x, 0.2))
case("act_gelu", [act], F.gelu)
case("act_sigmoid", [torch.tensor([-100.0, -3.0, 0.0, 2.0, 100.0])], torch.sigmoid)
case("act_log_sigmoid", [torch.tensor([-100.0, -3.0, 0.0, 2.0, 100.0])], F.logsigmoid)
case("act_hard_sigmoid", [act], lambda x: torch.clamp(x * 0.2 + 0.5, 0, 1))
case("act_softmax", [rn(3, 4)], lambda x: (F.softmax(x, 1), F.softmax(x, 0), F.log_softmax(x, 1), F.log_softmax(x, 0)))
case("act_softmax_big", [rn(2, 1000) * 30], lambda x: (F.softmax(x, 1), F.log_softmax(x, 1)), tol=[1e-5, 1e-5])
case("act_composite", [act], lambda x: (F.silu(x), F.mish(x), F.elu(x), F.celu(x, 1.5), F.selu(x), F.softplus(x),
                                        F.softsign(x), F.hardswish(x), F.tanhshrink(x), F.hardtanh(x), F.relu6(x),
                                        F.hardshrink(x, 0.5), F.softshrink(x, 0.5), F.threshold(x, 1.0, -2.0),
                                        F.gelu(x, approximate="tanh"), F.softmin(x, 1), F.glu(torch.cat([x, x * 0.5], 1), 1)))
def quiet_softmax(x, dim):
    e = (x - x.max(dim, keepdim=True).values).exp()
    return e / (e.sum(dim, keepdim=True) + 1)


case("act_quiet_softmax_tanh", [rn(3, 4) * 4], lambda x: (quiet_softmax(x, 1), quiet_softmax(x, 0), torch.tanh(x)))
case("act_prelu", [rn(2, 3, 2), torch.tensor([0.1, 0.2, 0.3])], lambda x, a: F.prelu(x, a))

# ---- front-end composites
t = rn(3, 4)
case("triangles", [t], lambda x: (x.triu(0), x.triu(1), x.tril(0), x.tril(-1), torch.eye(3)))
case("var_family", [rn(3, 5)], lambda x: (x.var(1, keepdim=True), x.var(1, unbiased=False, keepdim=True), x.mean(1, keepdim=True)))
case("pad_modes", [rn(2, 3)], lambda x: (F.pad(x, (1, 2), value=0.5), F.pad(x.unsqueeze(0), (1, 1, 1, 0), mode="replicate").squeeze(0),
                                         F.pad(x.unsqueeze(0), (2, 1), mode="reflect").squeeze(0)))
case("one_hot", [torch.tensor([0, 2, 1])], lambda i: F.one_hot(i, 4))
case("cross_fmod_hypot", [rn(2, 3), rn(2, 3)], lambda x, y: (torch.cross(x, y, dim=1), torch.fmod(x * 4, y), torch.hypot(x, y)))
case("roll_chunk_stack", [rn(3, 4)], lambda x: (torch.roll(x, 1, 1), torch.roll(x, -1, 0), *torch.chunk(x, 2, 1),
                                                torch.stack([x, x * 2], 1)))
case("max_min_pair", [rn(2, 3), rn(2, 3)], lambda x, y: (torch.maximum(x, y), torch.minimum(x, y)))
case("squeeze_flatten", [rn(2, 1, 3)], lambda x: (x.squeeze(1), x.unsqueeze(0), x.flatten(0, 1), x.movedim(0, 2)))
case("dot_sum_dims", [rn(4), rn(4), rn(2, 3, 4)], lambda x, y, z: (torch.dot(x, y).reshape(1), z.sum((0, 2), keepdim=True)))
case("is_close", [torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1.0 + 1e-9, 2.1, float("nan")])], lambda x, y: torch.isclose(x, y))
case("deg_rad", [rn(3)], lambda x: (torch.deg2rad(x), torch.rad2deg(x)))

# ---- module ops (convolution, pooling, interpolation, unfold/fold, attention): last, so that the
# random inputs above keep their values
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_module_fixtures  # noqa: E402

gen_module_fixtures.add_cases(case, rn, rb)
import gen_quant_fixtures  # noqa: E402

gen_quant_fixtures.add_cases(case, rn)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "conformance.json"), "w") as f:
        json.dump({"generator": "tests/conformance/gen_fixtures.py", "torch": torch.__version__, "cases": CASES}, f, separators=(",", ":"))
    print(f"wrote {len(CASES)} cases")
    import edge_variants  # noqa: E402
    edge = edge_variants.edge_cases(BASE, enc)
    with open(os.path.join(out_dir, "edge.json"), "w") as f:
        json.dump({"generator": "tests/conformance/gen_fixtures.py (edge_variants.py)", "torch": torch.__version__,
                   "cases": edge}, f, separators=(",", ":"))
    print(f"wrote {len(edge)} edge cases ({sum(1 for c in edge if c.get('error'))} expect an error)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "fixtures"))
