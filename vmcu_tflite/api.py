"""The Python API: convert a model, inspect its plan, run it, write its C, validate it on a target.

Everything the command-line tools do goes through here (they parse arguments, call this and
print), so a notebook gets the same plans, files, checks and errors:

    program = vmcu_tflite.convert(converter.convert())      # a path, the bytes, or an open file
    program.pool_bytes, program.steps[0].kernel, program.report()
    outputs = program.run([x], compare_tflm=True)             # the reference interpreter
    program.write("out/")                                     # what vmcu-convert writes
    result = program.validate("host")                         # build, run, compare; the figures

Errors are `VmcuError`s (`errors.py`) with the one-line messages and exit codes of the tools.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import BinaryIO, Mapping, Sequence, Union

import numpy as np

from .errors import BudgetError, DivergenceError, UsageError
from .pipeline import Program as _Compiled
from .pipeline import compile_graph, program_for_plan
from .plan import load_plan
from .reader import parse_model

ModelSource = Union[str, "os.PathLike[str]", bytes, BinaryIO]


@dataclass(frozen=True)
class TensorInfo:
    """A model input or output as the application sees it: real = scale * (q - zero_point)."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # the pool tensor's type (int8, int16, ...), or "uint8" / "float32" where the model converts
    # at its boundary
    scale: float
    zero_point: int
    bytes: int  # in the pool


@dataclass(frozen=True)
class StepInfo:
    """One kernel call of the plan (a row of plan.json's `steps`)."""

    index: int
    kernel: str
    ops: tuple[int, ...]  # TFLite operator indices
    op_kinds: tuple[str, ...]  # their TFLite kinds ("folded": a PAD merged into the layer that reads it)
    mode: str  # "whole-tensor", "segment" or "in-place"
    segment_bytes: int
    footprint_bytes: int
    macs: int


@dataclass(frozen=True)
class Validation:
    """What `Program.validate` measured: bit-exactness and the target's figures (bytes, instructions)."""

    target: str
    status: int  # vmcu_invoke()'s status (0: VMCU_OK)
    matches_reference: bool
    matches_tflm: bool | None  # None where tflite-micro is not installed
    outputs: list[np.ndarray]  # int8, as the C program left them in the pool
    measurements: dict[str, int] = field(default_factory=dict)  # RAM, flash, instructions (boards only)
    step_instructions: list[int] | None = None  # with profile=True
    baseline: "Validation | None" = None  # an Mbed or Zephyr target's: the bare-metal harness on the same board

    @property
    def bit_exact(self) -> bool:
        return self.status == 0 and self.matches_reference and self.matches_tflm is not False

    def _repr_markdown_(self) -> str:
        rows = [f"| bit-exact with the reference | {'yes' if self.matches_reference else 'NO'} |",
                f"| bit-exact with TFLite Micro | {_yes(self.matches_tflm)} |"]
        rows += [f"| {name} | {value:,} |" for name, value in self.measurements.items()]
        return "\n".join([f"**{self.target}**", "", "| | |", "|---|---:|", *rows])


def _published(run, baseline: Validation | None = None) -> Validation:
    """The public figures of one of validate/run.py's runs."""
    return Validation(run.target, run.status, run.matches_reference, run.matches_tflm, run.outputs, run.measurements,
                      run.step_instructions, baseline)


def _yes(value: bool | None) -> str:
    return "not measured" if value is None else "yes" if value else "NO"


class Program:
    """A converted model: its plan over the circular pool, and what can be done with it."""

    def __init__(self, compiled: _Compiled, model: bytes) -> None:
        self._compiled, self._model = compiled, model

    # -- what the plan is ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._compiled.plan.model

    @property
    def pool_bytes(self) -> int:
        """Bytes of activation pool the application provides."""
        return self._compiled.plan.pool_bytes

    @property
    def scratch_bytes(self) -> int:
        """Bytes of scratch the application provides (one output segment of a runtime kernel)."""
        from .codegen.model_c import scratch_bytes
        return scratch_bytes(self._compiled)

    @property
    def macs(self) -> int:
        """Multiply-accumulates one inference executes (recomputation included)."""
        return self._compiled.plan.macs

    @property
    def steps(self) -> list[StepInfo]:
        kinds = {op.index: op.kind for op in self._compiled.graph.ops}
        return [StepInfo(s.index, s.kernel, tuple(s.ops), tuple(kinds.get(i, "folded") for i in s.ops), s.mode,
                         s.segment_bytes, s.footprint_bytes, s.macs) for s in self._compiled.plan.steps]

    @property
    def recomputed_macs(self) -> int:
        """MACs a chain repeats instead of keeping rows (allow_recompute), included in `macs`."""
        return sum(f.recomputed_macs for f in self._compiled.plan.fusion if f.fused and f.recompute)

    @property
    def inputs(self) -> list[TensorInfo]:
        return [self._port(p) for p in self._compiled.graph.inputs]

    @property
    def outputs(self) -> list[TensorInfo]:
        return [self._port(p) for p in self._compiled.graph.outputs]

    def _port(self, port) -> TensorInfo:
        t = self._compiled.graph.tensors[port.tensor]
        return TensorInfo(t.name, tuple(port.shape), port.dtype, *t.io_quantization, t.num_bytes)

    @property
    def plan(self) -> dict:
        """The content of plan.json."""
        return self._compiled.plan.to_json(self._compiled.graph)

    def report(self, target: str = "host") -> str:
        """report.md: the plan, step by step, against the whole-tensor plan and TFLite Micro's arena."""
        from .report import render_report
        return render_report(self._compiled, self._baseline, self._tflm_head, target, self.oracle)

    def plot(self):
        """memory.png as a matplotlib Figure: the pool over the steps, against the whole-tensor plan."""
        from .plot import memory_figure
        return memory_figure(self._compiled.plan, self._baseline, self._tflm_head)

    # -- what can be done with it -------------------------------------------------------------

    @property
    def oracle(self) -> str:
        """What `compare_tflm` and `validate` compare with: "TFLite Micro", or "TFLite (LiteRT)" (its
        reference kernels) for a model with an operator TFLite Micro has no kernel for (TILE)."""
        from .oracle import oracle_name
        return oracle_name(self._model)

    def run(self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray], *, compare_tflm: bool = False,
            trace: bool = False) -> list[np.ndarray]:
        """The outputs of the reference interpreter, which executes the plan over a simulated pool
        (HazardError if the plan is wrong, MismatchError if a kernel computes wrong values). Inputs
        by position, or by name (or `input_0`, ...), in the model's own dtypes. With `compare_tflm`,
        every step's output is compared with TFLite Micro's (MismatchError names the first that
        differs; LiteRT's reference kernels stand in for operators TFLite Micro lacks); `trace`
        prints every pool event. A model with state starts from TFLite's initial state: see
        `run_sequence`."""
        return self.run_sequence([inputs], compare_tflm=compare_tflm, trace=trace)[0]

    def run_sequence(self, runs: Sequence[Sequence[np.ndarray] | Mapping[str, np.ndarray]], *,
                     compare_tflm: bool = False, trace: bool = False) -> list[list[np.ndarray]]:
        """`run` on each of `runs` in turn, the model's state (an LSTM's, an SVDF's, resource variables)
        carried from each run to the next as TFLite and the C runtime carry it; returns each run's
        outputs. With `compare_tflm` the oracle runs the same sequence in one interpreter."""
        import sys

        from vmcu_reference.compare import first_divergence
        from vmcu_reference.interpreter import Interpreter

        values = [self._inputs(inputs) for inputs in runs]
        log = (lambda line: print(line, file=sys.stderr)) if trace else None
        interpreter = Interpreter(self._compiled, log)
        results = [interpreter.run(run, record=compare_tflm) for run in values]
        if compare_tflm and results:
            from .oracle import run_tflm_sequence
            theirs = run_tflm_sequence(self._model, values, len(self.outputs), tensors=results[0].order)
            for r, (run, result, oracle_run) in enumerate(zip(values, results, theirs)):
                divergence = first_divergence(self._model, self._compiled, run, result, oracle_run)
                if divergence is not None:
                    where = f"run {r} of {len(values)}: " if len(values) > 1 else ""
                    raise DivergenceError(where + str(divergence), result.outputs)
        return [result.outputs for result in results]

    def random_inputs(self, seed: int = 0) -> list[np.ndarray]:
        """Seeded random inputs in the model's dtypes (the ones vmcu-run and vmcu-validate use)."""
        from vmcu_reference.inputs import random_inputs
        return random_inputs(self._compiled.graph, seed)

    def _inputs(self, inputs) -> list[np.ndarray]:
        if not isinstance(inputs, Mapping):
            return [np.asarray(x) for x in inputs]
        found = []
        for i, port in enumerate(self.inputs):
            key = port.name if port.name in inputs else f"input_{i}"
            if key not in inputs:
                raise UsageError(f"no value for input {i} ('{port.name}' or 'input_{i}')")
            found.append(np.asarray(inputs[key]))
        return found

    def write(self, out_dir: str | os.PathLike, prefix: str | None = None, target: str = "host") -> list[Path]:
        """Write what vmcu-convert writes: plan.json, report.md, memory.png, the C tables and a
        CMake project with the runtime. Everything that can fail happens before anything is
        written. `target` ("host", "cortex-m4", ...) only changes the report's build notes."""
        from .codegen.project import render_project, write_project

        out = Path(out_dir)
        sources = render_project(self._compiled, prefix)
        report = self.report(target)
        figure = self.plot()
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "plan.json").write_text(self._compiled.plan.dumps(self._compiled.graph))
            (out / "report.md").write_text(report)
            figure.savefig(out / "memory.png", dpi=110)
            written = write_project(self._compiled, out, rendered=sources)
        except OSError as err:
            raise UsageError(f"cannot write into {out}: {err.strerror or err}") from None
        return [out / "plan.json", out / "report.md", out / "memory.png", *written]

    def validate(self, target: str = "host", seed: int = 0, *, keep: str | os.PathLike | None = None,
                 profile: bool = False, mbed_os: str | os.PathLike | None = None,
                 zephyr: str | os.PathLike | None = None) -> Validation:
        """Build the C for `target` (vmcu-validate's targets: "host", "qemu-cortex-m4", ...,
        "mbed-qemu-cortex-m4", "zephyr-qemu-cortex-m4"), run it on seeded inputs and compare with the
        reference interpreter and TFLite Micro; `keep` builds in that folder and keeps it; `mbed_os`
        and `zephyr`: where the mbed-* and zephyr-* targets take Mbed CE and Zephyr from."""
        from .validate.run import validate_program
        from .validate.targets import TARGETS

        chosen = check_target(target, profile, mbed_os, zephyr)
        work = Path(keep) if keep else None
        if work:
            work.mkdir(parents=True, exist_ok=True)
        done = validate_program(self._compiled, self._model, chosen, seed, work, profile=profile)
        baseline = None
        if getattr(chosen, "compare_with", ""):  # what Mbed or Zephyr costs: the model on the board without it
            baseline = _published(validate_program(self._compiled, self._model, TARGETS[chosen.compare_with], seed,
                                                   work / "bare-metal" if work else None))
        return _published(done, baseline)

    # -- notebooks ----------------------------------------------------------------------------

    def _repr_markdown_(self) -> str:
        plan = self._compiled.plan
        head = [f"**{self.name}**: {len(plan.steps)} steps, pool {plan.pool_bytes:,} bytes ({plan.planner} plan; "
                f"whole-tensor {plan.tensor_level_bytes:,}), {plan.macs:,} MACs", "",
                "| step | kernel | TFLite ops | mode | segment | footprint | MACs |", "|---:|---|---|---|---:|---:|---:|"]
        return "\n".join(head + [f"| {s.index} | {s.kernel} | {', '.join(map(str, s.ops))} | {s.mode} | "
                                 f"{s.segment_bytes} | {s.footprint_bytes:,} | {s.macs:,} |" for s in self.steps])

    def __repr__(self) -> str:
        return f"<vmcu_tflite.Program {self.name}: {len(self._compiled.steps)} steps, pool {self.pool_bytes} bytes>"

    # -- helpers ------------------------------------------------------------------------------

    @cached_property  # report() and plot() (write() calls both) share it
    def _baseline(self):
        from .layer_baseline import layer_baseline
        return layer_baseline(self._compiled)

    @cached_property
    def _tflm_head(self) -> int | None:
        """TFLite Micro's activation arena, when its Python package is installed (run once)."""
        from .oracle import TFLM, tflm_arena_bytes
        if self.oracle != TFLM:  # TFLite Micro cannot run the model at all
            return None
        zeros = [np.zeros(p.shape, dtype=p.dtype) for p in self._compiled.graph.inputs]
        try:
            return tflm_arena_bytes(self._model, zeros).get("head")
        except UsageError:
            return None


def check_target(target: str, profile: bool = False, mbed_os: str | os.PathLike | None = None,
                 zephyr: str | os.PathLike | None = None):
    """vmcu-validate's target `target`, its tools checked (UsageError, one line, when one is missing)."""
    from dataclasses import replace

    from .validate.mbed import MbedTarget
    from .validate.run import require
    from .validate.zephyr import ZephyrTarget
    from .validate.targets import TARGETS

    if target not in TARGETS:
        raise UsageError(f"unknown target {target!r} (one of {', '.join(sorted(TARGETS))})")
    chosen = TARGETS[target]
    if isinstance(chosen, MbedTarget):
        chosen = replace(chosen, mbed_os=Path(mbed_os) if mbed_os else None)
    elif mbed_os:
        raise UsageError(f"--mbed-os goes with the mbed-* targets, not {target}")
    if isinstance(chosen, ZephyrTarget):
        chosen = replace(chosen, zephyr=Path(zephyr) if zephyr else None)
    elif zephyr:
        raise UsageError(f"--zephyr goes with the zephyr-* targets, not {target}")
    require(chosen, profile)
    return chosen


def convert(model: ModelSource, *, planner: str = "vmcu", fuse: bool = True, allow_recompute: bool = False,
            ram_budget: int | None = None, plan: str | os.PathLike | None = None, tuning: str = "dsp",
            stream_inputs: bool | str | Sequence[int] = (), stream_outputs: bool | str | Sequence[int] = (),
            widened_weights: float | None = None) -> Program:
    """Read an int8 TFLite model and plan it over the circular pool.

    `model`: a path, the flatbuffer's bytes (what `tf.lite.TFLiteConverter.convert()` returns) or
    a binary file object. `planner`: "vmcu" (the circular pool) or "tensor" (whole tensors, the
    baseline); `fuse`: fuse layers into chains where that lowers the pool; `allow_recompute`: let
    a chain recompute pixels instead of keeping rows (fewer bytes, more MACs); `ram_budget`:
    raise BudgetError when the pool needs more bytes; `plan`: a plan.json written before, used
    as it is instead of planning (its tuning and streamed ports with it); `tuning`: the core family the heavy kernels
    are shaped for, "dsp" (Cortex-M4/M7/M33, the default), "helium" (Cortex-M55) or "scalar" (cores
    without the DSP extension: Cortex-M0/M3, RISC-V): the C builds
    and runs bit-exact on every core either way; `stream_inputs`/`stream_outputs`: the indices of
    the inputs pulled and the outputs pushed row by row through vmcu_invoke_streamed()'s callbacks
    (default: none; True or "all": every one); `widened_weights`: the share (0 to 1) of the model's
    filter bytes that int16 copies of the 1x1 layers' filters may add on the `dsp` tuning (flash
    for speed; None: 4 % or 4 KiB, whichever is more; 0: none; a `plan`'s own otherwise). Raises
    ModelError for a model this tool cannot run, UsageError for a port index the model does not have.
    """
    from .kernels.tuning import TUNINGS
    from .planner.planners import PLANNERS

    if planner not in PLANNERS:
        raise UsageError(f"unknown planner {planner!r} (one of {', '.join(sorted(PLANNERS))})")
    if tuning not in TUNINGS:
        raise UsageError(f"unknown tuning {tuning!r} (one of {', '.join(TUNINGS)})")
    if widened_weights is not None and not 0 <= widened_weights <= 1:
        raise UsageError(f"widened_weights is a share of the filter bytes, 0 to 1, not {widened_weights}")
    data, name = _read(model)
    graph = parse_model(data, name)
    if plan is not None:
        try:
            text = Path(plan).read_text()
        except OSError as err:
            raise UsageError(f"cannot read {plan}: {err.strerror}") from None
        compiled = program_for_plan(graph, load_plan(text))
    else:
        compiled = compile_graph(graph, planner, fuse, allow_recompute, tuning,
                                 _ports(stream_inputs, len(graph.inputs), "input"),
                                 _ports(stream_outputs, len(graph.outputs), "output"), widened_weights)
    if ram_budget is not None and compiled.plan.pool_bytes > ram_budget:
        need = compiled.plan.pool_bytes
        raise BudgetError(f"the plan needs {need} bytes of pool, {need - ram_budget} more than the budget of {ram_budget}")
    return Program(compiled, data)


def _ports(chosen: bool | str | Sequence[int] | None, count: int, what: str) -> tuple[int, ...]:
    """The streamed ports asked for: every one of the `count` for True or "all", none for False,
    None or (), else those named, each checked."""
    if chosen is True or chosen == "all":
        return tuple(range(count))
    if chosen is False or chosen is None:
        return ()
    if isinstance(chosen, str):
        raise UsageError(f"stream_{what}s: True, 'all' or a list of indices, not {chosen!r}")
    bad = [str(i) for i in chosen if not 0 <= int(i) < count]
    if bad:
        raise UsageError(f"no {what} {', '.join(bad)} to stream: the model has {count} {what}"
                         f"{'s' if count != 1 else ''} (0 to {count - 1})")
    return tuple(sorted(set(int(i) for i in chosen)))


def _read(model: ModelSource) -> tuple[bytes, str]:
    """(flatbuffer bytes, model name): a path's stem, else "model"."""
    from .errors import ModelError

    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), "model"
    if hasattr(model, "read"):
        name = Path(getattr(model, "name", "model") or "model").stem
        return bytes(model.read()), name if isinstance(name, str) else "model"
    path = Path(model)
    try:
        return path.read_bytes(), path.stem
    except OSError as err:
        raise ModelError(f"cannot read {path}: {err.strerror}") from None
