"""vmcu-run: execute a model's memory plan in the reference interpreter over the simulated pool.

Inputs come from an .npz file (keys input_0, input_1, ...) or from a seed; outputs can be saved
the same way. --compare-tflm runs TFLite Micro on the same inputs and names the first tensor
that differs; a plan hazard stops the run at the offending byte (exit code 4).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from vmcu_tflite.api import convert
from vmcu_tflite.cli.common import ToolParser, new_file, run_tool, seed
from vmcu_tflite.errors import EXIT_OUTPUTS_DIFFER, DivergenceError
from vmcu_tflite.planner.planners import PLANNERS

from .inputs import load_inputs, save_outputs


def build_parser() -> argparse.ArgumentParser:
    parser = ToolParser(prog="vmcu-run", description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="int8 .tflite model")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--plan", type=Path, help="plan.json written by vmcu-convert")
    source.add_argument("--planner", choices=sorted(PLANNERS), default="vmcu",
                        help="plan with this planner when no --plan is given (default: %(default)s)")
    feed = parser.add_mutually_exclusive_group()
    feed.add_argument("--inputs", type=Path, help=".npz with input_0, input_1, ...")
    feed.add_argument("--seed", type=seed, default=0, help="random inputs from this seed (default: %(default)s)")
    parser.add_argument("--no-fuse", action="store_true", help="plan without fused chains")
    parser.add_argument("--allow-recompute", action="store_true",
                        help="let a chain recompute its first layers' pixels per window instead of keeping their rows "
                             "(fewer bytes, more multiply-accumulates: the report counts them)")
    parser.add_argument("--outputs", type=new_file, help="write output_0, ... to this .npz")
    parser.add_argument("--compare-tflm", action="store_true", help="compare every tensor with TFLite Micro")
    parser.add_argument("--trace", action="store_true", help="log every pool load, store and free on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    program = convert(args.model, planner=args.planner, fuse=not args.no_fuse, allow_recompute=args.allow_recompute,
                      plan=args.plan)
    inputs = load_inputs(args.inputs, program.inputs) if args.inputs else program.random_inputs(args.seed)
    started = time.perf_counter()
    try:
        outputs, divergence = program.run(inputs, compare_tflm=args.compare_tflm, trace=args.trace), None
    except DivergenceError as err:  # the run itself went through: print it, then where TFLite Micro differs
        outputs, divergence = err.outputs, str(err)
    elapsed = time.perf_counter() - started
    print(f"{args.model.name}: {len(program.steps)} steps over a {program.pool_bytes}-byte pool "
          f"({program.plan['planner']} plan), no hazard, {elapsed:.2f} s")
    for i, out in enumerate(outputs):
        flat = out.reshape(-1)
        print(f"output_{i}: {out.dtype}{list(out.shape)} argmax {int(np.argmax(flat))} first {flat[:8].tolist()}")
    if args.outputs:
        save_outputs(args.outputs, outputs)
    if divergence is not None:
        print(divergence)
        return EXIT_OUTPUTS_DIFFER
    if args.compare_tflm:
        print(f"bit-exact with TFLite Micro: {len(outputs)} outputs and {len(program.steps)} step outputs")
    return 0


def entry() -> int:
    return run_tool("vmcu-run", main)
