"""The 16x8 fixtures (int16 activations, int8 weights) against TFLite Micro + CMSIS-NN's s16 kernels.

Usage: python benchmarks/sixteen_bit.py [--out BENCHMARKS.md]

For each 16x8 fixture of models/ (`*_16x8`, and `mixed_int8_int16`'s int16 head), `vmcu-validate` with
the default plan on `qemu-cortex-m4` and `qemu-cortex-m55` (a run must be bit-exact with the reference
interpreter and TFLite Micro, or the script stops), beside TFLite Micro + CMSIS-NN on the same QEMU
boards; the pool beside TFLite Micro's arena head, also with the input streamed row by row
(`--stream-input`, run bit-exact on `qemu-cortex-m4` too). Writes the "sixteen_bit" section of --out.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sections import write_section  # noqa: E402
from vmcu_reference.inputs import random_inputs  # noqa: E402
from vmcu_tflite.oracle import tflm_arena_bytes  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.validate.run import validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS  # noqa: E402

MODELS = ("kws_dscnn_16x8", "autoencoder_16x8", "lstm_16x8", "gru_16x8", "mixed_int8_int16")
CORES = {"qemu-cortex-m4": 0.7, "qemu-cortex-m55": 0.8}  # core -> the speed target, ours / theirs
TARGETED = ("kws_dscnn_16x8", "autoencoder_16x8")  # the models the speed targets are set for
# TFLite Micro + CMSIS-NN instructions per Invoke() (-O3, seed 3), measured with the speed anchors'
# harness (../shared/perf/anchor for mps2-an386, ../shared/perf/m55 for mps3-an547; TFLite Micro
# 90b983c2, CMSIS-NN 4ab83cc3) with its op resolver extended by these models' operators (TANH,
# SPLIT, PACK, UNPACK, STRIDED_SLICE, SUB, RESIZE_NEAREST_NEIGHBOR, ...). Outputs equal the
# tflite-micro package's.
CMSIS_NN = {
    "qemu-cortex-m4": {"kws_dscnn_16x8": 2_930_560, "autoencoder_16x8": 575_400, "lstm_16x8": 85_600,
                       "gru_16x8": 88_080, "mixed_int8_int16": 36_840},
    "qemu-cortex-m55": {"kws_dscnn_16x8": 2_090_218, "autoencoder_16x8": 249_031, "lstm_16x8": 57_500,
                        "gru_16x8": 71_218, "mixed_int8_int16": 17_031},
}


def measure(path: Path) -> dict:
    """Core -> instructions of the default plan (each core's own tuning), and the pool beside TFLite Micro's
    arena head for the same input."""
    found: dict = {}
    for core in CORES:
        program = compile_model(path, tuning=TARGETS[core].tuning)
        result = validate_program(program, path.read_bytes(), TARGETS[core])
        if not (result.status == 0 and result.matches_reference and result.matches_tflm):
            raise SystemExit(f"{path.name} on {core} is not bit-exact")
        found[core] = result.measurements["instructions"]
        print(f"{path.name} on {core}: {found[core]:,} instructions")
    program = compile_model(path)
    found["pool"] = program.plan.pool_bytes
    streamed = compile_model(path, stream_inputs=[0])
    result = validate_program(streamed, path.read_bytes(), TARGETS["qemu-cortex-m4"])
    if not (result.status == 0 and result.matches_reference and result.matches_tflm):
        raise SystemExit(f"{path.name} with its input streamed is not bit-exact")
    found["streamed"] = streamed.plan.pool_bytes
    found["arena"] = tflm_arena_bytes(path.read_bytes(), random_inputs(program.graph, seed=0))["head"]
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = parser.parse_args(argv)
    results = {name: measure(ROOT / "models" / f"{name}.tflite") for name in MODELS}
    rows = ["| model | TFLM arena head | pool | pool / arena | pool, input streamed | its / arena | core | ours "
            "| TFLM + CMSIS-NN | ours / theirs | target |",
            "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for name, found in results.items():
        memory = (f"{found['arena']:,} | {found['pool']:,} | {found['pool'] / found['arena']:.1%} | "
                  f"{found['streamed']:,} | {found['streamed'] / found['arena']:.1%}")
        for core, target in CORES.items():
            theirs = CMSIS_NN[core].get(name)
            aim = f"{target}x" if name in TARGETED else "-"
            versus = f"{theirs:,} | {found[core] / theirs:.2f}x | {aim}" if theirs else "not measured | | "
            rows.append(f"| {name} | {memory} | {core.removeprefix('qemu-')} | {found[core]:,} | {versus} |")
            memory = " | | | | "
    write_section(args.out, "sixteen_bit", [
        "## 16x8 models", "",
        "The 16x8 fixtures (int16 activations, int8 weights; `mixed_int8_int16` has an int8 backbone and an "
        "int16 head): the pool beside TFLite Micro's arena head, and instructions per inference (QEMU "
        "`-icount`, default plan, bit-exact with TFLite Micro) beside TFLite Micro + CMSIS-NN's s16 kernels on "
        "the same boards: `python benchmarks/sixteen_bit.py`. With `--stream-input` the application hands the "
        "input over row by row (section Streamed inputs); where an int8 chain starts at it (the mixed graph's "
        "backbone) the chain pulls the rows into a ring and the image never exists whole.", "", *rows])
    print(f"wrote the sixteen_bit section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
