"""Time of the reference interpreter per model: compile (read, passes, prepare, plan) and one run.

Usage: python benchmarks/interpreter_time.py [MODEL.tflite ...]
Without arguments: every model in models/ and in ../shared/models. Prints a Markdown table; the
goal for mcunet-320kb-1mb_imagenet.tflite is under 60 s for one run on a 2-core machine.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from vmcu_reference.inputs import random_inputs
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.pipeline import compile_model

ROOT = Path(__file__).resolve().parent.parent


def default_models() -> list[Path]:
    shared = ROOT.parent / "shared" / "models"
    return sorted((ROOT / "models").glob("*.tflite")) + (sorted(shared.glob("*.tflite")) if shared.is_dir() else [])


def measure(model: Path, repeats: int = 3) -> tuple[int, int, float, float]:
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
    return len(program.steps), program.plan.macs, compiled, min(runs)


def main(argv: list[str]) -> int:
    models = [Path(a) for a in argv] or default_models()
    print("| model | steps | MACs | compile s | run s (best of 3) |")
    print("|---|---:|---:|---:|---:|")
    for model in models:
        steps, macs, compiled, run = measure(model)
        print(f"| {model.stem} | {steps} | {macs:,} | {compiled:.2f} | {run:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
