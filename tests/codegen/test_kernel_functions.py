"""Which C function each step calls: generated per distinct configuration, shared, or the runtime's."""
from __future__ import annotations

import re

from tests.c.c_validate import program_with_segment
from tests.c.kernel_models import Chain
from tests.planner.test_chains import chained_program
from vmcu_tflite.codegen.kernel_functions import kernel_functions, whole_roles
from vmcu_tflite.codegen.model_c import c_identifier
from vmcu_tflite.codegen.project import render_project
from vmcu_tflite.kernels import describe
from vmcu_tflite.pipeline import compile_model



def twin_convs() -> bytes:
    """conv A, conv A again (same shapes), conv B (other shape), a max pool (a runtime kernel)."""
    m = Chain(7)
    x = m.input((1, 6, 6, 8))
    y = m.conv(x, 8, k=(3, 3), act=1)
    y = m.conv(y, 8, k=(3, 3), act=1)
    y = m.conv(y, 4, k=(3, 3), act=1)
    return m.build(m.pool("MAX_POOL_2D", y, (2, 2), (2, 2)))


def test_identical_layers_share_one_generated_function():
    program = compile_model(twin_convs(), "tensor", fuse=False)  # nothing wraps: equal layers, equal C
    functions = kernel_functions(program, "m")
    kinds = [s.kernel for s in program.steps]
    assert kinds == ["CONV_2D", "CONV_2D", "CONV_2D", "MAX_POOL_2D"]
    assert functions.generated == (True, True, True, False)
    first, second, third, pool = functions.names
    assert first == second != third
    assert pool == "vmcu_max_pool2d_s8"
    assert functions.source.count("static vmcu_status m_conv2d_") == 2
    assert "steps 0, 1 */" in functions.source


def test_step_table_points_at_the_functions_and_sizes_the_scratch_for_runtime_kernels_only():
    program = program_with_segment(twin_convs(), 4)
    project = render_project(program, "m")
    source, header = (project[f"{c_identifier(program.plan.model)}_model.{ext}"] for ext in ("c", "h"))
    steps = re.search(r"m_steps\[\d+\] = \{(.*?)\n\};", source, re.S).group(1)
    rows = [r.strip() for r in steps.split("},\n") if r.strip()]
    assert len(rows) == 4
    for row, name in zip(rows, kernel_functions(program, "m").names):
        assert f".kernel = &{name}_kernel, .params = &m_step" in row
    # generated steps use no scratch; the max pool its segment
    scratch = [int(x) for x in re.findall(r"\.scratch = (\d+)u", steps)]
    pool_segment = program.plan.steps[3].segment_bytes
    assert scratch == [0, 0, 0, pool_segment]
    # the application declares the scratch (the model holds no RAM): its size in the header and the table
    assert "static int8_t" not in source.split("static const vmcu_tensor")[1]
    assert f"#define M_SCRATCH_BYTES {max(pool_segment, 1)}u" in header
    assert f".pool_bytes = {program.plan.pool_bytes}u, .scratch_bytes = {max(pool_segment, 1)}u, " in source


def test_generated_functions_are_the_descriptions_lowered():
    program = program_with_segment(twin_convs(), 4)
    step, planned = program.steps[2], program.plan.steps[2]
    kernel = describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows)
    assert kernel.doc in kernel_functions(program, "m").source


def test_only_tensors_crossing_the_pool_end_take_the_copy_path():
    """In the circular plan some conv reads an input that wraps: its function keeps the wrap test
    and the copy; tensors in one piece are read through plain pointers."""
    program = compile_model(twin_convs(), "tensor", fuse=False)
    wrapped = program_with_segment(twin_convs(), 4)
    functions = kernel_functions(wrapped, "m")
    pool = wrapped.plan.pool_bytes
    seen_wrap = False
    for step, planned, name in zip(wrapped.steps[:3], wrapped.plan.steps, functions.names):
        kernel = describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows)
        buffer = wrapped.graph.storage_of(step.inputs[0])
        crosses = wrapped.plan.offsets[buffer] + kernel.tensors["input0"] > pool
        assert ("input0" not in whole_roles(wrapped, step, kernel)) == crosses
        body = functions.source.split(f"static vmcu_status {name}(")[1].split("\n}\n")[0]
        assert ("flat_view_input0" in body) != crosses
        assert ("vmcu_read(&view_input0" in body or "vmcu_span(&view_input0" in body) == crosses
        seen_wrap |= crosses
    assert seen_wrap
    source = kernel_functions(program, "m").source
    assert "vmcu_span(" not in source and "vmcu_read(" not in source and "vmcu_write(" not in source


def test_fused_depthwise_reads_its_ring_rows_from_a_table_made_once_per_output_row():
    """A chain's depthwise kernel rows live in a ring of rows: the row offsets (a division each) of a
    window of five rows or more are made once per output row into a table, not once per kernel row of
    every pixel's channel group."""
    m = Chain(3)
    x = m.input((1, 9, 9, 8))
    y = m.conv(x, 16, k=(1, 1), act=1)
    y = m.depthwise(y, k=(5, 5), act=1)
    program = chained_program(m.build(m.conv(y, 8, k=(1, 1))))
    source = kernel_functions(program, "m").source
    rows = [line for line in source.splitlines() if "const int8_t *row = " in line]
    assert rows and all("ring_rows[ky]" in line and "%" not in line for line in rows)
    fills = [line for line in source.splitlines() if re.match(r"\s*ring_rows\[k\] = .* % \d+;$", line)]
    assert len(fills) == 1
