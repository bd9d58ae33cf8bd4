"""The state region in C: a model with state (the SVDF keyword fixture; the audio preprocessor, whose
spectral subtraction keeps its noise estimate there) carries it from run to run, resets it on the
first run and on vmcu_reset_state(), and refuses a region it cannot use.

One host program (ASan and UBSan) runs a sequence of 3 inputs and compares each run's output with
the reference interpreter's run of the same sequence, then restarts the sequence three ways (a
reset, a region whose tag says another model used it, a fresh zeroed region), and tries a missing,
short and misaligned region and a state table that leaves the region.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from reference.inputs import random_inputs
from reference.interpreter import Interpreter
from vmcu_tflite.codegen.project import render_project, runtime_dir
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.state import state_layout

ROOT = Path(__file__).resolve().parents[2]
MODELS = [ROOT / "models" / "svdf_keyword.tflite", ROOT / "models" / "audio_preprocessor.tflite"]
CC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no gcc")
RUNS = 3

MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "m_model.h"

%(arrays)s

static int8_t pool[M_POOL_BYTES], scratch[M_SCRATCH_BYTES];
static uint32_t state[M_STATE_BYTES / 4 + 2];

static int run(const vmcu_memory *memory, int r)
{
    vmcu_status status;
    memcpy(vmcu_input(&m_model, pool, 0), inputs[r], M_INPUT0_BYTES);
    status = vmcu_invoke(&m_model, memory, NULL);
    if (status != VMCU_OK) {
        return -(int)status;
    }
    return memcmp(vmcu_output(&m_model, pool, 0), expected[r], M_OUTPUT0_BYTES) == 0;
}

int main(void)
{
    const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch, (int8_t *)state, M_STATE_BYTES};
    const vmcu_memory no_state = {pool, sizeof pool, scratch, sizeof scratch, NULL, 0};
    const vmcu_memory short_state = {pool, sizeof pool, scratch, sizeof scratch, (int8_t *)state, M_STATE_BYTES - 1};
    const vmcu_memory misaligned = {pool, sizeof pool, scratch, sizeof scratch, (int8_t *)state + 1, M_STATE_BYTES};
    vmcu_model bad = m_model;
    vmcu_state_init init[16];
    int r;
    for (r = 0; r < %(runs)d; ++r) {
        printf("sequence %%d\n", run(&memory, r));
    }
    printf("repeat_without_reset %%d\n", run(&memory, 0));
    printf("reset %%d\n", (int)vmcu_reset_state(&m_model, &memory));
    printf("after_reset %%d\n", run(&memory, 0));  /* one call per statement: C leaves argument order open */
    printf("after_reset %%d\n", run(&memory, 1));
    state[0] ^= 1u; /* the region's tag: another model's state */
    printf("other_tag %%d\n", run(&memory, 0));
    memset(state, 0, sizeof state);
    printf("zeroed %%d\n", run(&memory, 0));
    printf("no_state %%d\n", run(&no_state, 0));
    printf("short_state %%d\n", run(&short_state, 0));
    printf("misaligned %%d\n", run(&misaligned, 0));
    memcpy(init, m_model.state_init, m_model.num_state_init * sizeof init[0]);
    init[0].bytes = m_model.state_bytes;
    bad.state_init = init;
    printf("init_leaves_region %%d\n", (int)vmcu_invoke(&bad, &memory, NULL));
    return 0;
}
"""


def _c_array(name: str, rows) -> str:
    return (f"static const int8_t {name}[][{len(rows[0])}] = {{"
            + ", ".join("{" + ", ".join(map(str, row)) + "}" for row in rows) + "};")


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
def test_state_carries_resets_and_is_checked(model, tmp_path):
    program = compile_model(model)
    assert state_layout(program.graph).bytes > 0
    interpreter = Interpreter(program)
    runs = [random_inputs(program.graph, seed)[0] for seed in range(RUNS)]
    expected = [interpreter.run([x]).outputs[0] for x in runs]
    assert len({e.tobytes() for e in expected}) > 1
    for name, text in render_project(program, "m").items():
        if name.endswith((".c", ".h")):
            (tmp_path / name.replace(program.plan.model, "m", 1)).write_text(
                text.replace(f'"{program.plan.model}_model.h"', '"m_model.h"'))
    # the pool's bytes of each run's input and output (little-endian elements of any type)
    arrays = "\n".join([_c_array("inputs", [x.reshape(-1).view(np.int8) for x in runs]),
                        _c_array("expected", [e.reshape(-1).view(np.int8) for e in expected])])
    main = tmp_path / "main.c"
    main.write_text(MAIN % {"arrays": arrays, "runs": RUNS})
    runtime = runtime_dir()
    exe = tmp_path / "state"
    sources = [str(main), str(tmp_path / "m_model.c"), *(str(p) for p in sorted((runtime / "src").rglob("*.c")))]
    build = subprocess.run([CC, "-std=gnu99", "-O0", "-g", "-Wall", "-Wextra", "-Werror",
                            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", f"-I{runtime / 'include'}",
                            f"-I{tmp_path}", *sources, "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    got = {}
    for line in done.stdout.splitlines():
        key, *values = line.split()
        got.setdefault(key, []).extend(int(v) for v in values)
    STATE_TOO_SMALL, BAD_MODEL = 6, 2
    assert got["sequence"] == [1] * RUNS  # each run continues from the last: the interpreter's sequence
    assert got["repeat_without_reset"] == [0]  # the state moved on: run 0's input no longer gives run 0's output
    assert got["reset"] == [0] and got["after_reset"] == [1, 1]
    assert got["other_tag"] == [1] and got["zeroed"] == [1]
    assert got["no_state"] == got["short_state"] == got["misaligned"] == [-STATE_TOO_SMALL]
    assert got["init_leaves_region"] == [BAD_MODEL]


STREAM_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "m_model.h"

%(arrays)s

static int8_t pool[M_POOL_BYTES], scratch[M_SCRATCH_BYTES + 1];
static uint32_t state[M_STATE_BYTES / 4 + 2];

static int run(const vmcu_memory *memory, int r, int e)
{
    vmcu_status status;
    memcpy(vmcu_input(&m_model, pool, 0), inputs[r], M_INPUT0_BYTES);
    status = vmcu_invoke(&m_model, memory, NULL);
    if (status != VMCU_OK) {
        return -(int)status;
    }
    return memcmp(vmcu_output(&m_model, pool, 0), expected[e], M_OUTPUT0_BYTES) == 0;
}

int main(void)
{
    const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch, (int8_t *)state, M_STATE_BYTES};
    int r;
    printf("reset_before_first %%d\n", (int)vmcu_reset_state(&m_model, &memory));
    for (r = 0; r < %(runs)d; ++r) {
        printf("sequence %%d\n", run(&memory, r, r));
    }
    printf("reset %%d\n", (int)vmcu_reset_state(&m_model, &memory));
    for (r = 0; r < %(runs)d; ++r) {
        printf("after_reset %%d\n", run(&memory, r, %(runs)d + r));
    }
    state[0] ^= 1u; /* another model's tag: a fresh start, the initial values again */
    printf("other_tag %%d\n", run(&memory, 0, 0));
    memset(state, 0, sizeof state);
    printf("zeroed %%d\n", run(&memory, 0, 0));
    return 0;
}
"""


def _build_and_run(program, main_text: str, tmp_path) -> dict[str, list[int]]:
    for name, text in render_project(program, "m").items():
        if name.endswith((".c", ".h")):
            (tmp_path / name.replace(program.plan.model, "m", 1)).write_text(
                text.replace(f'"{program.plan.model}_model.h"', '"m_model.h"'))
    main = tmp_path / "main.c"
    main.write_text(main_text)
    runtime = runtime_dir()
    exe = tmp_path / "state"
    sources = [str(main), str(tmp_path / "m_model.c"), *(str(p) for p in sorted((runtime / "src").rglob("*.c")))]
    build = subprocess.run([CC, "-std=gnu99", "-O0", "-g", "-Wall", "-Wextra", "-Werror",
                            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", f"-I{runtime / 'include'}",
                            f"-I{tmp_path}", *sources, "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    got: dict[str, list[int]] = {}
    for line in done.stdout.splitlines():
        key, *values = line.split()
        got.setdefault(key, []).extend(int(v) for v in values)
    return got


def test_resource_variables_start_once_and_a_reset_keeps_call_once_done(tmp_path):
    """stateful_stream: its CALL_ONCE initial values on the first run (after a reset before it
    too, as TFLite Micro: CALL_ONCE has not run yet), the zero points after a reset (CALL_ONCE stays
    done), the initial values again in a region another model used or a zeroed one. Expected: the
    reference interpreter, which tests/test_resource_variables.py holds to TFLite Micro's Reset."""
    program = compile_model(ROOT / "models" / "stateful_stream.tflite")
    assert state_layout(program.graph).flags
    interpreter = Interpreter(program)
    runs = [random_inputs(program.graph, seed)[0] for seed in range(RUNS)]
    expected = [interpreter.run([x]).outputs[0] for x in runs]
    interpreter.reset_state()
    expected += [interpreter.run([x]).outputs[0] for x in runs]
    assert not np.array_equal(expected[0], expected[RUNS])  # the reset start differs from the first start
    arrays = "\n".join([_c_array("inputs", [x.reshape(-1) for x in runs]),
                        _c_array("expected", [e.reshape(-1) for e in expected])])
    got = _build_and_run(program, STREAM_MAIN % {"arrays": arrays, "runs": RUNS}, tmp_path)
    assert got["reset_before_first"] == [0] and got["reset"] == [0]
    assert got["sequence"] == [1] * RUNS and got["after_reset"] == [1] * RUNS
    assert got["other_tag"] == [1] and got["zeroed"] == [1]
