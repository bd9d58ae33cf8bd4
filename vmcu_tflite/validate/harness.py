"""The validation program: the model's inputs baked in, vmcu_invoke() on each, outputs printed.

Each input array holds one or more runs' inputs back to back (a sequence, for a model whose state
carries from one run to the next). First it checks the model's tables and constants against their
CRC (vmcu_verify_model(): a model the converter wrote must pass; a model that fails is not run and
its status is the verification's). After each run it prints `status N` then one `output I: b0 b1
...` line per output (int8 values), and at the end `verify N`; `parse_run` reads them back, each
output's runs concatenated.
`pool_shrink` makes the pool smaller than the plan to check that the runtime refuses it.
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ..codegen.cwriter import CWriter


def render_main(header: str, prefix: str, inputs: Sequence[np.ndarray], pool_shrink: int = 0,
                pre_run: str = "", post_run: str = "", prelude: str = "", pre_verify: str = "",
                post_verify: str = "", report: str = "") -> str:
    """main.c for the harness; `pre_run`/`post_run` let a target add its own measurements (the
    last run's are the ones read), `pre_verify`/`post_verify` the same around vmcu_verify_model()
    and `report` print those at the end (a first print allocates stdio's buffer, which the runs'
    heap figure must not see), `prelude` (after the #includes) declares what they call."""
    writer = CWriter("harness")
    names = [writer.array("int8_t", f"input{i}", x.astype(np.int8).reshape(-1)) for i, x in enumerate(inputs)]
    copies = "\n".join(f"        memcpy(vmcu_input(&{prefix}_model, pool, {i}), {n} + run * {prefix}_model.inputs[{i}].bytes, "
                       f"{prefix}_model.inputs[{i}].bytes);" for i, n in enumerate(names))
    upper = prefix.upper()
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

int main(void)
{{
    const vmcu_memory memory = {{pool, (uint32_t)sizeof pool, scratch, (uint32_t)sizeof scratch,
                                 (int8_t *)state, {upper}_STATE_BYTES}};
    const uint32_t runs = (uint32_t)sizeof {names[0]} / {prefix}_model.inputs[0].bytes;
    vmcu_status status = VMCU_OK;
    uint16_t failed_step = 0;
    uint32_t o, run;
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
        status = vmcu_invoke(&{prefix}_model, &memory, &failed_step);
{post_run}
        printf("status %d\\n", (int)status);
        if (status != VMCU_OK) {{
            printf("failed step %u\\n", (unsigned)failed_step);
        }}
        if (status == VMCU_OK) {{
            for (o = 0; o < {prefix}_model.num_outputs; ++o) {{
                print_output(o, {prefix}_model.outputs[o].bytes);
            }}
        }}
    }}
    printf("verify %d\\n", (int)verified);
{report}
    printf("done\\n");
    return status == VMCU_OK ? 0 : 1;
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


def harness_cmake(model_dir: str, extra: str = "") -> str:
    return f"""# vmcu-validate harness. Generated; do not edit.
cmake_minimum_required(VERSION 3.13)
project(vmcu_validate C)
add_subdirectory({model_dir} model)
add_executable(vmcu_validate main.c)
target_link_libraries(vmcu_validate PRIVATE vmcu_model)
set_target_properties(vmcu_validate PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(vmcu_validate PRIVATE -Wall -Wextra -Werror -pedantic)
{extra}"""
