"""vmcu-run: execute a model's memory plan in the reference interpreter over the simulated pool.

Inputs come from an .npz file (keys input_0, input_1, ...) or from a seed; outputs can be saved
the same way. --compare-tflm runs TFLite Micro on the same inputs and names the first tensor
that differs; a plan hazard stops the run at the offending byte (exit code 4).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from vmcu_tflite.cli.common import ToolParser, new_file, run_tool, seed
from vmcu_tflite.errors import EXIT_OUTPUTS_DIFFER, UsageError
from vmcu_tflite.pipeline import Program, compile_graph, program_for_plan
from vmcu_tflite.plan import load_plan
from vmcu_tflite.planner.planners import PLANNERS
from vmcu_tflite.reader import read_model

from .compare import first_divergence
from .inputs import load_inputs, random_inputs, save_outputs
from .interpreter import Interpreter


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


def _program(args) -> Program:
    graph = read_model(args.model)
    if not args.plan:
        return compile_graph(graph, args.planner, fuse=not args.no_fuse, recompute=args.allow_recompute)
    try:
        text = args.plan.read_text()
    except OSError as err:
        raise UsageError(f"cannot read {args.plan}: {err.strerror}") from None
    return program_for_plan(graph, load_plan(text))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    program = _program(args)
    graph = program.graph
    inputs = load_inputs(args.inputs, graph) if args.inputs else random_inputs(graph, args.seed)
    trace = (lambda line: print(line, file=sys.stderr)) if args.trace else None
    started = time.perf_counter()
    result = Interpreter(program, trace).run(inputs, record=args.compare_tflm)
    elapsed = time.perf_counter() - started
    print(f"{args.model.name}: {len(program.steps)} steps over a {program.plan.pool_bytes}-byte pool "
          f"({program.plan.planner} plan), no hazard, {elapsed:.2f} s")
    for i, out in enumerate(result.outputs):
        flat = out.reshape(-1)
        print(f"output_{i}: {out.dtype}{list(out.shape)} argmax {int(np.argmax(flat))} first {flat[:8].tolist()}")
    if args.outputs:
        save_outputs(args.outputs, result.outputs)
    if args.compare_tflm:
        divergence = first_divergence(args.model.read_bytes(), program, inputs, result)
        if divergence is not None:
            print(divergence)
            return EXIT_OUTPUTS_DIFFER
        print(f"bit-exact with TFLite Micro: {len(result.outputs)} outputs and {len(result.order)} step outputs")
    return 0


def entry() -> int:
    return run_tool("vmcu-run", main)
