"""vmcu-run: execute a model's memory plan in the reference interpreter over the simulated pool.

Inputs come from an .npz file (keys input_0, input_1, ...) or from a seed; outputs can be saved
the same way. --compare-tflm runs TFLite Micro on the same inputs and names the first tensor
that differs; a plan hazard stops the run at the offending byte (exit code 4). --runs N runs a
sequence (a model with state, such as an LSTM, carries it from run to run): the .npz then holds
each input_i stacked as [N, ...], or the seeds are seed, seed + 1, ...; saved outputs are stacked
the same way. --stream-input / --stream-output serve the inputs' rows and take the outputs' through
the streaming protocol (each row once, in order, where the plan puts it), as a camera would.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from vmcu_tflite.api import convert
from vmcu_tflite.cli.common import ToolParser, add_stream_arguments, new_file, positive, run_tool, seed
from vmcu_tflite.errors import EXIT_OUTPUTS_DIFFER, DivergenceError
from vmcu_tflite.kernels.tuning import tuning_for_cpu
from vmcu_tflite.planner.planners import PLANNERS
from vmcu_tflite.report import BUILD

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
    parser.add_argument("--runs", type=positive, default=1,
                        help="run a sequence of this many inputs, the model's state carried (default: %(default)s)")
    parser.add_argument("--no-fuse", action="store_true", help="plan without fused chains")
    parser.add_argument("--allow-recompute", action="store_true",
                        help="let a chain recompute some layers' pixels per window instead of keeping their rows "
                             "(fewer bytes, more multiply-accumulates: the report counts them)")
    parser.add_argument("--target", choices=sorted(BUILD),
                        help="run the kernels as vmcu-convert --target shapes them for that core (cortex-m55: "
                             "Helium's eight-lane depthwise groups and 4x2 tiles); a --plan carries its own")
    parser.add_argument("--outputs", type=new_file, help="write output_0, ... to this .npz")
    parser.add_argument("--compare-tflm", action="store_true", help="compare every tensor with TFLite Micro (LiteRT's reference kernels for "
                                                                   "the operators it lacks)")
    parser.add_argument("--trace", action="store_true", help="log every pool load, store and free (and every row "
                                                              "pulled or pushed) on stderr")
    add_stream_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.plan and args.target:
        parser.error("--target shapes the kernels of a new plan; a --plan holds the tuning it was made with")
    program = convert(args.model, planner=args.planner, fuse=not args.no_fuse, allow_recompute=args.allow_recompute,
                      plan=args.plan, tuning=tuning_for_cpu(args.target), stream_inputs=args.stream_input,
                      stream_outputs=args.stream_output)
    runs = _sequence(args, program)
    started = time.perf_counter()
    try:
        outputs, divergence = program.run_sequence(runs, compare_tflm=args.compare_tflm, trace=args.trace), None
    except DivergenceError as err:  # the runs went through: print the diverging one, then where it differs
        outputs, divergence = [err.outputs], str(err)
    elapsed = time.perf_counter() - started
    sequence = f", {args.runs} runs" if args.runs > 1 else ""
    tuning = program.plan["tuning"]
    kernels = f", {tuning} kernels" if tuning != "dsp" else ""
    streamed = program.plan.get("streamed_io", {"inputs": [], "outputs": []})
    rows = "".join(f", {what} {p['index']} streamed ({p['rows']} rows{ring if p['in_ring'] else ''})"
                   for what, ring in (("input", " into a ring"), ("output", " from a ring"))
                   for p in streamed[f"{what}s"])
    print(f"{args.model.name}: {len(program.steps)} steps over a {program.pool_bytes}-byte pool "
          f"({program.plan['planner']} plan{kernels}{sequence}{rows}), no hazard, {elapsed:.2f} s")
    for r, run in enumerate(outputs):
        for i, out in enumerate(run):
            flat = out.reshape(-1)
            where = f"run {r} " if len(outputs) > 1 else ""
            print(f"{where}output_{i}: {out.dtype}{list(out.shape)} argmax {int(np.argmax(flat))} "
                  f"first {flat[:8].tolist()}")
    if args.outputs:
        stacked = outputs[0] if len(outputs) == 1 else [np.stack(o) for o in zip(*outputs)]
        save_outputs(args.outputs, stacked)
    if divergence is not None:
        print(divergence)
        return EXIT_OUTPUTS_DIFFER
    if args.compare_tflm:
        print(f"bit-exact with {program.oracle}: {len(program.outputs)} outputs and "
              f"{len(program.steps)} step outputs{f' in each of {args.runs} runs' if args.runs > 1 else ''}")
    return 0


def _sequence(args, program) -> list[list[np.ndarray]]:
    """The runs' inputs: the .npz's, split along their first axis for a sequence, or seeded."""
    if not args.inputs:
        return [program.random_inputs(args.seed + r) for r in range(args.runs)]
    if args.runs == 1:
        return [load_inputs(args.inputs, program.inputs)]
    stacked = load_inputs(args.inputs, program.inputs, runs=args.runs)
    return [[x[r] for x in stacked] for r in range(args.runs)]


def entry() -> int:
    return run_tool("vmcu-run", main)
