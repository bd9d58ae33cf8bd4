"""Every shared model on every core: instructions per inference, RAM and flash, bit-exact.

Usage: python benchmarks/cores.py [--out BENCHMARKS.md] [--models NAME ...] [--targets NAME ...]

For each model of ../shared/models (skipped when absent) and each QEMU core target
(qemu-cortex-m0, -m3, -m4, -m7, -m33, -m55, qemu-riscv32), `vmcu-validate` with the default plan: a run must be
bit-exact with the reference interpreter and TFLite Micro or the script stops; a model that does
not fit a board is listed with the one-line reason vmcu-validate gives. The Cortex-M55 column is
set beside TFLite Micro + CMSIS-NN's Helium kernels on the same QEMU board (`../shared/perf/m55`,
measured by its own scripts), the RISC-V column beside TFLite Micro's reference kernels on the same
`virt` board (benchmarks/tflm_riscv/results.json, written by benchmarks/tflm_riscv/run_tflm.py, which
builds TFLM and is not run from here). Writes the "cores" section of --out (benchmarks/sections.py).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.latency import kernel_type  # noqa: E402
from benchmarks.sections import write_section  # noqa: E402
from benchmarks.shared_models import shared_models  # noqa: E402
from vmcu_tflite.errors import BudgetError  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.validate.run import validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS  # noqa: E402

CORES = ("qemu-cortex-m0", "qemu-cortex-m3", "qemu-cortex-m4", "qemu-cortex-m7", "qemu-cortex-m33", "qemu-cortex-m55",
         "qemu-riscv32")
# TFLite Micro + CMSIS-NN (MVE) instructions per Invoke() on mps3-an547 (../shared/perf/m55/results.md)
CMSIS_NN_M55 = {"mlperf-kws-dscnn": 1_784_562, "tflm-person_detect": 6_383_687, "mcunet-vww1": 11_840_937,
                "mcunet-320kb-1mb_imagenet": 81_890_468}
# TFLite Micro's reference kernels on qemu-riscv32, with our toolchain, flags and board (tflm_riscv/run_tflm.py)
TFLM_RISCV = ROOT / "benchmarks" / "tflm_riscv" / "results.json"
RISCV_TARGET = 0.5  # issue 42: our RV32IMAC figures at most half of TFLM's reference kernels'


def measure(path: Path, targets: list[str]) -> dict[str, dict | str]:
    """Target -> measurements, or the reason the model does not fit; each target runs the model converted
    with its core's kernel tuning (`vmcu-validate`'s default)."""
    kinds = {(TARGETS[t].tuning, TARGETS[t].widened_weights) for t in targets}
    programs = {(tuning, share): compile_model(path, tuning=tuning, widened=share) for tuning, share in kinds}
    found: dict[str, dict | str] = {}
    for target in targets:
        kind = (TARGETS[target].tuning, TARGETS[target].widened_weights)
        try:
            result = validate_program(programs[kind], path.read_bytes(), TARGETS[target])
        except BudgetError as err:
            found[target] = str(err)
            print(f"{path.name} on {target}: {err}")
            continue
        if not (result.status == 0 and result.matches_reference and result.matches_tflm):
            raise SystemExit(f"{path.name} on {target} is not bit-exact")
        found[target] = result.measurements
        print(f"{path.name} on {target}: {result.measurements['instructions']:,} instructions")
    return found


def table(results: dict[str, dict[str, dict | str]], targets: list[str]) -> list[str]:
    head = ["| model | " + " | ".join(t.removeprefix("qemu-") for t in targets) + " |",
            "|---|" + "---:|" * len(targets)]
    rows = []
    for model, found in results.items():
        cells = [f"{m['instructions']:,}" if isinstance(m, dict) else "does not fit" for m in
                 (found[t] for t in targets)]
        rows.append(f"| {model} | " + " | ".join(cells) + " |")
    return head + rows


def m55_rows(results: dict[str, dict[str, dict | str]]) -> list[str]:
    rows = ["| model | ours | TFLM + CMSIS-NN (MVE) | ours / theirs | target (0.8x) |", "|---|---:|---:|---:|---:|"]
    for model, found in results.items():
        ours, theirs = found.get("qemu-cortex-m55"), CMSIS_NN_M55.get(model)
        if isinstance(ours, dict) and theirs:
            rows.append(f"| {model} | {ours['instructions']:,} | {theirs:,} | {ours['instructions'] / theirs:.2f}x | "
                        f"{int(theirs * 0.8):,} |")
    return rows


def tflm_riscv(path: Path = TFLM_RISCV) -> dict:
    """run_tflm.py's record, read rather than measured here: building TFLM takes minutes and a TFLM
    source tree the repository does not hold. Empty when the file is absent."""
    return json.loads(path.read_text()) if path.is_file() else {}


def riscv_rows(results: dict[str, dict[str, dict | str]], anchor: dict) -> list[str]:
    """Our qemu-riscv32 column beside TFLM's reference kernels, model by model; a model TFLM could not
    run (or whose outputs differed from the tflite-micro package's) is listed with the reason."""
    rows = [f"| model | ours | TFLM reference kernels | ours / theirs | target ({RISCV_TARGET}x) |",
            "|---|---:|---:|---:|---:|"]
    theirs_all = anchor.get("models", {})
    for model, found in results.items():
        ours, theirs = found.get("qemu-riscv32"), theirs_all.get(model)
        if not isinstance(ours, dict) or not theirs:
            continue
        if theirs.get("error") or not theirs.get("outputs_match_tflite_micro_python"):
            reason = (theirs.get("error") or "outputs differ").splitlines()[-1][:100]
            rows.append(f"| {model} | {ours['instructions']:,} | not measured: {reason} | | |")
            continue
        n = theirs["instructions"]
        rows.append(f"| {model} | {ours['instructions']:,} | {n:,} | {ours['instructions'] / n:.2f}x | "
                    f"{int(n * RISCV_TARGET):,} |")
    return rows


def riscv_lines(results: dict[str, dict[str, dict | str]], anchor: dict) -> list[str]:
    """The RISC-V comparison with how TFLM was built, so that the figures can be reproduced."""
    if not anchor or not any("qemu-riscv32" in found for found in results.values()):
        return []
    return ["", "RISC-V (RV32IMAC) against TensorFlow Lite Micro's reference kernels (its RISC-V port has no "
                "optimized ones) on the same `virt` board: instructions per `Invoke()`, TFLM "
                f"{anchor.get('tflm_commit', '?')[:8]} built with the same toolchain file, compiler "
                f"({anchor.get('compiler', '?')}), flags and CMake Release, the same board support and `-icount`, "
                "outputs equal to the tflite-micro package's for the same seeded input "
                "(`python benchmarks/tflm_riscv/run_tflm.py`; arena bytes there). A model with a float input "
                "(mcunet-vww1) has TFLM run its QUANTIZE, which our harness does on the host:", "",
            *riscv_rows(results, anchor)]


def m55_kernel_rows(models: list[Path]) -> list[str]:
    """Instructions per MAC by kernel type on the Cortex-M55, from profiled runs of the plans without
    fusion (each layer its own step), as latency.py's M4 table."""
    found: dict[str, dict[str, list[int]]] = {}
    for path in models:
        program = compile_model(path, "vmcu", False, tuning=TARGETS["qemu-cortex-m55"].tuning)
        result = validate_program(program, path.read_bytes(), TARGETS["qemu-cortex-m55"], profile=True)
        if not (result.status == 0 and result.matches_reference and result.matches_tflm):
            raise SystemExit(f"{path.name} (no fusion) on qemu-cortex-m55 is not bit-exact")
        for step, count in zip(program.steps, result.step_instructions):
            if step.macs:
                entry = found.setdefault(kernel_type(step), {}).setdefault(path.stem, [0, 0])
                entry[0] += count
                entry[1] += step.macs
    rows = ["| kernel type | instructions/MAC per model (no fusion, M55) |", "|---|---|"]
    for kind in sorted(found):
        rows.append(f"| {kind} | " + ", ".join(f"{m} {i / macs:.2f}" for m, (i, macs) in sorted(found[kind].items()))
                    + " |")
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    parser.add_argument("--models", nargs="*", help="model stems (default: every shared model)")
    parser.add_argument("--targets", nargs="*", default=list(CORES))
    args = parser.parse_args(argv)
    models = [m for m in shared_models() if not args.models or m.stem in args.models]
    if not models:
        print("no shared models: nothing to measure")
        return 0
    results = {m.stem: measure(m, args.targets) for m in models}
    misfits = [f"- {model} on {target}: {reason}" for model, found in results.items()
               for target, reason in found.items() if isinstance(reason, str)]
    ram = {model: {t: m["ram_total_bytes"] for t, m in found.items() if isinstance(m, dict)}
           for model, found in results.items()}
    lines = ["## Every core", "",
             "Instructions per inference (QEMU `-icount`, default plan, bit-exact with TFLite Micro) of every shared "
             "model on every core target: `python benchmarks/cores.py`. The Cortex-M0, M3 and RISC-V (RV32IMAC) "
             "build the portable C, the M4, M7 and M33 the DSP-extension path, the M55 the Helium path (dot "
             "products, depthwise, requantization and ADD; the rest takes the DSP path), each converted with its "
             "core's kernel tuning (`vmcu-convert --target`: `helium` on the M55, `dsp` elsewhere).", "",
             *table(results, args.targets), "",
             "RAM (`.data` + `.bss` + stack + heap) is the same on every core to within the stack: "
             + "; ".join(f"{model} {min(r.values()):,}-{max(r.values()):,} bytes" for model, r in ram.items() if r)
             + ".", ""]
    if misfits:
        lines += ["Models that do not fit a board (refused before building, or when linking):", "", *misfits, ""]
    lines += ["Cortex-M55 against TFLite Micro + CMSIS-NN with its Helium kernels on the same `mps3-an547` board:", "",
              *m55_rows(results), *riscv_lines(results, tflm_riscv())]
    if "qemu-cortex-m55" in args.targets:
        lines += ["", "Per kernel type on the Cortex-M55 (`vmcu-validate --profile`, plans without fusion; the M4's are "
                      "in the latency section; CMSIS-NN's Helium pointwise kernels take 0.40-0.63):", "",
                  *m55_kernel_rows(models)]
    write_section(args.out, "cores", lines)
    print(f"wrote the cores section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
