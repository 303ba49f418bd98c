"""Quantization fixtures (quantize, dequantize, quantized_linear) from PyTorch's quantized ops and observers,
imported by gen_fixtures.py after the module cases. The q4 blocks, which PyTorch's quantized ops lack, follow its
quantize formula (x·(1/scale) rounded half to even) in float32. The C++ side is add_quant_cases in
tests/conformance/cases_module.cpp.
"""
import torch
import torch.nn.functional as F
from torch.ao.quantization import MinMaxObserver, PerChannelMinMaxObserver

TOL = [1e-4, 1e-4]


def observed(x, observer):
    """x's scales and offsets as a PyTorch observer computes them."""
    observer(x)
    scale, offset = observer.calculate_qparams()
    return scale.float(), offset


def add_cases(case, rn):
    torch.backends.quantized.engine = "onednn" if "onednn" in torch.backends.quantized.supported_engines else "qnnpack"

    def per_tensor(x):
        """int8 (scale 0.05, offset 3) and uint8 (0.02, 128) values, and their dequantized values."""
        a = torch.quantize_per_tensor(x, 0.05, 3, torch.qint8)
        b = torch.quantize_per_tensor(x, 0.02, 128, torch.quint8)
        return a.int_repr(), b.int_repr(), a.dequantize(), b.dequantize()
    case("q_per_tensor", [rn(4, 6) * 3], per_tensor)

    def per_channel(x):
        """x [5, 4]: int8 along axis 0, uint8 along axis 1, with the scales and offsets of cases_module.cpp."""
        a = torch.quantize_per_channel(x, torch.tensor([0.01, 0.02, 0.05, 0.1, 0.2], dtype=torch.float64),
                                       torch.tensor([0, 1, -2, 3, 0]), 0, torch.qint8)
        b = torch.quantize_per_channel(x, torch.tensor([0.03, 0.04, 0.05, 0.06], dtype=torch.float64),
                                       torch.tensor([100, 128, 90, 140]), 1, torch.quint8)
        return a.int_repr(), b.int_repr(), a.dequantize(), b.dequantize()
    case("q_per_channel", [rn(5, 4) * 2], per_channel)

    def observers(x):
        """x [4, 6]: int8 symmetric per tensor and uint8 affine per channel (axis 0), parameters from min and max."""
        s, z = observed(x, MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric))
        a = torch.quantize_per_tensor(x, float(s), int(z), torch.qint8)
        cs, cz = observed(x, PerChannelMinMaxObserver(ch_axis=0, dtype=torch.quint8, qscheme=torch.per_channel_affine))
        b = torch.quantize_per_channel(x, cs.double(), cz, 0, torch.quint8)
        return s.reshape(1), a.int_repr(), cs, cz.long(), b.int_repr()
    case("q_observer_params", [rn(4, 6)], observers)

    def q4_blocks(x):
        """x [3, 16]: signed 4-bit, symmetric, blocks of 8 along dim 1: scales, packed bytes, dequantized values (in
        x's dtype; the parameters are float32 whatever x's dtype, as PyTorch's quantized tensors)."""
        dtype, blocks = x.dtype, x.float().reshape(3, 2, 8)
        amax = torch.maximum(-blocks.amin(2).clamp(max=0), blocks.amax(2).clamp(min=0))
        scale = (amax / 7.5).clamp(min=torch.finfo(torch.float32).eps)
        q = torch.clamp(torch.round(blocks * (1.0 / scale).unsqueeze(2)), -8, 7).to(torch.int32)
        packed = ((q[..., 0::2] & 15) | ((q[..., 1::2] & 15) << 4)).to(torch.uint8).reshape(3, 8)
        return scale, packed, (q.float() * scale.unsqueeze(2)).reshape(3, 16).to(dtype)
    case("q_q4_blocks", [rn(3, 16)], q4_blocks)

    def linear_dynamic(x, w, b):
        """x [6, 10] · w [7, 10]ᵀ + b, w int8 per output channel (symmetric), x quantized per batch (uint8), with
        and without reduce_range: the int8 weight, its scales and both outputs."""
        s, z = observed(w, PerChannelMinMaxObserver(ch_axis=0, dtype=torch.qint8,
                                                    qscheme=torch.per_channel_symmetric))
        wq = torch.quantize_per_channel(w, s.double(), z, 0, torch.qint8)
        packed = torch.ops.quantized.linear_prepack(wq, b)
        return (wq.int_repr(), s, torch.ops.quantized.linear_dynamic(x, packed, False),
                torch.ops.quantized.linear_dynamic(x, packed, True))
    case("q_linear_dynamic", [rn(6, 10), rn(7, 10), rn(7)], linear_dynamic, tol=TOL)

    def linear_static(x, w, b):
        """x [5, 9] quantized uint8 (scale 0.02, offset 110) · w [9, 4] int8 per tensor (symmetric) + b, and its
        relu: PyTorch's dequantized operands through F.linear."""
        s, z = observed(w, MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric))
        wq = torch.quantize_per_tensor(w, float(s), int(z), torch.qint8)
        y = F.linear(torch.quantize_per_tensor(x, 0.02, 110, torch.quint8).dequantize(), wq.dequantize().t(), b)
        return wq.int_repr(), y, torch.relu(y)
    case("q_linear_static", [rn(5, 9), rn(9, 4), rn(4)], linear_static, tol=TOL)
