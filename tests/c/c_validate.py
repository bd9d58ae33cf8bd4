"""Validation of the C kernels on the host for plans `vmcu-validate` does not make by itself.

`validate()` in vmcu_tflite.validate.run compiles a model with one of the planners; these
helpers also run a given Program (a vMCU plan with a forced segment size, or with fusion off)
through the same harness, and compare it with the reference interpreter and TFLite Micro.
"""
from __future__ import annotations

from pathlib import Path


from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.plan import Plan
from vmcu_tflite.passes import simplify
from vmcu_tflite.planner.vmcu import plan_vmcu
from vmcu_tflite.reader import parse_model
from vmcu_tflite.steps import build_steps
from vmcu_tflite.validate.run import validate_program
from vmcu_tflite.validate.targets import HOST, Target

# The DSP-extension code paths with C emulations of SXTB16, SXTAB16, SMLAD, SMLABB and SMLATT.
EMULATED_DSP_HOST = Target("host", cmake_args=("-DCMAKE_C_FLAGS=-DVMCU_EMULATE_DSP",),
                           description="host, the DSP paths with emulated instructions")


def program_with_segment(model: bytes, segment: int) -> Program:
    """The vMCU plan with every streaming step's segment forced to `segment` bytes (no fusion)."""
    graph = simplify(parse_model(model))
    steps = build_steps(graph)
    plan: Plan = plan_vmcu(graph, steps, segment_override=segment)
    return Program(graph, steps, plan)


def check_program(program: Program, model: bytes, target: Target = HOST, seed: int = 0,
                  work: Path | None = None) -> tuple[bool, bool | None, int]:
    """(matches the reference interpreter, matches TFLite Micro or None, C status) for `program`."""
    result = validate_program(program, model, target, seed, work)
    return result.matches_reference, result.matches_tflm, result.status


def check_model(model: bytes, planner: str, target: Target = HOST, seed: int = 0,
                fuse: bool = False) -> tuple[bool, bool | None, int]:
    return check_program(compile_model(model, planner, fuse=fuse), model, target, seed)
