"""Instructions per inference on the emulated Cortex-M boards, beside TFLite Micro + CMSIS-NN and TinyEngine.

Usage: python benchmarks/latency.py [--out BENCHMARKS.md]

For every real model (../shared/models, skipped when absent): the generated C of the fused vMCU
plan, of the plan without fusion and of the tensor-level plan on qemu-cortex-m4, and of the fused
plan on qemu-cortex-m7 (`vmcu-validate`, bit-exact with the reference interpreter and TFLite
Micro or the script stops); then, from profiled runs of the fused and the unfused plans
(`--profile`), the instructions per multiply-accumulate of each kernel type: the unfused plan
runs each TFLite layer as its own step, the basis of the peers' per-layer figures; and, for the
models where --allow-recompute lowers the pool, the fused plan with it on qemu-cortex-m4. Writes the
"latency" section of --out (benchmarks/sections.py), next to what benchmarks/memory.py writes.

The peers' figures are constants below: TFLite Micro with its CMSIS-NN kernels and TinyEngine
(the paper's baseline, C generated per model, not bit-exact: it requantizes in float), measured
once on the same board (QEMU mps2-an386, -icount shift=0, SysTick), the same arm-none-eabi-gcc
12.2, flags and board code, counting only the inference call.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sections import write_section  # noqa: E402
from benchmarks.shared_models import shared_models  # noqa: E402
from vmcu_tflite.kernels import is_pointwise  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.validate.run import validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS  # noqa: E402

MODELS = ("mlperf-kws-dscnn", "tflm-person_detect", "mcunet-vww1", "mcunet-320kb-1mb_imagenet", "mlperf-ad01")

# Instructions per inference on qemu-cortex-m4: TFLite Micro + CMSIS-NN (its own -Os/-O2 flags) and
# TinyEngine (-O3), or None where it was not measured or cannot run the model.
PEERS = {
    "mlperf-kws-dscnn": (7_696_800, None, "TinyEngine's generator refuses the 10x4 conv"),
    "tflm-person_detect": (22_929_280, 18_715_400, "TinyEngine's output is wrong on this model"),
    "mcunet-vww1": (48_596_520, 34_753_200, ""),
    "mcunet-320kb-1mb_imagenet": (395_299_680, 239_845_320, ""),
    "mlperf-ad01": (None, None, ""),
}

# Instructions per MAC by kernel type: CMSIS-NN (range over the models) and TinyEngine (MCUNet-320KB).
PEER_KERNELS = {
    "pointwise": ("2.09-2.81", "2.13"),
    "depthwise 3x3": ("8.3-9.2", "6.28"),
    "depthwise 5x5": ("7.1-9.9", "4.52"),
    "depthwise 7x7": ("7.1-9.9", "3.55"),
    "conv (stem)": ("3.5-4.8", "1.98"),
    "fully connected": ("3.3-3.8", ""),
}


def kernel_type(step) -> str:
    """The row a step's instructions go to in the per-kernel table."""
    p = step.params
    if step.kernel == "CONV_2D":
        return "pointwise" if is_pointwise(p) else "conv (stem)"
    if step.kernel == "DEPTHWISE_CONV_2D":
        k = p.filter.shape[1]
        return f"depthwise {k}x{k}"
    if step.kernel == "LAYER_CHAIN":
        windows = sorted({layer.filter.shape[1] for layer in p.layers if hasattr(layer, "depth_multiplier")})
        return f"chain, depthwise {'/'.join(f'{k}x{k}' for k in windows) or 'none'}"
    return "fully connected" if step.kernel == "FULLY_CONNECTED" else step.kernel


def measure(path: Path, program, board: str, profile: bool = False):
    """Build and run `program` on `board`; stop the script if its outputs are not bit-exact."""
    result = validate_program(program, path.read_bytes(), TARGETS[board], seed=0, profile=profile)
    if not (result.matches_reference and result.matches_tflm is not False):
        raise SystemExit(f"{path.name} ({program.plan.planner} plan) on {board}: outputs differ")
    return result


def ratio(ours: int, peers: tuple) -> str:
    fastest = min((p for p in peers[:2] if p), default=None)
    return f"{ours / fastest:.2f}" if fastest else ""


def number(value) -> str:
    return f"{value:,}" if value else "-"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = parser.parse_args(argv)
    models = shared_models(MODELS)
    if not models:
        return 0
    rows = ["| model | vMCU fused, M4 | no fusion, M4 | tensor planner, M4 | vMCU fused, M7 | TFLM + CMSIS-NN, M4 "
            "| TinyEngine, M4 | fused / fastest peer |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    kernels = {plan: defaultdict(dict) for plan in ("fused", "unfused")}  # plan -> type -> model -> [instr, MACs]
    recompute_rows = ["| model | pool | with --allow-recompute | instructions, M4 | with --allow-recompute | ratio |",
                      "|---|---:|---:|---:|---:|---:|"]
    for path in models:
        name = path.stem
        program, unfused_program = compile_model(path, "vmcu", True), compile_model(path, "vmcu", False)
        fused = measure(path, program, "qemu-cortex-m4", profile=True)
        unfused = measure(path, unfused_program, "qemu-cortex-m4", profile=True)
        totals = [fused.measurements["instructions"], unfused.measurements["instructions"],
                  measure(path, compile_model(path, "tensor", False), "qemu-cortex-m4").measurements["instructions"],
                  measure(path, program, "qemu-cortex-m7").measurements["instructions"]]
        tflm, tinyengine, note = PEERS[name]
        rows.append(f"| {name} | " + " | ".join(f"{t:,}" for t in totals)
                    + f" | {number(tflm)} | {number(tinyengine)}{f' ({note})' if note else ''} | "
                      f"{ratio(totals[0], (tflm, tinyengine))} |")
        for plan, prog, result in (("fused", program, fused), ("unfused", unfused_program, unfused)):
            for step, count in zip(prog.steps, result.step_instructions):
                if step.macs:
                    entry = kernels[plan][kernel_type(step)].setdefault(name, [0, 0])
                    entry[0] += count
                    entry[1] += step.macs
        allowed = compile_model(path, "vmcu", True, recompute=True)
        if any(f.fused and f.recompute for f in allowed.plan.fusion):
            slower = measure(path, allowed, "qemu-cortex-m4").measurements["instructions"]
            recompute_rows.append(f"| {name} | {program.plan.pool_bytes:,} | {allowed.plan.pool_bytes:,} | "
                                  f"{totals[0]:,} | {slower:,} | {slower / totals[0]:.2f} |")
        print(f"measured {name}: {totals[0]:,} instructions (fused, qemu-cortex-m4)")
    kernel_rows = {}
    for plan, found in kernels.items():
        kernel_rows[plan] = [f"| kernel type | vMCU, instructions/MAC per model ({plan} plan, M4) | CMSIS-NN | TinyEngine |",
                             "|---|---|---:|---:|"]
        for kind in sorted(found):
            per_model = ", ".join(f"{m} {i / macs:.2f}" for m, (i, macs) in sorted(found[kind].items()))
            cmsis, tinyengine = PEER_KERNELS.get(kind, ("", ""))
            kernel_rows[plan].append(f"| {kind} | {per_model} | {cmsis} | {tinyengine} |")
    write_section(args.out, "latency", [
        "## Latency",
        "",
        "Produced by `python benchmarks/latency.py`. Instructions per inference of the generated C on QEMU's",
        "Cortex-M4 (mps2-an386) and Cortex-M7 (mps2-an500) boards, `-icount shift=0`, counted with SysTick around",
        "`vmcu_invoke()`: instructions, not cycles. Every run is bit-exact with TFLite Micro. The peers were",
        "measured on the same M4 board, compiler, flags and board code: TFLite Micro with its CMSIS-NN kernels",
        "(what users run today) and TinyEngine (C generated per model; not bit-exact, it requantizes in float).",
        "",
        *rows,
        "",
        "Per kernel type, from `vmcu-validate --profile` on the plan without fusion (each TFLite layer its own",
        "step, as the peers' per-layer figures; the planner still picks in-place depthwise with one-channel planes",
        "where the pool needs them), and on the fused plan (a chain's MACs are all its layers'). The",
        "peers' figures are over the same models' layers of that type.",
        "",
        *kernel_rows["unfused"],
        "",
        *kernel_rows["fused"],
        "",
        "With `--allow-recompute` (fused plans, M4, bit-exact): the pool bytes it saves against the instructions",
        "the recomputed multiply-accumulates cost (BENCHMARKS.md, Recomputation, counts them).",
        "",
        *recompute_rows,
    ])
    print(f"wrote the latency section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
