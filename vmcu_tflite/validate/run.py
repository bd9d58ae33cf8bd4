"""Convert, build, run and compare: the body of vmcu-validate."""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..codegen.project import write_project
from ..codegen.model_c import c_identifier
from ..errors import UsageError
from ..pipeline import Program, compile_model
from .harness import parse_run
from .targets import QemuTarget, Target, profiled


@dataclass
class Validation:
    target: str
    status: int
    outputs: list[np.ndarray]  # the bytes (int8) the C program left in the pool
    matches_reference: bool
    matches_tflm: bool | None  # None when tflite-micro is not installed
    pool_bytes: int
    measurements: dict[str, int] = field(default_factory=dict)
    step_instructions: list[int] | None = None  # per step, from a profiled build (--profile)


def build_and_run(program: Program, inputs_int8: list[np.ndarray], target: Target, work: Path,
                  pool_shrink: int = 0) -> tuple[int, list[np.ndarray], dict[str, int]]:
    """Generate the model and harness under `work`, build them for `target`, run once."""
    target.require()
    prefix = c_identifier(program.plan.model)
    model_dir = work / "model"
    model_dir.mkdir(parents=True, exist_ok=True)
    write_project(program, model_dir, prefix)
    executable = target.build(work, model_dir, prefix, inputs_int8, pool_shrink)
    status, outputs, measured = parse_run(target.run(executable))
    return status, outputs, target.measure(executable, measured)


def require(target: Target, profile: bool) -> None:
    """Fail early, before planning, when the target's tools are missing or cannot profile."""
    target.require()
    if profile and not isinstance(target, QemuTarget):
        raise UsageError(f"--profile counts instructions on a QEMU target, not on {target.name}")


def validate(model: Path, target: Target, seed: int = 0, planner: str = "vmcu", work: Path | None = None,
             compare_tflm: bool = True, fuse: bool = True, profile: bool = False) -> Validation:
    require(target, profile)
    program = compile_model(model, planner, fuse, tuning=target.tuning, widened=target.widened_weights)
    return validate_program(program, model.read_bytes(), target, seed, work, compare_tflm, profile)


def validate_program(program: Program, model: bytes, target: Target, seed: int = 0, work: Path | None = None,
                     compare_tflm: bool = True, profile: bool = False) -> Validation:
    """Build and run an already planned `program` (of the model `model`) and compare its outputs;
    with `profile`, build and run it once more with a counter around every kernel call."""
    require(target, profile)
    from vmcu_reference.inputs import random_inputs
    from vmcu_reference.interpreter import Interpreter
    from vmcu_reference.boundary import as_bytes, from_pool, to_pool

    graph = program.graph
    runs = [random_inputs(graph, seed + r) for r in range(sequence_runs(program))]
    # each input's runs back to back: the harness invokes the model once per run, state carried
    # the pool's bytes: little-endian elements of each tensor's type
    as_int8 = [np.concatenate([as_bytes(to_pool(p, graph.tensors[p.tensor], run[i])) for run in runs])
               for i, p in enumerate(graph.inputs)]
    interpreter = Interpreter(program)
    reference = [interpreter.run(run).raw_outputs for run in runs]
    expected = [np.concatenate([as_bytes(outputs[i]) for outputs in reference]) for i in range(len(graph.outputs))]
    steps = None
    with tempfile.TemporaryDirectory(prefix="vmcu-validate-") as scratch:
        status, outputs, measured = build_and_run(program, as_int8, target, Path(work or scratch))
        if profile:
            steps, checks = profile_run(program, as_int8, target, Path(work or scratch) / "profile")
            measured = {**measured, "checks_instructions": checks}
    matches_reference = status == 0 and len(outputs) == len(expected) and all(
        np.array_equal(a, b) for a, b in zip(outputs, expected))
    matches_tflm = None
    if compare_tflm:
        try:
            from ..oracle import run_tflm_sequence
            theirs = run_tflm_sequence(model, runs, len(graph.outputs))
        except UsageError:
            theirs = None
        if theirs is not None:
            ours = [from_pool(p, graph.tensors[p.tensor], _runs_of(o, graph.tensors[p.tensor]))
                    for p, o in zip(graph.outputs, outputs)]
            theirs = [np.concatenate([np.asarray(outs[i]).reshape(-1) for outs, _ in theirs]) for i in range(len(ours))]
            matches_tflm = status == 0 and len(ours) == len(theirs) and all(
                a.tobytes() == b.tobytes() for a, b in zip(ours, theirs))
    return Validation(target.name, status, outputs, matches_reference, matches_tflm, program.plan.pool_bytes, measured,
                      steps)


def _runs_of(data: np.ndarray, tensor) -> np.ndarray:
    """An output's bytes over every run as its values: [runs, *its shape] (empty if the bytes are short)."""
    from vmcu_reference.boundary import from_bytes
    runs, whole = divmod(data.size, max(tensor.num_bytes, 1))
    if whole or not runs:
        return np.zeros((0,), dtype=tensor.dtype)
    return np.stack([from_bytes(data[r * tensor.num_bytes:(r + 1) * tensor.num_bytes], tensor) for r in range(runs)])


SEQUENCE_RUNS = 3  # runs of a model with state, so that each run's state reaches the next


def sequence_runs(program: Program) -> int:
    """How many runs a validation makes: a sequence for a model with state, else one."""
    from ..state import state_tensors

    return SEQUENCE_RUNS if state_tensors(program.graph) else 1


def profile_run(program: Program, inputs_int8: list[np.ndarray], target: Target, work: Path) -> tuple[list[int], int]:
    """Instructions of each step's kernel call, and of vmcu_invoke()'s checks before the first,
    from a build of `program` profiled on `target`."""
    status, _, measured = build_and_run(program, inputs_int8, profiled(target), work)
    counts = [measured.get(f"step_{i}") for i in range(len(program.steps))]
    if status != 0 or None in counts or "checks" not in measured:
        raise UsageError(f"the profiled run on {target.name} stopped early (status {status})")
    return counts, measured["checks"]
