"""The C runtime checks the generated tables against the application's memory, and keeps no state.

Two generated models are compiled into one host program with the runtime:
- corrupted copies of a model's tables (an offset past the pool, an unknown tensor, a kind out
  of range, a step's scratch beyond the model's, an input that leaves the pool) and bad memory
  (NULL, too small) are refused with the expected status and, for a step's table, its index;
- two threads run the two models (and a third thread the first model again, in its own memory)
  many times each: the outputs must stay those of the reference interpreter. Built with
  ThreadSanitizer, any state shared between runs (a static scratch) is reported and fails the run.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from reference.inputs import random_inputs
from reference.interpreter import Interpreter
from vmcu_tflite.codegen.project import render_project, runtime_dir
from vmcu_tflite.codegen.cwriter import CWriter
from vmcu_tflite.pipeline import compile_model

ROOT = Path(__file__).resolve().parents[2]
MODELS = {"a": ROOT / "models" / "pool_mean_softmax.tflite", "b": ROOT / "models" / "kws_like.tflite"}
CC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no gcc")

MAIN = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "a_model.h"
#include "b_model.h"

%(arrays)s

typedef struct {
    const vmcu_model *model;
    const int8_t *input;
    const int8_t *expected;
    uint32_t input_bytes, output_bytes;
    int failures;
} job;

static void *repeat(void *arg)
{
    job *j = (job *)arg;
    static const int rounds = 40;
    int8_t *pool = (int8_t *)malloc(j->model->pool_bytes);   /* the test's own memory, per thread */
    int8_t *scratch = (int8_t *)malloc(j->model->scratch_bytes);
    const vmcu_memory memory = {pool, j->model->pool_bytes, scratch, j->model->scratch_bytes, NULL, 0};
    int r;
    for (r = 0; r < rounds; ++r) {
        memcpy(vmcu_input(j->model, pool, 0), j->input, j->input_bytes);
        if (vmcu_invoke(j->model, &memory, NULL) != VMCU_OK ||
            memcmp(vmcu_output(j->model, pool, 0), j->expected, j->output_bytes) != 0) {
            ++j->failures;
        }
    }
    free(pool);
    free(scratch);
    return NULL;
}

static int8_t pool[A_POOL_BYTES], scratch[A_SCRATCH_BYTES];

/* vmcu_invoke on a copy of model a whose tables `corrupt` changed; prints status and failed step. */
static void try_tables(const char *what, void (*corrupt)(vmcu_model *, vmcu_tensor *, vmcu_step *, vmcu_io *))
{
    static vmcu_tensor tensors[64];
    static vmcu_step steps[64];
    static vmcu_io inputs[4];
    vmcu_model m = a_model;
    const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch, NULL, 0};
    uint16_t failed = 9999;
    vmcu_status status;
    memcpy(tensors, a_model.tensors, a_model.num_tensors * sizeof *tensors);
    memcpy(steps, a_model.steps, a_model.num_steps * sizeof *steps);
    memcpy(inputs, a_model.inputs, a_model.num_inputs * sizeof *inputs);
    m.tensors = tensors;
    m.steps = steps;
    m.inputs = inputs;
    corrupt(&m, tensors, steps, inputs);
    status = vmcu_invoke(&m, &memory, &failed);
    printf("%%s %%d %%u\n", what, (int)status, (unsigned)failed);
}

static void offset_past_pool(vmcu_model *m, vmcu_tensor *t, vmcu_step *s, vmcu_io *io)
{ (void)io; t[s[1].output].offset = m->pool_bytes; }
static void unknown_tensor(vmcu_model *m, vmcu_tensor *t, vmcu_step *s, vmcu_io *io)
{ (void)t; (void)io; s[1].inputs[0] = m->num_tensors; }
static void kind_out_of_range(vmcu_model *m, vmcu_tensor *t, vmcu_step *s, vmcu_io *io)
{ (void)m; (void)t; (void)io; s[2].kind = 200; }
static void scratch_beyond(vmcu_model *m, vmcu_tensor *t, vmcu_step *s, vmcu_io *io)
{ (void)t; (void)io; s[0].scratch = m->scratch_bytes + 1; }
static void tensor_too_big(vmcu_model *m, vmcu_tensor *t, vmcu_step *s, vmcu_io *io)
{ (void)io; t[s[0].output].bytes = m->pool_bytes + 1; }
static void input_leaves_pool(vmcu_model *m, vmcu_tensor *t, vmcu_step *s, vmcu_io *io)
{ (void)s; t[io[0].tensor].offset = m->pool_bytes - 1; }

int main(void)
{
    job jobs[3] = {{&a_model, a_input, a_expected, sizeof a_input, sizeof a_expected, 0},
                   {&b_model, b_input, b_expected, sizeof b_input, sizeof b_expected, 0},
                   {&a_model, a_input, a_expected, sizeof a_input, sizeof a_expected, 0}};
    pthread_t threads[3];
    int i;
    const vmcu_memory small = {pool, A_POOL_BYTES - 1, scratch, sizeof scratch, NULL, 0};
    const vmcu_memory no_scratch = {pool, sizeof pool, NULL, 0, NULL, 0};
    const vmcu_memory little_scratch = {pool, sizeof pool, scratch, A_SCRATCH_BYTES - 1, NULL, 0};
    const vmcu_memory no_pool = {NULL, sizeof pool, scratch, sizeof scratch, NULL, 0};
    printf("small %%d\n", (int)vmcu_invoke(&a_model, &small, NULL));
    printf("no_scratch %%d\n", (int)vmcu_invoke(&a_model, &no_scratch, NULL));
    printf("little_scratch %%d\n", (int)vmcu_invoke(&a_model, &little_scratch, NULL));
    printf("no_pool %%d\n", (int)vmcu_invoke(&a_model, &no_pool, NULL));
    printf("no_memory %%d\n", (int)vmcu_invoke(&a_model, NULL, NULL));
    printf("no_input %%d\n", vmcu_input(&a_model, pool, 7) == NULL);
    try_tables("offset_past_pool", offset_past_pool);
    try_tables("unknown_tensor", unknown_tensor);
    try_tables("kind_out_of_range", kind_out_of_range);
    try_tables("scratch_beyond", scratch_beyond);
    try_tables("tensor_too_big", tensor_too_big);
    try_tables("input_leaves_pool", input_leaves_pool);
    for (i = 0; i < 3; ++i) {
        pthread_create(&threads[i], NULL, repeat, &jobs[i]);
    }
    for (i = 0; i < 3; ++i) {
        pthread_join(threads[i], NULL);
        printf("thread%%d %%d\n", i, jobs[i].failures);
    }
    return 0;
}
"""


def _program(tmp_path: Path) -> Path:
    """The test program's sources, written into tmp_path; returns its main.c."""
    arrays = []
    for prefix, path in MODELS.items():
        program = compile_model(path)
        x = random_inputs(program.graph, 1)[0]
        expected = Interpreter(program).run([x]).outputs[0]
        for name, text in render_project(program, prefix).items():
            if name.endswith((".c", ".h")):
                (tmp_path / name.replace(program.plan.model, prefix, 1)).write_text(
                    text.replace(f'"{program.plan.model}_model.h"', f'"{prefix}_model.h"'))
        writer = CWriter(prefix)
        arrays += [writer.text(), f"static const int8_t {prefix}_input[] = {{{', '.join(map(str, x.reshape(-1)))}}};",
                   f"static const int8_t {prefix}_expected[] = {{{', '.join(map(str, expected.reshape(-1)))}}};"]
    main = tmp_path / "main.c"
    main.write_text("#include <stdlib.h>\n" + MAIN % {"arrays": "\n".join(arrays)})
    return main


def _build_and_run(tmp_path: Path, sanitizer: str) -> dict[str, list[int]]:
    main = _program(tmp_path)
    runtime = runtime_dir()
    sources = [str(main), *(str(p) for p in sorted(tmp_path.glob("?_model.c"))),
               *(str(p) for p in sorted((runtime / "src").rglob("*.c")))]
    exe = tmp_path / f"tables_{sanitizer}"
    build = subprocess.run([CC, "-std=gnu99", "-O0", "-g", "-Wall", "-Wextra", "-Werror", f"-fsanitize={sanitizer}",
                            "-fno-sanitize-recover=all", "-pthread", f"-I{runtime / 'include'}", f"-I{tmp_path}",
                            *sources, "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "WARNING" not in run.stderr, run.stderr[-3000:]
    return {line.split()[0]: [int(v) for v in line.split()[1:] if v.lstrip("-").isdigit()]
            for line in run.stdout.splitlines()}


@pytest.mark.parametrize("sanitizer", ["address,undefined", "thread"])
def test_tables_are_checked_and_runs_share_nothing(tmp_path, sanitizer):
    got = _build_and_run(tmp_path, sanitizer)
    POOL_TOO_SMALL, BAD_MODEL, BAD_ARGUMENT, SCRATCH_TOO_SMALL = 1, 2, 4, 5
    assert got["small"] == [POOL_TOO_SMALL]
    assert got["no_scratch"] == [BAD_ARGUMENT] and got["no_pool"] == [BAD_ARGUMENT] and got["no_memory"] == [BAD_ARGUMENT]
    assert got["little_scratch"] == [SCRATCH_TOO_SMALL]
    assert got["no_input"] == [1]
    num_steps = len(compile_model(MODELS["a"]).plan.steps)
    assert got["offset_past_pool"] == [BAD_MODEL, 1]
    assert got["unknown_tensor"] == [BAD_MODEL, 1]
    assert got["kind_out_of_range"] == [BAD_MODEL, 2]
    assert got["scratch_beyond"] == [BAD_MODEL, 0]
    assert got["tensor_too_big"] == [BAD_MODEL, 0]
    assert got["input_leaves_pool"] == [BAD_MODEL, num_steps]
    assert got["thread0"] == got["thread1"] == got["thread2"] == [0]  # no run of 40 per thread differed
