"""Which 1x1 and depthwise layers keep an int16 copy of their filter (`kernels/widened_weights.py`),
and the portable C over those copies bit-exact with TFLite Micro (the DSP forms run with emulated
instructions in tests/kernels/test_lower_c.py, the assembly and the DSP lanes on the Cortex-M4 in
tests/c/test_qemu.py)."""
from __future__ import annotations

import importlib.util
import json
import pickle
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import vmcu_tflite
from tests.models_under_test import conv_chain, left_shift_block, separable_blocks, wide_window_block
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.codegen.params.depthwise_conv2d import lane_order
from vmcu_tflite.errors import EXIT_BAD_INPUT, UsageError
from vmcu_tflite.kernels import widened_weights
from vmcu_tflite.kernels.lower.dsp import UNROLLED_ROWS
from vmcu_tflite.kernels.planes import taps_in_registers
from vmcu_tflite.kernels.tuning import tuned
from vmcu_tflite.kernels.widened_weights import widen_weights
from vmcu_tflite.passes import simplify
from vmcu_tflite.pipeline import compile_model, program_for_plan
from vmcu_tflite.reader import read_model
from vmcu_tflite.steps import build_steps
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import HOST

HAVE_TFLM = importlib.util.find_spec("tflite_micro") is not None


def _steps(tmp_path, channels, hw, tuning="dsp"):
    path = tmp_path / "chain.tflite"
    path.write_bytes(conv_chain(channels=channels, hw=hw))
    return tuned(build_steps(simplify(read_model(path))), tuning)


@settings(max_examples=25, deadline=None)
@given(channels=st.lists(st.sampled_from([3, 8, 12, 16, 24, 40, 64, 96, 100]), min_size=2, max_size=5),
       share=st.floats(0.0, 1.0))
def test_widening_keeps_to_its_budget_greedily(tmp_path_factory, channels, share):
    """Only pointwise layers whose rows the assembly unrolls; their extra bytes within `share` of
    the filter bytes; and every candidate left out would not have fit after those ranked before it
    (the same pixels here: ranked by filter size, the larger first, then by position)."""
    steps = _steps(tmp_path_factory.mktemp("w"), tuple(channels), hw=4)
    widened = widen_weights(steps, share)
    budget = share * sum(s.params.filter.size for s in steps)
    chosen = [s for s in widened if s.params.int16_weights]
    assert all(s.params.input_shape[3] in UNROLLED_ROWS for s in chosen)
    assert sum(s.params.filter.size for s in chosen) <= budget
    used = 0
    for s in sorted(widened, key=lambda s: (-s.params.filter.size, s.index)):
        if s.params.input_shape[3] not in UNROLLED_ROWS:
            continue
        fits = used + s.params.filter.size <= budget
        assert s.params.int16_weights is fits
        used += s.params.filter.size if fits else 0


def test_the_default_share_rounds_up_to_its_floor(tmp_path, monkeypatch):
    """By default a model's int16 copies may take `WIDENED_FLOOR` bytes where its share of the
    filter bytes is less: a 64x64 layer (4,096 bytes) is widened in a model whose 4 % would not hold
    it, but not for that share given explicitly, nor where the default share is 0."""
    steps = _steps(tmp_path, (64, 64, 8), hw=5)
    filters = sum(s.params.filter.size for s in steps)
    assert widened_weights.WIDENED_SHARE * filters < 4096 <= widened_weights.WIDENED_FLOOR
    assert [s.params.int16_weights for s in widen_weights(steps)] == [True, False]  # 4,096 + 512 would not fit
    assert not any(s.params.int16_weights for s in widen_weights(steps, widened_weights.WIDENED_SHARE))
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 0.0)
    assert not any(s.params.int16_weights for s in widen_weights(steps))


def test_most_pixels_first_and_never_for_helium(tmp_path):
    """A budget for one of two equal filters takes the layer with more output pixels (the second,
    given four times the pixels of the first), else the first; the Helium tuning widens nothing
    (its dot products widen int8 weights as they load them)."""
    steps = _steps(tmp_path, (16, 16, 16), hw=6)
    small = steps[0].params.filter.size / sum(s.params.filter.size for s in steps)
    first, second = widen_weights(steps, small)
    assert first.params.int16_weights and not second.params.int16_weights
    larger = replace(steps[1], params=replace(steps[1].params, output_shape=(1, 12, 12, 16)))
    first, second = widen_weights((steps[0], larger), small)
    assert second.params.int16_weights and not first.params.int16_weights
    assert not any(s.params.int16_weights for s in widen_weights(_steps(tmp_path, (16, 16, 16), 6, "helium"), 1.0))


def test_portable_c_over_int16_weights_is_bit_exact(tmp_path, monkeypatch):
    """Every candidate widened: the portable C (in-order widening, vmcu_dot_s16_s16) matches the
    reference interpreter and TFLite Micro, and reads the int16 copies."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 1.0)
    model = tmp_path / "widened.tflite"
    model.write_bytes(conv_chain(channels=(8, 16, 24, 8), hw=5))
    result = validate(model, HOST, seed=2, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert source.count("vmcu_dot_s16_s16(") >= 3 and "const int16_t *w0" in source


def test_the_share_is_an_option_and_a_plan_keeps_it(tmp_path, capsys):
    """`--widened-weights 0` converts without int16 copies and says so in plan.json, which a later
    conversion from that plan follows; the default leaves plan.json as it was; a share out of 0 to
    100 percent is a one-line usage error."""
    model = tmp_path / "chain.tflite"
    model.write_bytes(conv_chain(channels=(8, 16, 24, 8), hw=5))

    def convert(out, *extra):
        code = run_tool("vmcu-convert", convert_main, [str(model), "-o", str(tmp_path / out), *extra])
        source = "".join(p.read_text() for p in (tmp_path / out).glob("*.c")) if code == 0 else ""
        return code, source

    code, source = convert("all", "--widened-weights", "100")
    assert code == 0 and "const int16_t *w0" in source
    assert json.loads((tmp_path / "all" / "plan.json").read_text())["widened_weights"] == 1.0
    code, source = convert("none", "--widened-weights", "0")
    assert code == 0 and "const int16_t *w0" not in source
    vmcu_tflite.convert(model, plan=tmp_path / "none" / "plan.json").write(tmp_path / "again")
    assert "".join(p.read_text() for p in (tmp_path / "again").glob("*.c")) == source
    saved = json.loads((tmp_path / "none" / "plan.json").read_text()) | {"widened_weights": 4}
    (tmp_path / "bad.json").write_text(json.dumps(saved))
    with pytest.raises(UsageError, match="widened_weights 4.0, not a share from 0 to 1"):
        vmcu_tflite.convert(model, plan=tmp_path / "bad.json")
    assert convert("default")[0] == 0
    assert "widened_weights" not in json.loads((tmp_path / "default" / "plan.json").read_text())
    capsys.readouterr()
    assert convert("bad", "--widened-weights", "150")[0] == EXIT_BAD_INPUT
    assert "not a percentage: '150'" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def test_depthwise_layers_of_whole_groups_compete_by_pixels(tmp_path):
    """A DSP-tuned depthwise layer of whole four-channel groups is a candidate, ranked with the 1x1
    layers by its output pixels: of a block's 3x3 over 16 channels (144 bytes) and its 1x1 layers,
    a budget for the 16x3x3 stem and the depthwise filter takes the depthwise one (the stem is no
    candidate); six channels (a group and a half) are never one, nor is any layer tuned for Helium."""
    def steps_of(data, tuning="dsp"):
        path = tmp_path / "block.tflite"
        path.write_bytes(data)
        return tuned(build_steps(simplify(read_model(path))), tuning)

    steps = steps_of(left_shift_block(hw=6))
    kinds = [s.kernel for s in steps]
    assert kinds == ["CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"]
    filters = sum(s.params.filter.size for s in steps)
    chosen = widen_weights(steps, 144 / filters)
    assert [s.params.int16_weights for s in chosen] == [False, True, False]
    assert all(s.params.int16_weights for s in widen_weights(steps, 1.0)[1:])
    six = steps_of(wide_window_block(hw=5, channels=6))
    assert not any(s.params.int16_weights for s in widen_weights(six, 1.0) if s.kernel == "DEPTHWISE_CONV_2D")
    assert not any(s.params.int16_weights for s in widen_weights(steps_of(left_shift_block(hw=6), "helium"), 1.0))


def test_depthwise_layers_the_plan_runs_in_place_keep_int8_filters(tmp_path):
    """An in-place depthwise layer whose planes hold its taps in registers reads each tap once per
    plane: widened, its filter would buy nothing. A budget that the 7x7 layer (392 bytes) would
    take goes to the 1x1 layer (256) once the plan runs both depthwise layers in place; the
    program's steps say so, and the saved plan rebuilds the same steps."""
    path = tmp_path / "wide.tflite"
    path.write_bytes(wide_window_block())
    steps = tuned(build_steps(simplify(read_model(path))), "dsp")
    assert [s.kernel for s in steps] == ["CONV_2D", "DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"]
    share = steps[1].params.filter.size / sum(s.params.filter.size for s in steps)
    assert [s.params.int16_weights for s in widen_weights(steps, share)] == [False, True, False, False]
    program = compile_model(path, widened=share)
    in_place = {op for s in program.plan.steps if s.in_place and s.segment_bytes == 2 for op in s.ops}
    assert in_place == set(steps[1].ops) | set(steps[2].ops)  # two-channel planes of column pairs
    # planes of four or more channels load a group's taps at every pixel: there widening still pays
    assert [taps_in_registers(steps[1].params, n) for n in (1, 2, 4, 8)] == [True, True, False, False]
    assert [s.params.int16_weights for s in widen_weights(steps, share, frozenset(in_place))] == [False, False, False,
                                                                                                  True]
    assert [getattr(s.params, "int16_weights", False) for s in program.steps] == [False, False, False, True]
    rebuilt = program_for_plan(read_model(path), program.plan)
    assert pickle.dumps(rebuilt.steps) == pickle.dumps(program.steps)  # every field, arrays by value


def test_a_share_of_0_asks_for_pixel_pairs_only(tmp_path):
    """The least flash (`--widened-weights 0`): no fused depthwise layer makes its rows three pixels at a
    time (chain._in_threes: unrolled triples take more code than pairs); any other share leaves them be."""
    from tests.kernels.test_mutations import threes_block
    from vmcu_tflite.kernels.chain import _in_threes
    from vmcu_tflite.pipeline import compile_model

    def threes(share):
        chain = [s for s in compile_model(threes_block(), widened=share).steps if s.kernel == "LAYER_CHAIN"]
        assert len(chain) == 1
        return [_in_threes(chain[0].params, i) for i in range(len(chain[0].params.stages))]
    assert threes(None) == threes(0.5) == [False, True]
    assert threes(0.0) == [False, False]


@pytest.mark.parametrize("fuse", [False, True], ids=["apart", "fused"])
def test_lane_ordered_depthwise_filters_are_bit_exact_on_the_host(tmp_path, monkeypatch, fuse):
    """Every depthwise filter widened, lane-ordered: the portable C over them (layers apart: in
    one-channel planes, their taps loaded once; fused: a chain's pixel pairs) matches the reference
    interpreter, which reads the emitted tables, and TFLite Micro; every group takes the lane-ordered
    forms."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 1.0)
    model = tmp_path / "separable.tflite"
    model.write_bytes(separable_blocks(width=7))
    result = validate(model, HOST, seed=3, work=tmp_path / "run", fuse=fuse)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert ("vmcu_mac2x2_row_lanes16(" if fuse else "vmcu_lane_order(") in source  # apart: one-channel planes
    assert "vmcu_mac2x2_row_s8(" not in source and "vmcu_mac4_s8(" not in source  # every group lane-ordered


def test_a_lane_ordered_table_holds_each_group_as_the_dsp_splits_a_word():
    """The emitter's order (codegen/params/depthwise_conv2d.py): tap t of channel c of a group of four
    at 4 g + (0, 2, 1, 3)[c % 4], written out channel by channel here."""
    taps = np.arange(2 * 3 * 8, dtype=np.int16).reshape(1, 2, 3, 8)
    expected = []
    for tap in taps.reshape(-1, 8):
        for group in (tap[:4], tap[4:]):
            expected += [group[0], group[2], group[1], group[3]]
    assert lane_order(taps).tolist() == expected
