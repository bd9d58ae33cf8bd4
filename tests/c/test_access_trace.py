"""The hand-written kernels read and write only what their declared access patterns allow.

Kinds without a kernel description (element-wise, pooling, mean, softmax, shape ops) keep
hand-written C and an access pattern (`vmcu_tflite/planner/access.py`) that the planner sizes
gaps with and the interpreter replays. Nothing ties the two but this test: the model is built
for the host with VMCU_TRACE_ACCESS, so every pool access of every step is reported in execution
order, each byte when it is really read (vmcu_span() answers NULL, the kernels take their
per-byte paths). Then, for every streaming step of a hand-written kind:

- reads stay inside the step's inputs, writes inside its output, no input is written, and every
  output byte is written;
- every byte of a streamed input that the pattern frees at or before the iteration storing
  output byte o (so that the plan may have put o on it) is read for the last time before the C
  first writes o.

The last condition is exactly what a plan made from the pattern relies on. A pattern freeing one
iteration early must break it somewhere (the test says so), so the check can fail.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.c import kernel_models
from tests.c.c_validate import program_with_segment
from vmcu_tflite.codegen.project import runtime_dir, write_project
from vmcu_tflite.kernels import describe
from vmcu_tflite.ops import SPECS
from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.planner.streaming import access_pattern

CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None, reason="no host C compiler")

# The hand-written kinds that stream: a runtime kernel with an access pattern (the others write apart).
STREAMING_HAND_WRITTEN = {name for name, spec in SPECS.items() if spec.c_kernel is not None and spec.access is not None}
OUTPUT_ROLE = 255
UNKNOWN_ROLE = 254

HARNESS = r"""
#include <stdio.h>
#include <string.h>

#include "%(header)s"
#include "vmcu/vmcu_support.h"

static int8_t pool[M_POOL_BYTES];
static const vmcu_view *step_inputs, *step_output;
static uint8_t step_num_inputs;
static uint32_t step_index;

void vmcu_trace_step(uint16_t step, const vmcu_view *inputs, uint8_t num_inputs, const vmcu_view *output)
{
    step_index = step;
    step_inputs = inputs;
    step_num_inputs = num_inputs;
    step_output = output;
}

/* One record per access: step, role (input position, 255 the output), offset, bytes, written. */
void vmcu_trace_access(const vmcu_view *v, uint32_t offset, uint32_t len, int written)
{
    uint32_t record[5];
    uint32_t i;
    record[1] = %(unknown)du;
    for (i = 0; i < step_num_inputs; ++i) {
        if (v == &step_inputs[i]) {
            record[1] = i;
        }
    }
    if (v == step_output) {
        record[1] = %(output)du;
    }
    record[0] = step_index;
    record[2] = offset;
    record[3] = len;
    record[4] = (uint32_t)written;
    fwrite(record, sizeof record, 1, stdout);
}

int main(void)
{
    uint32_t i, k;
    for (i = 0; i < M_POOL_BYTES; ++i) {
        pool[i] = (int8_t)(i * 37u + 11u);
    }
    for (k = 0; k < M_NUM_INPUTS; ++k) {
        int8_t *input = vmcu_input(&m_model, pool, k);
        for (i = 0; i < m_model.inputs[k].bytes; ++i) {
            input[i] = (int8_t)((i * 13u + k * 7u) %% 251u) ;
        }
    }
    {
        static int8_t scratch[M_SCRATCH_BYTES];
        static uint32_t state[M_STATE_BYTES / 4u + 1u]; /* an LSTM's: 4-byte aligned */
        const vmcu_memory memory = {pool, (uint32_t)sizeof pool, scratch, (uint32_t)sizeof scratch,
                                    M_STATE_BYTES ? (int8_t *)state : NULL, M_STATE_BYTES};
        return (int)vmcu_invoke(&m_model, &memory, NULL);
    }
}
"""


@dataclass
class StepTrace:
    """One step's accesses in execution order (times are global record numbers)."""

    time: np.ndarray
    role: np.ndarray
    offset: np.ndarray
    length: np.ndarray
    written: np.ndarray


# How every traced program is compiled: the runtime's sources, the model's and the harness alike.
CFLAGS = ("-std=c99", "-O0", "-Wall", "-Wextra", "-Werror", "-pedantic", "-DVMCU_TRACE_ACCESS")


def _compile(source: Path, obj: Path, includes: list[Path]) -> Path:
    build = subprocess.run([CC, *CFLAGS, *(f"-I{i}" for i in includes), "-c", str(source), "-o", str(obj)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    return obj


def traced_runtime(work: Path, threads: int = 1) -> list[Path]:
    """The runtime compiled once for every traced program: the same sources (`write_project` copies
    them unchanged into each model's folder; none includes a model's file) with the same flags."""
    runtime = work / "vmcu_runtime"
    shutil.copytree(runtime_dir(), runtime, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "build*"))
    sources = sorted((runtime / "src").rglob("*.c"))
    objects = [work / f"{i:03d}_{p.stem}.o" for i, p in enumerate(sources)]
    with ThreadPoolExecutor(threads) as pool:  # processes: the threads only wait for them
        return list(pool.map(_compile, sources, objects, [[runtime / "include"]] * len(sources)))


def traced_run(program: Program, work: Path, runtime: list[Path] | None = None) -> dict[int, StepTrace]:
    """The program's accesses, step by step; `runtime`: the runtime's objects compiled before
    (`traced_runtime`), else compiled here."""
    return run_traced(write_traced(program, work), runtime)


def write_traced(program: Program, work: Path) -> Path:
    """The model's C and the tracing harness in `work` (Python work: the main thread's)."""
    write_project(program, work, prefix="m")
    header = next(work.glob("*_model.h")).name
    (work / "trace_main.c").write_text(HARNESS % {"header": header, "unknown": UNKNOWN_ROLE, "output": OUTPUT_ROLE})
    return work


def run_traced(work: Path, runtime: list[Path] | None = None) -> dict[int, StepTrace]:
    """Build and run what `write_traced` wrote (compilers and the program: processes, so that
    threads can run several side by side)."""
    if runtime is None:
        runtime = traced_runtime(work / "runtime")
    includes = [work / "vmcu_runtime" / "include", work]
    own = [_compile(p, p.with_suffix(".o"), includes) for p in [*sorted(work.glob("*_model.c")), work / "trace_main.c"]]
    exe = work / "traced"
    build = subprocess.run([CC, *(str(p) for p in [*runtime, *own]), "-lm", "-o", str(exe)], capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    records = np.frombuffer(run.stdout, dtype="<u4").reshape(-1, 5).astype(np.int64)
    time = np.arange(len(records))
    traces = {}
    for step in np.unique(records[:, 0]):
        mine = records[:, 0] == step
        traces[int(step)] = StepTrace(time[mine], *(records[mine, k] for k in range(1, 5)))
    return traces


def _bytes(trace: StepTrace, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(byte offsets, times) of every byte the kept records touch."""
    lengths = trace.length[keep]
    starts = np.repeat(trace.offset[keep], lengths)
    within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return starts + within, np.repeat(trace.time[keep], lengths)


def free_iterations(pattern, size: int, early: int = 0) -> np.ndarray:
    """Per input byte: the iteration after whose reads the pattern frees it (as the replay does);
    `early` frees every byte that many iterations sooner (a deliberately wrong pattern)."""
    s = pattern.schedule()
    later = np.minimum.accumulate(s["read_lo"][::-1])[::-1]
    frontier = np.append(later[1:], size)
    if early:
        frontier = np.append(frontier[early:], np.full(early, size))
    return np.searchsorted(frontier, np.arange(size), side="right")


def violations(program: Program, step, trace: StepTrace, early: int = 0) -> list[str]:
    graph, planned = program.graph, program.plan.steps[step.index]
    out_size = graph.tensors[step.outputs[0]].num_bytes
    sizes = {j: graph.tensors[t].num_bytes for j, t in enumerate(step.inputs)} | {OUTPUT_ROLE: out_size}
    problems = []
    if (trace.role == UNKNOWN_ROLE).any():
        problems.append("an access through a view that is neither an input nor the output")
    for role, size in sizes.items():
        mine = trace.role == role
        if (trace.offset[mine] + trace.length[mine] > size).any():
            problems.append(f"role {role}: an access past the tensor's {size} bytes")
    if (trace.written[trace.role != OUTPUT_ROLE] == 1).any():
        problems.append("an input is written")
    if problems:
        return problems
    out_bytes, out_times = _bytes(trace, (trace.role == OUTPUT_ROLE) & (trace.written == 1))
    first_write = np.full(out_size, np.iinfo(np.int64).max)
    np.minimum.at(first_write, out_bytes, out_times)
    if (first_write == np.iinfo(np.int64).max).any():
        return [f"output bytes never written, first {int(np.argmax(first_write == np.iinfo(np.int64).max))}"]
    for tensor in planned.streamed_inputs:
        pattern = access_pattern(graph, step, tensor, planned.segment_bytes)
        size = graph.tensors[tensor].num_bytes
        s = pattern.schedule()
        write_iteration = np.full(out_size, -1)
        for it, (lo, hi) in enumerate(zip(s["write_lo"], s["write_hi"])):
            write_iteration[lo:hi] = it
        positions = [j for j, t in enumerate(step.inputs) if t == tensor]
        in_bytes, in_times = _bytes(trace, np.isin(trace.role, positions) & (trace.written == 0))
        last_read = np.full(size, -1)
        np.maximum.at(last_read, in_bytes, in_times)
        freed = free_iterations(pattern, size, early)
        order = np.argsort(freed, kind="stable")
        latest = np.maximum.accumulate(last_read[order])  # latest last read among bytes freed by then
        upto = np.searchsorted(freed[order], write_iteration, side="right")
        deadline = np.where(upto > 0, latest[np.maximum(upto - 1, 0)], -1)
        bad = np.flatnonzero(deadline >= first_write)
        if bad.size:
            o = int(bad[0])
            problems.append(f"input tensor {tensor}: output byte {o} (pattern iteration {write_iteration[o]}) is "
                            f"written before the last read of a byte the pattern freed by then")
    return problems


def logistic_model() -> bytes:
    """A LOGISTIC between two convolutions: streamed (the kernel models keep its input alive)."""
    m = kernel_models.Chain(5)
    x = m.conv(m.input((1, 4, 4, 6)), 6, k=(1, 1))
    return m.build(m.conv(m.logistic(x), 4, k=(1, 1)))


def int16_model() -> bytes:
    """The 16x8 fixture: int16 elementwise steps (2-byte elements) streaming over their inputs."""
    return (Path(__file__).resolve().parents[2] / "models" / "elementwise16.tflite").read_bytes()


def int16_sigmoid_model() -> bytes:
    """int16 RELU, PRELU (a per-channel alpha), LOGISTIC and TANH one after another: each streams over
    its input."""
    from tests.tflite_builder import ModelBuilder
    b = ModelBuilder()
    x = b.tensor((1, 5, 7), "int16", scale=1e-3, zero_point=0)
    b.inputs = [x]
    for kind, scale in (("RELU", 1e-3), ("PRELU", 1e-3), ("LOGISTIC", 2 ** -15), ("TANH", 2 ** -15)):
        y = b.tensor((1, 5, 7), "int16", scale=scale, zero_point=0)
        alpha = [b.const(np.arange(-3, 4, dtype=np.int8) * 30, scale=0.01, zero_point=0)] if kind == "PRELU" else []
        b.op(kind, [x] + alpha, [y])
        x = y
    b.outputs = [x]
    return b.build()


def fixture(name: str):
    """A committed model of models/ (its bytes, made on call)."""
    return lambda: (Path(__file__).resolve().parents[2] / "models" / f"{name}.tflite").read_bytes()


# models with a 16x8 heavy layer, whose kernel takes segments of whole int16 elements only
WHOLE_ELEMENT_SEGMENTS = {"lstm_sequence_16x8"}


def programs() -> list[tuple[str, Program]]:
    """Each kernel model under its own vMCU plan and with 3-byte segments (partial segments)."""
    cases = []
    for name, make in (("windowed", kernel_models.windowed_model), ("elementwise", kernel_models.elementwise_model),
                       ("shape", kernel_models.shape_model), ("high_rank", kernel_models.high_rank_model),
                       ("logistic", logistic_model), ("activation", kernel_models.activation_model),
                       ("stack", kernel_models.stack_model), ("int16", int16_model),
                       ("int16_sigmoid", int16_sigmoid_model), ("int16_rows", kernel_models.int16_rows_model),
                       ("sixteen_by_eight", fixture("sixteen_by_eight")),
                       ("lstm_sequence_16x8", fixture("lstm_sequence_16x8"))):
        model = make()
        cases.append((f"{name}-vmcu", compile_model(model, "vmcu", fuse=False)))
        if name not in WHOLE_ELEMENT_SEGMENTS:
            cases.append((f"{name}-segment3", program_with_segment(model, 3)))
    # the 16x8 fixture's element-wise steps grouped (INT16_GROUP: one step over blocks, fused plans only)
    cases.append(("int16-grouped", compile_model(int16_model(), "vmcu")))
    return cases


def hand_written_streaming(program: Program):
    for step, planned in zip(program.steps, program.plan.steps):
        if planned.mode == "segment" and planned.streamed_inputs and \
                describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows) is None:
            yield step


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """Every program traced: the runtime compiled once, the programs built and run side by side."""
    threads = max(1, min(4, os.cpu_count() or 1))
    runtime = traced_runtime(tmp_path_factory.mktemp("runtime"), threads)
    cases = programs()
    folders = [write_traced(program, tmp_path_factory.mktemp(name)) for name, program in cases]
    with ThreadPoolExecutor(threads) as pool:
        traces = list(pool.map(run_traced, folders, [runtime] * len(folders)))
    return [(name, program, trace) for (name, program), trace in zip(cases, traces)]


def test_hand_written_kernels_stay_within_their_access_patterns(traced):
    checked = set()
    for name, program, traces in traced:
        for step in hand_written_streaming(program):
            assert step.index in traces, (name, step.index, step.kernel)
            problems = violations(program, step, traces[step.index])
            assert not problems, (name, step.index, step.kernel, problems)
            checked.add(step.kernel)
    assert checked == STREAMING_HAND_WRITTEN, STREAMING_HAND_WRITTEN - checked


def test_a_pattern_that_frees_too_early_is_caught(traced):
    """The same traces against patterns freeing every byte one iteration sooner: some step breaks."""
    caught = set()
    for name, program, traces in traced:
        for step in hand_written_streaming(program):
            if violations(program, step, traces[step.index], early=1):
                caught.add(step.kernel)
    assert caught == STREAMING_HAND_WRITTEN, caught
