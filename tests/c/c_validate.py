"""Validation of the C kernels on the host for plans `vmcu-validate` does not make by itself.

`validate()` in vmcu_tflite.validate.run compiles a model with one of the planners; these
helpers also run a given Program (a vMCU plan with a forced segment size, or with fusion off)
through the same harness, and compare it with the reference interpreter and TFLite Micro.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.plan import Plan
from vmcu_tflite.passes import simplify
from vmcu_tflite.planner.vmcu import plan_vmcu
from vmcu_tflite.reader import parse_model
from vmcu_tflite.steps import build_steps
from vmcu_tflite.validate.run import build_and_run
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
    from vmcu_reference.inputs import random_inputs
    from vmcu_reference.interpreter import Interpreter
    from vmcu_reference.ops.op_dequantize import dequantize
    from vmcu_reference.ops.op_quantize import quantize_float

    graph = program.graph
    inputs = random_inputs(graph, seed)
    as_int8 = [quantize_float(x, graph.tensors[p.tensor].scale, graph.tensors[p.tensor].zero_point)
               if p.dtype == "float32" else x for p, x in zip(graph.inputs, inputs)]
    reference = Interpreter(program).run(inputs)
    with tempfile.TemporaryDirectory(prefix="vmcu-kernels-") as scratch:
        status, outputs, _ = build_and_run(program, as_int8, target, Path(work or scratch))
    matches_reference = status == 0 and len(outputs) == len(reference.raw_outputs) and all(
        np.array_equal(a, b.reshape(-1)) for a, b in zip(outputs, reference.raw_outputs))
    try:
        from vmcu_tflite.oracle import run_tflm
        theirs, _ = run_tflm(model, inputs, len(graph.outputs))
    except Exception:  # tflite-micro missing
        return matches_reference, None, status
    ours = [dequantize(o, graph.tensors[p.tensor].scale, graph.tensors[p.tensor].zero_point)
            if p.dtype == "float32" else o for p, o in zip(graph.outputs, outputs)]
    matches_tflm = status == 0 and len(ours) == len(theirs) and all(
        a.tobytes() == np.asarray(b).reshape(-1).tobytes() for a, b in zip(ours, theirs))
    return matches_reference, matches_tflm, status


def check_model(model: bytes, planner: str, target: Target = HOST, seed: int = 0,
                fuse: bool = False) -> tuple[bool, bool | None, int]:
    return check_program(compile_model(model, planner, fuse=fuse), model, target, seed)
