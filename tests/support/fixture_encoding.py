"""The JSON form of a tensor in every fixture file: {"dtype", "shape", "data"}, non-finite floats
as the strings "nan", "inf", "-inf". Shared by the fixture scripts (conformance, gradients)."""
import math
import torch

DT = {torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
      torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8", torch.bool: "bool"}


def enc(t):
    t = t.detach().contiguous()
    vals = t.to(torch.float64).flatten().tolist() if t.dtype.is_floating_point else t.flatten().tolist()
    if t.dtype == torch.bool:
        vals = [bool(v) for v in vals]
    out = []
    for v in vals:
        if isinstance(v, float) and not math.isfinite(v):
            v = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        out.append(v)
    return {"dtype": DT[t.dtype], "shape": list(t.shape), "data": out}
