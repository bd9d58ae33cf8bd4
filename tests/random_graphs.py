"""Random small int8 graphs (chains with residual branches) for property tests of the planners."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from tests.tflite_builder import ModelBuilder, random_bias, random_weights

LAYERS = ("pointwise", "conv3x3", "depthwise", "depthwise_s2", "avgpool", "residual", "add_branch")


class GraphBuilder:
    """Keeps the current activation and its quantization while layers are appended."""

    def __init__(self, rng: np.random.Generator, hw: int, channels: int) -> None:
        self.rng, self.b = rng, ModelBuilder()
        self.scale, self.zp = 0.05, int(rng.integers(-20, 20))
        self.shape = (1, hw, hw, channels)
        self.x = self.b.tensor(self.shape, scale=self.scale, zero_point=self.zp)
        self.b.inputs = [self.x]

    def _out(self, shape, scale):
        zp = int(self.rng.integers(-30, 30))
        return self.b.tensor(shape, scale=scale, zero_point=zp), zp

    def conv(self, x, shape, c_out, k, stride, depthwise=False):
        n, h, w, c_in = shape
        o = -(-h // stride)
        w_scale = self.rng.uniform(0.005, 0.02, size=c_out)
        taps = k * k * (1 if depthwise else c_in)
        out_scale = float(math.sqrt(taps) * 128 * self.scale * w_scale.mean())
        filt_shape = (1, k, k, c_out) if depthwise else (c_out, k, k, c_in)
        f = self.b.const(random_weights(self.rng, filt_shape), scale=w_scale, zero_point=0, axis=3 if depthwise else 0)
        bias = self.b.const(random_bias(self.rng, c_out), scale=self.scale * w_scale, zero_point=0)
        y, zp = self._out((n, o, o, c_out), out_scale)
        kind = "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D"
        extra = {"depth_multiplier": c_out // c_in} if depthwise else {}
        self.b.op(kind, [x, f, bias], [y], padding=0, stride_h=stride, stride_w=stride,
                  fused_activation_function=int(self.rng.integers(0, 4)), **extra)
        return y, (n, o, o, c_out), out_scale, zp

    def add_layer(self, layer: str) -> None:
        n, h, w, c = self.shape
        if layer == "pointwise":
            c_out = int(self.rng.integers(2, 12))
            self.x, self.shape, self.scale, self.zp = self.conv(self.x, self.shape, c_out, 1, 1)
        elif layer == "conv3x3":
            stride = int(self.rng.integers(1, 3)) if h > 2 else 1
            self.x, self.shape, self.scale, self.zp = self.conv(self.x, self.shape, int(self.rng.integers(2, 10)), 3, stride)
        elif layer in ("depthwise", "depthwise_s2"):
            stride = 2 if layer == "depthwise_s2" and h > 2 else 1
            self.x, self.shape, self.scale, self.zp = self.conv(self.x, self.shape, c, 3, stride, depthwise=True)
        elif layer == "avgpool" and h >= 2:
            y, _ = self.b.tensor((n, h // 2, w // 2, c), scale=self.scale, zero_point=self.zp), None
            self.b.op("AVERAGE_POOL_2D", [self.x], [y], padding=1, stride_h=2, stride_w=2,
                      filter_height=2, filter_width=2)
            self.x, self.shape = y, (n, h // 2, w // 2, c)
        elif layer in ("residual", "add_branch"):
            # x -> pointwise expand -> depthwise -> pointwise project (+ x): an inverted bottleneck
            skip, skip_scale = self.x, self.scale
            expand = int(self.rng.integers(c, 3 * c + 1))
            y, shape, scale, zp = self.conv(self.x, self.shape, expand, 1, 1)
            self.scale = scale
            y, shape, scale, zp = self.conv(y, shape, expand, 3, 1, depthwise=True)
            self.scale = scale
            y, shape, scale, zp = self.conv(y, shape, c, 1, 1)
            out_scale = max(scale, skip_scale) * 1.5
            out, out_zp = self._out(self.shape, out_scale)
            self.b.op("ADD", [skip, y] if layer == "residual" else [y, skip], [out], fused_activation_function=0)
            self.x, self.scale, self.zp = out, out_scale, out_zp

    def build(self) -> tuple[bytes, np.ndarray]:
        self.b.outputs = [self.x]
        data = self.rng.integers(-128, 128, size=self.b._tensors[self.b.inputs[0]].shape).astype(np.int8)
        return self.b.build(), data


@st.composite
def random_graphs(draw):
    """(model bytes, input) for a chain of 1 to 6 layers on a small image."""
    seed = draw(st.integers(0, 2**31))
    layers = draw(st.lists(st.sampled_from(LAYERS), min_size=1, max_size=6))
    rng = np.random.default_rng(seed)
    builder = GraphBuilder(rng, hw=draw(st.integers(3, 10)), channels=draw(st.integers(1, 8)))
    for layer in layers:
        builder.add_layer(layer)
    return builder.build()
