"""vmcu-validate: convert a model, build the C for a target, run it, compare with the reference and TFLite Micro.

Exit 0 when the C outputs equal the reference interpreter's and TFLite Micro's bit for bit,
1 when they differ.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ..api import check_target, convert
from ..errors import EXIT_OUTPUTS_DIFFER
from ..planner.planners import PLANNERS
from ..validate.mbed import TARBALL
from ..validate.targets import TARGETS
from ..validate.zephyr import TARBALL as ZEPHYR_TARBALL
from .common import ToolParser, add_stream_arguments, add_widened_argument, folder, run_tool, seed

# How each measurement is printed, in this order; any other measurement follows under its own name.
MEASUREMENT_LABELS = {
    "pool_bytes": "RAM   pool (static array in .bss)",
    "scratch_bytes": "RAM   scratch (static array in .bss)",
    "mbed_data_bss_bytes": "RAM   Mbed's own .data + .bss (RTOS, drivers, stdio, main stack)",
    "zephyr_data_bss_bytes": "RAM   Zephyr's own .data + .bss + noinit (kernel, drivers, main, idle and ISR stacks)",
    "thread_stack_reserved_bytes": "RAM   the inference thread's stack (static array in .bss)",
    "data_bss_without_pool_bytes": "RAM   .data + .bss without the pool",
    "data_bss_bytes": "RAM   .data + .bss with the pool",
    "stack_bytes": "RAM   stack high-water mark (Mbed, Zephyr: the inference thread's)",
    "heap_bytes": "RAM   heap (newlib stdio before printing; Mbed: its heap statistics' high-water mark)",
    "ram_total_bytes": "RAM   total (.data + .bss + stack + heap)",
    "flash_bytes": "flash image (.text + .rodata + .data load)",
    "flash_model_bytes": "flash of it: the model (tables, weights, generated kernels)",
    "flash_runtime_bytes": "flash of it: the runtime (hand-written kernels)",
    "flash_input_bytes": "flash of it: the harness's baked-in input",
    "instructions": "instructions (QEMU -icount, not cycles)",
}

# What an Mbed or Zephyr build costs, beside the bare-metal harness on the same board: (label, the RTOS build's
# measurement, the bare-metal one).
MBED_COMPARISON = (
    ("pool", "pool_bytes", "pool_bytes"),
    (".data + .bss besides pool, scratch, thread stack", "mbed_data_bss_bytes", "data_bss_without_pool_bytes"),
    ("stack high-water mark", "stack_bytes", "stack_bytes"),
    ("heap", "heap_bytes", "heap_bytes"),
    ("flash", "flash_bytes", "flash_bytes"),
    ("instructions of vmcu_invoke()", "instructions", "instructions"),
)
ZEPHYR_COMPARISON = (
    ("pool", "pool_bytes", "pool_bytes"),
    (".data + .bss besides pool, scratch, state, thread stack", "zephyr_data_bss_bytes", "data_bss_without_pool_bytes"),
    ("stack high-water mark", "stack_bytes", "stack_bytes"),
    ("flash", "flash_bytes", "flash_bytes"),
    ("flash of it: the model", "flash_model_bytes", "flash_model_bytes"),
    ("flash of it: the runtime", "flash_runtime_bytes", "flash_runtime_bytes"),
    ("instructions of vmcu_invoke()", "instructions", "instructions"),
)


def format_measurements(measurements: dict[str, int]) -> list[str]:
    """One aligned line per measurement: byte counts say `bytes`, the instruction count says what it is."""
    names = [n for n in MEASUREMENT_LABELS if n in measurements] + [n for n in measurements if n not in MEASUREMENT_LABELS]
    labels = {n: MEASUREMENT_LABELS.get(n, n) for n in names}
    width = max((len(label) for label in labels.values()), default=0)
    return [f"  {labels[n]:<{width}}  {measurements[n]:>12,}{' bytes' if n.endswith('_bytes') else ''}"
            for n in names]


def format_comparison(mbed: dict[str, int], bare: dict[str, int], target: str, baseline: str) -> list[str]:
    """An Mbed or Zephyr build's figures beside the bare-metal harness's, line by line, with the difference."""
    system = "Zephyr" if target.startswith("zephyr-") else "Mbed"
    rows = [("", target, baseline, f"{system} costs")]
    for label, ours, theirs in ZEPHYR_COMPARISON if system == "Zephyr" else MBED_COMPARISON:
        if ours in mbed and theirs in bare:
            rows.append((label, f"{mbed[ours]:,}", f"{bare[theirs]:,}", f"{mbed[ours] - bare[theirs]:+,}"))
    return _aligned(rows, left={0})


def format_profile(steps, counts: list[int]) -> list[str]:
    """One line per step (`Program.steps`): its kernel, the TFLite operators it runs, MACs,
    instructions, instructions/MAC."""
    rows = [("step", "kernel", "TFLite ops", "MACs", "instructions", "instr/MAC")]
    for step, count in zip(steps, counts):
        ops = " ".join(f"{kind}#{i}" for kind, i in zip(step.op_kinds, step.ops))
        rows.append((str(step.index), step.kernel, ops, f"{step.macs:,}", f"{count:,}",
                     f"{count / step.macs:.2f}" if step.macs else "-"))
    return _aligned(rows, left={1, 2})


def _aligned(rows: list[tuple[str, ...]], left: set[int]) -> list[str]:
    """The rows as text columns, indented: the columns in `left` flush left, the others (numbers) right."""
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) if k in left else cell.rjust(w)
                             for k, (cell, w) in enumerate(zip(row, widths))).rstrip() for row in rows]


def build_parser() -> argparse.ArgumentParser:
    parser = ToolParser(prog="vmcu-validate", description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="int8 .tflite model")
    parser.add_argument("--target", choices=sorted(TARGETS), default="host")
    parser.add_argument("--seed", type=seed, default=0, help="random input seed (default: %(default)s)")
    parser.add_argument("--planner", choices=sorted(PLANNERS), default="vmcu")
    parser.add_argument("--no-fuse", action="store_true", help="plan without fused chains")
    parser.add_argument("--allow-recompute", action="store_true",
                        help="let a chain recompute some layers' pixels per window instead of keeping their rows "
                             "(fewer bytes, more multiply-accumulates: the report counts them)")
    parser.add_argument("--mbed-os", type=Path, help="mbed-* targets: the Mbed CE source, an extracted tree or a "
                        f"folder holding {TARBALL} (default: $VMCU_MBED_OS, else ../shared/mbed-ce)")
    parser.add_argument("--zephyr", type=Path, help="zephyr-* targets: the Zephyr source, a west workspace or a "
                        f"folder holding {ZEPHYR_TARBALL} (default: $VMCU_ZEPHYR_BASE, else ../shared/zephyr)")
    parser.add_argument("--keep", type=folder, help="build in this folder and keep it")
    add_stream_arguments(parser)
    add_widened_argument(parser)
    parser.add_argument("--profile", action="store_true",
                        help="QEMU targets: also build with a counter around every kernel call and print one line "
                             "per step (totals stay those of the unprofiled run)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    target = check_target(args.target, args.profile, args.mbed_os, args.zephyr)  # before planning: a missing tool fails at once
    program = convert(args.model, planner=args.planner, fuse=not args.no_fuse, allow_recompute=args.allow_recompute,
                      tuning=target.tuning,  # the kernels shaped for the target's core
                      stream_inputs=args.stream_input, stream_outputs=args.stream_output,
                      widened_weights=target.widened_weights if args.widened_weights is None else args.widened_weights)
    result = program.validate(args.target, args.seed, keep=args.keep, profile=args.profile, mbed_os=args.mbed_os,
                             zephyr=args.zephyr)
    print(f"{args.model.name} on {result.target}: status {result.status}, pool {program.pool_bytes:,} bytes")
    for line in format_measurements(result.measurements):
        print(line)
    if result.baseline is not None:  # an Mbed or Zephyr build: the same model on the same board without it
        for line in format_comparison(result.measurements, result.baseline.measurements, result.target,
                                      result.baseline.target):
            print(line)
    if result.step_instructions is not None:
        for line in format_profile(program.steps, result.step_instructions):
            print(line)
    runs = [result] + ([result.baseline] if result.baseline is not None else [])
    for run in runs:
        on = f" ({run.target})" if len(runs) > 1 else ""
        print(f"  matches the reference interpreter{on}: {'yes' if run.matches_reference else 'NO'}")
        print(f"  matches {program.oracle}{on}: "
              f"{'yes' if run.matches_tflm else 'not measured' if run.matches_tflm is None else 'NO'}")
    return 0 if all(run.bit_exact for run in runs) else EXIT_OUTPUTS_DIFFER


def entry() -> int:
    return run_tool("vmcu-validate", main)
