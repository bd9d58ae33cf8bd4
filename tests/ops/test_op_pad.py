"""PAD against TFLite Micro: 1-D to 5-D, paddings on any dimensions, pad value = output zero point."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


@st.composite
def pad_cases(draw):
    shape = draw(st.lists(st.integers(1, 6), min_size=1, max_size=5))
    paddings = [(draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in shape]
    return dict(shape=shape, paddings=paddings, same_quant=draw(st.booleans()), seed=draw(st.integers(0, 2**31)))


def build_pad(shape, paddings, in_q, out_q, seed=0, out_shape=None, value=None) -> tuple[bytes, np.ndarray]:
    """A PAD model, or a PADV2 one when a pad `value` (raw int8, with `value_q`) is given."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor(shape, scale=in_q[0], zero_point=in_q[1])
    pads = b.const(np.array(paddings, dtype=np.int32).reshape(len(shape), 2))
    y = b.tensor(out_shape or [d + lo + hi for d, (lo, hi) in zip(shape, paddings)],
                 scale=out_q[0], zero_point=out_q[1])
    if value is None:
        b.op("PAD", [x, pads], [y])
    else:
        raw, value_q = value
        b.op("PADV2", [x, pads, b.const(np.array([raw], dtype=np.int8), scale=value_q[0], zero_point=value_q[1])], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build(), rng.integers(-128, 128, size=shape).astype(np.int8)


@settings(max_examples=60, deadline=None)
@given(pad_cases())
def test_pad_bit_exact(case):
    rng = np.random.default_rng(case["seed"])
    in_q = (float(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128)))
    # TFLite Micro copies the bytes even when the output quantization differs: only the pad value changes.
    out_q = in_q if case["same_quant"] else (float(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128)))
    model, data = build_pad(case["shape"], case["paddings"], in_q, out_q, case["seed"])
    out = assert_matches_tflm(model, [data])[0]
    inner = tuple(slice(lo, lo + d) for d, (lo, _) in zip(case["shape"], case["paddings"]))
    np.testing.assert_array_equal(out[inner], data)
    border = np.ones(out.shape, dtype=bool)
    border[inner] = False
    assert (out[border] == out_q[1]).all()


def test_pad_image_style():
    """The usual PAD before a stride-2 convolution: one row and column after, H and W only."""
    model, data = build_pad([1, 7, 7, 16], [(0, 0), (0, 1), (0, 1), (0, 0)], (0.05, -12), (0.05, -12), seed=3)
    out = assert_matches_tflm(model, [data])[0]
    assert (out[0, 7, :, :] == -12).all() and (out[0, :, 7, :] == -12).all()


def test_pad_channels_and_batch():
    model, data = build_pad([2, 3, 3, 5], [(1, 0), (0, 0), (0, 0), (2, 3)], (0.05, 100), (0.05, 100), seed=4)
    assert_matches_tflm(model, [data])


def test_pad_rejects_wrong_output_shape():
    model, _ = build_pad([1, 4, 4, 2], [(0, 0), (1, 1), (1, 1), (0, 0)], (0.1, 0), (0.1, 0), out_shape=[1, 6, 5, 2])
    graph = parse_model(model)
    with pytest.raises(ModelError, match="PAD at index 0: output shape"):
        prepare(graph, graph.ops[0])


@settings(max_examples=40, deadline=None)
@given(pad_cases(), st.booleans())
def test_padv2_bit_exact(case, value_shares_quantization):
    """PADV2's raw pad value fills the border; TFLite Micro needs it in the output's quantization."""
    rng = np.random.default_rng(case["seed"])
    in_q = (float(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128)))
    out_q = in_q if case["same_quant"] else (float(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128)))
    value_q = out_q if value_shares_quantization else (out_q[0] * 2, out_q[1])
    raw = int(rng.integers(-128, 128))
    model, data = build_pad(case["shape"], case["paddings"], in_q, out_q, case["seed"], value=(raw, value_q))
    out = assert_matches_or_refused_like_tflm(model, [data])
    assert (out is None) == (not value_shares_quantization)
    if out is not None and any(lo or hi for lo, hi in case["paddings"]):
        assert raw in out[0]
