"""The C kernels on the host, bit-exact with the reference interpreter and TFLite Micro.

Each model puts several kernels into one graph (one C build per configuration): every op kind
with strides, paddings, dilations, depth multipliers, groups, activations, broadcasting and
constant operands, under the whole-tensor plan, the vMCU plan (segment and in-place modes,
tensors wrapping around the end of the pool) and vMCU plans with forced odd segment sizes
(partial segments). The DSP-extension paths of conv, depthwise and fully connected run with C
emulations of their instructions (VMCU_EMULATE_DSP).
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.c import kernel_models
from tests.c.c_validate import EMULATED_DSP_HOST, check_model, check_program, program_with_segment
from tests.c.test_sixteen_by_eight import end_to_end as sixteen_by_eight, movement as int16_movement
from tests.c.test_access_trace import int16_model, int16_sigmoid_model
from tests.models_under_test import wide_window_block
from tests.ops.test_op_batch_matmul import chained_batch_matmuls
from tests.ops.test_op_detection_postprocess import build as build_detection
from tests.ops.test_op_cast import build_cast_chain, build_typed_copies
from tests.ops.test_op_signal import signal_chain
from tests.ops.test_op_signal_chain import front_end_tail
from tests.ops.test_op_svdf import build_svdf
from tests.ops.test_op_tile import build_tile
from tests.ops.test_op_batch_matmul_s16 import CHAINED as BMM16_CASE, build_batch_matmul16
from tests.ops.test_op_unidirectional_sequence_lstm import EXPLICIT as LSTM_EXPLICIT, build_lstm
from tests.ops.test_op_unidirectional_sequence_lstm_s16 import EXPLICIT as LSTM16_EXPLICIT, build_lstm16
from tests.ops.test_op_int16_group import two_input_model
from tests.random_graphs import GraphBuilder
from tests.test_folding import anchor_model
from tests.test_resource_variables import stateful
from vmcu_tflite.ops import SPECS
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

MODELS = {
    "windowed": kernel_models.windowed_model,
    "elementwise": kernel_models.elementwise_model,
    "activation": kernel_models.activation_model,
    "slice": kernel_models.slice_model,
    "shape": kernel_models.shape_model,
    "high_rank": kernel_models.high_rank_model,
    "stack": kernel_models.stack_model,
    # whole-tensor kernels of their own, built as in their op tests (the state ones over 3 runs)
    "svdf": lambda: build_svdf(dict(batch=2, input_size=13, units=5, rank=2, memory=7, runs=1, seed=11))[0],
    "lstm": lambda: build_lstm(LSTM_EXPLICIT[1])[0],
    "lstm16": lambda: build_lstm16(LSTM16_EXPLICIT[1])[0],
    "batch_matmul16": lambda: build_batch_matmul16(BMM16_CASE)[0],
    "tile": lambda: build_tile(dict(shape=[2, 1, 3, 5], multiples=[1, 4, 2, 1], int64=False, seed=3))[0],
    # a folded output written from flash (CONSTANT) before an ADD reads it from the pool
    "constant": lambda: anchor_model(tile=False, reader="add"),
    # float32 outputs written by a step: fast and regular suppression over overlapping boxes with tied
    # scores, box encodings with a fifth value, more detections allowed than there are boxes (regular)
    "detection": lambda: build_detection(30, 3, box_stride=5, class_scale=1 / 16, seed=9,
                                         options=dict(max_detections=8, nms_score_threshold=0.2))[0],
    "detection_regular": lambda: build_detection(6, 2, background=False, class_scale=1 / 16, seed=4, options=dict(
        max_detections=9, use_regular_nms=True, detections_per_class=2, nms_score_threshold=0.1))[0],
    # regular: more detections kept across classes than there are boxes (4 boxes, 4 classes, 12 kept)
    "detection_classes": lambda: build_detection(4, 4, class_scale=1 / 16, seed=6, options=dict(
        max_detections=12, use_regular_nms=True, detections_per_class=4, nms_score_threshold=0.0,
        nms_iou_threshold=1.0))[0],
    # many boxes (the merge sort's longer runs), scores on a coarse grid (ties everywhere)
    "detection_many": lambda: build_detection(150, 5, class_scale=1 / 4, seed=5, options=dict(
        max_detections=20, nms_score_threshold=0.5, nms_iou_threshold=0.3))[0],
    "batch_matmul": chained_batch_matmuls,
    # resource variables: CALL_ONCE, READ_VARIABLE, ASSIGN_VARIABLE (sequences of runs)
    "variables": stateful,
    # tensors of other integer types in the pool: an int16 input, int32 and uint32 between steps
    "cast": lambda: build_cast_chain(("int16", "int32", "uint32", "int8", "int32", "int16"), (3, 7))[0],
    "typed_copies": lambda: build_typed_copies()[0],  # int32 and int16 STRIDED_SLICE and CONCATENATION
    # the signal library's window, auto scale, real FFT and energy
    "signal": signal_chain,
    "signal_480": lambda: signal_chain(n=480, window=480, fft_length=480),  # radix 4, 3 and 5 stages
    # an audio front end's tail: the signal filter bank stages (a noise estimate in the state region,
    # over 3 runs) and int32 arithmetic
    "audio_tail": lambda: front_end_tail(channels=10, bins=40),
    # 16x8 models: int16 activations through QUANTIZE, the data-movement ops, the pools and MEAN
    "sixteen_by_eight": sixteen_by_eight,
    "int16_movement": int16_movement,
    # 16x8: the int16 element-wise kinds, streaming (the fixture; a RELU, PRELU, LOGISTIC, TANH chain)
    "int16": int16_model,
    "int16_chain": int16_sigmoid_model,
    # 16x8: int16 element-wise steps grouped (INT16_GROUP): two inputs, a partial last block, zero points
    "int16_group": two_input_model,
    # 16x8: the int16 PAD, pools and MEAN streaming over rows (a PADV2 of an int16 value, a folded PAD)
    "int16_rows": kernel_models.int16_rows_model,
}


def random_graph() -> bytes:
    """A fixed chain of the random-graph layers (inverted residuals, strided depthwise, pooling)."""
    builder = GraphBuilder(np.random.default_rng(7), hw=9, channels=6)
    for layer in ("conv3x3", "residual", "depthwise_s2", "add_branch", "avgpool", "pointwise"):
        builder.add_layer(layer)
    return builder.build()[0]


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kernel_models")
    paths = {}
    for name, make in MODELS.items():
        paths[name] = folder / f"{name}.tflite"
        paths[name].write_bytes(make())
    return paths


def test_models_use_every_kind_and_mode():
    """The models below cover every step kind, and the vMCU plans every mode."""
    kinds, modes = set(), set()
    for make in MODELS.values():
        plan = compile_model(make(), "vmcu").plan
        kinds |= {s.kernel for s in plan.steps}
        modes |= {(s.kernel, s.mode) for s in plan.steps}
    runtime = {name for name, spec in SPECS.items() if spec.kind_id is not None} - {"LAYER_CHAIN", "PULLED_ROW"}
    # chains: tests/c/test_fused_host.py; frames pulled from a streamed input: tests/c/test_streamed_validation.py
    assert kinds == runtime, sorted(runtime ^ kinds)
    whole = {"TRANSPOSE", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR", "PADV2", "LOGISTIC", "STRIDED_SLICE",
             "SPLIT", "SPLIT_V", "GATHER", "REDUCE_MAX", "TRANSPOSE_CONV", "SVDF", "UNIDIRECTIONAL_SEQUENCE_LSTM",
             "TILE", "CONSTANT", "UNPACK", "TFLite_Detection_PostProcess",
             "BATCH_MATMUL", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE",
             "CAST", "SignalWindow", "SignalFftAutoScale", "SignalRfft",
             "SignalEnergy", "SignalFilterBank", "SignalFilterBankSquareRoot", "SignalFilterBankSpectralSubtraction",
             "NOISE_ESTIMATE", "SignalPCAN", "SignalFilterBankLog", "INT32_BINARY",
             "REQUANTIZE", "BATCH_MATMUL_S16"}
    for name in runtime - whole:
        assert (name, "segment") in modes, name
    assert ("DEPTHWISE_CONV_2D", "in-place") in modes


@pytest.mark.parametrize("planner", ["tensor", "vmcu"])
@pytest.mark.parametrize("name", list(MODELS))
def test_planner(model_files, name, planner):
    v = validate(model_files[name], HOST, seed=1, planner=planner)
    assert v.status == 0
    assert v.matches_reference and v.matches_tflm


@pytest.mark.parametrize("name, segment", [("windowed", 3), ("elementwise", 5), ("activation", 7), ("high_rank", 3),
                                           ("stack", 3)])
def test_forced_segment(name, segment):
    """Segments that do not divide the channels: partial last segments in every streaming kernel."""
    model = MODELS[name]()
    program = program_with_segment(model, segment)
    assert any(s.mode == "segment" and s.segment_bytes == segment for s in program.plan.steps)
    assert check_program(program, model, seed=2)[:2] == (True, True)


@pytest.mark.parametrize("name, planner", [("windowed", "vmcu"), ("windowed", "tensor"), ("elementwise", "vmcu")])
def test_emulated_dsp(name, planner):
    """The DSP paths: dot products by pairs (SMLAD), four depthwise channels at once (SMLABB/SMLATT),
    in place from the workspace too (the elementwise model's depthwise)."""
    assert check_model(MODELS[name](), planner, EMULATED_DSP_HOST, seed=3)[:2] == (True, True)


@pytest.mark.parametrize("target", [HOST, EMULATED_DSP_HOST], ids=["portable", "emulated DSP"])
@pytest.mark.parametrize("width", [9, 10], ids=["quads and a pixel", "quads and a pair"])
def test_column_pair_planes(target, width):
    """In-place 7x7 and 5x5 layers in two-channel planes of column pairs (vmcu_column_taps_s8,
    vmcu_dot_cols_s8): the taps in order and a tap at a time on the portable path, in column pairs
    and SMLADs on the DSP one; rows of four-pixel tiles ending in a lone pixel, or in a pair."""
    model = wide_window_block(9, width=width)
    program = compile_model(model, fuse=False)
    assert [s.segment_bytes for s in program.plan.steps if s.in_place] == [2, 2]
    assert check_program(program, model, target, seed=5)[:2] == (True, True)


@pytest.mark.parametrize("segment", [None, 4])
def test_random_graph(segment):
    model = random_graph()
    if segment is None:
        result = check_model(model, "vmcu", fuse=False, seed=4)
    else:
        result = check_program(program_with_segment(model, segment), model, seed=4)
    assert result[:2] == (True, True)


@pytest.mark.parametrize("seed", [3, 8, 13])
def test_batch_matmul_shapes(seed):
    """BATCH_MATMUL's C kernel over random ranks up to 5, broadcast batches, adjoints and a constant
    operand, as its op test draws them, bit-exact on the host (both planners)."""
    from tests.ops.test_op_batch_matmul import _shapes, build_batch_matmul

    rng = np.random.default_rng(seed)
    adj_x, adj_y = bool(seed & 1), bool(seed & 2)
    lhs, rhs = _shapes(rng, int(rng.integers(2, 6)), 5, adj_x, adj_y)
    model, _ = build_batch_matmul(dict(lhs=lhs, rhs=rhs, adj_x=adj_x, adj_y=adj_y, seed=seed,
                                       constant=[None, "lhs", "rhs"][seed % 3]))
    for planner in ("tensor", "vmcu"):
        assert check_model(model, planner, seed=seed)[:2] == (True, True)


@pytest.mark.parametrize("seed", range(4))
def test_detection_configurations_on_the_sanitized_host(seed, tmp_path):
    """Six post-processing ops of random options (fast and regular suppression, limits above and
    below the box count, thresholds, scales) over one set of heads, in one ASan + UBSan build:
    bit-exact with the reference interpreter and TFLite Micro."""
    from tests.ops.test_op_detection_postprocess import build_variants
    from vmcu_tflite.validate.targets import SANITIZED_HOST
    path = tmp_path / "variants.tflite"
    path.write_bytes(build_variants(seed)[0])
    v = validate(path, SANITIZED_HOST, seed=seed, work=tmp_path / "build")
    assert v.status == 0 and v.matches_reference and v.matches_tflm
