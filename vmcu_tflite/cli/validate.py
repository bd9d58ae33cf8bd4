"""vmcu-validate: convert a model, build the C for a target, run it, compare with the reference and TFLite Micro.

Exit 0 when the C outputs equal the reference interpreter's and TFLite Micro's bit for bit,
1 when they differ.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ..errors import EXIT_OUTPUTS_DIFFER
from ..planner import PLANNERS
from ..validate.run import validate
from ..validate.targets import TARGETS
from .common import run_tool


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vmcu-validate", description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="int8 .tflite model")
    parser.add_argument("--target", choices=sorted(TARGETS), default="host")
    parser.add_argument("--seed", type=int, default=0, help="random input seed (default: %(default)s)")
    parser.add_argument("--planner", choices=sorted(PLANNERS), default="vmcu")
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    result = validate(args.model, TARGETS[args.target], args.seed, args.planner, args.keep)
    print(f"{args.model.name} on {result.target}: status {result.status}, pool {result.pool_bytes:,} bytes")
    for name, value in result.measurements.items():
        print(f"  {name}: {value:,}")
    print(f"  matches the reference interpreter: {'yes' if result.matches_reference else 'NO'}")
    print(f"  matches TFLite Micro: {'yes' if result.matches_tflm else 'not measured' if result.matches_tflm is None else 'NO'}")
    return 0 if result.matches_reference and result.matches_tflm is not False else EXIT_OUTPUTS_DIFFER


def entry() -> int:
    return run_tool("vmcu-validate", main)
