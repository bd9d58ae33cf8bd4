"""Models the tests run: small synthetic ones built here, fixtures in models/, real ones in ../shared/models."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.tflite_builder import ModelBuilder, pack, random_bias, random_weights, unpack

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "models").glob("*.tflite"))
SHARED = ROOT.parent / "shared" / "models"
REAL_MODELS = sorted(SHARED.glob("*.tflite")) if SHARED.is_dir() else []


def conv_chain(channels=(3, 8, 4), hw: int = 6, seed: int = 0, bias_bound: int = 2000, activation: int = 0,
               spread: bool = False) -> bytes:
    """1x1 convolutions one after another: the smallest graph with a real plan (biases within
    +-`bias_bound`: past 32767 their tables take 32 bits; `activation` each layer's fused one,
    TFLite's code: 1 ReLU, 3 ReLU6). With `spread` the filter scales differ from channel to channel
    by factors of 2 (so do their requantization shifts: a kernel that took a neighbour's is wrong)."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor((1, hw, hw, channels[0]), scale=0.05, zero_point=-3)
    b.inputs = [x]
    for c_in, c_out in zip(channels, channels[1:]):
        scales = [0.01 * (2.0 ** (k % 3 - 1) if spread else 1.0) for k in range(c_out)]
        w = b.const(random_weights(rng, (c_out, 1, 1, c_in)), scale=scales, zero_point=0, axis=0)
        bias = b.const(random_bias(rng, c_out, bound=bias_bound), scale=[0.05 * v for v in scales], zero_point=0)
        y = b.tensor((1, hw, hw, c_out), scale=0.1, zero_point=2)
        fused = {"fused_activation_function": activation} if activation else {}
        b.op("CONV_2D", [x, w, bias], [y], padding=1, stride_h=1, stride_w=1, **fused)
        x = y
    b.outputs = [x]
    return b.build()


def _block(layers, weights, scales, bias_bound: int, hw: int, seed: int, width: int | None = None) -> bytes:
    """A 3x3 convolution from 3 channels, a 3x3 depthwise and a 1x1 convolution (`layers`: kind,
    output channels, kernel size, ReLU or not), each layer's filter from `weights(rng, shape,
    channels, taps)` and its filter scales from `scales(channels)`; `hw` rows of `width` (default
    `hw`) pixels."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    width = hw if width is None else width
    x = b.tensor((1, hw, width, 3), scale=0.05, zero_point=-3)
    b.inputs = [x]
    in_scale, c_in = 0.05, 3
    for kind, c_out, k, relu in layers:
        depthwise = kind == "DEPTHWISE_CONV_2D"
        w_scale = scales(c_out)
        shape = (1, k, k, c_out) if depthwise else (c_out, k, k, c_in)
        w = b.const(weights(rng, shape, c_out, k * k * (1 if depthwise else c_in)), scale=list(w_scale), zero_point=0,
                    axis=3 if depthwise else 0)
        bias = b.const(random_bias(rng, c_out, bound=bias_bound), scale=list(np.where(w_scale == 0, 1e-9, np.abs(in_scale * w_scale))),
                       zero_point=0)
        out_scale = in_scale * 0.01 if bias_bound < 100 else 0.12
        y = b.tensor((1, hw, width, c_out), scale=out_scale, zero_point=-128 if relu else 5)
        options = dict(padding=0, stride_h=1, stride_w=1, fused_activation_function=1 if relu else 0)
        if depthwise:
            options["depth_multiplier"] = 1
        b.op(kind, [x, w, bias], [y], **options)
        x, in_scale, c_in = y, out_scale, c_out
    b.outputs = [x]
    return b.build()


def separable_blocks(width: int = 5, seed: int = 0, bias_bound: int = 2000) -> bytes:
    """A 3x3 convolution (3 -> 16 channels), then two depthwise-separable blocks (3x3 depthwise, 1x1 to
    24, then to 8; no ReLU after them: their zero points, and so the biases the 1x1 layers fold them
    into, stay small) over 24 rows of `width` pixels (tall: fused, they take a fraction of the pool):
    a chain whose stages pair their pixels, each row ending in a tile of three where the width is
    odd. The filter scales differ from channel to channel by factors of 2, so that a kernel that
    took a neighbour's requantization is wrong."""
    layers = (("CONV_2D", 16, 3, True), ("DEPTHWISE_CONV_2D", 16, 3, False), ("CONV_2D", 24, 1, False),
              ("DEPTHWISE_CONV_2D", 24, 3, False), ("CONV_2D", 8, 1, False))
    return _block(layers, lambda rng, shape, channels, taps: random_weights(rng, shape),
                  lambda channels: 0.002 * np.resize([1.0, 0.5, 2.0], channels), bias_bound, 24, seed, width)


def left_shift_block(hw: int = 10, seed: int = 0) -> bytes:
    """A 3x3 convolution (3 -> 16 channels), a 3x3 depthwise and a 1x1 convolution (16 -> 8) whose
    channels scale by 1.2, 0.7, 0.125 and 2.4 in turn (TFLite shifts +1, 0, -2, +2), the first two
    clamped by a ReLU: layers whose requantization needs the shifted form (requant.py), as a stem's
    often do, in every kernel shape a block lowers to. Each output channel sums two taps of weight
    +-1, so that most outputs, even scaled up, stay inside int8 and a wrong shift shows."""
    def two_taps(rng, shape, channels, taps):
        weights = np.zeros((channels, taps), dtype=np.int8)
        for row in weights:
            row[rng.choice(taps, size=2, replace=False)] = rng.choice([-1, 1], size=2)
        return weights.T.reshape(shape) if shape[0] == 1 else weights.reshape(shape)

    return _block((("CONV_2D", 16, 3, True), ("DEPTHWISE_CONV_2D", 16, 3, True), ("CONV_2D", 8, 1, False)), two_taps,
                  lambda channels: 0.01 * np.resize([1.2, 0.7, 0.125, 2.4], channels), 40, hw, seed)


def signed_scales_block(hw: int = 10, seed: int = 0) -> bytes:
    """A 3x3 convolution (3 -> 8 channels), a 3x3 depthwise and a 1x1 convolution (8 -> 8) whose
    filters scale some channels by a negative number (TFLite multipliers below zero, as some
    quantizers leave) and one channel by zero (multiplier 0, shift 0: the output is its offset), the
    rest by ordinary ones: the narrow requantization negates the first (requant.py) and encodes the
    second so that it still gives the offset, in every kernel shape a block lowers to."""
    return _block((("CONV_2D", 8, 3, True), ("DEPTHWISE_CONV_2D", 8, 3, False), ("CONV_2D", 8, 1, True)),
                  lambda rng, shape, channels, taps: random_weights(rng, shape),
                  lambda channels: 0.01 * np.array([1.0, -0.8, 0.6, 0.0, -1.3, 0.9, 1.1, -0.5]), 400, hw, seed)


def wide_window_block(hw: int = 9, channels: int = 8, seed: int = 0, windows=(7, 5), width: int | None = None) -> bytes:
    """A 1x1 convolution from 3 channels, depthwise layers of the `windows` (square, SAME, stride 1),
    and a 1x1 convolution to 32: the wide windows whose in-place planes are two channels of
    column pairs (`planes.column_pair_planes`: the last layer's output sets the pool, so the planes
    fit it), 3x3 windows over 16 channels one-channel planes of padded rows; an odd `width` (default
    `hw`) leaves each row's last output pixel alone. Each layer's output scale follows its
    accumulators' spread (about 40 steps), so that its values are rounded, not saturated."""
    rng = np.random.default_rng(seed)
    width = hw if width is None else width
    b = ModelBuilder()
    x = b.tensor((1, hw, width, 3), scale=0.05, zero_point=-3)
    b.inputs = [x]
    in_scale, c_in = 0.05, 3
    for k, c_out in ((1, channels), *((k, channels) for k in windows), (1, 32)):
        depthwise = k > 1
        shape = (1, k, k, c_out) if depthwise else (c_out, 1, 1, c_in)
        w = b.const(random_weights(rng, shape), scale=[0.01] * c_out, zero_point=0, axis=3 if depthwise else 0)
        bias = b.const(random_bias(rng, c_out), scale=[in_scale * 0.01] * c_out, zero_point=0)
        out_scale = in_scale * 0.01 * 5400 * np.sqrt(k * k if depthwise else c_in) / 40
        y = b.tensor((1, hw, width, c_out), scale=float(out_scale), zero_point=int(rng.integers(-10, 10)))
        options = dict(padding=0, stride_h=1, stride_w=1, fused_activation_function=0)
        b.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, w, bias], [y],
             **(dict(options, depth_multiplier=1) if depthwise else options))
        x, in_scale, c_in = y, float(out_scale), c_out
    b.outputs = [x]
    return b.build()


def expanding_head(hw: int = 8, seed: int = 3) -> bytes:
    """A 3x3 convolution to 4 channels, then a 1x1 to 16 (a segmentation head's logits): the
    output is four times the tensor it is made from, so the pool holds it whole unless it is
    handed to the application row by row as it is made (--stream-output)."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor((1, hw, hw, 3), scale=0.05, zero_point=-3)
    b.inputs = [x]
    for c_in, c_out, k in ((3, 4, 3), (4, 16, 1)):
        w = b.const(random_weights(rng, (c_out, k, k, c_in)), scale=[0.01] * c_out, zero_point=0, axis=0)
        bias = b.const(random_bias(rng, c_out), scale=[0.0005] * c_out, zero_point=0)
        y = b.tensor((1, hw, hw, c_out), scale=0.1, zero_point=2)
        b.op("CONV_2D", [x, w, bias], [y], padding=0, stride_h=1, stride_w=1)  # SAME
        x = y
    b.outputs = [x]
    return b.build()


# Operators after which a model's output says little about the kernels before it: a softmax over a few
# classes saturates (KWS: 10 or 11 of 12 at -128 for random inputs), a dequantize or reshape only re-expresses it.
_HEAD = {"SOFTMAX", "DEQUANTIZE", "QUANTIZE", "RESHAPE"}


def without_head(data: bytes, min_values: int = 8) -> bytes:
    """The model `data` (one subgraph, one output) with its output head cut off: the trailing softmax,
    dequantize, quantize and reshape operators, and then, while the output has fewer than `min_values`
    values (two classes), the layer that made it, so that the output compared is the logits or the
    features before a two-class classifier, whose values a wrong kernel changes."""
    from tests.tflite_builder import schema

    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    model = unpack(data)
    graph = model.subgraphs[0]

    def code(op) -> str:
        c = model.operatorCodes[op.opcodeIndex]
        return names[max(c.builtinCode, c.deprecatedBuiltinCode)]

    while True:
        output = graph.outputs[0]
        producer = next(op for op in graph.operators if output in list(op.outputs))
        values = int(np.prod(graph.tensors[output].shape))
        if code(producer) not in _HEAD and values >= min_values:
            break
        graph.operators.remove(producer)
        graph.outputs = np.array([producer.inputs[0]], dtype=np.int32)
    return pack(model)
