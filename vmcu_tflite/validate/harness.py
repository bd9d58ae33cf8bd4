"""The validation program: the model's inputs baked in, vmcu_invoke() on each, outputs printed.

Each input array holds one or more runs' inputs back to back (a sequence, for a model whose state
carries from one run to the next). First it checks the model's tables and constants against their
CRC (vmcu_verify_model(): a model the converter wrote must pass; a model that fails is not run and
its status is the verification's). After each run it prints `status N` then one `output I: b0 b1
...` line per output (int8 values), and at the end `verify N`; `parse_run` reads them back, each
output's runs concatenated.
`pool_shrink` makes the pool smaller than the plan to check that the runtime refuses it.

A model with streamed inputs or outputs (the `<PREFIX>_INPUT<i>_ROWS` constants of its header) is
run with vmcu_invoke_streamed(): read_row serves each streamed input's rows from its baked-in
array and write_row collects each streamed output's rows into a static buffer, printed as that
output. Both check the protocol (rows 0, 1, 2, ... each once, the row's byte count, every row by
the end of the run): a violation prints a `stream error: ...` line and the run's status becomes
VMCU_ERROR_STREAM. Without streamed ports main.c is what it always was.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import numpy as np

from ..codegen.cwriter import CWriter


def render_main(header: str, prefix: str, inputs: Sequence[np.ndarray], pool_shrink: int = 0,
                pre_run: str = "", post_run: str = "", prelude: str = "", pre_verify: str = "",
                post_verify: str = "", report: str = "", streamed_inputs: Sequence[int] = (),
                streamed_outputs: Sequence[int] = ()) -> str:
    """main.c for the harness; `pre_run`/`post_run` let a target add its own measurements (the
    last run's are the ones read), `pre_verify`/`post_verify` the same around vmcu_verify_model()
    and `report` print those at the end (a first print allocates stdio's buffer, which the runs'
    heap figure must not see), `prelude` (after the #includes) declares what they call.
    `streamed_inputs`/`streamed_outputs`: the model's streamed ports (streamed_ports())."""
    writer = CWriter("harness")
    names = [writer.array("int8_t", f"input{i}", x.astype(np.int8).reshape(-1)) for i, x in enumerate(inputs)]
    copies = "\n".join(f"        memcpy(vmcu_input(&{prefix}_model, pool, {i}), {n} + run * {prefix}_model.inputs[{i}].bytes, "
                       f"{prefix}_model.inputs[{i}].bytes);" for i, n in enumerate(names) if i not in streamed_inputs)
    upper = prefix.upper()
    streaming = bool(streamed_inputs or streamed_outputs)
    stream = _stream_source(prefix, names, streamed_inputs, streamed_outputs) if streaming else ""
    invoke = (f"vmcu_invoke_streamed(&{prefix}_model, &memory, &stream, &failed_step)" if streaming
              else f"vmcu_invoke(&{prefix}_model, &memory, &failed_step)")
    checked = "        status = end_of_run(status);\n" if streaming else ""
    printed = "print_port(o)" if streaming else f"print_output(o, {prefix}_model.outputs[o].bytes)"
    return f"""/* vmcu-validate harness. Generated; do not edit. */
#include <stdio.h>
#include <string.h>

#include "{header}"
{prelude}
{writer.text()}
static int8_t pool[{upper}_POOL_BYTES - {pool_shrink}u];
static int8_t scratch[{upper}_SCRATCH_BYTES];
static uint32_t state[{upper}_STATE_BYTES / 4u + 1u]; /* word-aligned; one word more so that it is never empty */

static void print_output(uint32_t index, uint32_t bytes)
{{
    const int8_t *out = vmcu_output(&{prefix}_model, pool, index);
    uint32_t i;
    printf("output %u:", (unsigned)index);
    for (i = 0; i < bytes; ++i) {{
        printf(" %d", (int)out[i]);
    }}
    printf("\\n");
}}
{stream}
int main(void)
{{
    const vmcu_memory memory = {{pool, (uint32_t)sizeof pool, scratch, (uint32_t)sizeof scratch,
                                 (int8_t *)state, {upper}_STATE_BYTES}};
    const uint32_t runs = (uint32_t)sizeof {names[0]} / {prefix}_model.inputs[0].bytes;
    vmcu_status status = VMCU_OK;
    uint16_t failed_step = 0;
    uint32_t o{'' if streaming else ', run'};
    vmcu_status verified;
{pre_verify}
    verified = vmcu_verify_model(&{prefix}_model);
{post_verify}
    if (verified != VMCU_OK) {{ /* not run; `verify` is printed last, after the measured runs */
        status = verified;
        printf("status %d\\n", (int)status);
    }}
    for (run = 0; run < runs && status == VMCU_OK; ++run) {{
{copies}
{pre_run}
        status = {invoke};
{post_run}
{checked}        printf("status %d\\n", (int)status);
        if (status != VMCU_OK) {{
            printf("failed step %u\\n", (unsigned)failed_step);
        }}
        if (status == VMCU_OK) {{
            for (o = 0; o < {prefix}_model.num_outputs; ++o) {{
                {printed};
            }}
        }}
    }}
    printf("verify %d\\n", (int)verified);
{report}
    printf("done\\n");
    return status == VMCU_OK ? 0 : 1;
}}
"""


_SERVE = """static int32_t serve(uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes, const int8_t *source, uint32_t rows,
                     uint32_t row_bytes)
{
    if (row != next_row[input] || row >= rows || bytes != row_bytes) {
        return stream_error("input", input, row, bytes, next_row[input], row_bytes);
    }
    memcpy(dst, source + row * row_bytes, bytes);
    ++next_row[input];
    return 0;
}
"""

_KEEP = """static int32_t keep(uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes, int8_t *kept, uint32_t rows,
                    uint32_t row_bytes)
{
    uint32_t *next = &next_row[{upper}_NUM_INPUTS + output];
    if (row != *next || row >= rows || bytes != row_bytes) {
        return stream_error("output", output, row, bytes, *next, row_bytes);
    }
    memcpy(kept + row * row_bytes, src, bytes);
    ++*next;
    return 0;
}
"""


_READ_ROW = """static int32_t read_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
{{
    (void)context;
    switch (input) {{
{sources}    default: return stream_error("input (not streamed)", input, row, bytes, 0u, 0u);
    }}
}}

"""

_WRITE_ROW = """static int32_t write_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{{
    (void)context;
    switch (output) {{
{sinks}    default: return stream_error("output (not streamed)", output, row, bytes, 0u, 0u);
    }}
}}

"""


def _stream_source(prefix: str, names: Sequence[str], inputs: Sequence[int], outputs: Sequence[int]) -> str:
    """The callbacks of a streamed run: read_row serves each streamed input's rows from its array
    (this run's part of it), write_row keeps each streamed output's rows; both check the protocol."""
    upper = prefix.upper()
    sources = "".join(f"    case {i}u: return serve(input, row, dst, bytes, {names[i]} + run * {upper}_INPUT{i}_BYTES, "
                      f"{upper}_INPUT{i}_ROWS, {upper}_INPUT{i}_ROW_BYTES);\n" for i in inputs)
    buffers = "".join(f"static int8_t streamed_output{o}[{upper}_OUTPUT{o}_BYTES];\n" for o in outputs)
    sinks = "".join(f"    case {o}u: return keep(output, row, src, bytes, streamed_output{o}, {upper}_OUTPUT{o}_ROWS, "
                    f"{upper}_OUTPUT{o}_ROW_BYTES);\n" for o in outputs)
    ends = "".join(f"        ok &= rows_done(\"input\", {i}u, next_row[{i}], {upper}_INPUT{i}_ROWS);\n"
                   for i in inputs) + "".join(
        f"        ok &= rows_done(\"output\", {o}u, next_row[{upper}_NUM_INPUTS + {o}u], {upper}_OUTPUT{o}_ROWS);\n"
        for o in outputs)
    kept = "".join(f"    case {o}u: out = streamed_output{o}; break;\n" for o in outputs)
    # only the functions a port calls: -Werror allows no unused function or parameter
    serve, read_fn, read_name = (_SERVE, _READ_ROW.format(sources=sources), "read_row") if inputs else ("", "", "0")
    keep, write_fn, write_name = ((_KEEP.replace("{upper}", upper), _WRITE_ROW.format(sinks=sinks), "write_row")
                                  if outputs else ("", "", "0"))
    return f"""
/* Streamed ports: the rows of the run in progress. `next_row` (inputs, then outputs) is the row
   each port must see next: the protocol is rows 0, 1, 2, ... each once, all of them by the end. */
static uint32_t run;
static uint32_t next_row[{upper}_NUM_INPUTS + {upper}_NUM_OUTPUTS];
static int stream_failed;
{buffers}
static int32_t stream_error(const char *what, uint32_t index, uint32_t row, uint32_t bytes, uint32_t expected,
                            uint32_t row_bytes)
{{
    printf("stream error: %s %u gave row %u of %u bytes, expected row %u of %u bytes\\n", what, (unsigned)index,
           (unsigned)row, (unsigned)bytes, (unsigned)expected, (unsigned)row_bytes);
    stream_failed = 1;
    return -1;
}}

{serve}{keep}
{read_fn}{write_fn}static const vmcu_stream stream = {{{read_name}, {write_name}, 0}};

/* 1 when the port saw all its rows in the run, else an error line. */
static int rows_done(const char *what, uint32_t index, uint32_t done, uint32_t rows)
{{
    if (done != rows) {{
        printf("stream error: %s %u: %u of its %u rows in the run\\n", what, (unsigned)index, (unsigned)done,
               (unsigned)rows);
        return 0;
    }}
    return 1;
}}

/* The run's status, VMCU_ERROR_STREAM if the protocol was broken (every row seen once, in order); the
   next run starts from row 0 again. */
static vmcu_status end_of_run(vmcu_status status)
{{
    int ok = !stream_failed;
    uint32_t i;
    if (status == VMCU_OK) {{
{ends}    }}
    for (i = 0; i < {upper}_NUM_INPUTS + {upper}_NUM_OUTPUTS; ++i) {{
        next_row[i] = 0;
    }}
    stream_failed = 0;
    return ok || status != VMCU_OK ? status : VMCU_ERROR_STREAM;
}}

/* Output `index` as the run left it: in the pool, or (streamed) the rows write_row kept. */
static void print_port(uint32_t index)
{{
    const int8_t *out = 0;
    uint32_t i;
    switch (index) {{
{kept}    default: print_output(index, {prefix}_model.outputs[index].bytes); return;
    }}
    printf("output %u:", (unsigned)index);
    for (i = 0; i < {prefix}_model.outputs[index].bytes; ++i) {{
        printf(" %d", (int)out[i]);
    }}
    printf("\\n");
}}
"""


def parse_run(text: str) -> tuple[int, list[np.ndarray], dict[str, int]]:
    """(status, int8 outputs, extra `name value` measurements) from the harness's output: the last
    status, each output's values of every run in order, the last value of each measurement."""
    status = None
    outputs: dict[int, list[np.ndarray]] = {}
    extra: dict[str, int] = {}
    for line in text.splitlines():
        if m := re.fullmatch(r"status (-?\d+)", line.strip()):
            status = int(m.group(1))
        elif m := re.fullmatch(r"output (\d+):((?: -?\d+)*)", line.strip()):
            outputs.setdefault(int(m.group(1)), []).append(np.array([int(v) for v in m.group(2).split()], dtype=np.int8))
        elif m := re.fullmatch(r"measure (\w+) (\d+)", line.strip()):
            extra[m.group(1)] = int(m.group(2))
    if status is None:
        raise ValueError(f"the program printed no status:\n{text[-2000:]}")
    return status, [np.concatenate(outputs[i]) for i in sorted(outputs)], extra


def harness_cmake(model_dir: str, extra: str = "", runtime_objects: Path | None = None) -> str:
    """The harness's CMakeLists.txt; with `runtime_objects` (a file of runtime_cache.py) the runtime
    target is archived from objects compiled before instead of its sources."""
    cached = f'include("{runtime_objects.as_posix()}")\n' if runtime_objects else ""
    return f"""# vmcu-validate harness. Generated; do not edit.
cmake_minimum_required(VERSION 3.13)
project(vmcu_validate C)
add_subdirectory({model_dir} model)
{cached}add_executable(vmcu_validate main.c)
target_link_libraries(vmcu_validate PRIVATE vmcu_model)
set_target_properties(vmcu_validate PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(vmcu_validate PRIVATE -Wall -Wextra -Werror -pedantic)
{extra}"""
