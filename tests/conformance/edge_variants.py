"""Edge-case variants of every conformance case (tests/conformance/fixtures/edge.json, ctest label `edge`).

Each base case of gen_fixtures.py (its inputs and its PyTorch function) is run again by PyTorch on
transformed inputs; the fixture is named "<case>@<variant>" and the C++ side runs the base case's
body on it (tests/conformance/runner.h). Variants:
  empty<d>   dim d set to 0 in every input whose dim d matches the first input's (zero-size tensors)
  rank1empty a case whose first input is rank 1, on [0]-shaped inputs
  bcast      the second input's first dim set to 1 (size-1 broadcasting)
  special    float inputs with NaN, +inf, -inf, 0 and -0 in their first elements
  zeros      float inputs with a zero every third element (products, divisions, gradients at zeros)
  extremes   int inputs with their dtype's maximum and minimum in the first elements
  f64 / f16 / bf16 / i32  float32 inputs as float64, float16, bfloat16 / int64 inputs as int32 (the other
             dtypes an op accepts; the half types are compared within 1e-2 / 2e-2 relative)
and the C++ side adds "<case>@strided" for every case: the base fixture with its inputs passed as
non-contiguous views (tests/conformance/runner.h).
Where PyTorch raises for a shape variant, the fixture says "error": Scorch must throw scorch::Error;
where PyTorch's message is its own restriction on zero-size dims (LENIENT: pooling, interpolation and
convolution of zero channels), it also says "lenient": PyTorch gives no reference there, and Scorch may
return outputs instead (it must still not crash or throw anything but scorch::Error).
Dtype and value variants that PyTorch rejects are left out (PyTorch's CPU kernels lack some dtypes).
"""
import torch

# name@variant -> why Scorch deliberately differs from PyTorch there (left out of the sweep).
SKIP = {
    **{f"{c}@special": "sign(NaN) is NaN in Scorch (NaN propagates, as NumPy); PyTorch 1.13 gives 0"
       for c in ("unary_sign", "sign_float")},
    "act_composite@special": "softshrink(NaN) is NaN in Scorch (NaN propagates); PyTorch 1.13 gives 0",
    "float_into_int@special": "float -> int saturates and maps NaN to 0 in Scorch (documented in TensorData); "
                              "PyTorch gives the x86 conversion's INT64_MIN",
    **{f"{c}@i32": "sums and products keep the int dtype in Scorch (Burn's rule); PyTorch widens them to int64"
       for c in ("reduce_int", "cumulative_int")},
    "scatter_int@bcast": "scatter_add needs values of the indices' shape in Scorch; PyTorch reads the leading part "
                         "of larger values",
    **{f"{c}@bcast": "attention needs matching batch and heads (no broadcasting), as Burn's"
       for c in ("mod_attention", "mod_attention_mask", "mod_attention_stats", "mod_attention_backward",
                 "mod_attention_causal", "mod_attention_dropout")},
    "mod_attention_dropout@special": "a NaN query row: Scorch gives its masked keys probability 0 (no gradient, as the "
                                     "other attention cases), PyTorch's softmax spreads the NaN to them; here a zero "
                                     "column of the output gradient shows it",
    "mod_attention_causal@special": "keys no query sees (causal, 7 keys for 5 queries) get exactly no gradient in "
                                    "Scorch's blocked kernels, which skip them; PyTorch's 0·NaN over the NaN row gives "
                                    "them NaN",
    **{f"{c}@bcast": "gamma must be [d] in Scorch (as PyTorch's layer_norm weight); the reference formula broadcasts"
       for c in ("mod_rms_norm", "mod_rms_norm_backward")},
    "squeeze_flatten@empty1": "squeeze of a dim that is not 1 is an error in Scorch (Burn's rule); PyTorch leaves "
                              "the tensor unchanged",
    **{f"{c}@empty1": "zero input channels: PyTorch 1.13 returns [batch, 0, ...]; the output has out_channels "
                      "(the bias, or zeros), as Scorch gives"
       for c in ("mod_conv1d", "mod_conv2d", "mod_conv2d_f64", "mod_conv1d_backward_f64", "mod_conv3d_backward")},
    **{f"{c}@special": "NaN quantizes to the offset (as 0 does) in Scorch, and ranges skip NaN; PyTorch's rounding "
                       "of NaN gives its conversion's minimum, and its observers reject NaN"
       for c in ("q_per_tensor", "q_per_channel", "q_observer_params", "q_q4_blocks", "q_linear_dynamic",
                 "q_linear_static")},
}
# [absolute, relative] tolerance of the half-precision variants (a few ulps of bf16 / f16).
HALF_TOLERANCE = {"f16": [1e-2, 1e-2], "bf16": [2e-2, 2e-2]}
# PyTorch's messages where it rejects a zero-size dim that has a natural empty result.
LENIENT = ("non-zero size", "Non-empty", "optional 0 dim batch", "greater than 0", "Only zero batch or zero channel",
           "view size is not compatible", "non-zero dimensions")
# Cases whose integer inputs are divisors or exponents: INT_MIN / -1 traps in PyTorch itself.
NO_EXTREMES = ("div", "remainder", "powi", "arith_i32", "bitwise", "matmul_int", "scalar_ops_int", "gather", "scatter",
               "select", "index", "one_hot", "cumulative_int", "reduce_int")


def _with_dim(t, d, size):
    shape = list(t.shape)
    shape[d] = size
    if size == 0:
        return t.new_empty(shape)
    return t.narrow(d, 0, size).clone()


def _special(t, values):
    if not t.dtype.is_floating_point or t.numel() == 0:
        return t
    flat = t.clone().flatten()
    for i, v in enumerate(values[: flat.numel()]):
        flat[i] = v
    return flat.reshape(t.shape)


def _zeros(t):
    if not t.dtype.is_floating_point or t.numel() < 2:
        return t
    flat = t.clone().flatten()
    flat[::3] = 0.0
    return flat.reshape(t.shape)


def _extremes(t):
    if t.dtype.is_floating_point or t.dtype == torch.bool or t.numel() < 2:
        return t
    info = torch.iinfo(t.dtype)
    flat = t.clone().flatten()
    flat[0], flat[1] = info.max, info.min
    return flat.reshape(t.shape)


def shape_variants(inputs):
    """(variant, inputs) for the zero-size and broadcasting variants of one case."""
    if not inputs or inputs[0].dim() == 0:
        return []
    first = inputs[0]
    out = []
    for d in range(first.dim()):
        if first.shape[d] == 0:
            continue
        size = first.shape[d]
        ins = [_with_dim(t, d, 0) if t.dim() > d and t.shape[d] == size else t for t in inputs]
        out.append((f"empty{d}" if first.dim() > 1 else "rank1empty", ins))
    if len(inputs) > 1 and inputs[1].dim() > 0 and inputs[1].shape[0] > 1 and inputs[1].dtype == first.dtype:
        out.append(("bcast", [inputs[0], _with_dim(inputs[1], 0, 1)] + list(inputs[2:])))
    return out


def value_variants(name, inputs):
    """(variant, inputs) for the special-value and dtype variants of one case."""
    floats = any(t.dtype.is_floating_point for t in inputs)
    ints = any(not t.dtype.is_floating_point and t.dtype != torch.bool for t in inputs)
    out = []
    if floats:
        inf = float("inf")
        out.append(("special", [_special(t, [float("nan"), inf, -inf, 0.0, -0.0]) for t in inputs]))
        out.append(("zeros", [_zeros(t) for t in inputs]))
        if any(t.dtype == torch.float32 for t in inputs):
            for variant, dtype in (("f64", torch.float64), ("f16", torch.float16), ("bf16", torch.bfloat16)):
                out.append((variant, [t.to(dtype) if t.dtype == torch.float32 else t for t in inputs]))
    if ints and not any(k in name for k in NO_EXTREMES):
        out.append(("extremes", [_extremes(t) for t in inputs]))
    if ints and not floats and any(t.dtype == torch.int64 for t in inputs):
        out.append(("i32", [t.int() if t.dtype == torch.int64 else t for t in inputs]))
    return out


def _outputs(fn, inputs):
    outs = fn(*[i.clone() for i in inputs])
    return list(outs) if isinstance(outs, (tuple, list)) else [outs]


def edge_cases(base_cases, enc):
    """The edge fixtures for base_cases [(name, inputs, fn, tol)], encoded with enc."""
    cases = []
    for name, inputs, fn, tol in base_cases:
        if not inputs:
            continue
        variants = [(v, ins, True) for v, ins in shape_variants(inputs)]
        variants += [(v, ins, False) for v, ins in value_variants(name, inputs)]
        for variant, ins, error_allowed in variants:
            full = f"{name}@{variant}"
            if full in SKIP:
                continue
            c = {"name": full, "inputs": [enc(i) for i in ins]}
            try:
                c["outputs"] = [enc(o) for o in _outputs(fn, ins)]
            except ZeroDivisionError:  # the Python-side reference itself has no value there
                continue
            except (RuntimeError, IndexError, ValueError) as e:
                if not error_allowed:
                    continue
                c["outputs"], c["error"] = [], True
                c["torch_error"] = str(e).split("\n")[0][:200]
                if any(m in c["torch_error"] for m in LENIENT):
                    c["lenient"] = True
            if variant in HALF_TOLERANCE:
                c["tolerance"] = [max(a, b) for a, b in zip(tol or [0, 0], HALF_TOLERANCE[variant])]
            elif tol:
                c["tolerance"] = tol
            cases.append(c)
    return cases
