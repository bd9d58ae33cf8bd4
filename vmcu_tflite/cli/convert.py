"""vmcu-convert: plan a TFLite model for the circular pool and write the plan and its report.

Writes plan.json, report.md, memory.png, the C tables <name>_model.c/.h and a CMakeLists.txt with
a copy of the runtime (so that add_subdirectory(OUT) builds a `vmcu_model` library). Nothing is
written to the output folder unless the whole conversion succeeded.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ..codegen.project import render_project, write_project
from ..errors import BudgetError, UsageError
from ..oracle import tflm_arena_bytes
from ..pipeline import compile_model
from ..planner.planners import PLANNERS
from ..planner.tensor import plan_tensors
from ..plot import render_memory_plot
from ..report import render_report
from .common import ToolParser, folder, parse_bytes, run_tool


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
                        help="let a chain recompute its first layers' pixels per window instead of keeping their rows "
                             "(fewer bytes, more multiply-accumulates: the report counts them)")
    parser.add_argument("--prefix", help="C symbol prefix (default: the model's file name)")
    parser.add_argument("--target", choices=["host", "cortex-m4", "cortex-m7"], default="host",
                        help="where the C will run: the report says how to build for it (the C is the same)")
    return parser


def _tflm_head(model: Path) -> int | None:
    """TFLite Micro's activation arena for the report, when its Python package is installed."""
    try:
        import numpy as np
        from ..reader import read_model

        graph = read_model(model)
        zeros = [np.zeros(p.shape, dtype=p.dtype) for p in graph.inputs]
        return tflm_arena_bytes(model.read_bytes(), zeros).get("head")
    except UsageError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    program = compile_model(args.model, args.planner, fuse=not args.no_fuse, recompute=args.allow_recompute)
    plan = program.plan
    if args.ram_budget is not None and plan.pool_bytes > args.ram_budget:
        raise BudgetError(f"the plan needs {plan.pool_bytes} bytes of pool, {plan.pool_bytes - args.ram_budget} "
                          f"more than the budget of {args.ram_budget}")
    baseline = plan_tensors(program.graph, program.steps)
    head = _tflm_head(args.model)
    sources = render_project(program, args.prefix)  # everything that can fail happens before writing
    try:
        args.output.mkdir(parents=True, exist_ok=True)
        (args.output / "plan.json").write_text(plan.dumps(program.graph))
        (args.output / "report.md").write_text(render_report(program, baseline, head, args.target))
        render_memory_plot(plan, baseline, args.output / "memory.png", head)
        write_project(program, args.output, rendered=sources)
    except OSError as err:
        raise UsageError(f"cannot write into {args.output}: {err.strerror or err}") from None
    print(f"{args.model.name}: {len(program.steps)} steps, pool {plan.pool_bytes:,} bytes ({plan.planner} plan; "
          f"whole-tensor {plan.tensor_level_bytes:,}), {plan.macs:,} MACs{_recomputed(plan)} -> {args.output}/")
    return 0


def _recomputed(plan) -> str:
    extra = sum(f.recomputed_macs for f in plan.fusion if f.fused and f.recompute)
    return f" (+{extra:,} recomputed)" if extra else ""


def entry() -> int:
    return run_tool("vmcu-convert", main)
