"""vmcu-convert: plan a TFLite model for the circular pool and write the plan and its report.

Writes plan.json, report.md, memory.png, the C tables <name>_model.c/.h and a CMakeLists.txt with
a copy of the runtime (so that add_subdirectory(OUT) builds a `vmcu_model` library). Nothing is
written to the output folder unless the whole conversion succeeded.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ..api import convert
from ..planner.planners import PLANNERS
from ..kernels.tuning import tuning_for_cpu
from ..report import BUILD
from .common import ToolParser, add_stream_arguments, add_widened_argument, folder, parse_bytes, run_tool


def build_parser() -> argparse.ArgumentParser:
    parser = ToolParser(prog="vmcu-convert", description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="int8 .tflite model")
    parser.add_argument("-o", "--output", type=folder, required=True, help="folder to write plan.json, report.md and memory.png into")
    parser.add_argument("--planner", choices=sorted(PLANNERS), default="vmcu",
                        help="memory planner (default: %(default)s)")
    parser.add_argument("--ram-budget", type=parse_bytes, metavar="BYTES",
                        help="fail with exit code 3 if the pool needs more (e.g. 128K)")
    parser.add_argument("--no-fuse", action="store_true", help="never fuse layers into chains")
    parser.add_argument("--allow-recompute", action="store_true",
                        help="let a chain recompute some layers' pixels per window instead of keeping their rows "
                             "(fewer bytes, more multiply-accumulates: the report counts them)")
    parser.add_argument("--prefix", help="C symbol prefix (default: the model's file name)")
    parser.add_argument("--target", choices=sorted(BUILD), default="host",
                        help="where the C will run: the report says how to build for it, and the kernels are tuned "
                             "for its core (cortex-m55: Helium); the C builds and runs bit-exact everywhere")
    add_stream_arguments(parser)
    add_widened_argument(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    program = convert(args.model, planner=args.planner, fuse=not args.no_fuse, allow_recompute=args.allow_recompute,
                      ram_budget=args.ram_budget, tuning=tuning_for_cpu(args.target), stream_inputs=args.stream_input,
                      stream_outputs=args.stream_output, widened_weights=args.widened_weights)
    program.write(args.output, args.prefix, args.target)
    plan = program.plan
    extra = program.recomputed_macs
    print(f"{args.model.name}: {len(program.steps)} steps, pool {program.pool_bytes:,} bytes ({plan['planner']} plan; "
          f"whole-tensor {plan['tensor_level_bytes']:,}), {program.macs:,} MACs"
          f"{f' (+{extra:,} recomputed)' if extra else ''} -> {args.output}/")
    return 0


def entry() -> int:
    return run_tool("vmcu-convert", main)
