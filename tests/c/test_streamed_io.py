"""Streamed inputs and outputs in the C runtime (vmcu_invoke_streamed, vmcu_pull_row), on the host.

One program holds kws_like twice: `s`, its input pulled and its output pushed row by row, and `w`,
the same model whole in the pool. Built with ASan and UBSan, it checks the protocol from the
application's side: a missing callback is refused before anything runs, rows come in order and
once each, a callback's failure stops the run at the step that was waiting, the pushed rows are
the bytes vmcu_output() shows after the whole run, vmcu_input()/vmcu_output() hand out no
pointer for a streamed port. `h`, a head whose chain pushes its output rows from a ring as it
makes them, shows a failing write_row stopping that chain's step. vmcu_pull_row() and
vmcu_push_row(), which chain kernels call for each row they pull into a ring or push from one,
are tried on their own against a small pool whose view wraps.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from reference.inputs import random_inputs
from tests.models_under_test import expanding_head
from vmcu_tflite.codegen.cwriter import CWriter
from vmcu_tflite.codegen.project import render_project, runtime_dir
from vmcu_tflite.pipeline import compile_model

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "kws_like.tflite"
HEAD_INPUT = np.random.default_rng(4).integers(-128, 128, 8 * 8 * 3).astype(np.int8)
CC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no gcc")
OK, BAD_MODEL, BAD_ARGUMENT, STREAM = 0, 2, 4, 7

MAIN = r"""
#include <stdio.h>
#include <string.h>

#include "h_model.h"
#include "s_model.h"
#include "w_model.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

%(arrays)s

static int8_t pool[S_POOL_BYTES > W_POOL_BYTES ? S_POOL_BYTES : W_POOL_BYTES];
static int8_t scratch[S_SCRATCH_BYTES > W_SCRATCH_BYTES ? S_SCRATCH_BYTES : W_SCRATCH_BYTES];
static int8_t pushed[S_OUTPUT0_BYTES];

/* What the callbacks saw; `fail_read_at`/`fail_write_at`: the row whose callback returns -1. */
typedef struct {
    uint32_t reads, writes, next_read, next_write, errors;
    uint32_t fail_read_at, fail_write_at;
} record;

static int32_t read_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
{
    record *r = (record *)context;
    ++r->reads;
    if (input != 0u || row != r->next_read || bytes != S_INPUT0_ROW_BYTES || row >= S_INPUT0_ROWS) {
        ++r->errors; /* out of order, twice, or the wrong size */
        return -1;
    }
    if (row == r->fail_read_at) {
        return -1;
    }
    memcpy(dst, input_bytes + row * S_INPUT0_ROW_BYTES, bytes);
    ++r->next_read;
    return 0;
}

static int32_t write_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{
    record *r = (record *)context;
    ++r->writes;
    if (output != 0u || row != r->next_write || bytes != S_OUTPUT0_ROW_BYTES || row >= S_OUTPUT0_ROWS) {
        ++r->errors;
        return -1;
    }
    if (row == r->fail_write_at) {
        return -1;
    }
    memcpy(pushed + row * S_OUTPUT0_ROW_BYTES, src, bytes);
    ++r->next_write;
    return 0;
}

static vmcu_status run(const vmcu_stream *stream, uint16_t *failed)
{
    const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch, NULL, 0};
    memset(pool, 0x55, sizeof pool);
    *failed = 9999;
    return vmcu_invoke_streamed(&s_model, &memory, stream, failed);
}

/* One line: name, status, failed step, callbacks called, rows read, rows written, protocol errors. */
static void report(const char *name, vmcu_status status, uint16_t failed, const record *r)
{
    printf("%%s %%d %%u %%u %%u %%u %%u\n", name, (int)status, (unsigned)failed, (unsigned)(r->reads + r->writes),
           (unsigned)r->next_read, (unsigned)r->next_write, (unsigned)r->errors);
}

static void refusals(void)
{
    const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch, NULL, 0};
    record r = {0, 0, 0, 0, 0, 0xFFFFFFFFu, 0xFFFFFFFFu};
    const vmcu_stream no_read = {NULL, write_row, &r}, no_write = {read_row, NULL, &r};
    uint16_t failed;
    vmcu_status status = run(NULL, &failed);
    report("null_stream", status, failed, &r);
    status = run(&no_read, &failed);
    report("no_read_row", status, failed, &r);
    status = run(&no_write, &failed);
    report("no_write_row", status, failed, &r);
    failed = 9999;
    status = vmcu_invoke(&s_model, &memory, &failed);
    report("plain_invoke", status, failed, &r);
}

static void failures(void)
{
    record r = {0, 0, 0, 0, 0, 5u, 0xFFFFFFFFu};
    const vmcu_stream stream = {read_row, write_row, &r};
    uint16_t failed;
    vmcu_status status = run(&stream, &failed);
    report("read_fails", status, failed, &r);
    memset(&r, 0, sizeof r);
    r.fail_read_at = 0xFFFFFFFFu;
    r.fail_write_at = 0u; /* the output is one row (a vector): its first and only row */
    status = run(&stream, &failed);
    report("write_fails", status, failed, &r);
}

/* The streamed run against the whole one on the same input: the pushed rows are its output. */
static void streamed_equals_whole(void)
{
    const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch, NULL, 0};
    record r = {0, 0, 0, 0, 0, 0xFFFFFFFFu, 0xFFFFFFFFu};
    const vmcu_stream stream = {read_row, write_row, &r};
    uint16_t failed;
    vmcu_status status;
    int same, i, twice;
    for (twice = 0; twice < 2; ++twice) { /* a second run starts again from row 0 */
        memset(&r, 0, sizeof r);
        r.fail_read_at = r.fail_write_at = 0xFFFFFFFFu;
        memset(pushed, 0, sizeof pushed);
        status = run(&stream, &failed);
        report(twice ? "streamed_again" : "streamed", status, failed, &r);
    }
    memset(pool, 0x55, sizeof pool);
    memcpy(vmcu_input(&w_model, pool, 0), input_bytes, W_INPUT0_BYTES);
    status = vmcu_invoke(&w_model, &memory, NULL);
    same = status == VMCU_OK && memcmp(vmcu_output(&w_model, pool, 0), pushed, S_OUTPUT0_BYTES) == 0;
    printf("whole %%d %%d\n", (int)status, same);
    printf("pushed");
    for (i = 0; i < (int)S_OUTPUT0_BYTES; ++i) {
        printf(" %%d", (int)pushed[i]);
    }
    printf("\n");
    printf("no_pointers %%d %%d %%d %%d\n", vmcu_input(&s_model, pool, 0) == NULL, vmcu_output(&s_model, pool, 0) == NULL,
           vmcu_input(&w_model, pool, 0) != NULL, vmcu_output(&w_model, pool, 0) != NULL);
}

/* `h`, a head whose chain pushes each output row from its ring as it makes it: write_row fails at
 * row `h_fail_at`, or every row is kept in h_out. */
static int8_t h_pool[H_POOL_BYTES];
static int8_t h_scratch[H_SCRATCH_BYTES + 1];
static int8_t h_out[H_OUTPUT0_BYTES];
static uint32_t h_rows, h_fail_at, h_errors;

static int32_t h_write(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{
    (void)context;
    if (output != 0u || row != h_rows || bytes != H_OUTPUT0_ROW_BYTES || row >= H_OUTPUT0_ROWS) {
        ++h_errors;
        return -1;
    }
    if (row == h_fail_at) {
        return -1;
    }
    memcpy(h_out + row * H_OUTPUT0_ROW_BYTES, src, bytes);
    ++h_rows;
    return 0;
}

static void head_run(const char *name, uint32_t fail_at)
{
    const vmcu_memory memory = {h_pool, sizeof h_pool, h_scratch, sizeof h_scratch, NULL, 0};
    const vmcu_stream stream = {NULL, h_write, NULL};
    uint16_t failed = 9999;
    vmcu_status status;
    memset(h_pool, 0x55, sizeof h_pool);
    memcpy(vmcu_input(&h_model, h_pool, 0), head_bytes, H_INPUT0_BYTES);
    h_rows = h_errors = 0;
    h_fail_at = fail_at;
    status = vmcu_invoke_streamed(&h_model, &memory, &stream, &failed);
    printf("%%s %%d %%u %%u %%u\n", name, (int)status, (unsigned)failed, (unsigned)h_rows, (unsigned)h_errors);
}

static void pushed_from_ring(void)
{
    int i;
    head_run("ring_fails", 3u);
    head_run("ring", 0xFFFFFFFFu);
    printf("ring_rows");
    for (i = 0; i < (int)H_OUTPUT0_BYTES; ++i) {
        printf(" %%d", (int)h_out[i]);
    }
    printf("\n");
}

/* vmcu_pull_row on a 16-byte pool viewed from byte 12: where each row lands, and what is refused. */
static int8_t small[16];
static uint32_t pulls;

static int32_t fill_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
{
    uint32_t b;
    (void)context;
    ++pulls;
    for (b = 0; b < bytes; ++b) {
        dst[b] = (int8_t)(10 * (int32_t)input + (int32_t)row);
    }
    return row == 99u ? -1 : 0;
}

/* A kernel's context over the 16-byte pool, with `stream`'s callbacks. */
static void small_context(vmcu_context *ctx, const vmcu_stream *stream)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->pool = small;
    ctx->pool_size = 16u;
    ctx->stream = stream;
}

static void pulled_row(void)
{
    const vmcu_stream stream = {fill_row, NULL, NULL}, no_read = {NULL, NULL, NULL};
    vmcu_context ctx;
    const vmcu_view view = {small, 16u, 12u};
    int i;
    small_context(&ctx, &stream);
    printf("pull_end %%d\n", (int)vmcu_pull_row(&ctx, &view, 2u, 1u, 2u, 2u));     /* pool 14..15 */
    printf("pull_wrapped %%d\n", (int)vmcu_pull_row(&ctx, &view, 4u, 1u, 3u, 3u)); /* pool 0..2 */
    printf("pull_past %%d\n", (int)vmcu_pull_row(&ctx, &view, 21u, 2u, 4u, 1u));  /* 21 %% 16 = 5: pool 1 */
    printf("pull_crossing %%d %%u\n", (int)vmcu_pull_row(&ctx, &view, 3u, 1u, 5u, 2u), (unsigned)pulls);
    printf("pull_fails %%d\n", (int)vmcu_pull_row(&ctx, &view, 0u, 1u, 99u, 1u));
    ctx.stream = &no_read;
    printf("pull_no_read_row %%d\n", (int)vmcu_pull_row(&ctx, &view, 0u, 1u, 6u, 1u));
    ctx.stream = NULL;
    printf("pull_no_stream %%d %%u\n", (int)vmcu_pull_row(&ctx, &view, 0u, 1u, 6u, 1u), (unsigned)pulls);
    printf("small");
    for (i = 0; i < 16; ++i) {
        printf(" %%d", (int)small[i]);
    }
    printf("\n");
}

/* vmcu_push_row on the same view: the bytes it hands over, and what is refused. */
static int32_t take_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{
    uint32_t b;
    int32_t *sum = (int32_t *)context;
    for (b = 0; b < bytes; ++b) {
        *sum += (int32_t)src[b] * (int32_t)(b + 1);
    }
    (void)output;
    return row == 99u ? -1 : 0;
}

static void push_row(void)
{
    int32_t sum = 0;
    const vmcu_stream stream = {NULL, take_row, &sum}, no_write = {NULL, NULL, NULL};
    vmcu_context ctx;
    const vmcu_view view = {small, 16u, 12u};
    vmcu_status status;
    small_context(&ctx, &stream);
    status = vmcu_push_row(&ctx, &view, 2u, 0u, 0u, 2u); /* pool 14..15 */
    printf("push_end %%d %%d\n", (int)status, (int)sum);
    sum = 0;
    status = vmcu_push_row(&ctx, &view, 3u, 0u, 1u, 2u);
    printf("push_crossing %%d %%d\n", (int)status, (int)sum);
    printf("push_fails %%d\n", (int)vmcu_push_row(&ctx, &view, 0u, 0u, 99u, 1u));
    ctx.stream = &no_write;
    printf("push_no_write_row %%d\n", (int)vmcu_push_row(&ctx, &view, 0u, 0u, 2u, 1u));
}

int main(void)
{
    refusals();
    failures();
    streamed_equals_whole();
    pulled_row();
    pushed_from_ring();
    push_row();
    return 0;
}
"""


def _build_and_run(tmp_path: Path) -> tuple[dict[str, list[int]], object, np.ndarray]:
    streamed = compile_model(MODEL, stream_inputs=[0], stream_outputs=[0])
    whole = compile_model(MODEL)
    head = compile_model(expanding_head(), stream_outputs=[0])
    x = random_inputs(whole.graph, 3)[0].astype(np.int8).reshape(-1)
    for prefix, program in (("s", streamed), ("w", whole), ("h", head)):
        for name, text in render_project(program, prefix).items():
            if name.endswith((".c", ".h")):
                (tmp_path / name.replace(program.plan.model, prefix, 1)).write_text(
                    text.replace(f'"{program.plan.model}_model.h"', f'"{prefix}_model.h"'))
    writer = CWriter("test")
    name = writer.array("int8_t", "input", x)
    head_name = writer.array("int8_t", "head_input", HEAD_INPUT)
    arrays = f"{writer.text()}\n#define input_bytes {name}\n#define head_bytes {head_name}\n"
    main = tmp_path / "main.c"
    main.write_text(MAIN % {"arrays": arrays})
    runtime = runtime_dir()
    sources = [str(main), str(tmp_path / "s_model.c"), str(tmp_path / "w_model.c"), str(tmp_path / "h_model.c"),
               *(str(p) for p in sorted((runtime / "src").rglob("*.c")))]
    exe = tmp_path / "streamed"
    build = subprocess.run([CC, "-std=c99", "-pedantic", "-O0", "-g", "-Wall", "-Wextra", "-Werror",
                            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", f"-I{runtime / 'include'}",
                            f"-I{tmp_path}", *sources, "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr, done.stderr[-3000:]
    got = {line.split()[0]: [int(v) for v in line.split()[1:]] for line in done.stdout.splitlines()}
    return got, (streamed, head), x


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return _build_and_run(tmp_path_factory.mktemp("streamed"))


def test_a_missing_callback_is_refused_before_anything_runs(run):
    got, (program, _), _ = run
    steps = len(program.plan.steps)
    for case in ("null_stream", "no_read_row", "no_write_row", "plain_invoke"):
        assert got[case] == [BAD_ARGUMENT, steps, 0, 0, 0, 0], case  # no callback called


def test_a_failing_callback_stops_the_run_at_the_waiting_step(run):
    got, (program, _), _ = run
    pulled, pushed = program.plan.streamed_io.inputs[0], program.plan.streamed_io.outputs[0]
    assert pulled.step != pushed.step  # the test tells the two apart
    # read_row fails at row 5: the step that pulls the input waited for it; rows 0..4 came in order
    assert got["read_fails"] == [STREAM, pulled.step, 6, 5, 0, 0]
    # write_row fails at row 0: the step that made the output; every input row was pulled first
    assert pushed.rows == 1  # kws_like's scores: a vector is one row
    assert got["write_fails"] == [STREAM, pushed.step, pulled.rows + 1, pulled.rows, 0, 0]


def test_rows_come_in_order_once_each_and_the_pushed_rows_are_the_output(run):
    got, (program, _), x = run
    pulled, pushed = program.plan.streamed_io.inputs[0], program.plan.streamed_io.outputs[0]
    expected = [OK, len(program.plan.steps), pulled.rows + pushed.rows, pulled.rows, pushed.rows, 0]
    assert got["streamed"] == got["streamed_again"] == expected
    assert got["whole"] == [OK, 1]  # vmcu_output() of the whole run holds the pushed bytes
    from reference.interpreter import Interpreter
    reference = Interpreter(compile_model(MODEL)).run([x.reshape(program.graph.inputs[0].shape)]).raw_outputs[0]
    assert got["pushed"] == [int(v) for v in np.asarray(reference).reshape(-1)]
    assert got["no_pointers"] == [1, 1, 1, 1]


def test_pull_row_lands_in_the_pool_and_refuses_a_row_across_its_end(run):
    got, _, _ = run
    assert got["pull_end"] == got["pull_wrapped"] == got["pull_past"] == [OK]
    assert got["pull_crossing"] == [BAD_MODEL, 3]  # the callback was not called
    assert got["pull_fails"] == [STREAM]
    assert got["pull_no_read_row"] == [BAD_ARGUMENT] and got["pull_no_stream"] == [BAD_ARGUMENT, 4]
    small = [0] * 16
    small[14:16] = [12, 12]   # input 1 row 2 at view byte 2: pool 14
    small[0:3] = [13, 13, 13]  # row 3 at view byte 4: past the end, pool 0
    small[1] = 24              # input 2 row 4 at view byte 21 = 5 (mod 16): pool 1
    small[12] = 1 * 10 + 99    # the failed pull at view byte 0 (pool 12) wrote before returning -1
    assert got["small"] == small


def test_a_chain_pushes_each_row_as_it_makes_it_and_stops_where_write_row_fails(run):
    """The head's chain hands its output rows to write_row from its one-row ring: all of them, in
    order, the bytes the reference interpreter gets; write_row failing at row 3 stops the run
    with VMCU_ERROR_STREAM at that chain's step, rows 0-2 taken."""
    got, (_, head), _ = run
    port = head.plan.streamed_io.outputs[0]
    assert port.in_ring
    assert got["ring_fails"] == [STREAM, port.step, 3, 0]
    assert got["ring"] == [OK, len(head.plan.steps), port.rows, 0]
    from reference.interpreter import Interpreter
    reference = Interpreter(head).run([HEAD_INPUT.reshape(head.graph.inputs[0].shape)]).raw_outputs[0]
    assert got["ring_rows"] == [int(v) for v in np.asarray(reference).reshape(-1)]


def test_push_row_hands_over_the_row_and_refuses_one_across_the_pool_end(run):
    got, _, _ = run
    # pool bytes 14 and 15 (the pull above left 12 12 there): 12 * 1 + 12 * 2
    assert got["push_end"] == [OK, 36]
    assert got["push_crossing"] == [BAD_MODEL, 0]  # the callback was not called
    assert got["push_fails"] == [STREAM]
    assert got["push_no_write_row"] == [BAD_ARGUMENT]
