"""Time of the reference interpreter per model: compile (read, passes, prepare, plan) and one run.

Usage: python benchmarks/interpreter_time.py [--out BENCHMARKS.md] [MODEL.tflite ...]

A run executes every step over the simulated pool: the memory traffic of each kernel
description checked byte by byte, its arithmetic executed over the loaded bytes, and its output
checked against TFLite's formula. Without model arguments: the real models of ../shared/models
(skipped when absent), and the "interpreter_time" section of --out (benchmarks/sections.py) is
written; with arguments, the table is only printed. The goal for mcunet-320kb-1mb_imagenet is at
most 30 s for one run on a 2-core machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sections import write_section  # noqa: E402
from benchmarks.shared_models import shared_models  # noqa: E402
from vmcu_reference.inputs import random_inputs  # noqa: E402
from vmcu_reference.interpreter import Interpreter  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402

GOAL_SECONDS = 30.0  # one MCUNet-320KB-ImageNet run


def measure(model: Path, repeats: int = 3) -> tuple[int, int, float, float, float]:
    """(steps, MACs, compile seconds, first run seconds, best run seconds) of the default plan. The
    first run is what `vmcu-run` does: it also reads each step's constants back from its C."""
    started = time.perf_counter()
    program = compile_model(model)
    compiled = time.perf_counter() - started
    interpreter = Interpreter(program)
    inputs = random_inputs(program.graph, seed=1)
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        interpreter.run(inputs)
        runs.append(time.perf_counter() - started)
    return len(program.steps), program.plan.macs, compiled, runs[0], min(runs)


def table(models: list[Path]) -> list[str]:
    rows = ["| model | steps | MACs | compile s | first run s | best of 3 runs s |", "|---|---:|---:|---:|---:|---:|"]
    for model in models:
        steps, macs, compiled, first, best = measure(model)
        rows.append(f"| {model.stem} | {steps} | {macs:,} | {compiled:.2f} | {first:.2f} | {best:.2f} |")
        print(rows[-1])
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    parser.add_argument("models", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.models:
        table(args.models)
        return 0
    models = shared_models()
    if not models:
        return 0
    rows = table(models)
    write_section(args.out, "interpreter_time", [
        "## Reference interpreter time", "",
        "Measured by `python benchmarks/interpreter_time.py` on a 2-core machine: compiling the model (read, passes, "
        "prepare, plan) and one run of `vmcu-run`'s interpreter, which checks every load, store and free of each kernel "
        "description over the byte-tagged pool, executes the description's arithmetic over the bytes it loads "
        "(vectorized over loop instances) and compares each step's output with TFLite's formula. The goal: "
        f"MCUNet-320KB-ImageNet in at most {GOAL_SECONDS:.0f} s.", "", *rows])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
