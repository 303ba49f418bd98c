"""Module-op fixtures (convolution, pooling, interpolation, unfold/fold, attention), imported by
gen_fixtures.py and appended after its cases so that their random inputs keep their values.

References run in float64 and are cast back to the inputs' dtype; gradients come from autograd.
The C++ side is tests/conformance/cases_module.cpp and cases_module_grad.cpp.
"""
import torch
import torch.nn.functional as F

TOL = [1e-4, 1e-4]     # f32: sums of many products
TOL64 = [1e-10, 1e-10]  # f64


def ref64(fn):
    """fn run on float64 copies of the float inputs; float outputs cast back to the inputs' dtype."""
    def run(*xs):
        dt = next(x.dtype for x in xs if x.dtype.is_floating_point)
        outs = fn(*[x.double() if x.dtype.is_floating_point else x for x in xs])
        if not isinstance(outs, (tuple, list)):
            outs = [outs]
        return [o.to(dt) if o.dtype.is_floating_point else o for o in outs]
    return run


def grads(fn, g, *xs):
    """Gradients of fn(*xs) for the output gradient g, with respect to each of xs."""
    xs = [x.detach().clone().requires_grad_(True) for x in xs]
    fn(*xs).backward(g)
    return [x.grad for x in xs]


def attention_ref(q, k, v, mask=None, scale=None):
    """softmax(q kᵀ · scale, masked where mask is TRUE) v; scale defaults to 1/√d."""
    s = (q @ k.transpose(-2, -1)) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, -1) @ v


def attention_stats_ref(q, k, v, mask=None, scale=None):
    """attention_ref's output and the log-sum-exp of each query's masked scaled scores."""
    s = (q @ k.transpose(-2, -1)) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, -1) @ v, torch.logsumexp(s, -1)


def rms_norm_ref(x, g=None, eps=1e-5):
    """x / sqrt(mean(x²) + eps) over the last dim, times g (PyTorch 1.13 has no rms_norm)."""
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * g if g is not None else y


def layer_norm_ref(x, g=None, b=None, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), g, b, eps)


def add_cases(case, rn, rb):
    f64 = torch.float64

    def grad_for(fn, *xs):
        """A random output gradient of fn(*xs)'s shape and dtype."""
        out = fn(*xs)
        return rn(*out.shape, dtype=out.dtype)

    # ---- convolution
    case("mod_conv1d", [rn(2, 4, 9), rn(6, 2, 3), rn(6), rn(3, 4, 1)], ref64(lambda x, w, b, w1: (
        F.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2), F.conv1d(x, w1))), tol=TOL)
    case("mod_conv2d", [rn(2, 3, 7, 5), rn(4, 3, 3, 3), rn(4)], ref64(lambda x, w, b: (
        F.conv2d(x, w, b, padding=1), F.conv2d(x, w, b, stride=(2, 1), padding=(0, 2), dilation=(1, 2)))), tol=TOL)
    case("mod_conv2d_groups", [rn(2, 4, 6, 5), rn(6, 2, 3, 2), rn(6), rn(8, 1, 3, 3)], ref64(lambda x, w, b, wd: (
        F.conv2d(x, w, b, stride=(1, 2), padding=(1, 0), groups=2), F.conv2d(x, wd, padding=1, groups=4))), tol=TOL)
    # x and w stored [2, 3, 5, 7] / [4, 3, 3, 3] and used transposed; xh stored channels-last.
    case("mod_conv2d_strided", [rn(2, 3, 5, 7), rn(4, 3, 3, 3), rn(4), rn(2, 7, 5, 3)], ref64(lambda x, w, b, xh: (
        F.conv2d(x.transpose(2, 3), w.transpose(2, 3), b, stride=2, padding=1), F.conv2d(xh.permute(0, 3, 1, 2), w, b))), tol=TOL)
    case("mod_conv2d_f64", [rn(2, 3, 6, 5, dtype=f64), rn(4, 3, 3, 2, dtype=f64), rn(4, dtype=f64)], lambda x, w, b: (
        F.conv2d(x, w, b, padding=(1, 0)), F.conv2d(x, w, None, stride=2, dilation=(2, 1))), tol=TOL64)
    case("mod_conv3d", [rn(2, 4, 5, 6, 4), rn(6, 4, 3, 2, 3), rn(6), rn(4, 2, 3, 2, 3)], ref64(lambda x, w, b, wg: (
        F.conv3d(x, w, b), F.conv3d(x, wg, stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2))), tol=TOL)
    case("mod_conv_transpose1d", [rn(2, 4, 6), rn(4, 3, 3), rn(6), rn(4, 5, 3)], ref64(lambda x, w, b, w1: (
        F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
        F.conv_transpose1d(x, w1, stride=3, padding=2, output_padding=1, dilation=2))), tol=TOL)
    case("mod_conv_transpose2d", [rn(2, 3, 5, 4), rn(3, 2, 3, 3), rn(2), rn(2, 4, 3, 5), rn(4, 3, 2, 3)], ref64(lambda x, w, b, xg, wg: (
        F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(1, 0), output_padding=(1, 0), dilation=(1, 2)),
        F.conv_transpose2d(xg, wg, stride=2, groups=2))), tol=TOL)
    case("mod_conv_transpose3d", [rn(1, 2, 3, 4, 3), rn(2, 3, 2, 3, 2), rn(3)], ref64(lambda x, w, b: (
        F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(0, 1, 1), output_padding=(1, 0, 0)))), tol=TOL)

    # ---- convolution gradients: (x, w, g) → x.grad, w.grad[, bias.grad]
    def conv_grads(conv, bias_len=None, **kw):
        def fn(x, w, g):
            if bias_len is None:
                return grads(lambda x, w: conv(x, w, **kw), g, x, w)
            return grads(lambda x, w, b: conv(x, w, b, **kw), g, x, w, torch.zeros(bias_len, dtype=x.dtype))
        return fn

    x, w = rn(2, 4, 7, 5), rn(6, 2, 3, 3)
    kw = dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    case("mod_conv2d_backward", [x, w, grad_for(lambda x, w: F.conv2d(x, w, **kw), x, w)],
         ref64(conv_grads(F.conv2d, 6, **kw)), tol=TOL)
    x, w = rn(2, 3, 10, dtype=f64), rn(4, 3, 3, dtype=f64)
    kw = dict(stride=3, dilation=2)
    case("mod_conv1d_backward_f64", [x, w, grad_for(lambda x, w: F.conv1d(x, w, **kw), x, w)],
         conv_grads(F.conv1d, **kw), tol=TOL64)
    x, w = rn(1, 2, 4, 5, 3), rn(3, 2, 2, 3, 2)
    kw = dict(stride=(1, 2, 1), padding=(1, 0, 1))
    case("mod_conv3d_backward", [x, w, grad_for(lambda x, w: F.conv3d(x, w, **kw), x, w)],
         ref64(conv_grads(F.conv3d, 3, **kw)), tol=TOL)
    x, w = rn(2, 4, 3, 4), rn(4, 3, 3, 2)
    kw = dict(stride=2, padding=(1, 0), output_padding=1, groups=2)
    case("mod_conv_transpose2d_backward", [x, w, grad_for(lambda x, w: F.conv_transpose2d(x, w, **kw), x, w)],
         ref64(conv_grads(F.conv_transpose2d, 6, **kw)), tol=TOL)
    x, w = rn(2, 3, 5), rn(3, 2, 3)
    kw = dict(stride=2, padding=1, output_padding=1, dilation=2)
    case("mod_conv_transpose1d_backward", [x, w, grad_for(lambda x, w: F.conv_transpose1d(x, w, **kw), x, w)],
         ref64(conv_grads(F.conv_transpose1d, **kw)), tol=TOL)

    # ---- average pooling (torch's argument order: ceil_mode before count_include_pad)
    case("mod_avg_pool1d", [rn(2, 3, 9)], ref64(lambda x: (
        F.avg_pool1d(x, 3, 2, 1, count_include_pad=True), F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
        F.avg_pool1d(x, 4, 3, 1, ceil_mode=True, count_include_pad=False), F.avg_pool1d(x, 2, 2, 0, ceil_mode=True),
        F.avg_pool1d(x, 4, 3, 2, ceil_mode=True, count_include_pad=True))), tol=TOL)
    case("mod_avg_pool2d", [rn(2, 3, 7, 5)], ref64(lambda x: (
        F.avg_pool2d(x, (3, 2), (2, 2), (1, 1), count_include_pad=True),
        F.avg_pool2d(x, (3, 2), (2, 2), (1, 1), count_include_pad=False),
        F.avg_pool2d(x, (2, 3), (2, 2), (0, 1), ceil_mode=True, count_include_pad=False),
        F.avg_pool2d(x, (2, 2), (2, 2), (0, 0), ceil_mode=True, count_include_pad=True),
        F.avg_pool2d(x.transpose(2, 3), (3, 3), (2, 2), (1, 1)))), tol=TOL)
    case("mod_avg_pool2d_f64", [rn(1, 2, 6, 5, dtype=f64)], lambda x: (
        F.avg_pool2d(x, (3, 3), (2, 2), (1, 1), ceil_mode=True, count_include_pad=False),
        F.avg_pool2d(x, (3, 3), (2, 2), (1, 1), ceil_mode=True, count_include_pad=True)), tol=TOL64)
    x = rn(2, 3, 7, 5)
    case("mod_avg_pool_backward", [x, grad_for(lambda x: F.avg_pool2d(x, 3, 2, 1), x),
                                   grad_for(lambda x: F.avg_pool2d(x, (2, 3), (2, 2), (0, 1), ceil_mode=True), x)],
         ref64(lambda x, g, gc: (
             grads(lambda x: F.avg_pool2d(x, 3, 2, 1), g, x)[0],
             grads(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), g, x)[0],
             grads(lambda x: F.avg_pool2d(x, (2, 3), (2, 2), (0, 1), ceil_mode=True, count_include_pad=False), gc, x)[0],
             grads(lambda x: F.avg_pool2d(x, (2, 3), (2, 2), (0, 1), ceil_mode=True, count_include_pad=True), gc, x)[0])), tol=TOL)
    x1 = rn(2, 2, 9)
    case("mod_avg_pool1d_backward", [x1, grad_for(lambda x: F.avg_pool1d(x, 4, 3, 1, ceil_mode=True), x1)],
         ref64(lambda x, g: grads(lambda x: F.avg_pool1d(x, 4, 3, 1, ceil_mode=True, count_include_pad=False), g, x)[0]), tol=TOL)

    # ---- max pooling (randn inputs: no ties); indices flat within each channel's spatial block
    case("mod_max_pool1d", [rn(2, 3, 11)], lambda x: (
        F.max_pool1d(x, 3, 2, 1), F.max_pool1d(x, 3, 3, 0, ceil_mode=True),
        *F.max_pool1d(x, 3, 2, 1, dilation=2, return_indices=True)))
    case("mod_max_pool2d", [rn(2, 3, 7, 5)], lambda x: (
        F.max_pool2d(x, (3, 2), (2, 1), (1, 1)),
        *F.max_pool2d(x, 3, 2, 1, dilation=(1, 2), ceil_mode=True, return_indices=True),
        *F.max_pool2d(x.transpose(2, 3), 2, 2, return_indices=True)))
    case("mod_max_pool2d_f64", [rn(2, 2, 6, 6, dtype=f64)], lambda x: (
        *F.max_pool2d(x, 3, 2, 1, return_indices=True), F.max_pool2d(x, 2, 1)))
    x, x1 = rn(2, 3, 7, 5), rn(2, 2, 9)
    case("mod_max_pool_backward", [x, grad_for(lambda x: F.max_pool2d(x, 3, 2, 1), x), x1, grad_for(lambda x: F.max_pool1d(x, 3, 1), x1)],
         ref64(lambda x, g, x1, g1: (grads(lambda x: F.max_pool2d(x, 3, 2, 1), g, x)[0], grads(lambda x: F.max_pool1d(x, 3, 1), g1, x1)[0])),
         tol=TOL)

    # ---- adaptive pooling (non-divisible sizes, upsampling, global)
    case("mod_adaptive_avg_pool", [rn(2, 3, 7), rn(2, 3, 5, 7)], ref64(lambda x1, x2: (
        F.adaptive_avg_pool1d(x1, 3), F.adaptive_avg_pool1d(x1, 10), F.adaptive_avg_pool2d(x2, (4, 3)),
        F.adaptive_avg_pool2d(x2, (6, 7)), F.adaptive_avg_pool2d(x2, 1))), tol=TOL)
    x, x1 = rn(2, 3, 5, 7), rn(2, 2, 3)
    case("mod_adaptive_avg_pool_backward", [x, rn(2, 3, 4, 3), x1, rn(2, 2, 5)], ref64(lambda x, g, x1, g1: (
        grads(lambda x: F.adaptive_avg_pool2d(x, (4, 3)), g, x)[0], grads(lambda x: F.adaptive_avg_pool1d(x, 5), g1, x1)[0])), tol=TOL)
    case("mod_adaptive_max_pool", [rn(2, 3, 7, 5), rn(2, 3, 7)], lambda x2, x1: (
        *F.adaptive_max_pool2d(x2, (3, 4), return_indices=True), *F.adaptive_max_pool1d(x1, 3, return_indices=True),
        *F.adaptive_max_pool1d(x1, 10, return_indices=True), F.adaptive_max_pool2d(x2, (7, 2))))
    case("mod_adaptive_max_pool_backward", [rn(2, 3, 7, 5), rn(2, 3, 3, 4)], ref64(lambda x, g: (
        grads(lambda x: F.adaptive_max_pool2d(x, (3, 4)), g, x)[0])), tol=TOL)

    # ---- interpolation (no antialias); nearest is torch's 'nearest'
    def interp(x, size, mode, ac=None):
        return F.interpolate(x, size=size, mode=mode, align_corners=ac)

    case("mod_interpolate_nearest", [rn(2, 3, 5, 7)], ref64(lambda x: (
        interp(x, (8, 10), "nearest"), interp(x, (3, 4), "nearest"), interp(x, (10, 14), "nearest"),
        interp(x.transpose(2, 3), (4, 9), "nearest"))), tol=TOL)
    case("mod_interpolate_bilinear", [rn(2, 3, 5, 7)], ref64(lambda x: (
        interp(x, (8, 10), "bilinear", False), interp(x, (8, 10), "bilinear", True), interp(x, (3, 4), "bilinear", False),
        interp(x, (3, 4), "bilinear", True), interp(x, (1, 3), "bilinear", True),
        interp(x.transpose(2, 3), (9, 4), "bilinear", False))), tol=TOL)
    case("mod_interpolate_bicubic", [rn(1, 2, 6, 5)], ref64(lambda x: (
        interp(x, (9, 7), "bicubic", False), interp(x, (9, 7), "bicubic", True), interp(x, (4, 3), "bicubic", False),
        interp(x, (4, 3), "bicubic", True))), tol=TOL)
    modes = [("nearest", None), ("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True)]
    for name, size in [("up", (8, 10)), ("down", (3, 4))]:
        case("mod_interpolate_backward_" + name, [rn(2, 2, 5, 7), rn(2, 2, *size)], ref64(lambda x, g, size=size: [
            grads(lambda x: interp(x, size, m, ac), g, x)[0] for m, ac in modes]), tol=TOL)

    # ---- unfold / fold (im2col / col2im)
    case("mod_unfold", [rn(2, 3, 7, 5)], ref64(lambda x: (
        F.unfold(x, (3, 2)), F.unfold(x, (3, 3), dilation=(1, 2), padding=(1, 2), stride=(2, 1)),
        F.unfold(x.transpose(2, 3), (2, 2), stride=2))), tol=TOL)
    case("mod_fold", [rn(2, 18, 12), rn(1, 8, 4)], ref64(lambda c, c1: (
        F.fold(c, (7, 5), (3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 1)), F.fold(c1, (4, 5), (2, 2), stride=2))), tol=TOL)

    # ---- attention (mask TRUE = ignore that key)
    case("mod_attention", [rn(2, 3, 4, 8), rn(2, 3, 6, 8), rn(2, 3, 6, 5)], ref64(lambda q, k, v: (
        attention_ref(q, k, v), attention_ref(q, k, v, scale=0.3))), tol=TOL)
    causal = torch.ones(1, 1, 5, 5, dtype=torch.bool).triu(1)
    full = rb(2, 3, 5, 5)
    full[..., 0] = False  # every query keeps a key
    case("mod_attention_mask", [rn(2, 3, 5, 4), rn(2, 3, 5, 4), rn(2, 3, 5, 4), causal, full], ref64(lambda q, k, v, c, m: (
        attention_ref(q, k, v, c), attention_ref(q, k, v, m), attention_ref(q, k, v, c, 0.7),
        attention_ref(q, k, v, m[:, :1]))), tol=TOL)

    # ---- fused ops (appended last so that the cases above keep their random inputs)
    some = rb(2, 3, 4, 6)
    some[..., 0] = False  # every query keeps a key
    case("mod_attention_stats", [rn(2, 3, 4, 8), rn(2, 3, 6, 8), rn(2, 3, 6, 5), some], ref64(lambda q, k, v, m: (
        *attention_stats_ref(q, k, v, m), *attention_stats_ref(q, k, v, scale=0.3))), tol=TOL)
    case("mod_layer_norm", [rn(2, 3, 7), rn(7), rn(7)], ref64(lambda x, g, b: (
        layer_norm_ref(x, g, b), layer_norm_ref(x, eps=1e-3), layer_norm_ref(x, g), layer_norm_ref(x, None, b, 0.5))),
        tol=TOL)
    case("mod_rms_norm", [rn(4, 9), rn(9)], ref64(lambda x, g: (rms_norm_ref(x, g), rms_norm_ref(x, eps=1e-2))), tol=TOL)

    q, k, v, mask = rn(2, 3, 5, 4), rn(2, 3, 7, 4), rn(2, 3, 7, 3), rb(2, 1, 5, 7)
    mask[..., 0] = False
    g = rn(2, 3, 5, 3)

    def attention_grads(q, k, v, m, g):
        return (*grads(lambda q, k, v: attention_ref(q, k, v, m), g, q, k, v),
                *grads(lambda q, k, v: attention_ref(q, k, v, scale=0.3), g, q, k, v))
    case("mod_attention_backward", [q, k, v, mask, g], ref64(attention_grads), tol=TOL)

    def layer_norm_grads(x, gamma, g):
        beta = torch.zeros_like(gamma)
        return (*grads(lambda x, gamma, beta: layer_norm_ref(x, gamma, beta), g, x, gamma, beta),
                *grads(lambda x, beta: layer_norm_ref(x, None, beta, 1e-3), g, x, beta))
    case("mod_layer_norm_backward", [rn(3, 2, 6), rn(6), rn(3, 2, 6)], ref64(layer_norm_grads), tol=TOL)

    def rms_norm_grads(x, gamma, g):
        return (*grads(lambda x, gamma: rms_norm_ref(x, gamma), g, x, gamma),
                *grads(lambda x: rms_norm_ref(x, eps=1e-2), g, x))
    case("mod_rms_norm_backward", [rn(5, 8), rn(8), rn(5, 8)], ref64(rms_norm_grads), tol=TOL)
    hidden = torch.zeros(1, 2, 3, 4, dtype=torch.bool)
    hidden[0, 1, 2] = True  # query 2 of head 1 sees no key
    case("mod_attention_stats_masked_row", [rn(1, 2, 3, 5), rn(1, 2, 4, 5), rn(1, 2, 4, 3), hidden],
         ref64(lambda q, k, v, m: attention_stats_ref(q, k, v, m)), tol=TOL)

    def adam_ref(p, g, m, v):
        """torch.optim.AdamW / Adam steps from the moments m, v (zeros and step 1 for the last)."""
        def step(opt_cls, lr, betas, eps, wd, count, moments):
            q = p.detach().clone().requires_grad_(True)
            opt = opt_cls([q], lr=lr, betas=betas, eps=eps, weight_decay=wd)
            if moments:
                opt.state[q] = {"step": torch.tensor(float(count - 1)), "exp_avg": moments[0].clone(),
                                "exp_avg_sq": moments[1].clone()}
            q.grad = g.clone()
            opt.step()
            return q.detach(), opt.state[q]["exp_avg"], opt.state[q]["exp_avg_sq"]
        return (*step(torch.optim.AdamW, 1e-2, (0.9, 0.999), 1e-8, 0.1, 2, (m, v)),
                *step(torch.optim.Adam, 2e-2, (0.8, 0.99), 1e-6, 0.05, 3, (m, v)),
                step(torch.optim.Adam, 1e-3, (0.9, 0.999), 1e-8, 0.0, 1, None)[0])
    case("mod_adam_update", [rn(4, 6), rn(4, 6), rn(4, 6), rn(4, 6).abs()], ref64(adam_ref), tol=TOL)

    def later_keys(lq, lk):
        """PyTorch's is_causal mask: TRUE where key j > query i (top-left aligned)."""
        return torch.ones(lq, lk, dtype=torch.bool).triu(1)
    cq, ck, cv, cm, cg = rn(2, 3, 5, 4), rn(2, 3, 7, 4), rn(2, 3, 7, 3), rb(2, 1, 5, 7), rn(2, 3, 5, 3)
    cm[..., 0] = False

    def causal_ref(q, k, v, m, g):
        """causal alone (5 queries, 7 keys) with its log-sum-exp, with the mask, with scale 0.5, 7 queries over 5
        keys, and the gradients of causal with the mask."""
        c, c2 = later_keys(q.shape[-2], k.shape[-2]), later_keys(k.shape[-2], q.shape[-2])
        return (*attention_stats_ref(q, k, v, c), attention_ref(q, k, v, c | m), attention_ref(q, k, v, c, 0.5),
                attention_ref(k, q, g, c2), *grads(lambda q, k, v: attention_ref(q, k, v, c | m), g, q, k, v))
    case("mod_attention_causal", [cq, ck, cv, cm, cg], ref64(causal_ref), tol=TOL)

    def cross_entropy_ref(x, t, g):
        """Each row's cross-entropy, its log-sum-exp, and the logits' gradient for the per-row gradient g."""
        return (F.cross_entropy(x, t, reduction="none"), torch.logsumexp(x, 1),
                *grads(lambda x: F.cross_entropy(x, t, reduction="none"), g, x))
    case("mod_cross_entropy", [rn(6, 9), torch.tensor([3, 0, 8, 2, 5, 1]), rn(6)], ref64(cross_entropy_ref), tol=TOL)

    def dropout_factors(shape, p, seed):
        """scorch/backend/attention_dropout.h's factors, written again here: element i of the flattened
        probabilities is kept when the top 32 bits of SplitMix64(seed + (i + 1)·golden) reach p·2³²."""
        m64 = (1 << 64) - 1
        threshold = min(int(p * 4294967296.0), 0xffffffff)
        out = []
        for i in range(int(torch.Size(shape).numel())):
            x = (seed + (i + 1) * 0x9E3779B97F4A7C15) & m64
            x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m64
            x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m64
            x ^= x >> 31
            out.append(1.0 / (1.0 - p) if (x >> 32) >= threshold else 0.0)
        return torch.tensor(out, dtype=torch.float64).reshape(shape)

    def dropped_attention_ref(q, k, v, mask, p, seed, causal=False):
        """dropout(softmax(q kᵀ/√d, masked)) v with the factors above, and its log-sum-exp (before dropout)."""
        s = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
        hide = mask if not causal else later_keys(q.shape[-2], k.shape[-2]) | mask
        s = s.masked_fill(hide, float("-inf"))
        z = dropout_factors(s.shape, p, seed).to(s.dtype)
        return (torch.softmax(s, -1) * z) @ v, torch.logsumexp(s, -1)
    dq_, dk_, dv_, dm_, dg_ = rn(2, 2, 6, 4), rn(2, 2, 9, 4), rn(2, 2, 9, 5), rb(1, 2, 6, 9), rn(2, 2, 6, 5)
    dm_[..., 0] = False

    def dropout_ref(q, k, v, m, g):
        """Attention with dropout 0.3 (seed 1234) and the mask, its log-sum-exp and q, k, v gradients; dropout 0.6
        (seed 99) causal; the gradients of the second."""
        first = lambda q, k, v: dropped_attention_ref(q, k, v, m, 0.3, 1234)[0]
        second = lambda q, k, v: dropped_attention_ref(q, k, v, m, 0.6, 99, True)[0]
        return (*dropped_attention_ref(q, k, v, m, 0.3, 1234), *grads(first, g, q, k, v), second(q, k, v),
                *grads(second, g, q, k, v))
    case("mod_attention_dropout", [dq_, dk_, dv_, dm_, dg_], ref64(dropout_ref), tol=TOL)

    def adam_many_ref(p1, g1, m1, v1, p2, g2, m2, v2):
        """One torch.optim.AdamW step (lr 1e-2, weight decay 0.1, step 3) of two parameters from their moments."""
        qs = [p1.detach().clone().requires_grad_(True), p2.detach().clone().requires_grad_(True)]
        opt = torch.optim.AdamW(qs, lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1)
        for q, g, m, v in zip(qs, (g1, g2), (m1, m2), (v1, v2)):
            opt.state[q] = {"step": torch.tensor(2.0), "exp_avg": m.clone(), "exp_avg_sq": v.clone()}
            q.grad = g.clone()
        opt.step()
        return [t for q in qs for t in (q.detach(), opt.state[q]["exp_avg"], opt.state[q]["exp_avg_sq"])]
    case("mod_adam_update_many", [rn(4, 6), rn(4, 6), rn(4, 6), rn(4, 6).abs(), rn(5), rn(5), rn(5), rn(5).abs()],
         ref64(adam_many_ref), tol=TOL)

    def sgd_many_ref(p1, g1, b1, p2, g2, b2):
        """torch.optim.SGD steps of two parameters: momentum 0.9, dampening 0.1, weight decay 1e-3 from velocities
        b1, b2; Nesterov momentum 0.8 on a first step (no velocity); plain SGD."""
        def step(moments, **options):
            qs = [p1.detach().clone().requires_grad_(True), p2.detach().clone().requires_grad_(True)]
            opt = torch.optim.SGD(qs, **options)
            for q, g, b in zip(qs, (g1, g2), (b1, b2)):
                if moments:
                    opt.state[q] = {"momentum_buffer": b.clone()}
                q.grad = g.clone()
            opt.step()
            return qs, opt
        qs, opt = step(True, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-3)
        nq, nopt = step(False, lr=0.05, momentum=0.8, nesterov=True)
        pq, _ = step(False, lr=0.2)
        return (qs[0].detach(), opt.state[qs[0]]["momentum_buffer"], qs[1].detach(), opt.state[qs[1]]["momentum_buffer"],
                nq[0].detach(), nopt.state[nq[0]]["momentum_buffer"], nq[1].detach(), pq[0].detach(), pq[1].detach())
    case("mod_sgd_update_many", [rn(3, 4), rn(3, 4), rn(3, 4), rn(7), rn(7), rn(7)], ref64(sgd_many_ref), tol=TOL)

    # Dropout with a seed drawn from the backend's stream (float_random_seed) and a probability below 2⁻³²: nothing
    # is dropped, whatever the seed, so the result is plain attention.
    case("mod_attention_drawn_seed", [rn(1, 2, 5, 4), rn(1, 2, 7, 4), rn(1, 2, 7, 3)], ref64(attention_ref), tol=TOL)

    def linear_ref(x, w, b, g):
        """x·w + b, relu of it, x·w; the gradients of relu(x·w + b), of x·w, and x's and b's of x·w + b for the output
        gradient g."""
        dx, _, db = grads(lambda x, w, b: x @ w + b, g, x, w, b)
        return (x @ w + b, torch.relu(x @ w + b), x @ w, *grads(lambda x, w, b: torch.relu(x @ w + b), g, x, w, b),
                *grads(lambda x, w: x @ w, g, x, w), dx, db)
    case("mod_linear", [rn(5, 7), rn(7, 6), rn(6), rn(5, 6)], ref64(linear_ref), tol=TOL)
