#!/usr/bin/python3
"""Generates the optimizer and learning-rate-scheduler fixtures from PyTorch (the reference).

Output 1: fixtures/optim.json, a top-level JSON list of cases of two shapes.
  Step cases:
    {"name": str, "options": {...} (documentation only),
     "params":   [p0 [3,4], p1 [4]]                       f32 starting values,
     "grads":    [[g0, g1] for each of 6 steps]           f32, fixed in advance,
     "lrs":      [6 floats]                               the learning rate of each step,
     "expected": [[p0, p1] after each of the 6 steps]     f64}
  The reference runs torch.optim on float64 copies of the f32 values; before step t the gradient
  of each parameter is set to grads[t] and param_groups[0]["lr"] to lrs[t]. Adan (not in torch
  1.13) follows the official algorithm, written here in float64. sgd_clip_value / sgd_clip_norm
  clip the gradients (by value to [-0.05, 0.05]; per tensor to norm ≤ 0.5) before a plain SGD step.
  L-BFGS cases:
    {"name": str, "kind": "lbfgs", "A": [6,4] f32, "b": [6] f32, "x0": [4] f32,
     "options": {"lr", "max_iter", "max_eval", "history_size", "tolerance_grad",
                 "tolerance_change", "line_search_fn": null | "strong_wolfe"},
     "expected": [x after each of 3 optimizer.step(closure) calls] f64}
  minimizing f(x) = Σ (A·x − b)² + 0.1·Σ x⁴ in float64. Every call runs all max_iter iterations
  (checked: no tolerance stop), and the objective decreases at each call.

Output 2: fixtures/schedulers.json, a top-level JSON list of {"name": str, "lrs": [12 floats]},
  lrs[t] being the learning rate used at optimizer step t (torch: param_groups[0]["lr"] before
  scheduler.step()). Torch schedulers where they match Scorch's, closed forms otherwise (and
  checked against torch where both exist).

Tensors are {"dtype": "f32"|"f64", "shape": [...], "data": [...]} (tests/support/fixture_encoding.py).
Run: /usr/bin/python3 tests/optim/gen_optim_fixtures.py [out_dir]
"""
import json, math, os, sys
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fixture_encoding import enc  # noqa: E402

torch.manual_seed(0)
f64 = torch.float64
STEPS = 6
LRS = [0.1, 0.09, 0.08, 0.07, 0.06, 0.05]
PARAMS = [torch.randn(3, 4), torch.randn(4)]
GRADS = [[torch.randn(3, 4) * 0.2, torch.randn(4) * 0.2] for _ in range(STEPS)]
OPTIM = []


def check_finite(name, ts):
    for t in ts:
        if not torch.isfinite(t).all():
            raise SystemExit(f"{name}: non-finite values")


def step_case(name, make, options, clip=None):
    """make(params) -> torch optimizer over float64 leaves; clip(grad) -> grad before the step."""
    ps = [p.double().requires_grad_(True) for p in PARAMS]
    opt = make(ps)
    expected = []
    for t in range(STEPS):
        for p, g in zip(ps, GRADS[t]):
            g = g.double()
            p.grad = clip(g) if clip else g
        opt.param_groups[0]["lr"] = LRS[t]
        opt.step()
        expected.append([p.detach().clone() for p in ps])
        check_finite(name, expected[-1])
    OPTIM.append({"name": name, "options": options, "params": [enc(p) for p in PARAMS],
                  "grads": [[enc(g) for g in gs] for gs in GRADS], "lrs": LRS,
                  "expected": [[enc(p) for p in ps] for ps in expected]})


class Adan(torch.optim.Optimizer):
    """The official Adan (Xie et al.), single-tensor form, no_prox switch, float64 state."""

    def __init__(self, params, lr=1e-3, betas=(0.98, 0.92, 0.99), eps=1e-8, weight_decay=0.0, no_prox=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, no_prox=no_prox))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            b1, b2, b3 = group["betas"]
            lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
            for p in group["params"]:
                g, st = p.grad, self.state[p]
                if not st:
                    st.update(step=0, m=torch.zeros_like(p), d=torch.zeros_like(p), n=torch.zeros_like(p), g_prev=g.clone())
                st["step"] += 1
                t = st["step"]
                diff = g - st["g_prev"]
                st["m"].mul_(b1).add_(g, alpha=1 - b1)
                st["d"].mul_(b2).add_(diff, alpha=1 - b2)
                st["n"].mul_(b3).add_((g + b2 * diff) ** 2, alpha=1 - b3)
                bc1, bc2, bc3 = 1 - b1 ** t, 1 - b2 ** t, 1 - b3 ** t
                update = (st["m"] / bc1 + b2 * st["d"] / bc2) / ((st["n"] / bc3).sqrt() + eps)
                if group["no_prox"]:
                    p.mul_(1 - lr * wd).sub_(lr * update)
                else:
                    p.sub_(lr * update).div_(1 + lr * wd)
                st["g_prev"] = g.clone()


O = torch.optim
step_case("sgd", lambda ps: O.SGD(ps, lr=0.1), {})
step_case("sgd_momentum", lambda ps: O.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
          {"momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01})
step_case("sgd_nesterov", lambda ps: O.SGD(ps, lr=0.1, momentum=0.9, dampening=0.0, nesterov=True),
          {"momentum": 0.9, "dampening": 0.0, "nesterov": True})
step_case("adam", lambda ps: O.Adam(ps, lr=0.1, betas=(0.9, 0.999), eps=1e-5), {"betas": [0.9, 0.999], "eps": 1e-5})
step_case("adam_amsgrad_wd", lambda ps: O.Adam(ps, lr=0.1, betas=(0.9, 0.999), eps=1e-5, weight_decay=0.01, amsgrad=True),
          {"betas": [0.9, 0.999], "eps": 1e-5, "weight_decay": 0.01, "amsgrad": True})
step_case("adamw", lambda ps: O.AdamW(ps, lr=0.1, betas=(0.9, 0.999), eps=1e-5, weight_decay=0.01),
          {"betas": [0.9, 0.999], "eps": 1e-5, "weight_decay": 0.01})
step_case("adamw_amsgrad", lambda ps: O.AdamW(ps, lr=0.1, betas=(0.9, 0.999), eps=1e-5, weight_decay=0.01, amsgrad=True),
          {"betas": [0.9, 0.999], "eps": 1e-5, "weight_decay": 0.01, "amsgrad": True})
step_case("adagrad", lambda ps: O.Adagrad(ps, lr=0.1, lr_decay=0.01, weight_decay=0.01, eps=1e-5),
          {"lr_decay": 0.01, "weight_decay": 0.01, "eps": 1e-5, "initial_accumulator_value": 0.0})
step_case("rmsprop", lambda ps: O.RMSprop(ps, lr=0.1, alpha=0.99, eps=1e-5, momentum=0.9, centered=False),
          {"alpha": 0.99, "eps": 1e-5, "momentum": 0.9, "centered": False, "weight_decay": 0.0})
step_case("rmsprop_centered", lambda ps: O.RMSprop(ps, lr=0.1, alpha=0.99, eps=1e-5, momentum=0.0, centered=True, weight_decay=0.01),
          {"alpha": 0.99, "eps": 1e-5, "momentum": 0.0, "centered": True, "weight_decay": 0.01})
ADAN = {"betas": [0.98, 0.92, 0.99], "eps": 1e-8, "weight_decay": 0.02}
step_case("adan", lambda ps: Adan(ps, lr=0.1, betas=(0.98, 0.92, 0.99), eps=1e-8, weight_decay=0.02), {**ADAN, "no_prox": False})
step_case("adan_no_prox", lambda ps: Adan(ps, lr=0.1, betas=(0.98, 0.92, 0.99), eps=1e-8, weight_decay=0.02, no_prox=True),
          {**ADAN, "no_prox": True})
step_case("sgd_clip_value", lambda ps: O.SGD(ps, lr=0.1), {"clip_value": 0.05}, clip=lambda g: g.clamp(-0.05, 0.05))
step_case("sgd_clip_norm", lambda ps: O.SGD(ps, lr=0.1), {"clip_norm": 0.5},
          clip=lambda g: g * min(1.0, 0.5 / g.norm(2).item()))


def adan_reference_check():
    """Adan's first step by hand (m = (1−β1)g, d = 0, n = (1−β3)g², so update = g / (|g| + eps))."""
    g, p, lr, wd = GRADS[0][1].double(), PARAMS[1].double(), LRS[0], 0.02
    want = (p - lr * g / (g.abs() + 1e-8)) / (1 + lr * wd)
    got = torch.tensor(OPTIM[[c["name"] for c in OPTIM].index("adan")]["expected"][0][1]["data"], dtype=f64)
    assert (want - got).abs().max() < 1e-14, "adan first step"


adan_reference_check()


# ---- L-BFGS on f(x) = Σ (A·x − b)² + 0.1·Σ x⁴
# x0 · 2: far enough from the minimum that all three calls make progress (no tolerance stops)
A, B, X0 = torch.randn(6, 4) * 0.5, torch.randn(6), torch.randn(4) * 2


def objective(x):
    return ((A.double() @ x - B.double()) ** 2).sum() + 0.1 * (x ** 4).sum()


def lbfgs_case(name, line_search_fn):
    opts = dict(lr=1.0, max_iter=5, max_eval=5 * 5 // 4, history_size=3, tolerance_grad=1e-7,
                tolerance_change=1e-9, line_search_fn=line_search_fn)
    x = X0.double().requires_grad_(True)
    opt = O.LBFGS([x], **opts)

    def closure():
        opt.zero_grad()
        loss = objective(x)
        loss.backward()
        return loss

    expected, losses = [], [objective(x).item()]
    for _ in range(3):
        opt.step(closure)
        expected.append(x.detach().clone())
        losses.append(objective(x).item())
        check_finite(name, expected[-1:])
    if not all(b < a for a, b in zip(losses, losses[1:])):
        raise SystemExit(f"{name}: the objective did not decrease: {losses}")
    if opt.state[x]["n_iter"] != 3 * opts["max_iter"]:
        raise SystemExit(f"{name}: stopped early on a tolerance ({opt.state[x]['n_iter']} iterations)")
    print(f"{name}: f = " + ", ".join(f"{v:.6g}" for v in losses))
    OPTIM.append({"name": name, "kind": "lbfgs", "A": enc(A), "b": enc(B), "x0": enc(X0), "options": opts,
                  "expected": [enc(v) for v in expected]})


lbfgs_case("lbfgs", None)
lbfgs_case("lbfgs_wolfe", "strong_wolfe")

# ---- schedulers: lrs[t] for t = 0..11
N = 12
SCHED = []


def torch_lrs(make, base_lr, n=N):
    opt = O.SGD([torch.zeros(1, requires_grad=True)], lr=base_lr)
    sched = make(opt)
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


def agree(name, a, b, tol=1e-12):
    if any(abs(x - y) > tol for x, y in zip(a, b)):
        raise SystemExit(f"{name}: torch and the closed form disagree: {a} vs {b}")


def sched(name, lrs):
    assert len(lrs) == N and all(math.isfinite(v) for v in lrs), name
    SCHED.append({"name": name, "lrs": [float(v) for v in lrs]})


def linear(init, final, iters, n=N):
    lrs = torch_lrs(lambda o: O.lr_scheduler.LinearLR(o, start_factor=1.0, end_factor=final / init, total_iters=iters), init, n)
    agree("linear", lrs, [init + (final - init) * min(t, iters) / iters for t in range(n)])
    return lrs


def cosine(init, lo, iters, n=N):
    closed = [lo + 0.5 * (init - lo) * (1 + math.cos(math.pi * (t % (iters + 1)) / iters)) for t in range(n)]
    lrs = torch_lrs(lambda o: O.lr_scheduler.CosineAnnealingLR(o, T_max=iters, eta_min=lo), init, iters + 1)
    agree("cosine", lrs, closed[:iters + 1])
    return lrs + closed[iters + 1:]  # torch to t = iters, then the restarting closed form


def exponential(init, gamma, n=N):
    lrs = torch_lrs(lambda o: O.lr_scheduler.ExponentialLR(o, gamma), init, n)
    agree("exponential", lrs, [init * gamma ** t for t in range(n)])
    return lrs


def noam(factor, warmup, model_size):
    f = lambda t: factor * model_size ** -0.5 * min((t + 1) ** -0.5, (t + 1) * warmup ** -1.5)
    lrs = torch_lrs(lambda o: O.lr_scheduler.LambdaLR(o, f), 1.0)
    agree("noam", lrs, [f(t) for t in range(N)])
    return lrs


sched("constant", [0.1] * N)
sched("linear", linear(0.1, 0.01, 8))
sched("cosine", cosine(0.1, 0.001, 8))
sched("exponential", exponential(0.1, 0.9))
step = torch_lrs(lambda o: O.lr_scheduler.StepLR(o, step_size=3, gamma=0.5), 0.1)
agree("step", step, [0.1 * 0.5 ** (t // 3) for t in range(N)])
sched("step", step)
sched("noam", noam(2.0, 4, 16))
lin_, cos_ = linear(0.1, 0.01, 8), cosine(0.1, 0.001, 8)
sched("composed_prod", [a * b for a, b in zip(lin_, cos_)])
sched("composed_sum", [a + b for a, b in zip(lin_, cos_)])
sched("composed_avg", [(a + b) / 2 for a, b in zip(lin_, cos_)])
seq_lin, seq_exp = linear(0.1, 0.01, 4), exponential(0.05, 0.9)
sched("sequential", [seq_lin[t] if t < 4 else seq_exp[t - 4] for t in range(N)])


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for fname, data in (("optim.json", OPTIM), ("schedulers.json", SCHED)):
        path = os.path.join(out_dir, fname)
        with open(path, "w") as f:
            json.dump(data, f, separators=(",", ":"))
        print(f"wrote {len(data)} cases to {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
