"""vmcu-validate: convert a model, build the C for a target, run it, compare with the reference and TFLite Micro.

Exit 0 when the C outputs equal the reference interpreter's and TFLite Micro's bit for bit,
1 when they differ.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ..errors import EXIT_OUTPUTS_DIFFER
from ..planner.planners import PLANNERS
from ..pipeline import compile_model
from ..validate.run import require, validate_program
from ..validate.targets import TARGETS
from .common import ToolParser, folder, run_tool, seed

# How each measurement is printed, in this order; any other measurement follows under its own name.
MEASUREMENT_LABELS = {
    "pool_bytes": "RAM   pool (static array in .bss)",
    "data_bss_without_pool_bytes": "RAM   .data + .bss without the pool",
    "data_bss_bytes": "RAM   .data + .bss with the pool",
    "stack_bytes": "RAM   stack high-water mark",
    "heap_bytes": "RAM   heap (newlib stdio, before printing)",
    "ram_total_bytes": "RAM   total (.data + .bss + stack + heap)",
    "flash_bytes": "flash image (.text + .rodata + .data load)",
    "flash_model_bytes": "flash of it: the model (tables, weights, generated kernels)",
    "flash_runtime_bytes": "flash of it: the runtime (hand-written kernels)",
    "flash_input_bytes": "flash of it: the harness's baked-in input",
    "instructions": "instructions (QEMU -icount, not cycles)",
}


def format_measurements(measurements: dict[str, int]) -> list[str]:
    """One aligned line per measurement: byte counts say `bytes`, the instruction count says what it is."""
    names = [n for n in MEASUREMENT_LABELS if n in measurements] + [n for n in measurements if n not in MEASUREMENT_LABELS]
    labels = {n: MEASUREMENT_LABELS.get(n, n) for n in names}
    width = max((len(label) for label in labels.values()), default=0)
    return [f"  {labels[n]:<{width}}  {measurements[n]:>12,}{' bytes' if n.endswith('_bytes') else ''}"
            for n in names]


def format_profile(program, counts: list[int]) -> list[str]:
    """One line per step: its kernel, the TFLite operators it runs, MACs, instructions, instructions/MAC."""
    kinds = {op.index: op.kind for op in program.graph.ops}
    rows = [("step", "kernel", "TFLite ops", "MACs", "instructions", "instr/MAC")]
    for step, count in zip(program.steps, counts):
        ops = " ".join(f"{kinds.get(i, 'folded')}#{i}" for i in step.ops)  # folded: a PAD merged into its conv
        rows.append((str(step.index), step.kernel, ops, f"{step.macs:,}", f"{count:,}",
                     f"{count / step.macs:.2f}" if step.macs else "-"))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(cell.rjust(w) if k in (0, 3, 4, 5) else cell.ljust(w)
                             for k, (cell, w) in enumerate(zip(row, widths))).rstrip() for row in rows]


def build_parser() -> argparse.ArgumentParser:
    parser = ToolParser(prog="vmcu-validate", description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="int8 .tflite model")
    parser.add_argument("--target", choices=sorted(TARGETS), default="host")
    parser.add_argument("--seed", type=seed, default=0, help="random input seed (default: %(default)s)")
    parser.add_argument("--planner", choices=sorted(PLANNERS), default="vmcu")
    parser.add_argument("--no-fuse", action="store_true", help="plan without fused chains")
    parser.add_argument("--allow-recompute", action="store_true",
                        help="let a chain recompute its first layers' pixels per window instead of keeping their rows "
                             "(fewer bytes, more multiply-accumulates: the report counts them)")
    parser.add_argument("--keep", type=folder, help="build in this folder and keep it")
    parser.add_argument("--profile", action="store_true",
                        help="QEMU targets: also build with a counter around every kernel call and print one line "
                             "per step (totals stay those of the unprofiled run)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    target = TARGETS[args.target]
    require(target, args.profile)
    program = compile_model(args.model, args.planner, not args.no_fuse, recompute=args.allow_recompute)
    result = validate_program(program, args.model.read_bytes(), target, args.seed, args.keep, profile=args.profile)
    print(f"{args.model.name} on {result.target}: status {result.status}, pool {result.pool_bytes:,} bytes")
    for line in format_measurements(result.measurements):
        print(line)
    if result.step_instructions is not None:
        for line in format_profile(program, result.step_instructions):
            print(line)
    print(f"  matches the reference interpreter: {'yes' if result.matches_reference else 'NO'}")
    print(f"  matches TFLite Micro: {'yes' if result.matches_tflm else 'not measured' if result.matches_tflm is None else 'NO'}")
    return 0 if result.matches_reference and result.matches_tflm is not False else EXIT_OUTPUTS_DIFFER


def entry() -> int:
    return run_tool("vmcu-validate", main)
