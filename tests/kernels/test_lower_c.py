"""The C that `kernels/lower/` generates from the kernel descriptions, run on the host against the reference ops.

Every case is a one-step model (one layer, or one inverted bottleneck fused as a chain) compiled with the
vMCU planner for its params; its description is lowered for a few segment sizes (and in place),
all functions go into one C file with a small harness (`render_kernels` + the params emitters),
built twice (portable, and the DSP paths with emulated instructions) with the runtime's warning
flags and the sanitizers, and run over several pool layouts:

- apart: input, output and workspace side by side, nothing crosses the end of the pool;
- wrapped: the same, rotated so that the input (or the output, or the workspace) crosses the
  end of the pool inside a run, so the loads take their copy paths (counted: VMCU_ON_COPY);
- planned: the plan's own pool, offsets and segment (output over the consumed input).

The output bytes must equal the reference kernel's (`vmcu_reference.ops`).
"""
from __future__ import annotations

import hashlib
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from tests.c.kernel_models import Chain
from tests.planner.test_chains import chained_program
from vmcu_reference.ops import make_kernel
from vmcu_tflite.codegen.cwriter import CWriter
from vmcu_tflite.ops import SPECS
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.ir import RAMLoad, Requantize
from vmcu_tflite.kernels.lower import lower, render_kernels
from vmcu_tflite.kernels.schedule import instances, values, walk
from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.plan import workspace_id
from vmcu_tflite.validate.runtime_cache import made_once

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "csrc" / "include"
CC = shutil.which("gcc") or shutil.which("cc")
WARNINGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wshadow"]

pytestmark = pytest.mark.skipif(CC is None, reason="no host C compiler")


# --- the cases: one-step models ------------------------------------------------------------------


def fc(m: Chain):
    x = m.input((3, 21))
    return x, m.fully_connected(x, 7, depth=21, act=1, per_channel=True)


def fc_wide(m: Chain):
    x = m.input((2, 36))
    return x, m.fully_connected(x, 5, depth=36)


def fc_deep(m: Chain):  # rows too long to widen: two-row tiles read both inputs as bytes (vmcu_dot4x2_s8_scalar)
    x = m.input((3, 517))
    return x, m.fully_connected(x, 6, depth=517, act=1)


def pointwise(m: Chain):
    x = m.input((1, 4, 5, 6))
    return x, m.conv(x, 9, k=(1, 1), act=1)


def pointwise_odd(m: Chain):  # 15 rows, 7 units: two-row tiles end with one row, channel pairs with one
    x = m.input((1, 3, 5, 6))
    return x, m.conv(x, 7, k=(1, 1), act=0)


def conv_gather(m: Chain):
    x = m.input((1, 7, 6, 3))
    return x, m.conv(x, 5, k=(3, 3), stride=(2, 2), act=3)


def conv_gather_dilated(m: Chain):  # x-dilation: one run per tap, packed into the window
    x = m.input((1, 8, 8, 2))
    return x, m.conv(x, 4, k=(3, 3), dilation=(2, 2))


def conv_rows(m: Chain):  # 3x3x16 = 144 bytes: too wide to gather
    x = m.input((1, 6, 5, 16))
    return x, m.conv(x, 6, k=(3, 3), act=1)


def conv_rows_valid(m: Chain):
    x = m.input((1, 6, 7, 24))
    return x, m.conv(x, 5, k=(2, 3), stride=(1, 2), padding=1)


def conv_taps_grouped(m: Chain):  # 4 output channels per group: pairs never straddle a group
    x = m.input((1, 5, 5, 8))
    return x, m.conv(x, 8, k=(3, 3), groups=2, act=2)


def conv_taps_grouped_odd(m: Chain):  # 3 output channels per group: pairs would straddle groups
    x = m.input((1, 5, 5, 8))
    return x, m.conv(x, 6, k=(3, 3), groups=2, act=2)


def conv_taps_dilated(m: Chain):
    x = m.input((1, 6, 7, 16))
    return x, m.conv(x, 3, k=(3, 3), dilation=(1, 2))


def dw(m: Chain):
    x = m.input((1, 5, 6, 10))
    return x, m.depthwise(x, k=(3, 3), act=1)


def dw_multiplier2(m: Chain):
    x = m.input((1, 6, 5, 3))
    return x, m.depthwise(x, k=(3, 2), dilation=(2, 1), multiplier=2, per_channel=False)


def dw_dilated_strided(m: Chain):
    x = m.input((1, 7, 9, 8))
    return x, m.depthwise(x, k=(3, 3), stride=(2, 2), dilation=(1, 2), padding=1, act=3)


def dw_wide_kernel(m: Chain):  # one-channel planes read kernel rows of 5 and 7 taps as words (vmcu_dot_row_s8)
    x = m.input((1, 9, 11, 3))
    return x, m.depthwise(x, k=(5, 7), act=1)


def dw_twelve(m: Chain):  # whole groups of four channels: a lane-ordered filter's (widened_weights.py)
    x = m.input((1, 5, 6, 12))
    return x, m.depthwise(x, k=(3, 3), act=1)


def dw_wide_eight(m: Chain):  # in place, two-channel planes of column pairs (5 and 7 taps)
    x = m.input((1, 6, 9, 8))
    return x, m.depthwise(x, k=(5, 7), act=3)


def dw_padded(m: Chain):
    x = m.input((2, 4, 5, 5))
    return x, m.depthwise(x, k=(2, 3), stride=(1, 2), act=0)


def block(lead: str, residual: str | None, k: int = 3, stride: int = 1, c_in: int = 4, expand: int = 10,
          hw: tuple[int, int] = (7, 6)):
    def build(m: Chain):
        x = m.input((1, *hw, c_in))
        y = x
        if lead == "expand":
            y = m.conv(y, expand, k=(1, 1), act=3)
        elif lead == "stem":
            y = m.conv(y, 6, k=(3, 3), stride=(2, 2), act=3)
        y = m.depthwise(y, k=(k, k), stride=(stride, stride), act=3)
        y = m.conv(y, 4 if residual else 5, k=(1, 1))
        if residual:
            y = m.binary("ADD", x, y, m.info[y][0]) if residual == "first" else m.binary("ADD", y, x, m.info[y][0])
        return x, y
    return build


@dataclass
class Case:
    name: str
    build: object
    segments: tuple = ()  # (segment, in_place) tried besides the plan's
    fused: bool = False
    seed: int = 0
    tuning: str = "dsp"  # kernels/tuning.py: "helium" shapes eight-channel depthwise groups, four-channel 1x1 tiles
    widened: float | None = None  # the share of filter bytes for int16 copies (None: the default; fused: none)
    # filled by prepare()
    program: Program | None = None
    step: object = None
    data: np.ndarray | None = None
    expected: bytes = b""
    configs: list = field(default_factory=list)  # (function name, kernel, segment, in_place, whole roles)


CASES = [
    Case("fc", fc, ((3, False), (7, False), (2, False))),
    Case("fc_wide", fc_wide, ((5, False), (4, False))),
    Case("fc_deep", fc_deep, ((6, False, 2), (4, False, 2), (3, False))),
    Case("pointwise", pointwise, ((9, False), (4, False), (1, False), (9, False, 2), (4, False, 2))),
    Case("pointwise_odd", pointwise_odd, ((7, False, 2), (3, False, 2), (7, False))),
    Case("conv_gather", conv_gather, ((5, False), (2, False))),
    Case("conv_gather_dilated", conv_gather_dilated, ((4, False), (3, False))),
    Case("conv_rows", conv_rows, ((6, False), (4, False))),
    Case("conv_rows_valid", conv_rows_valid, ((5, False), (2, False))),
    Case("conv_taps_grouped", conv_taps_grouped, ((8, False), (4, False), (2, False))),
    Case("conv_taps_grouped_odd", conv_taps_grouped_odd, ((6, False), (3, False), (4, False))),
    Case("conv_taps_dilated", conv_taps_dilated, ((3, False), (2, False))),
    Case("dw", dw, ((10, False), (6, False), (5, True), (2, True), (10, True), (1, True))),
    Case("dw_multiplier2", dw_multiplier2, ((6, False), (4, False))),
    Case("dw_dilated_strided", dw_dilated_strided, ((8, False), (3, False), (4, True), (8, True))),
    Case("dw_padded", dw_padded, ((5, False), (1, True), (5, True))),
    Case("dw_wide_kernel", dw_wide_kernel, ((1, True), (3, True), (3, False))),
    # Every filter widened: lane-ordered depthwise filters (groups from channel 6: the DSP path's group test
    # fails and the scalar loop reads the lane order), one- and two-channel planes' taps loaded from them.
    Case("dw_lanes16", dw_twelve, ((12, False), (6, False), (8, False), (4, True), (1, True)), widened=1.0),
    Case("dw_wide_lanes16", dw_wide_eight, ((2, True), (1, True), (8, False), (4, True)), widened=1.0),
    Case("block_lanes16", block("expand", "first", expand=12), ((4, False), (3, False)), fused=True, widened=1.0),
    Case("block_halves_lanes16", block("expand", "second", k=5, expand=8), ((4, False), (1, False)), fused=True,
         widened=1.0),
    # Rows in threes (chain._in_threes: a 5x5 or 7x7 window at stride 1 or 2 over groups of four, 1x1 rows of
    # 8 or 16): the triples' int8 and lane-ordered filters, windows past both edges, rows of 3k + 1 and
    # 3k + 2 pixels (the last tile a pixel alone, or a pair).
    Case("block_threes", block("expand", "second", k=5, expand=8, hw=(5, 7)), ((4, False), (1, False)),
         fused=True, widened=0.001),  # a share that buys no int16 copy (a share of 0 would forbid threes)
    Case("block_threes_lanes16", block("expand", "first", k=7, expand=16, hw=(4, 8)), ((4, False), (3, False)),
         fused=True, widened=1.0),
    # At a stride of 2, by even taps and then odd ones (two stride-1 passes over every other column).
    Case("block_threes_strided", block("expand", None, k=5, stride=2, expand=8, hw=(9, 13)), ((5, False), (3, False)),
         fused=True, widened=0.001),
    Case("block_expand_residual_first", block("expand", "first"), ((4, False), (3, False)), fused=True),
    Case("block_expand_residual_second", block("expand", "second", k=5), ((4, False), (1, False)), fused=True),
    Case("block_stem", block("stem", None), ((5, False), (2, False)), fused=True),
    # A stem window of 3 x 3 x 16 bytes, too wide to gather: read by kernel rows.
    Case("block_wide_stem", block("stem", None, c_in=16), ((5, False), (2, False)), fused=True),
    Case("block_expand_strided", block("expand", None, stride=2), ((5, False), (3, False)), fused=True),
    Case("block_no_lead_residual", block("none", "second"), ((4, False), (3, False)), fused=True),
    Case("block_no_lead", block("none", None, k=5, stride=2), ((5, False), (2, False)), fused=True),
    # Tuned for Helium: eight-channel depthwise groups (10 channels: a group of 8 and one of 2; planes of 5
    # in place), four-channel tiles in the fused 1x1 layers (5 and 10 outputs: a last tile of 1 or 2).
    Case("dw_helium", dw, ((10, False), (6, False), (5, True), (10, True)), tuning="helium"),
    Case("conv_gather_helium", conv_gather, ((5, False), (2, False)), tuning="helium"),
    Case("dw_dilated_strided_helium", dw_dilated_strided, ((8, False), (3, False), (8, True)), tuning="helium"),
    Case("block_expand_residual_helium", block("expand", "first"), ((4, False), (3, False)), fused=True,
         tuning="helium"),
    Case("block_stem_helium", block("stem", None), ((5, False), (2, False)), fused=True, tuning="helium"),
]


def prepare(case: Case, index: int) -> None:
    m = Chain(100 + index)
    x, y = case.build(m)
    model = m.build(y)
    case.program = (chained_program(model, tuning=case.tuning, widened=case.widened or 0.0) if case.fused
                    else compile_model(model, fuse=False, tuning=case.tuning, widened=case.widened))
    graph, steps = case.program.graph, case.program.steps
    assert len(steps) == 1, [s.kernel for s in steps]
    case.step = step = steps[0]
    assert step.kernel == ("LAYER_CHAIN" if case.fused else step.kernel)
    shape = graph.tensors[step.inputs[0]].shape
    case.data = np.random.default_rng(index).integers(-128, 128, size=shape).astype(np.int8)
    case.expected = make_kernel(step.kernel, step.params).run(case.data).astype(np.int8).tobytes()
    planned = case.program.plan.steps[0]
    seen = set()
    configs = ((planned.segment_bytes, planned.in_place, planned.tile_rows),) + case.segments
    for j, (segment, in_place, *tile) in enumerate(configs):  # (segment, in place[, GEMM tile rows])
        if (segment, in_place, *tile) in seen:
            continue
        seen.add((segment, in_place, *tile))
        kernel = describe(step.kernel, step.params, segment, in_place, *tile)
        case.configs.append((f"{case.name}_{j}", kernel, segment, in_place, frozenset()))
    # The plan's configuration again, lowered knowing that no tensor wraps (run apart only).
    function, kernel, segment, in_place, _ = case.configs[0]
    roles = frozenset(kernel.tensors) | {w.name for w in kernel.workspaces}
    case.configs.append((f"{function}_whole", kernel, segment, in_place, roles))


# --- the harness ---------------------------------------------------------------------------------

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long copies;
#define VMCU_ON_COPY(load) ((void)(load), ++copies)
"""

MAIN = r"""
typedef struct {
    vmcu_kernel_fn fn;
    const void *params;
    uint8_t kind;
} entry;

static const entry entries[] = {
%s
};

static uint32_t word(FILE *f)
{
    unsigned char b[4];
    if (fread(b, 1, 4, f) != 4) {
        return 0xFFFFFFFFu;
    }
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

/* Jobs from stdin: entry, pool size, input base, output base, workspace, segment, mode, then the pool.
   Out: status, copies, then the pool after the call. */
int main(void)
{
    for (;;) {
        const uint32_t which = word(stdin);
        vmcu_step step;
        vmcu_context ctx;
        vmcu_view in, out;
        int8_t *pool;
        uint32_t size, header[2];
        if (which == 0xFFFFFFFFu) {
            return 0;
        }
        memset(&step, 0, sizeof step);
        size = word(stdin);
        in.base = word(stdin);
        out.base = word(stdin);
        step.workspace = word(stdin);
        step.segment = word(stdin);
        step.mode = (uint8_t)word(stdin);
        step.kind = entries[which].kind;
        step.num_inputs = 1;
        step.params = entries[which].params;
        pool = (int8_t *)malloc(size);
        if (pool == 0 || fread(pool, 1, size, stdin) != size) {
            return 2;
        }
        in.pool = out.pool = pool;
        in.size = out.size = size;
        ctx.step = &step;
        ctx.pool = pool;
        ctx.pool_size = size;
        ctx.scratch = 0;
        copies = 0;
        header[0] = (uint32_t)entries[which].fn(&ctx, entries[which].params, &in, &out);
        header[1] = (uint32_t)copies;
        fwrite(header, 4, 2, stdout);
        fwrite(pool, 1, size, stdout);
        free(pool);
    }
}
"""


def harness_source(cases: list[Case]) -> tuple[str, dict[str, int]]:
    writer = CWriter("t")
    params, entries, index, kernels, whole = [], [], {}, {}, {}
    for case in cases:
        ctype, init = SPECS[case.step.kernel].emit(case.step, case.program.graph, writer, case.name)
        params.append(f"static const {ctype} t_{case.name}_params = {init};\n")
        for name, kernel, _, _, roles in case.configs:
            kernels[name] = kernel
            whole[name] = roles
            index[name] = len(entries)
            entries.append(f"    {{{name}, &t_{case.name}_params, {SPECS[case.step.kernel].kind_id}}}")
    source = (HARNESS + render_kernels(kernels, whole) + "\n" + writer.text() + "\n" + "".join(params)
              + MAIN % ",\n".join(entries))
    return source, index


SANITIZE = ["-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
ARM_CC = shutil.which("arm-none-eabi-gcc")


def start_builds(source: Path, work: Path) -> dict[str, tuple[subprocess.Popen, Path]]:
    """The host builds (portable, emulated DSP) and, if the toolchain is there, a Cortex-M4 object
    (the DSP instructions through ACLE, optimized: its warnings too are errors), all at once."""
    builds = {}
    for variant, flags in (("portable", SANITIZE), ("dsp", SANITIZE + ["-DVMCU_EMULATE_DSP"])):
        exe = work / f"kernels_{variant}"
        builds[variant] = (subprocess.Popen([CC, *WARNINGS, *flags, f"-I{INCLUDE}", str(source), "-o", str(exe)],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), exe)
    if ARM_CC:
        obj = work / "kernels_m4.o"
        builds["cortex-m4"] = (subprocess.Popen([ARM_CC, *WARNINGS, "-mcpu=cortex-m4", "-mthumb", "-O2",
                                                 f"-I{INCLUDE}", "-c", str(source), "-o", str(obj)],
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), obj)
    return builds


def finish(build: tuple[subprocess.Popen, Path]) -> Path:
    process, product = build
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr[:6000]
    return product


# --- layouts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    case: Case
    function: str
    kernel: object
    segment: int
    in_place: bool
    layout: str
    pool: int
    bases: tuple  # input, output, workspace

    def header(self, index: dict[str, int]) -> bytes:
        mode = 2 if self.in_place else 1
        return struct.pack("<7I", index[self.function], self.pool, *self.bases, self.segment, mode)

    def initial_pool(self) -> np.ndarray:
        rng = np.random.default_rng(len(self.layout) + self.pool)
        pool = rng.integers(-128, 128, size=self.pool).astype(np.int8)
        data = self.case.data.reshape(-1)
        pool[(self.bases[0] + np.arange(data.size)) % self.pool] = data
        return pool

    def output(self, pool: np.ndarray) -> bytes:
        size = len(self.case.expected)
        return pool[(self.bases[1] + np.arange(size)) % self.pool].tobytes()


def layouts(case: Case, function: str, kernel, segment: int, in_place: bool, whole: frozenset) -> list[Job]:
    """Apart, then (unless lowered for tensors that do not wrap) rotated so that each tensor in
    turn crosses the end of the pool mid-run."""
    in_bytes, out_bytes = kernel.tensors["input0"], kernel.tensors["output"]
    ws_bytes = sum(w.capacity for w in kernel.workspaces)
    starts = (0, in_bytes + 3, in_bytes + 3 + out_bytes + 5)
    pool = starts[2] + ws_bytes + 7
    jobs = [Job(case, function, kernel, segment, in_place, "apart", pool, starts)]
    if whole:
        return jobs
    splits = [("input", 0, in_bytes // 2 + 1), ("input_late", 0, in_bytes - 3 if in_bytes > 6 else 1),
              ("output", 1, out_bytes // 3 + 1)]
    if ws_bytes:
        splits += [("workspace", 2, ws_bytes // 2 + 1), ("workspace_early", 2, min(3, ws_bytes - 1))]
    for label, which, split in splits:
        rotation = starts[which] + split
        jobs.append(Job(case, function, kernel, segment, in_place, f"wrapped_{label}", pool,
                        tuple((s - rotation) % pool for s in starts)))
    return jobs


def planned_job(case: Case) -> Job:
    plan, graph, step = case.program.plan, case.program.graph, case.step
    function, kernel, segment, in_place, _ = case.configs[0]
    bases = (plan.offsets[graph.storage_of(step.inputs[0])], plan.offsets[graph.storage_of(step.outputs[0])],
             plan.offsets.get(workspace_id(step.index), 0))
    return Job(case, function, kernel, segment, in_place, "planned", plan.pool_bytes, bases)


def pointer_loads(kernel) -> set[str]:
    """Tensors the kernel reads through pool pointers (they are copied where they wrap)."""
    return {p.stmt.tensor for p in walk(kernel.body) if isinstance(p.stmt, RAMLoad) and p.stmt.into is None}


def built_once(source: str, folder: Path) -> dict[str, Path]:
    """The builds of `source` (start_builds), made by the first of the run's workers that asks and
    taken from `folder` by the others (`made_once`, the runtime cache's): the module's tests are
    spread over the workers, and each compiling the harness three ways (about 1.8 MB of C) cost
    some 100 s of processor time."""
    entry = folder / hashlib.sha256(source.encode()).hexdigest()[:16]

    def make() -> str:
        entry.mkdir(parents=True, exist_ok=True)
        (entry / "kernels.c").write_text(source)
        builds = start_builds(entry / "kernels.c", entry)
        try:
            return "".join(f"{variant} {finish(build).name}\n" for variant, build in builds.items())
        finally:
            for process, _ in builds.values():
                if process.poll() is None:
                    process.kill()
                    process.wait()
    return {variant: entry / name for variant, name in (line.split() for line in made_once(entry, make).splitlines())}


@pytest.fixture(scope="module")
def results(run_folder):
    for k, case in enumerate(CASES):
        if case.program is None:
            prepare(case, k)
    source, index = harness_source(CASES)
    jobs = [job for case in CASES for config in case.configs for job in layouts(case, *config)]
    jobs += [planned_job(case) for case in CASES]
    stdin = b"".join(job.header(index) + job.initial_pool().tobytes() for job in jobs)
    builds = built_once(source, run_folder / "lower_c")
    out = {}
    for variant in ("portable", "dsp"):
        done = subprocess.run([str(builds[variant])], input=stdin, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-4000:]
        data, at = done.stdout, 0
        for job in jobs:
            status, copies = struct.unpack_from("<iI", data, at)
            pool = np.frombuffer(data, np.int8, job.pool, at + 8)
            at += 8 + job.pool
            out.setdefault((job.case.name, variant), []).append((job, status, copies, job.output(pool)))
        assert at == len(data)
    if "cortex-m4" in builds:
        out["cortex-m4"] = builds["cortex-m4"]
    return out


@pytest.mark.parametrize("variant", ["portable", "dsp"])
@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_generated_kernel_matches_reference(results, name, variant):
    runs = results[(name, variant)]
    wrapped_copies: dict[tuple[str, str], int] = {}
    for job, status, copies, output in runs:
        assert status == 0, (job.function, job.layout)
        if output != job.case.expected:
            got = np.frombuffer(output, np.int8)
            want = np.frombuffer(job.case.expected, np.int8)
            bad = np.flatnonzero(got != want)
            pytest.fail(f"{job.function} (segment {job.segment}{', in place' if job.in_place else ''}) layout "
                        f"{job.layout}: {bad.size} bytes differ, first at {bad[0]}: {got[bad[0]]} != {want[bad[0]]}")
        if job.layout.startswith("wrapped_"):
            tensor = {"input": "input0", "output": "output", "workspace": "ws"}[job.layout.split("_")[1]]
            key = (job.function, tensor)
            wrapped_copies[key] = wrapped_copies.get(key, 0) + copies
    # Each kernel that reads a tensor through pool pointers took its copy path when that tensor wrapped.
    case = next(c for c in CASES if c.name == name)
    for function, kernel, _, _, whole in case.configs:
        if whole:
            continue
        loads = pointer_loads(kernel)
        if "input0" in loads:
            assert wrapped_copies[(function, "input0")] > 0, function
        if any(w.name in loads for w in kernel.workspaces):
            assert wrapped_copies[(function, "ws")] > 0, function


def test_render_is_deterministic_and_declares_each_function_once():
    case = CASES[0]
    if case.program is None:
        prepare(case, 0)
    kernels = {name: kernel for name, kernel, _, _, _ in case.configs}
    first, again = render_kernels(kernels), render_kernels(dict(reversed(list(kernels.items()))))
    assert first == again
    for name in kernels:
        assert first.count(f"static vmcu_status {name}(") == 1
    assert '#include "vmcu/vmcu_dsp.h"' in first
    assert lower(case.configs[0][1], "f").startswith("static vmcu_status f(const vmcu_context *ctx")


def test_tensors_that_do_not_wrap_need_no_copy_buffer_nor_wrap_test():
    for k, case in enumerate(CASES):
        if case.program is None:
            prepare(case, k)
        function, kernel, _, _, roles = case.configs[-1]
        assert function.endswith("_whole") and roles
        text = lower(kernel, "f", roles)
        assert "_copy[" not in text and "vmcu_span(" not in text, case.name
        assert "vmcu_read(" not in text and "vmcu_write(" not in text and "vmcu_get(" not in text, case.name
        # and the default still guards every pointer load
        assert ("vmcu_span(" in lower(kernel, "f")) == bool(pointer_loads(kernel)), case.name


def test_in_place_depthwise_runs_its_interior_columns_without_clamps():
    """The x loop's interior hint: three loops in order (pixels two at a time), the middle one's taps
    a constant range that both pixels share, no tap left to one pixel alone."""
    case = next(c for c in CASES if c.name == "dw")
    if case.program is None:
        prepare(case, CASES.index(case))
    kernel = describe(case.step.kernel, case.step.params, 5, True)
    text = lower(kernel, "f")
    heads = re.findall(r"for \(int32_t x = (\d+); x < (\d+); x \+= 2\)", text)
    assert heads == [("0", "2"), ("2", "4"), ("4", "6")], heads
    middle = text.split("for (int32_t x = 2; x < 4; x += 2)")[1].split("for (int32_t x = 4;")[0]
    assert re.findall(r"vmcu_mac2x2_row_s8\(row, [^,]+, 3, 1, ", middle)
    assert "for (int32_t kx" not in middle


@pytest.mark.skipif(ARM_CC is None, reason="no arm-none-eabi-gcc")
def test_generated_kernels_build_for_cortex_m4(results):
    """The real DSP path (ACLE intrinsics, PKHBT) compiles without a warning at -O2 on the target."""
    assert results["cortex-m4"].stat().st_size > 0


def test_grouped_conv_description_computes_every_channel():
    case = Case("conv_taps_grouped_odd", conv_taps_grouped_odd)
    prepare(case, 99)
    kernel = describe(case.step.kernel, case.step.params, 6)
    placed = next(p for p in walk(kernel.body) if isinstance(p.stmt, Requantize))
    env = instances(placed)
    first = (env["n"] == 0) & (env["y"] == 0) & (env["x"] == 0)
    channels = values(placed.stmt.channel, env)[first]
    counts = values(placed.stmt.count, env)[first]
    assert sorted(int(c) + k for c, n in zip(channels, counts) for k in range(int(n))) == list(range(6))


@pytest.mark.parametrize("depth, paired", [(24, True), (20, False)], ids=["assembly", "C"])
def test_a_gemm_tile_is_widened_interleaved_only_for_the_assembly(depth, paired):
    """The GEMM assembly reads both pixels' inputs interleaved (vmcu_widen_s8_pair): a tile is widened
    so, under VMCU_DOT_RUN and only with its second pixel, exactly where the assembly is its dot
    products' (rows of a multiple of 8 inputs); a row of 20 inputs keeps the C loops and the plain
    widening their dot products read."""
    from vmcu_tflite.kernels.gemm import gemm
    from vmcu_tflite.kernels.requant import RequantForm
    form = RequantForm(narrow=True, saturate=True, bias="int16_t")
    source = lower(gemm(7, depth, 16, 16, "vmcu_conv_params", "pointwise", form, tile_rows=2), "f")
    assert ("vmcu_gemm2x2_k24_narrow_b" in source) is paired
    assert source.count("vmcu_widen_s8_pair(") == paired
    if paired:
        guard = source[:source.index("vmcu_widen_s8_pair(")].rsplit("#if", 1)[1]
        assert guard.startswith(" VMCU_DOT_RUN") and "if (vmcu_min((-m + 7), 2) == 2) {" in guard
        assert "vmcu_widen_s8(xw + " in source  # the last tile's one pixel, and the other cores


@pytest.mark.parametrize("units, direct", [(40, True), (528, False)], ids=["all units at once", "per segment"])
def test_the_gemm_assembly_stores_a_tile_into_the_pool_only_in_place_of_its_stores(units, direct):
    """Where a tile computes all its units in one pass and then stores them (`gemm.ALL_UNITS_BYTES`),
    the assembly writes them straight into the pool where the tile's two rows do not cross its end
    (vmcu_span_out, NULL in traced builds), and the stores run only where it did not; a tile
    stored segment by segment between its passes keeps its stores."""
    from vmcu_tflite.kernels.gemm import gemm
    from vmcu_tflite.kernels.requant import RequantForm
    form = RequantForm(narrow=True, saturate=True, bias="int16_t")
    source = lower(gemm(7, 16, units, 16, "vmcu_conv_params", "pointwise", form, tile_rows=2), "f")
    assert "vmcu_gemm2x2_k16_narrow_b16_run(&tile);" in source
    assert (f"seg_pool = vmcu_span_out(&view_output, (uint32_t)({units} * m), {2 * units}u);" in source) is direct
    if direct:
        guarded = source[source.index("if (seg_pool == 0) {"):]
        assert guarded.index("vmcu_write_buffer(") < guarded.index("return VMCU_OK;")
        assert "seg_pool != 0 ? seg_pool : &seg[u]" in source
