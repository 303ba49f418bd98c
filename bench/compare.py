#!/usr/bin/python3
"""Runs scorch-bench and the PyTorch anchor side by side and prints ratios (make bench-compare, and with --gpu
make bench-compare-gpu or scripts/gpu-run.sh bench).

The anchor (bench/anchors/torch_cpu_anchor.py by default, plus bench/anchors/torch_overhead_anchor.py
for the autodiff per-op overhead workloads, bench/anchors/torch_onnx_models.py for the onnx_* models and
bench/anchors/torch_quant_anchor.py for the quantized Linear workloads) is the
peer: Debian's python3-torch with OpenBLAS, 2 threads. The onnx_* models scorch-bench ran are also run by ONNX
Runtime (bench/anchors/ort_anchor.js, npm onnxruntime-node, same threads) when node and the package are present.
OpenBLAS 0.3.21 does not recognise every new CPU and may fall back to its generic "Prescott" kernels; --tuned-peer
also runs the anchor with OPENBLAS_CORETYPE=SkylakeX so both figures are on record.
With --gpu the workloads are scorch-bench's Cuda ones beside bench/anchors/torch_gpu_anchor.py (PyTorch on the
same GPU, the `python3` on PATH), with the GPU, driver and CUDA versions on record.
It prints the machine and versions first (CPU, cores, kernel, commit, torch, onnxruntime-node, GPU).
Usage: bench/compare.py [--bench build/bench/scorch-bench] [--anchor PATH] [--threads 2] [--tuned-peer] [--gpu]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile


def run_scorch(binary, threads, keep_dir, gpu=False):
    env = dict(os.environ, SCORCH_NUM_THREADS=str(threads), **({"SCORCH_BENCH_ONNX_KEEP": keep_dir} if keep_dir else {}))
    args = ["--backend", "cuda", "--reps", "10"] if gpu else ["--reps", "21"]
    out = subprocess.run([binary, *args], env=env, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["bench"]: r for r in rows}


def run_anchor(anchor, threads, extra_env=None, command=None, python="/usr/bin/python3"):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), **(extra_env or {}))
    out = subprocess.run(command or [python, anchor], env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def machine(here, threads, python="/usr/bin/python3", gpu=False):
    """The machine and versions the comparison ran on (printed first)."""
    def first(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[0]
        except (OSError, subprocess.CalledProcessError, IndexError):
            return "unknown"
    cpu = "unknown"
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    package = os.path.join(os.environ.get("ORT_NODE", "/usr/local/share/scorch/npm/node_modules/onnxruntime-node"),
                           "package.json")
    ort = json.load(open(package)).get("version", "unknown") if os.path.exists(package) else "absent"
    return {"cpu": cpu, "cores": os.cpu_count(), "threads": threads, "kernel": first(["uname", "-r"]),
            "scorch_commit": first(["git", "-C", here, "rev-parse", "--short", "HEAD"]),
            "torch": first([python, "-c", "import torch; print(torch.__version__, torch.version.cuda)"]),
            "onnxruntime_node": ort,
            "gpu": first(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"])
            if gpu else "not used"}


def optional_peer(name, run):
    """run()'s rows, or {} with a note when that peer fails (the other columns still print)."""
    try:
        return run()
    except (subprocess.CalledProcessError, OSError, ValueError) as e:
        print(f"bench-compare: {os.path.basename(name)} left out ({e})")
        return {}


def run_ort(here, keep_dir, threads):
    """ONNX Runtime on the models scorch-bench kept, or {} (with a note) when node or onnxruntime-node is missing."""
    package = os.environ.get("ORT_NODE", "/usr/local/share/scorch/npm/node_modules/onnxruntime-node")
    if not shutil.which("node") or not os.path.isdir(package) or not os.listdir(keep_dir):
        print("bench-compare: ONNX Runtime left out (needs node and onnxruntime-node: scripts/install-deps.sh --peer)")
        return {}
    script = os.path.join(here, "anchors", "ort_anchor.js")
    return run_anchor(script, threads, command=["node", script, keep_dir, str(threads)])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(here, "..", "build", "bench", "scorch-bench"))
    ap.add_argument("--anchor", default=os.path.join(here, "anchors", "torch_cpu_anchor.py"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tuned-peer", action="store_true")
    ap.add_argument("--gpu", action="store_true", help="Cuda workloads beside torch_gpu_anchor.py")
    a = ap.parse_args()
    if a.gpu:
        return compare_gpu(here, a)
    if not os.path.exists(a.anchor):
        sys.exit(f"bench-compare: anchor {a.anchor} not found (pass --anchor)")
    keep_dir = tempfile.mkdtemp(prefix="scorch-bench-onnx-")
    try:
        ours = run_scorch(a.bench, a.threads, keep_dir)
        extras = [os.path.join(here, "anchors", f)
                  for f in ("torch_overhead_anchor.py", "torch_onnx_models.py", "torch_quant_anchor.py")]
        torch_rows = run_anchor(a.anchor, a.threads)
        for extra in extras:
            torch_rows.update(optional_peer(extra, lambda: run_anchor(extra, a.threads)))
        peers = {"torch": torch_rows}
        ort = optional_peer("ONNX Runtime", lambda: run_ort(here, keep_dir, a.threads))
    finally:
        shutil.rmtree(keep_dir, ignore_errors=True)
    if ort:
        peers["ort"] = ort
    if a.tuned_peer:
        peers["torch_skx"] = run_anchor(a.anchor, a.threads, {"OPENBLAS_CORETYPE": "SkylakeX"})
    print("machine: " + json.dumps(machine(here, a.threads)))
    print_table(ours, peers)


def compare_gpu(here, a):
    """scorch-bench --backend cuda beside PyTorch's twins on the same GPU."""
    anchor = os.path.join(here, "anchors", "torch_gpu_anchor.py")
    ours = run_scorch(a.bench, a.threads, None, gpu=True)
    peers = {"torch": run_anchor(anchor, a.threads, python="python3")}
    print("machine: " + json.dumps(machine(here, a.threads, python="python3", gpu=True)))
    print_table(ours, peers)


def print_table(ours, peers):
    """One line per scorch-bench workload: its median and each peer's, with peer / scorch (> 1: scorch faster)."""
    header = f"{'workload':34s} {'scorch ms':>10s}" + "".join(f" {p + ' ms':>14s} {'speedup':>8s}" for p in peers)
    print(header)
    for name, row in ours.items():
        if "median_ms" not in row:
            continue
        line = f"{name:34s} {row['median_ms']:10.3f}"
        for p, res in peers.items():
            if name in res:
                line += f" {res[name]:14.3f} {res[name] / row['median_ms']:7.2f}x"
            else:
                line += f" {'-':>14s} {'-':>8s}"
        print(line)
    missing = [n for n in peers["torch"] if n not in ours]
    if missing:
        print("not yet in scorch-bench: " + ", ".join(missing))
    print(f"scorch peak RSS: {ours.get('peak_rss', {}).get('peak_rss_mb', float('nan')):.1f} MB")
    print(json.dumps({"scorch": {n: r.get("median_ms") for n, r in ours.items() if "median_ms" in r}, **peers}))


if __name__ == "__main__":
    main()
