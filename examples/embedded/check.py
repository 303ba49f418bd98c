#!/usr/bin/env python3
"""The embedded example end to end (ctest label `embedded`): train and export on the host, build the firmware with
arm-none-eabi-gcc, run it on QEMU's mps2-an386 (Cortex-M4F) and check its predictions against the hosted Cpu
backend's. Prints the footprint, the arena and the instructions per inference; writes WORK/report.json.

usage: check.py --source-dir REPO --work-dir DIR --prepare EXE --export EXE [--count N] [--epochs N]
                [--record FILE --config FILE]
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys

FORBIDDEN = {  # symbols a freestanding image must not contain, and why
    "malloc": "heap", "free": "heap", "_sbrk": "heap", "_malloc_r": "heap", "_Znwj": "heap (operator new)",
    "__cxa_throw": "exceptions", "__cxa_allocate_exception": "exceptions", "__gxx_personality_v0": "exceptions",
    "pthread_create": "threads", "fopen": "files", "_open": "files", "printf": "stdio", "_ZSt4cout": "iostreams",
}
INT8_AGREEMENT = 0.98  # firmware int8 classes vs the hosted int8 model's, at least


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, text=True, **kw)


def symbols(elf):
    out = run(["arm-none-eabi-nm", "--defined-only", elf], capture_output=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def footprint(elf):
    out = run(["arm-none-eabi-size", "-A", elf], capture_output=True).stdout
    sections = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\.\S+)\s+(\d+)\s+\d+", out, re.M)}
    flash = sum(sections.get(s, 0) for s in (".vectors", ".text", ".ARM.exidx", ".data"))
    ram = sum(sections.get(s, 0) for s in (".data", ".bss", ".stack"))
    return {"flash": flash, "ram": ram, "sections": sections}


def qemu(elf, timeout):
    cmd = ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "none",
           "-semihosting-config", "enable=on,target=native", "-icount", "shift=0", "-kernel", elf]
    print("+", " ".join(map(str, cmd)), flush=True)
    # Semihosting writes the console to QEMU's stderr.
    done = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)
    if done.returncode != 0 or "done" not in done.stdout.splitlines():
        sys.exit(f"check.py: {elf} exited with {done.returncode}:\n{done.stdout}")
    return done.stdout


def parse(output):
    predicted = [int(m.group(1)) for m in re.finditer(r"^digit \d+ label \d+ predicted (\d+)$", output, re.M)]
    model = re.search(r"^model (\w+) weights (\d+) arena (\d+) reserved (\d+) unplanned (\d+)$", output, re.M)
    instructions = int(re.search(r"^instructions-per-inference (\d+)$", output, re.M).group(1))
    statuses = re.findall(r"^status (\S+) (\w+):", output, re.M)
    layers = [{"node": int(n), "layer": name, "instructions": int(i)}
              for n, name, i in re.findall(r"^layer (\d+) (\S+) instructions (\d+)$", output, re.M)]
    return predicted, model, instructions, statuses, layers


def agreement(a, b):
    return sum(x == y for x, y in zip(a, b)) / max(1, len(a))


def main():
    p = argparse.ArgumentParser()
    for flag in ("--source-dir", "--work-dir", "--prepare", "--export"):
        p.add_argument(flag, required=True)
    p.add_argument("--count", default="200")
    p.add_argument("--epochs", default="5")
    p.add_argument("--record")
    p.add_argument("--config")
    p.add_argument("--timeout", type=int, default=300)
    a = p.parse_args()
    tools = ("arm-none-eabi-g++", "arm-none-eabi-size", "qemu-system-arm")
    missing = [tool for tool in tools if not shutil.which(tool)]
    if missing:
        sys.exit(f"check.py: {', '.join(missing)} not found: scripts/install-deps.sh installs them")
    src, work = pathlib.Path(a.source_dir).resolve(), pathlib.Path(a.work_dir).resolve()
    gen = work / "generated"
    prepare = [a.prepare, "--out-dir", gen, "--count", a.count, "--epochs", a.epochs]
    if a.record:
        prepare += ["--record", a.record, "--config", a.config]
    run(prepare)
    for variant, extra in (("f32", []), ("int8", ["--int8"])):
        record = a.record or gen / "model.mpk"
        run([a.export, record, "--name", "digit_weights", "--namespace", "digit_model", "--config",
             gen / "model-config.json", "--out-dir", gen / variant] + extra)
    build = work / "firmware"
    run(["cmake", "-S", src, "-B", build, "-G", "Ninja", f"-DCMAKE_TOOLCHAIN_FILE={src}/cmake/arm-none-eabi.cmake",
         f"-DSCORCH_EMBEDDED_GENERATED={gen}", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", build])
    expected = json.loads((gen / "expected.json").read_text())
    report, failures = {"digits": len(expected["labels"])}, []
    for variant in ("f32", "int8"):
        elf = build / "embedded" / f"embedded-{variant}.elf"
        defined = symbols(elf)
        found = {s: why for s, why in FORBIDDEN.items() if s in defined}
        rtti = sorted(s for s in defined if s.startswith("_ZTI"))
        if found or rtti:
            failures.append(f"{variant}: the image has {found} {rtti[:5]}")
        predicted, model, instructions, statuses, layers = parse(qemu(elf, a.timeout))
        hosted = expected[f"hosted_{variant}"]
        r = {"footprint": footprint(elf), "weights_bytes": int(model.group(2)), "arena_bytes": int(model.group(3)),
             "unplanned_bytes": int(model.group(5)), "digits_bytes": 785 * len(hosted),
             "instructions_per_inference": instructions, "layers": layers,
             "accuracy": agreement(predicted, expected["labels"]), "agrees_with_hosted": agreement(predicted, hosted),
             "agrees_with_micro_on_host": agreement(predicted, expected[f"micro_host_{variant}"]),
             "statuses": statuses}
        report[variant] = r
        if len(predicted) != len(hosted):
            failures.append(f"{variant}: {len(predicted)} predictions for {len(hosted)} digits")
        if r["agrees_with_micro_on_host"] != 1.0:
            failures.append(f"{variant}: firmware and the micro runtime on the host differ")
        need = 1.0 if variant == "f32" else INT8_AGREEMENT
        if r["agrees_with_hosted"] < need:
            failures.append(f"{variant}: agrees with the hosted Cpu build on "
                            f"{r['agrees_with_hosted']:.3f} < {need}")
        if int(model.group(3)) != expected[f"arena_{variant}"]:
            failures.append(f"{variant}: firmware planned {model.group(3)} arena bytes, "
                            f"the host {expected[f'arena_{variant}']}")
        if [s[1] for s in statuses] != ["arena", "shape", "missing"]:
            failures.append(f"{variant}: status checks returned {statuses}")
        fp = r["footprint"]
        print(f"embedded {variant}: flash {fp['flash']} B (weights {r['weights_bytes']} B, test digits "
              f"{r['digits_bytes']} B), RAM {fp['ram']} B (arena "
              f"{r['arena_bytes']} B, {r['unplanned_bytes']} B unplanned), {instructions} instructions per inference, "
              f"accuracy {r['accuracy']:.3f}, agrees with hosted {variant} {r['agrees_with_hosted']:.3f}")
    (work / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    if failures:
        sys.exit("check.py: " + "; ".join(failures))
    print("embedded: ok")


if __name__ == "__main__":
    main()
