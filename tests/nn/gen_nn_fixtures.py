#!/usr/bin/python3
"""Generates the nn-module fixtures (layers, activations, attention, transformers, recurrent
layers, losses) from PyTorch, the independent reference.

Output: fixtures/nn.json, a top-level JSON list of case objects
  {"name": str,
   "inputs":  [tensor...],              float inputs f32, index tensors i64, masks bool
   "params":  {"dotted.key": tensor},   f32, in SCORCH's naming and layout (see below)
   "outputs": [tensor...],              f64
   "grads":   {"input.<i>": tensor, "<param key>": tensor},   f64
   "extras":  {name: tensor}}           f64 non-differentiable results ({} if none)
where a tensor is {"dtype": "f32"|"f64"|"i64"|"bool", "shape": [...], "data": [...]}
(tests/support/fixture_encoding.py).

Every float input and parameter is drawn in float32 and stored as such; the reference then runs
in float64 on exact float64 copies (modules via .double()). The gradients are those of the loss
Σ_k o_k · w_k, w_k = sin(0.7·k + 0.3) (k from 0), where o is the concatenation of the flattened
outputs in order; "input.<i>" is the gradient for float input i. Integer and bool inputs get
none, nor do the constant float inputs: the class weights of ce_weights / bce_logits and the ±1
labels of cosine_embedding, hinge_embedding, margin_ranking and soft_margin. (Float regression
targets such as mse's or bce's do get theirs.)
and each parameter key has the gradient in the same layout as its value. batch_norm_eval is
forward only ("grads": {}).

Scorch layout: a Linear's weight is [d_input, d_output] (torch's transposed) under
"<prefix>weight" / "<prefix>bias"; norm layers name their scale/shift "gamma"/"beta";
convolution weights keep torch's layout; attention projections are query/key/value/output
Linears; recurrent gates are <gate>.input_transform / <gate>.hidden_transform Linears.

Inputs keep clear of kinks (relu at 0, clamps, shrink thresholds, loss hinges) so that the
gradients are well defined. The CTC cases use a float64 forward recursion written here (checked
against torch.ctc_loss and by central differences) because torch's CTC backward returns the
gradient "as if through log_softmax", not the one for the log_probs leaf.
Run: /usr/bin/python3 tests/nn/gen_nn_fixtures.py [out_dir]
"""
import json, math, os, sys, warnings
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fixture_encoding import enc  # noqa: E402

torch.manual_seed(0)
warnings.filterwarnings("ignore", category=UserWarning)  # padding="same" copies, kl_div "mean"
f32, f64 = torch.float32, torch.float64
CASES = []


def weights(n):
    return torch.sin(0.7 * torch.arange(n, dtype=f64) + 0.3)


def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def case(name, inputs, fwd, mod=None, pmap=None, params=None, extras=None, grads=True, const=()):
    """One fixture case.

    inputs: f32 / i64 / bool tensors (stored as given, run as float64 copies).
    mod:    a torch module with float32 parameters; fwd(mod, *xs) runs it after .double().
            pmap(dict torch name -> tensor) gives the Scorch keys / layouts; it is applied to the
            float32 state (parameters and float buffers) for "params" and to the parameter
            gradients for "grads". Default: the torch names unchanged.
    params: (without mod) Scorch-keyed float32 tensors; fwd(p, *xs) gets them as float64 leaves.
    extras: callable(mod, xs, outs) -> {name: tensor}, or a dict.
    const:  indices of float inputs that take no gradient (no "input.<i>" entry).
    """
    if any(c["name"] == name for c in CASES):
        raise SystemExit(f"duplicate case {name}")
    pmap = pmap or (lambda d: dict(d))
    if mod is not None:
        state = dict(mod.named_parameters())
        state.update({n: b for n, b in mod.named_buffers() if b.dtype.is_floating_point})
        assert all(t.dtype == f32 for t in state.values()), name
        params32 = {k: v.detach().clone() for k, v in pmap(state).items()}
        mod.double()
        tnames, targets = zip(*mod.named_parameters()) if list(mod.parameters()) else ((), ())
        run = lambda xs: fwd(mod, *xs)
        to_keys = lambda gs: pmap(dict(zip(tnames, gs)))
    else:
        params32 = dict(params or {})
        leaves = {k: v.detach().double().requires_grad_(grads) for k, v in params32.items()}
        tnames, targets = tuple(leaves), tuple(leaves.values())
        run = (lambda xs: fwd(leaves, *xs)) if params is not None else (lambda xs: fwd(*xs))
        to_keys = lambda gs: dict(zip(tnames, gs))
    xs = []
    for i, x in enumerate(inputs):
        assert x.dtype in (f32, torch.int64, torch.bool), (name, x.dtype)
        if x.dtype == f32:
            xs.append(x.double().requires_grad_(grads and i not in const))
        else:
            xs.append(x.clone())
    outs = as_list(run(xs))
    assert all(o.dtype == f64 for o in outs), name
    o = torch.cat([t.flatten() for t in outs])
    loss = (o * weights(o.numel())).sum()
    gdict = {}
    if grads:
        xin = [(i, x) for i, x in enumerate(xs) if x.dtype == f64 and x.requires_grad]
        wrt = [x for _, x in xin] + list(targets)
        gs = torch.autograd.grad(loss, wrt, allow_unused=True)
        gs = [torch.zeros_like(t) if g is None else g for t, g in zip(wrt, gs)]
        gdict = {f"input.{i}": g for (i, _), g in zip(xin, gs)}
        gdict.update(to_keys(gs[len(xin):]))
        assert set(gdict) - {k for k in gdict if k.startswith("input.")} == set(params32), name
    ex = extras(mod, xs, outs) if callable(extras) else (extras or {})
    for k, t in list(gdict.items()) + list(ex.items()) + [(f"out{i}", t) for i, t in enumerate(outs)]:
        if not torch.isfinite(t).all():
            raise SystemExit(f"{name}: non-finite values in {k}")
    CASES.append({"name": name, "inputs": [enc(x) for x in inputs],
                  "params": {k: enc(v) for k, v in params32.items()},
                  "outputs": [enc(t) for t in outs],
                  "grads": {k: enc(g.to(f64)) for k, g in gdict.items()},
                  "extras": {k: enc(t.to(f64)) for k, t in ex.items()}})


# ---- drawing (everything float32)
def rn(*shape, scale=1.0):
    return torch.randn(*shape) * scale


def uniform(*shape, lo, hi):
    return torch.rand(*shape) * (hi - lo) + lo


def redraw(draw, shape, ok):
    """draw(shape), redrawn where ok fails until it holds everywhere."""
    x = draw(shape)
    for _ in range(10000):
        bad = ~ok(x)
        if not bad.any():
            return x
        x = torch.where(bad, draw(shape), x)
    raise SystemExit("could not draw a valid input")


def away(x_draw, shape, points, margin=0.01):
    return redraw(x_draw, shape, lambda t: torch.stack([(t - p).abs() >= margin for p in points]).all(0))


def signs(*shape):
    return torch.where(torch.rand(*shape) < 0.5, -1.0, 1.0)


def until(draw, ok, tries=1000):
    """draw() repeated until ok(*drawn) holds (for conditions on several tensors)."""
    for _ in range(tries):
        v = draw()
        if ok(*v):
            return v
    raise SystemExit("could not draw valid inputs")


NORMS = (nn.LayerNorm, nn.GroupNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.InstanceNorm1d)


def randomize(mod, scale=0.5):
    """Every parameter randn · scale; norm scales 1 + 0.3·randn."""
    with torch.no_grad():
        for p in mod.parameters():
            p.copy_(rn(*p.shape, scale=scale))
        for m in mod.modules():
            if isinstance(m, NORMS) and m.weight is not None:
                m.weight.copy_(1 + rn(*m.weight.shape, scale=0.3))
    return mod


# ---- Scorch parameter maps (d: torch name -> tensor)
def lin(d, s, t, bias=True):
    out = {s + "weight": d[t + "weight"].t()}
    if bias:
        out[s + "bias"] = d[t + "bias"]
    return out


def norm(d, s, t):
    return {s + "gamma": d[t + "weight"], s + "beta": d[t + "bias"]}


def mha(d, s, t, e):
    out = {}
    for j, nm in enumerate(("query", "key", "value")):
        out[f"{s}{nm}.weight"] = d[t + "in_proj_weight"][j * e:(j + 1) * e].t()
        out[f"{s}{nm}.bias"] = d[t + "in_proj_bias"][j * e:(j + 1) * e]
    out.update(lin(d, s + "output.", t + "out_proj."))
    return out


def gates(d, s, suffix, names, h):
    """names: Scorch gate names in torch's stacking order."""
    out = {}
    for j, g in enumerate(names):
        rows = slice(j * h, (j + 1) * h)
        for tr, tt in (("input_transform", "ih"), ("hidden_transform", "hh")):
            out[f"{s}{g}.{tr}.weight"] = d[f"weight_{tt}_l0{suffix}"][rows].t()
            out[f"{s}{g}.{tr}.bias"] = d[f"bias_{tt}_l0{suffix}"][rows]
    return out


LSTM_GATES = ("input_gate", "forget_gate", "cell_gate", "output_gate")  # torch i, f, g, o
GRU_GATES = ("reset_gate", "update_gate", "new_gate")                   # torch r, z, n


# ---- linear, embedding, convolutions
case("linear", [rn(2, 4, 5)], lambda m, x: m(x), randomize(nn.Linear(5, 3)), lambda d: lin(d, "", ""))
case("linear_nobias", [rn(4, 5)], lambda m, x: m(x), randomize(nn.Linear(5, 3, bias=False)),
     lambda d: lin(d, "", "", bias=False))
case("embedding", [torch.randint(0, 10, (2, 3))], lambda m, i: m(i), randomize(nn.Embedding(10, 4)))
CONVS = {
    "conv1d": (nn.Conv1d(2, 4, 3, stride=2, padding=1), (2, 2, 9)),
    "conv1d_same": (nn.Conv1d(2, 2, 4, stride=1, padding="same"), (1, 2, 7)),
    "conv2d": (nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2), (2, 4, 7, 8)),
    "conv3d": (nn.Conv3d(2, 3, 2, padding=(1, 0, 1)), (1, 2, 4, 5, 4)),
    "conv_transpose1d": (nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1), (2, 3, 5)),
    "conv_transpose2d": (nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=(1, 0), groups=2), (1, 4, 4, 5)),
    "conv_transpose3d": (nn.ConvTranspose3d(2, 2, 2, stride=2), (1, 2, 3, 3, 2)),
}
for name, (m, shape) in CONVS.items():
    case(name, [rn(*shape)], lambda m, x: m(x), randomize(m))

# ---- pooling
case("max_pool1d", [rn(2, 3, 9)], lambda x: F.max_pool1d(x, 3, 2, 1))
case("max_pool2d", [rn(1, 2, 7, 6)], lambda x: F.max_pool2d(x, (3, 2), (2, 1), (1, 0)))
case("avg_pool1d", [rn(2, 3, 9)], lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False))
case("avg_pool2d", [rn(1, 2, 7, 6)],
     lambda x: F.avg_pool2d(x, (2, 3), (2, 2), (1, 1), ceil_mode=True, count_include_pad=True))
case("adaptive_avg_pool1d", [rn(2, 3, 10)], lambda x: F.adaptive_avg_pool1d(x, 4))
case("adaptive_avg_pool2d", [rn(1, 2, 7, 5)], lambda x: F.adaptive_avg_pool2d(x, (3, 2)))

# ---- normalization
bn = randomize(nn.BatchNorm1d(3, eps=1e-5, momentum=0.1)).train()
case("batch_norm_train", [rn(4, 3, 5)], lambda m, x: m(x), bn, lambda d: norm(d, "", ""),
     extras=lambda m, xs, outs: {"running_mean": m.running_mean.clone(), "running_var": m.running_var.clone()})
bn = randomize(nn.BatchNorm2d(3)).eval()
with torch.no_grad():
    bn.running_mean.copy_(rn(3, scale=0.5))
    bn.running_var.copy_(uniform(3, lo=0.5, hi=1.5))
case("batch_norm_eval", [rn(2, 3, 4, 4)], lambda m, x: m(x), bn,
     lambda d: {**norm(d, "", ""), **{k: d[k] for k in ("running_mean", "running_var") if k in d}}, grads=False)
case("layer_norm", [rn(2, 3, 6)], lambda m, x: m(x), randomize(nn.LayerNorm(6)), lambda d: norm(d, "", ""))
case("group_norm", [rn(2, 4, 3, 3)], lambda m, x: m(x), randomize(nn.GroupNorm(2, 4)), lambda d: norm(d, "", ""))
case("instance_norm", [rn(2, 3, 5)], lambda m, x: m(x), randomize(nn.InstanceNorm1d(3, affine=True)),
     lambda d: norm(d, "", ""))
case("rms_norm", [rn(2, 3, 6)],
     lambda p, x: x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) * p["gamma"],
     params={"gamma": 1 + rn(6, scale=0.3)})
prelu = nn.PReLU(3)
with torch.no_grad():
    prelu.weight.copy_(uniform(3, lo=0.1, hi=0.4))
case("prelu", [away(lambda s: rn(*s), (2, 3, 4), [0.0])], lambda m, x: m(x), prelu, lambda d: {"alpha": d["weight"]})

# ---- activations: input ×2, clear of every kink
KINKS = [0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 0.1, 3.0, -3.0, 6.0]
ACTS = {
    "relu": F.relu, "relu6": F.relu6, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu, "mish": F.mish, "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "elu": lambda x: F.elu(x, 1.0),
    "celu": lambda x: F.celu(x, 0.7), "selu": F.selu, "softplus": lambda x: F.softplus(x, beta=2.0),
    "hard_sigmoid": lambda x: torch.clamp(0.2 * x + 0.5, 0.0, 1.0),  # Burn's definition
    "hard_swish": F.hardswish, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "softsign": F.softsign,
    "tanhshrink": F.tanhshrink, "log_sigmoid": F.logsigmoid, "hardtanh": lambda x: F.hardtanh(x, -1.0, 1.0),
    "hard_shrink": lambda x: F.hardshrink(x, 0.5), "soft_shrink": lambda x: F.softshrink(x, 0.5),
    "threshold": lambda x: F.threshold(x, 0.1, 20.0), "glu": lambda x: F.glu(x, -1),
}
for name, fn in ACTS.items():
    case("act_" + name, [away(lambda s: rn(*s, scale=2.0), (3, 6 if name == "glu" else 5), KINKS)], fn)

# ---- small composite layers
case("swiglu", [rn(2, 4)], lambda p, x: F.silu(x @ p["linear_inner.weight"]) * (x @ p["linear_outer.weight"]),
     params={"linear_inner.weight": rn(4, 3, scale=0.5), "linear_outer.weight": rn(4, 3, scale=0.5)})
case("pixel_shuffle", [rn(1, 8, 2, 3)], lambda x: F.pixel_shuffle(x, 2))
case("pixel_unshuffle", [rn(1, 2, 4, 6)], lambda x: F.pixel_unshuffle(x, 2))
case("interp_nearest", [rn(1, 2, 4, 5)], lambda x: F.interpolate(x, size=(7, 3), mode="nearest"))
case("interp_bilinear", [rn(1, 2, 4, 5)], lambda x: F.interpolate(x, size=(7, 3), mode="bilinear", align_corners=False))
case("interp_bilinear_ac", [rn(1, 2, 4, 5)], lambda x: F.interpolate(x, size=(7, 3), mode="bilinear", align_corners=True))
case("interp_bicubic", [rn(1, 2, 4, 5)], lambda x: F.interpolate(x, size=(7, 3), mode="bicubic", align_corners=False))
case("interp1d_linear", [rn(1, 2, 5)], lambda x: F.interpolate(x, size=8, mode="linear", align_corners=False))
UF = dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 0), dilation=1)
case("unfold4d", [rn(1, 2, 4, 5)], lambda x: F.unfold(x, **UF))
n_blocks = F.unfold(torch.zeros(1, 2, 4, 5), **UF).shape[-1]  # L = 5 · 2 = 10
case("fold4d", [rn(1, 2 * 6, n_blocks)], lambda x: F.fold(x, (4, 5), **UF))


def sinusoids(n, d):
    ang = torch.arange(n, dtype=f64)[:, None] / 10000.0 ** (torch.arange(0, d, 2, dtype=f64) / d)
    pe = torch.zeros(n, d, dtype=f64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(ang), torch.cos(ang)
    return pe


case("positional_encoding", [rn(2, 4, 6)], lambda x: x + sinusoids(4, 6), extras={"sinusoids": sinusoids(10, 6)})


def rotary(x, theta=10000.0, start=0):
    """Interleaved pairs (2i, 2i+1) rotated by pos · theta^(-2i/d)."""
    n, d = x.shape[-2], x.shape[-1]
    a = torch.arange(start, start + n, dtype=f64)[:, None] * theta ** (-torch.arange(0, d, 2, dtype=f64) / d)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * a.cos() - x1 * a.sin(), x0 * a.sin() + x1 * a.cos()], -1).flatten(-2)


case("rotary_encoding", [rn(1, 2, 5, 4)], lambda x: rotary(x))
case("rotary_encoding_offset", [rn(1, 2, 5, 4)], lambda x: rotary(x, start=3))

# ---- attention
pad = torch.zeros(2, 5, dtype=torch.bool)
pad[1, 3:] = True  # batch 1: last two positions padded
case("mha_self", [rn(2, 5, 8), pad],
     lambda m, x, k: m(x, x, x, key_padding_mask=k, need_weights=True, average_attn_weights=False),
     randomize(nn.MultiheadAttention(8, 2, dropout=0.0, batch_first=True)), lambda d: mha(d, "", "", 8))
cross = until(lambda: (torch.rand(2, 3, 4) < 0.4,), lambda m: bool(m.any() and not m.all(-1).any()))[0]
case("mha_cross_mask", [rn(2, 3, 8), rn(2, 4, 8), cross],
     lambda m, q, kv, mk: m(q, kv, kv, attn_mask=mk.repeat_interleave(2, dim=0), need_weights=True,
                            average_attn_weights=False),
     randomize(nn.MultiheadAttention(8, 2, dropout=0.0, batch_first=True)), lambda d: mha(d, "", "", 8))
case("pwff", [rn(2, 3, 6)], lambda m, x: m(x), randomize(nn.Sequential(nn.Linear(6, 10), nn.GELU(), nn.Linear(10, 6))),
     lambda d: {**lin(d, "linear_inner.", "0."), **lin(d, "linear_outer.", "2.")})


def encoder_map(d):
    out = {}
    for i in range(2):
        s, t = f"layers.{i}.", f"layers.{i}."
        out.update(mha(d, s + "mha.", t + "self_attn.", 8))
        out.update(lin(d, s + "pwff.linear_inner.", t + "linear1."))
        out.update(lin(d, s + "pwff.linear_outer.", t + "linear2."))
        out.update(norm(d, s + "norm_1.", t + "norm1."))
        out.update(norm(d, s + "norm_2.", t + "norm2."))
    return out


def decoder_map(d):
    out = {}
    for i in range(2):
        s = f"layers.{i}."
        out.update(mha(d, s + "self_attn.", s + "self_attn.", 8))
        out.update(mha(d, s + "cross_attn.", s + "multihead_attn.", 8))
        out.update(lin(d, s + "pwff.linear_inner.", s + "linear1."))
        out.update(lin(d, s + "pwff.linear_outer.", s + "linear2."))
        for k in (1, 2, 3):
            out.update(norm(d, f"{s}norm_{k}.", f"{s}norm{k}."))
    return out


for name, first in (("transformer_encoder", False), ("transformer_encoder_norm_first", True)):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", batch_first=True, norm_first=first)
    enc_mod = randomize(nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)).train()
    case(name, [rn(2, 5, 8), pad], lambda m, x, k: m(x, src_key_padding_mask=k), enc_mod, encoder_map)
layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation="gelu", batch_first=True, norm_first=False)
causal = torch.ones(4, 4, dtype=torch.bool).triu(1)
case("transformer_decoder", [rn(2, 4, 8), rn(2, 5, 8)], lambda m, t, mem: m(t, mem, tgt_mask=causal),
     randomize(nn.TransformerDecoder(layer, 2)).train(), decoder_map)

# ---- recurrent layers (outputs: sequence, then cell state, then hidden state)
lstm_map = lambda d: gates(d, "", "", LSTM_GATES, 4)
case("lstm", [rn(2, 5, 3)], lambda m, x: (lambda o, hc: (o, hc[1][0], hc[0][0]))(*m(x)),
     randomize(nn.LSTM(3, 4, batch_first=True)), lstm_map)
case("lstm_state", [rn(2, 5, 3), rn(2, 4), rn(2, 4)],
     lambda m, x, c0, h0: (lambda o, hc: (o, hc[1][0], hc[0][0]))(*m(x, (h0[None], c0[None]))),
     randomize(nn.LSTM(3, 4, batch_first=True)), lstm_map)
case("bilstm", [rn(2, 5, 3)], lambda m, x: (lambda o, hc: (o, hc[1], hc[0]))(*m(x)),
     randomize(nn.LSTM(3, 4, batch_first=True, bidirectional=True)),
     lambda d: {**gates(d, "forward.", "", LSTM_GATES, 4), **gates(d, "reverse.", "_reverse", LSTM_GATES, 4)})
case("gru", [rn(2, 5, 3)], lambda m, x: m(x)[0], randomize(nn.GRU(3, 4, batch_first=True)),
     lambda d: gates(d, "", "", GRU_GATES, 4))
case("rnn", [rn(2, 5, 3)], lambda m, x: (lambda o, h: (o, h[0]))(*m(x)),
     randomize(nn.RNN(3, 4, batch_first=True, nonlinearity="tanh")), lambda d: gates(d, "", "", ("gate",), 4))

# ---- losses (outputs: the scalar loss, shape [])
logits, tgt = rn(4, 5), torch.randint(0, 5, (4,))
case("ce", [logits, tgt], lambda x, t: F.cross_entropy(x, t))
case("ce_weights", [rn(4, 5), torch.randint(0, 5, (4,)), uniform(5, lo=0.5, hi=2.0)],
     lambda x, t, w: F.cross_entropy(x, t, weight=w), const=(2,))
case("ce_smoothing", [rn(4, 5), torch.randint(0, 5, (4,))], lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1))
pad_t = torch.tensor([0, 1, 3, 4])[torch.randint(0, 4, (4,))]
pad_t[1] = 2  # the pad token, once
case("ce_pad", [rn(4, 5), pad_t], lambda x, t: F.cross_entropy(x, t, ignore_index=2))
case("ce_sum", [rn(4, 5), torch.randint(0, 5, (4,))], lambda x, t: F.cross_entropy(x, t, reduction="sum"))
bits = lambda *s: (torch.rand(*s) < 0.5).float()
case("bce", [torch.sigmoid(rn(4, 3)), bits(4, 3)], lambda p, t: F.binary_cross_entropy(p, t))
case("bce_logits", [rn(4, 3), bits(4, 3), uniform(3, lo=0.5, hi=2.0)],
     lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, weight=w), const=(2,))
case("bce_logits_smoothing", [rn(4, 3), bits(4, 3)],
     lambda x, t: F.binary_cross_entropy_with_logits(x, t * (1 - 0.1) + 0.1 / 2))
case("mse", [rn(4, 3), rn(4, 3)], lambda x, y: F.mse_loss(x, y))
case("mse_sum", [rn(4, 3), rn(4, 3)], lambda x, y: F.mse_loss(x, y, reduction="sum"))
diff_ok = lambda x, y: bool((((x - y).abs() - 0.5).abs() > 0.01).all() and ((x - y).abs() > 0.01).all())
case("huber", list(until(lambda: (rn(4, 3), rn(4, 3)), diff_ok)), lambda x, y: F.huber_loss(x, y, delta=0.5))
case("smooth_l1", list(until(lambda: (rn(4, 3), rn(4, 3)), diff_ok)), lambda x, y: F.smooth_l1_loss(x, y, beta=0.5))
case("kl_div_batchmean", [F.log_softmax(rn(3, 4), -1), F.softmax(rn(3, 4), -1)],
     lambda x, t: F.kl_div(x, t, reduction="batchmean"))
case("kl_div_log_target", [F.log_softmax(rn(3, 4), -1), F.log_softmax(rn(3, 4), -1)],
     lambda x, t: F.kl_div(x, t, reduction="mean", log_target=True))
cos_ok = lambda a, b, y: bool(((F.cosine_similarity(a, b, dim=1) - 0.2).abs() > 0.01).all())
case("cosine_embedding", list(until(lambda: (rn(4, 5), rn(4, 5), signs(4)), cos_ok)),
     lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.2), const=(2,))
case("hinge_embedding", [away(lambda s: rn(*s), (4, 3), [1.0]), signs(4, 3)],
     lambda x, y: F.hinge_embedding_loss(x, y, margin=1.0), const=(1,))
rank_ok = lambda a, b, y: bool(((-y * (a - b) + 0.1).abs() > 0.01).all())
case("margin_ranking", list(until(lambda: (rn(5), rn(5), signs(5)), rank_ok)),
     lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.1), const=(2,))
case("soft_margin", [rn(4, 3), signs(4, 3)], lambda x, y: F.soft_margin_loss(x, y), const=(1,))
trip_ok = lambda a, p, n: bool(((F.pairwise_distance(a, p) - F.pairwise_distance(a, n) + 1.0).abs() > 0.01).all())
case("triplet_margin", list(until(lambda: (rn(4, 5), rn(4, 5), rn(4, 5)), trip_ok)),
     lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=1.0, p=2, eps=1e-6))
case("gaussian_nll", [rn(4, 3), rn(4, 3), uniform(4, 3, lo=0.3, hi=2.0)],
     lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=False, eps=1e-6, reduction="mean"))
case("poisson_nll", [rn(4, 3), uniform(4, 3, lo=0.0, hi=3.0)],
     lambda x, t: F.poisson_nll_loss(x, t, log_input=True, full=False))
case("l1", [rn(4, 3), rn(4, 3)], lambda x, y: F.l1_loss(x, y))


# ---- CTC: a float64 forward recursion, so that autograd gives the gradient for the log_probs leaf
def ctc_nll(lp, targets, in_lens, tgt_lens, blank=0):
    """Per-sample negative log-likelihoods [N]; unreachable states are left out (no -inf)."""
    out = []
    for b in range(lp.shape[1]):
        ext = [blank]
        for l in targets[b, :int(tgt_lens[b])].tolist():
            ext += [l, blank]
        alpha = [None] * len(ext)
        alpha[0], alpha[1] = lp[0, b, ext[0]], lp[0, b, ext[1]]
        for t in range(1, int(in_lens[b])):
            new = []
            for s, c in enumerate(ext):
                terms = [alpha[s]] + ([alpha[s - 1]] if s >= 1 else [])
                if s >= 2 and c != blank and c != ext[s - 2]:
                    terms.append(alpha[s - 2])
                terms = [v for v in terms if v is not None]
                new.append(torch.logsumexp(torch.stack(terms), 0) + lp[t, b, c] if terms else None)
            alpha = new
        out.append(-torch.logsumexp(torch.stack([v for v in alpha[-2:] if v is not None]), 0))
    return torch.stack(out)


def ctc(reduction):
    def fn(lp, targets, in_lens, tgt_lens):
        nll = ctc_nll(lp, targets, in_lens, tgt_lens)
        ours = (nll / tgt_lens.to(f64)).mean() if reduction == "mean" else nll.sum()
        ref = F.ctc_loss(lp.detach(), targets, in_lens, tgt_lens, blank=0, reduction=reduction)
        assert abs(ours.item() - ref.item()) < 1e-10, (reduction, ours.item(), ref.item())
        return ours
    return fn


def ctc_fd_check(fn, inputs, h=1e-6, tol=1e-7):
    lp = inputs[0].double().requires_grad_(True)
    w = weights(1)[0]
    g = torch.autograd.grad(fn(lp, *inputs[1:]) * w, lp)[0].flatten()
    for k in range(lp.numel()):
        vals = []
        for d in (h, -h):
            x = lp.detach().clone()
            x.view(-1)[k] += d
            vals.append((fn(x, *inputs[1:]) * w).item())
        fd = (vals[0] - vals[1]) / (2 * h)
        if abs(fd - g[k].item()) > tol * (1 + abs(g[k].item())):
            raise SystemExit(f"ctc: finite differences disagree at {k}: {fd} vs {g[k].item()}")


ctc_inputs = [F.log_softmax(rn(6, 2, 4).double(), 2).float(), torch.randint(1, 4, (2, 3)),
              torch.tensor([6, 5]), torch.tensor([3, 2])]
for name, red in (("ctc", "mean"), ("ctc_sum", "sum")):
    ctc_fd_check(ctc(red), ctc_inputs)
    case(name, ctc_inputs, ctc(red))

# Added after the first release of this file: appended so earlier cases keep their values.
case("local_response_norm", [rn(2, 5, 4)], lambda x: F.local_response_norm(x, 3, alpha=1e-2, beta=0.75, k=1.0))


def cross_attention(p, q, ctx, mask, heads=4, heads_kv=2, d_head=3):
    """Grouped-query cross-attention: kv head h serves query heads h·r .. h·r + r − 1."""
    b, sq, _ = q.shape
    sc = ctx.shape[1]
    split = lambda t, h: t.reshape(b, -1, h, d_head).transpose(1, 2)
    qh = split(q @ p["query.weight"] + p["query.bias"], heads)
    kh = split(ctx @ p["key.weight"] + p["key.bias"], heads_kv).repeat_interleave(heads // heads_kv, dim=1)
    vh = split(ctx @ p["value.weight"] + p["value.bias"], heads_kv).repeat_interleave(heads // heads_kv, dim=1)
    scores = (qh @ kh.transpose(2, 3)) / d_head ** 0.5
    scores = scores.masked_fill(mask[:, None, None, :], -1e4)
    out = (scores.softmax(-1) @ vh).transpose(1, 2).reshape(b, sq, heads * d_head)
    return out @ p["output.weight"] + p["output.bias"]


ca_params = {"query.weight": rn(6, 12, scale=0.5), "query.bias": rn(12, scale=0.5), "key.weight": rn(5, 6, scale=0.5),
             "key.bias": rn(6, scale=0.5), "value.weight": rn(5, 6, scale=0.5), "value.bias": rn(6, scale=0.5),
             "output.weight": rn(12, 6, scale=0.5), "output.bias": rn(6, scale=0.5)}
ca_mask = torch.tensor([[False, False, False, True], [False, False, False, False]])
case("cross_attention_gqa", [rn(2, 3, 6), rn(2, 4, 5), ca_mask], cross_attention, params=ca_params)


def lanczos_matrix(n_in, n_out, align_corners):
    """[n_out, n_in] Lanczos-3 weights, edge samples replicated, each row normalised to sum 1."""
    def kernel(x):
        if x == 0:
            return 1.0
        if abs(x) >= 3:
            return 0.0
        px = math.pi * x
        return 3 * math.sin(px) * math.sin(px / 3) / (px * px)
    m = torch.zeros(n_out, n_in, dtype=f64)
    for i in range(n_out):
        if align_corners:
            src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            src = (i + 0.5) * n_in / n_out - 0.5
        base = math.floor(src)
        for j in range(base - 2, base + 4):
            m[i, min(max(j, 0), n_in - 1)] += kernel(src - j)
        m[i] /= m[i].sum()
    return m


def lanczos2d(x, size, align_corners):
    mh, mw = lanczos_matrix(x.shape[2], size[0], align_corners), lanczos_matrix(x.shape[3], size[1], align_corners)
    return mh @ x @ mw.t()


case("interp_nearest_exact", [rn(1, 2, 4, 5)], lambda x: F.interpolate(x, size=(7, 3), mode="nearest-exact"))
case("interp1d_nearest_exact", [rn(1, 2, 5)], lambda x: F.interpolate(x, size=8, mode="nearest-exact"))
case("interp_lanczos", [rn(1, 2, 4, 5)], lambda x: lanczos2d(x, (7, 3), False))
case("interp_lanczos_ac", [rn(1, 2, 4, 5)], lambda x: lanczos2d(x, (7, 3), True))


def bilinear_zero(img, r, c):
    """torchvision's deform_conv2d sampling: bilinear, corners outside the image read as 0."""
    h, w = img.shape[-2:]
    r0, c0 = torch.floor(r), torch.floor(c)
    out = 0
    for dr in (0, 1):
        for dc in (0, 1):
            rr, cc = r0 + dr, c0 + dc
            wt = (r - r0 if dr else 1 - (r - r0)) * (c - c0 if dc else 1 - (c - c0))
            ok = (rr >= 0) & (rr <= h - 1) & (cc >= 0) & (cc <= w - 1)
            idx = (rr.clamp(0, h - 1) * w + cc.clamp(0, w - 1)).long()
            vals = img.flatten(-2).gather(-1, idx.flatten(-2)).reshape(idx.shape)
            out = out + torch.where(ok, wt, torch.zeros_like(wt)) * vals
    return out


def deform_conv2d(p, x, offset, mask=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), wg=1, og=1):
    w = p["weight"]
    b, cin, h, wd = x.shape
    cout, cpg, kh, kw = w.shape
    ho, wo = offset.shape[2:]
    taps = kh * kw
    cg = cin // og
    out_cols = []
    off = offset.reshape(b, og, taps, 2, ho, wo)
    for g in range(og):
        for k in range(taps):
            ki, kj = divmod(k, kw)
            base_r = torch.arange(ho, dtype=f64)[:, None] * stride[0] - padding[0] + ki * dilation[0]
            base_c = torch.arange(wo, dtype=f64)[None, :] * stride[1] - padding[1] + kj * dilation[1]
            r = base_r + off[:, g, k, 0]
            c = base_c + off[:, g, k, 1]
            img = x[:, g * cg:(g + 1) * cg]
            v = bilinear_zero(img, r[:, None].expand(b, cg, ho, wo), c[:, None].expand(b, cg, ho, wo))
            if mask is not None:
                v = v * mask.reshape(b, og, taps, ho, wo)[:, g, k][:, None]
            out_cols.append((g, k, v))
    cols = torch.stack([torch.stack([v for (gg, kk, v) in out_cols if gg == g], 2) for g in range(og)], 1).reshape(b, cin, taps, ho, wo)
    cols = cols.reshape(b, wg, cpg * taps, ho * wo)
    y = (w.reshape(1, wg, cout // wg, cpg * taps) @ cols).reshape(b, cout, ho, wo)
    return y + p["bias"].reshape(1, cout, 1, 1)


def deform_naive(p, x, offset, mask, stride, padding, dilation, wg, og):
    """Scalar loops over every output, tap and channel (a check of the vectorised reference)."""
    w, bias = p["weight"], p["bias"]
    b, cin, h, wd = x.shape
    cout, cpg, kh, kw = w.shape
    ho, wo = offset.shape[2:]
    y = torch.zeros(b, cout, ho, wo, dtype=f64)
    def sample(n, ch, r, c):
        total = 0.0
        r0, c0 = math.floor(r), math.floor(c)
        for rr, wr in ((r0, 1 - (r - r0)), (r0 + 1, r - r0)):
            for cc, wc in ((c0, 1 - (c - c0)), (c0 + 1, c - c0)):
                if 0 <= rr < h and 0 <= cc < wd:
                    total += wr * wc * float(x[n, ch, rr, cc])
        return total
    for n in range(b):
        for o in range(cout):
            g_w = o // (cout // wg)
            for i in range(ho):
                for j in range(wo):
                    acc = float(bias[o])
                    for ci in range(cpg):
                        ch = g_w * cpg + ci
                        g = ch // (cin // og)
                        for ki in range(kh):
                            for kj in range(kw):
                                k = ki * kw + kj
                                dr = float(offset[n, (g * kh * kw + k) * 2, i, j])
                                dc = float(offset[n, (g * kh * kw + k) * 2 + 1, i, j])
                                r = i * stride[0] - padding[0] + ki * dilation[0] + dr
                                c = j * stride[1] - padding[1] + kj * dilation[1] + dc
                                m = 1.0 if mask is None else float(mask[n, g * kh * kw + k, i, j])
                                acc += float(w[o, ci, ki, kj]) * sample(n, ch, r, c) * m
                    y[n, o, i, j] = acc
    return y


def deform_case(name, x, offset, mask, cout, k, stride, padding, dilation, wg, og):
    params = {"weight": rn(cout, x.shape[1] // wg, k, k, scale=0.5), "bias": rn(cout, scale=0.5)}
    kw = dict(stride=stride, padding=padding, dilation=dilation, wg=wg, og=og)
    p64 = {n: t.double() for n, t in params.items()}
    ref = deform_conv2d(p64, x.double(), offset.double(), None if mask is None else mask.double(), **kw)
    naive = deform_naive(p64, x.double(), offset.double(), None if mask is None else mask.double(), stride, padding, dilation, wg, og)
    assert torch.allclose(ref, naive, atol=1e-9), name
    inputs = [x, offset] + ([mask] if mask is not None else [])
    case(name, inputs, lambda p, *xs: deform_conv2d(p, *xs, **kw), params=params)


deform_case("deform_conv2d", rn(1, 4, 5, 6), rn(1, 2 * 2 * 9, 3, 4, scale=1.5), torch.sigmoid(rn(1, 2 * 9, 3, 4)), 3, 3, (1, 1), (0, 0), (1, 1), 1, 2)
deform_case("deform_conv2d_groups", rn(1, 4, 6, 5), rn(1, 2 * 4, 4, 3, scale=1.5), None, 4, 2, (2, 2), (1, 1), (1, 1), 2, 1)


# Layers whose first fixtures came with the second round of nn work (appended, as above).
case("cosine_similarity", [rn(3, 5, 2), rn(3, 5, 2)], lambda a, b: F.cosine_similarity(a, b, dim=1, eps=1e-8))
case("pairwise_distance", [rn(4, 6), rn(4, 6)], lambda a, b: F.pairwise_distance(a, b, p=2.0, eps=1e-6))
case("adaptive_max_pool2d", [rn(1, 2, 7, 5)], lambda x: F.adaptive_max_pool2d(x, (3, 2)))
case("act_shrink", [away(lambda s: rn(*s, scale=2.0), (3, 5), KINKS)],
     lambda x: torch.where(x > 0.5, x - 0.5, torch.where(x < -0.5, x + 0.5, torch.zeros_like(x))))
case("act_thresholded_relu", [away(lambda s: rn(*s, scale=2.0), (3, 5), KINKS)], lambda x: torch.where(x > 1.0, x, torch.zeros_like(x)))
case("bigru", [rn(2, 5, 3)], lambda m, x: m(x)[0], randomize(nn.GRU(3, 4, batch_first=True, bidirectional=True)),
     lambda d: {**gates(d, "forward.", "", GRU_GATES, 4), **gates(d, "reverse.", "_reverse", GRU_GATES, 4)})
case("birnn", [rn(2, 5, 3)], lambda m, x: m(x), randomize(nn.RNN(3, 4, batch_first=True, bidirectional=True)),
     lambda d: {**gates(d, "forward.", "", ("gate",), 4), **gates(d, "reverse.", "_reverse", ("gate",), 4)})
case("local_response_norm_2d", [rn(1, 4, 3, 3)], lambda x: F.local_response_norm(x, 2, alpha=0.1, beta=0.5, k=2.0))

def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "nn.json")
    with open(path, "w") as f:
        json.dump(CASES, f, separators=(",", ":"))
    print(f"wrote {len(CASES)} cases to {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
