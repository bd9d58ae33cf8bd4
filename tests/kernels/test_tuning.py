"""Kernel tuning per core family (vmcu_tflite/kernels/tuning.py): the helium shapes are other kernel
descriptions, checked like the default ones; the plan records the tuning and the pool stays the same."""
from __future__ import annotations

import numpy as np
import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS
from vmcu_reference.inputs import random_inputs
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import UsageError
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.lower import lower
from vmcu_tflite.kernels.tuning import tuned, tuning_for_cpu
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.plan import load_plan

MODELS = [m for m in FIXTURES if m.stem in ("kws_like", "depthwise_block", "nchw_input")] + \
    [m for m in REAL_MODELS if m.stem in ("mlperf-kws-dscnn", "tflm-person_detect")]


def _id(path):
    return path.stem


def test_a_core_picks_its_tuning():
    assert tuning_for_cpu("cortex-m55") == "helium"
    assert [tuning_for_cpu(c) for c in ("cortex-m4", "cortex-m7", "cortex-m33", None)] == ["dsp"] * 4
    assert [tuning_for_cpu(c) for c in ("cortex-m0", "cortex-m3", "riscv32")] == ["scalar"] * 3
    with pytest.raises(ValueError, match="unknown kernel tuning"):
        tuned((), "neon")


@pytest.mark.parametrize("model", MODELS, ids=_id)
def test_helium_descriptions_are_bit_exact_with_the_oracle_and_keep_the_pool(model):
    """The interpreter runs the helium-tuned descriptions (eight-lane depthwise groups, four-channel
    fused tiles) over the simulated pool; TFLite Micro's outputs are the check."""
    pytest.importorskip("tflite_micro")
    helium, dsp = compile_model(model, tuning="helium"), compile_model(model)
    assert helium.plan.tuning == "helium" and dsp.plan.tuning == "dsp"
    assert helium.plan.pool_bytes == dsp.plan.pool_bytes
    def lowered(program) -> str:
        return "".join(lower(kernel, f"k{step.index}") for step, planned in zip(program.steps, program.plan.steps)
                       if (kernel := describe(step.kernel, step.params, planned.segment_bytes, planned.in_place,
                                              planned.tile_rows)) is not None)

    assert "vmcu_mac8_s8_mve" in lowered(helium) and "vmcu_mac8_s8_mve" not in lowered(dsp)
    inputs = random_inputs(helium.graph, 5)
    ours = Interpreter(helium).run(inputs).outputs
    theirs, _ = run_tflm(model.read_bytes(), inputs, len(ours))
    for a, b in zip(ours, theirs):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_the_plan_records_its_tuning():
    model = next(m for m in FIXTURES if m.stem == "kws_like")
    program = compile_model(model, tuning="helium")
    plan = load_plan(program.plan.dumps(program.graph))
    assert plan.tuning == "helium"
    with pytest.raises(UsageError, match="tuning 'neon'"):
        load_plan(program.plan.dumps(program.graph).replace('"tuning": "helium"', '"tuning": "neon"'))


def test_vmcu_run_runs_the_kernels_a_target_is_converted_with(capsys):
    """`vmcu-run --target cortex-m55` executes the helium descriptions, as vmcu-convert --target
    cortex-m55 would write them, and says so; still bit-exact with TFLite Micro."""
    from vmcu_reference.cli import main as run_main
    model = next(m for m in FIXTURES if m.stem == "kws_like")
    assert run_main([str(model), "--target", "cortex-m55", "--compare-tflm"]) == 0
    out = capsys.readouterr().out
    assert "helium kernels" in out and "bit-exact" in out
    assert run_main([str(model), "--target", "cortex-m4"]) == 0
    assert "kernels" not in capsys.readouterr().out.splitlines()[0]


@pytest.mark.parametrize("units, once, skipped", [(528, True, False), (48, True, True), (48, False, True)],
                         ids=["widened once (dsp)", "all units at once (dsp)", "per segment (helium)"])
def test_helium_reads_a_gemm_rows_int8_source_only_while_the_pool_still_holds_it(units, once, skipped):
    """Where the offset is 0 Helium skips a Widen and its dot products read the int8 rows through
    their pointer into the pool. A GEMM that widens its rows once for all its output segments stores
    each segment over consumed input between their dot products: the widened copy must stay (the C
    of a dsp-tuned model runs on the Cortex-M55 too). Where the tile's outputs fit one buffer
    (`gemm.ALL_UNITS_BYTES`) every dot product runs before the first store, and widened per
    segment each segment's run before its own: the skip is safe."""
    from vmcu_tflite.kernels.gemm import gemm
    kernel = gemm(8, 32, units, 16, "vmcu_conv_params", "pointwise", tile_rows=2, x_offset="0", widen_once=once)
    source = lower(kernel, "gemm")
    assert source.count(f"for (int32_t q = 0; q < {units // 16}; ++q)") == 1
    widen_before_q = source.index("vmcu_widen_s8(") < source.index("for (int32_t q = 0")
    assert widen_before_q is once
    assert ("/* the dot products read x */" in source) is skipped


def test_helium_reads_a_gathered_window_as_int8_past_the_segments_stores():
    """A stem's window is a buffer of the kernel's own: the output segments' stores between its dot
    products cannot touch it, so Helium skips its Widen (16 int8 lanes per VMLADAVA, not 8)."""
    program = compile_model(next(m for m in FIXTURES if m.stem == "conv_stack"), fuse=False, tuning="helium")
    step, planned = program.steps[0], program.plan.steps[0]
    source = lower(describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows), "f")
    assert "/* the dot products read window */" in source


def test_the_dsp_tuning_keeps_one_channel_planes_where_they_run_fastest():
    """The classifier's 3x3 depthwise layer (stride 1, pairs clear of the edges) runs in place; its
    planes of eight channels fit the same pool. The DSP tuning keeps one-channel planes (a kernel row
    of a pixel pair is one word, two SXTAB16 and four SMLADs: `one_channel_planes_first`), Helium
    widens them to eight (one vector of lanes per tap), the pool the same."""
    model = next(m for m in FIXTURES if m.stem == "float_io_classifier")
    dsp, helium = compile_model(model), compile_model(model, tuning="helium")
    segments = {name: {s.index: p.segment_bytes for s, p in zip(program.steps, program.plan.steps) if p.in_place}
                for name, program in (("dsp", dsp), ("helium", helium))}
    assert segments == {"dsp": {1: 1}, "helium": {1: 8}}
    assert dsp.plan.pool_bytes == helium.plan.pool_bytes
