"""Small int8 models that put many kernels, shapes and options in one graph (one C build each).

Each model is a chain with side branches, so intermediate tensors land anywhere in the vMCU
pool (wrapping around its end included) and most steps stream over a dying input.
"""
from __future__ import annotations

import math

import numpy as np

from tests.tflite_builder import ModelBuilder, random_bias, random_weights


class Chain:
    """Tensors with their shape and quantization while ops are appended."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.b = ModelBuilder()
        self.info: dict[int, tuple[tuple[int, ...], float, int]] = {}

    def input(self, shape, scale=0.05, zero_point=None) -> int:
        zp = int(self.rng.integers(-20, 20)) if zero_point is None else zero_point
        t = self.tensor(shape, scale, zp)
        self.b.inputs.append(t)
        return t

    def tensor(self, shape, scale, zero_point) -> int:
        t = self.b.tensor(tuple(shape), scale=scale, zero_point=zero_point)
        self.info[t] = (tuple(shape), float(scale), int(zero_point))
        return t

    def _zp(self) -> int:
        return int(self.rng.integers(-30, 30))

    def conv(self, x, c_out, k=(3, 3), stride=(1, 1), dilation=(1, 1), padding=0, groups=1, act=0) -> int:
        (n, h, w, c_in), scale, _ = self.info[x]
        k_h, k_w = k
        if padding == 0:
            o_h, o_w = -(-h // stride[0]), -(-w // stride[1])
        else:
            o_h = (h - (k_h - 1) * dilation[0] - 1) // stride[0] + 1
            o_w = (w - (k_w - 1) * dilation[1] - 1) // stride[1] + 1
        w_scale = self.rng.uniform(0.005, 0.02, size=c_out)
        out_scale = float(math.sqrt(k_h * k_w * c_in / groups) * 128 * scale * w_scale.mean())
        f = self.b.const(random_weights(self.rng, (c_out, k_h, k_w, c_in // groups)), scale=w_scale, zero_point=0)
        bias = self.b.const(random_bias(self.rng, c_out), scale=scale * w_scale, zero_point=0)
        y = self.tensor((n, o_h, o_w, c_out), out_scale, self._zp())
        self.b.op("CONV_2D", [x, f, bias], [y], padding=padding, stride_h=stride[0], stride_w=stride[1],
                  dilation_h_factor=dilation[0], dilation_w_factor=dilation[1], fused_activation_function=act)
        return y

    def depthwise(self, x, k=(3, 3), stride=(1, 1), dilation=(1, 1), padding=0, multiplier=1, act=0,
                  per_channel=True) -> int:
        (n, h, w, c_in), scale, _ = self.info[x]
        k_h, k_w = k
        c_out = c_in * multiplier
        if padding == 0:
            o_h, o_w = -(-h // stride[0]), -(-w // stride[1])
        else:
            o_h = (h - (k_h - 1) * dilation[0] - 1) // stride[0] + 1
            o_w = (w - (k_w - 1) * dilation[1] - 1) // stride[1] + 1
        w_scale = self.rng.uniform(0.005, 0.02, size=c_out if per_channel else 1)
        out_scale = float(math.sqrt(k_h * k_w) * 128 * scale * w_scale.mean())
        f = self.b.const(random_weights(self.rng, (1, k_h, k_w, c_out)), scale=w_scale, zero_point=0, axis=3)
        bias_scale = scale * (w_scale if per_channel else np.full(c_out, w_scale[0]))
        bias = self.b.const(random_bias(self.rng, c_out), scale=bias_scale, zero_point=0)
        y = self.tensor((n, o_h, o_w, c_out), out_scale, self._zp())
        self.b.op("DEPTHWISE_CONV_2D", [x, f, bias], [y], padding=padding, stride_h=stride[0], stride_w=stride[1],
                  dilation_h_factor=dilation[0], dilation_w_factor=dilation[1], depth_multiplier=multiplier,
                  fused_activation_function=act)
        return y

    def pool(self, kind, x, k, stride, padding=0, act=0) -> int:
        (n, h, w, c), scale, zp = self.info[x]
        if padding == 0:
            o_h, o_w = -(-h // stride[0]), -(-w // stride[1])
        else:
            o_h, o_w = (h - k[0]) // stride[0] + 1, (w - k[1]) // stride[1] + 1
        y = self.tensor((n, o_h, o_w, c), scale, zp)
        self.b.op(kind, [x], [y], padding=padding, stride_h=stride[0], stride_w=stride[1], filter_height=k[0],
                  filter_width=k[1], fused_activation_function=act)
        return y

    def fully_connected(self, x, units, depth, act=0, per_channel=False) -> int:
        shape, scale, _ = self.info[x]
        rows = int(np.prod(shape)) // depth
        w_scale = self.rng.uniform(0.005, 0.02, size=units if per_channel else 1)
        out_scale = float(math.sqrt(depth) * 128 * scale * w_scale.mean())
        f = self.b.const(random_weights(self.rng, (units, depth)), scale=w_scale, zero_point=0)
        bias_scale = scale * (w_scale if per_channel else np.full(units, w_scale[0]))
        bias = self.b.const(random_bias(self.rng, units),
                            scale=bias_scale if per_channel else float(bias_scale[0]), zero_point=0)
        y = self.tensor((rows, units), out_scale, self._zp())
        self.b.op("FULLY_CONNECTED", [x, f, bias], [y], fused_activation_function=act)
        return y

    def softmax(self, x, beta=1.0) -> int:
        shape, _, _ = self.info[x]
        y = self.tensor(shape, 1 / 256, -128)
        self.b.op("SOFTMAX", [x], [y], beta=beta)
        return y

    def logistic(self, x) -> int:
        shape, _, _ = self.info[x]
        y = self.tensor(shape, 1 / 256, -128)
        self.b.op("LOGISTIC", [x], [y])
        return y

    def binary(self, kind, a, b, out_shape, act=0, out_scale=None) -> int:
        """ADD or MUL; `a`/`b` are tensor indices (activations or constants made by `constant`)."""
        (_, s1, _), (_, s2, _) = self.info[a], self.info[b]
        if out_scale is None:
            out_scale = 2.5 * max(s1, s2) if kind == "ADD" else 40 * s1 * s2
        y = self.tensor(out_shape, out_scale, self._zp())
        self.b.op(kind, [a, b], [y], fused_activation_function=act)
        return y

    def unary(self, kind, x, **options) -> int:
        """ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH or TANH (TANH's output on the 1/128 grid)."""
        shape, scale, _ = self.info[x]
        y = self.tensor(shape, 1 / 128, 0) if kind == "TANH" else self.tensor(shape, scale * 0.7, self._zp())
        self.b.op(kind, [x], [y], **options)
        return y

    def l2_normalization(self, x) -> int:
        shape, _, _ = self.info[x]
        y = self.tensor(shape, 1 / 128, 0)
        self.b.op("L2_NORMALIZATION", [x], [y])
        return y

    def log_softmax(self, x) -> int:
        shape, _, _ = self.info[x]
        y = self.tensor(shape, 16 / 256, 127)
        self.b.op("LOG_SOFTMAX", [x], [y])
        return y

    def compare(self, kind, a, b, out_shape) -> int:
        """MAXIMUM or MINIMUM; the output keeps the first operand's quantization."""
        _, scale, zp = self.info[a]
        y = self.tensor(out_shape, scale, zp)
        self.b.op(kind, [a, b], [y])
        return y

    def prelu(self, x, alpha) -> int:
        shape, scale, _ = self.info[x]
        y = self.tensor(shape, scale * 0.8, self._zp())
        self.b.op("PRELU", [x, alpha], [y])
        return y

    def transpose_conv(self, x, c_out, k, stride, same=True) -> int:
        (n, h, w, c_in), scale, _ = self.info[x]
        out = (n, h * stride[0], w * stride[1], c_out) if same else \
            (n, (h - 1) * stride[0] + k[0], (w - 1) * stride[1] + k[1], c_out)
        w_scales = self.rng.uniform(0.004, 0.02, size=c_out)
        filt = self.b.const(random_weights(self.rng, (c_out, k[0], k[1], c_in)), scale=w_scales, zero_point=0, axis=0)
        bias = self.b.const(random_bias(self.rng, c_out), scale=scale * w_scales, zero_point=0)
        y = self.tensor(out, scale * float(w_scales.max()) * 30, self._zp())
        self.b.op("TRANSPOSE_CONV", [self.b.const(np.array(out, dtype=np.int32)), filt, x, bias], [y],
                  padding=0 if same else 1, stride_h=stride[0], stride_w=stride[1])
        return y

    def strided_slice(self, x, begin, end, strides, **masks) -> int:
        shape, scale, zp = self.info[x]
        index = tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides))
        out_shape = np.empty(shape)[index].shape
        shrink = masks.get("shrink_axis_mask", 0)
        out_shape = tuple(d for a, d in enumerate(out_shape) if not shrink >> a & 1)
        y = self.tensor(out_shape, scale, zp)
        vectors = [self.b.const(np.array(v, dtype=np.int32)) for v in (begin, end, strides)]
        self.b.op("STRIDED_SLICE", [x, *vectors], [y], **masks)
        return y

    def split(self, x, axis, sizes, equal=True) -> list[int]:
        """SPLIT (equal parts) or SPLIT_V (`sizes`) along `axis`."""
        shape, scale, zp = self.info[x]
        outs = [self.tensor(shape[:axis] + (s,) + shape[axis + 1:], scale, zp) for s in sizes]
        axis_tensor = self.b.const(np.array([axis], dtype=np.int32))
        if equal:
            self.b.op("SPLIT", [axis_tensor, x], outs, num_splits=len(sizes))
        else:
            sizes_tensor = self.b.const(np.array(sizes, dtype=np.int32))
            self.b.op("SPLIT_V", [x, sizes_tensor, axis_tensor], outs, num_splits=len(sizes))
        return outs

    def constant(self, shape, scale=None, zero_point=None) -> int:
        scale = float(self.rng.uniform(0.02, 0.1)) if scale is None else scale
        zp = self._zp() if zero_point is None else zero_point
        t = self.b.const(self.rng.integers(-128, 128, size=shape).astype(np.int8), scale=scale, zero_point=zp)
        self.info[t] = (tuple(shape), scale, zp)
        return t

    def quantize(self, x, scale_factor) -> int:
        shape, scale, _ = self.info[x]
        y = self.tensor(shape, scale * scale_factor, self._zp())
        self.b.op("QUANTIZE", [x], [y])
        return y

    def concatenation(self, parts, axis) -> int:
        shapes = [self.info[t][0] for t in parts]
        _, scale, zp = self.info[parts[0]]
        out = list(shapes[0])
        out[axis] = sum(s[axis] for s in shapes)
        y = self.tensor(out, scale, zp)
        self.b.op("CONCATENATION", list(parts), [y], axis=axis)
        return y

    def unpack(self, x, axis) -> list[int]:
        shape, scale, zp = self.info[x]
        outs = [self.tensor(shape[:axis % len(shape)] + shape[axis % len(shape) + 1:], scale, zp)
                for _ in range(shape[axis])]
        self.b.op("UNPACK", [x], outs, num=len(outs), axis=axis)
        return outs

    def pack(self, parts, axis) -> int:
        shape, scale, zp = self.info[parts[0]]
        out = list(shape)
        out.insert(axis % (len(shape) + 1), len(parts))
        y = self.tensor(out, scale, zp)
        self.b.op("PACK", list(parts), [y], values_count=len(parts), axis=axis)
        return y

    def requantized_like(self, x, like) -> int:
        """x requantized to the scale and zero point of `like` (CONCATENATION needs equal ones)."""
        shape, _, _ = self.info[x]
        _, scale, zp = self.info[like]
        y = self.tensor(shape, scale, zp)
        self.b.op("QUANTIZE", [x], [y])
        return y

    def mean(self, x, axes, keep_dims, scale_factor=1.0, kind="MEAN") -> int:
        """MEAN, or REDUCE_MAX (`scale_factor` 1: its quantization is the input's)."""
        shape, scale, zp = self.info[x]
        resolved = {a % len(shape) for a in axes}
        out = [1 if i in resolved else d for i, d in enumerate(shape)] if keep_dims else \
            [d for i, d in enumerate(shape) if i not in resolved]
        y = self.tensor(out, scale * scale_factor, zp if scale_factor == 1.0 else self._zp())
        self.b.op(kind, [x, self.b.const(np.array(axes, dtype=np.int32))], [y], keep_dims=keep_dims)
        return y

    def gather(self, x, indices, axis) -> int:
        shape, scale, zp = self.info[x]
        y = self.tensor(shape[:axis] + (len(indices),) + shape[axis + 1:], scale, zp)
        self.b.op("GATHER", [x, self.b.const(np.array(indices, dtype=np.int32))], [y], axis=axis)
        return y

    def pad(self, x, paddings, value=None) -> int:
        """PAD, or PADV2 with the raw pad `value`."""
        shape, scale, zp = self.info[x]
        out = [d + a + b for d, (a, b) in zip(shape, paddings)]
        y = self.tensor(out, scale, zp)
        inputs = [x, self.b.const(np.array(paddings, dtype=np.int32))]
        if value is None:
            self.b.op("PAD", inputs, [y])
        else:
            self.b.op("PADV2", inputs + [self.b.const(np.array([value], dtype=np.int8), scale=scale, zero_point=zp)], [y])
        return y

    def transpose(self, x, perm) -> int:
        shape, scale, zp = self.info[x]
        y = self.tensor([shape[p] for p in perm], scale, zp)
        self.b.op("TRANSPOSE", [x, self.b.const(np.array(perm, dtype=np.int32))], [y])
        return y

    def resize(self, x, size, align_corners=False, half_pixel_centers=False, kind="RESIZE_NEAREST_NEIGHBOR") -> int:
        (n, _, _, c), scale, zp = self.info[x]
        y = self.tensor((n, size[0], size[1], c), scale, zp)
        self.b.op(kind, [x, self.b.const(np.array(size, dtype=np.int32))], [y],
                  align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        return y

    def reshape(self, x, shape) -> int:
        _, scale, zp = self.info[x]
        y = self.tensor(shape, scale, zp)
        self.b.op("RESHAPE", [x, self.b.const(np.array(shape, dtype=np.int32))], [y])
        return y

    def build(self, *outputs: int) -> bytes:
        self.b.outputs = list(outputs)
        return self.b.build()


def windowed_model() -> bytes:
    """Depthwise (multipliers 1 and 2, dilation, VALID), grouped and strided conv, pools (two with a
    PAD folded in), FC, softmax."""
    m = Chain(1)
    x = m.input((1, 7, 6, 16))
    x = m.depthwise(x, k=(3, 3), padding=0, act=3)                      # in place (wide channels, small map)
    x = m.conv(x, 10, k=(3, 3), stride=(2, 2), groups=2, act=1)          # grouped, SAME, stride 2
    x = m.depthwise(x, k=(3, 2), dilation=(2, 1), multiplier=2, per_channel=False)  # [1, 4, 3, 20]
    x = m.pool("MAX_POOL_2D", x, (3, 3), (1, 1), padding=0)               # padded windows
    x = m.conv(x, 12, k=(2, 2), padding=1, act=2)                         # VALID, RELU_N1_TO_1
    x = m.depthwise(x, k=(2, 2), stride=(1, 2), padding=0, act=1)         # SAME, strided
    x = m.pool("AVERAGE_POOL_2D", x, (2, 1), (1, 1), padding=0)
    x = m.pool("MAX_POOL_2D", m.pad(x, [[0, 0], [1, 1], [1, 0], [0, 0]]), (3, 2), (1, 1), padding=1)  # PAD folded
    x = m.pool("AVERAGE_POOL_2D", m.pad(x, [[0, 0], [0, 1], [1, 1], [0, 0]]), (2, 3), (1, 1), padding=1)  # in
    x = m.fully_connected(x, 7, depth=12, act=1, per_channel=True)        # one row per pixel
    x = m.softmax(x, beta=0.7)
    return m.build(x)


def elementwise_model() -> bytes:
    """ADD/MUL broadcasting (constants either side), LOGISTIC, QUANTIZE, CONCATENATION, MEAN."""
    m = Chain(2)
    x = m.input((1, 6, 5, 12))
    y = m.input((1, 1, 5, 1), scale=0.03)
    a = m.conv(x, 12, k=(1, 1))                                            # pointwise
    a = m.depthwise(a, k=(3, 3), padding=0, act=0)                         # in place, widened by the pool
    g = m.logistic(a)
    p = m.binary("MUL", a, g, (1, 6, 5, 12))                               # same shapes
    p = m.binary("ADD", m.constant((1, 1, 1, 12)), p, (1, 6, 5, 12), act=1)  # per-channel constant first
    p = m.binary("MUL", p, y, (1, 6, 5, 12), act=3)                        # broadcast over rows and channels
    q = m.quantize(p, 1.7)
    _, q_scale, q_zp = m.info[q]
    parts = [q, m.constant((1, 6, 5, 3), q_scale, q_zp), m.requantized_like(x, q)]
    c = m.concatenation(parts, axis=3)                                     # [1, 6, 5, 27]
    rows = m.mean(c, [-1], keep_dims=False)                                # reduce the innermost dimension
    pooled = m.mean(c, [1, 2], keep_dims=True, scale_factor=0.8)           # global average pool, streamed
    return m.build(pooled, rows)


def activation_model() -> bytes:
    """The table-lookup functions (ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH, TANH), SUB with a
    broadcast operand, MAXIMUM/MINIMUM with constants, PRELU with a per-channel alpha,
    L2_NORMALIZATION; LOG_SOFTMAX on a branch: a chain in
    which every step's input dies with it, so each one streams."""
    m = Chain(5)
    x = m.input((1, 5, 6, 10))
    y = m.input((1, 1, 6, 1), scale=0.04)
    shape = (1, 5, 6, 10)
    h = m.unary("RELU", m.unary("HARD_SWISH", m.conv(x, 10, k=(1, 1))))
    leaky = m.unary("LEAKY_RELU", m.conv(x, 10, k=(1, 1)), alpha=0.2)
    d = m.binary("SUB", h, leaky, shape, act=1)                            # same shapes
    d = m.binary("SUB", d, y, shape)                                       # broadcast over rows and channels
    _, d_scale, d_zp = m.info[d]
    d = m.compare("MAXIMUM", d, m.constant((10,), d_scale, d_zp), shape)   # per-channel constant floor
    e = m.unary("TANH", m.unary("RELU6", m.unary("ABS", d)))
    e = m.compare("MINIMUM", m.constant((1, 1, 6, 1), 1 / 128, 0), e, shape)  # constant first
    p = m.prelu(e, m.constant((10,)))
    return m.build(m.l2_normalization(p), m.log_softmax(m.conv(x, 6, k=(1, 1))))


def slice_model() -> bytes:
    """STRIDED_SLICE (negative strides, a shrunk axis), SPLIT and SPLIT_V parts rejoined by
    ADD and CONCATENATION, RESIZE_BILINEAR (half-pixel, align-corners), GATHER of channels,
    PADV2, REDUCE_MAX and TRANSPOSE_CONV (SAME stride 2, VALID stride (1, 2))."""
    m = Chain(6)
    x = m.resize(m.input((1, 4, 5, 8)), (6, 7), half_pixel_centers=True, kind="RESIZE_BILINEAR")
    a, b = m.split(m.conv(x, 8, k=(1, 1)), 3, (4, 4))                      # channel halves
    s = m.binary("ADD", a, b, (1, 6, 7, 4))
    parts = m.split(s, 2, (2, 4, 1), equal=False)                         # uneven columns
    r = m.concatenation([parts[2], parts[0], parts[1]], axis=2)           # columns rotated
    r = m.strided_slice(r, (0, 5, 6, 0), (1, 0, 0, 4), (1, -2, -3, 1))   # [1, 3, 2, 4], reversed
    row = m.strided_slice(r, (0, 1, 0, 0), (1, 2, 2, 4), (1, 1, 1, 1), shrink_axis_mask=2)  # [1, 2, 4]
    r = m.resize(r, (5, 3), align_corners=True, kind="RESIZE_BILINEAR")
    r = m.gather(r, [3, 0, 0, 2, 1], axis=3)                              # channels shuffled, one twice
    r = m.pad(r, [(0, 0), (1, 0), (0, 2), (0, 0)], value=-77)             # [1, 6, 5, 5]
    peaks = m.mean(r, [1, -1], keep_dims=True, kind="REDUCE_MAX")         # [1, 1, 5, 1]
    up = m.transpose_conv(m.transpose_conv(r, 3, (3, 3), (2, 2)), 2, (2, 3), (1, 2), same=False)
    return m.build(r, row, peaks, up)


def shape_model() -> bytes:
    """PAD, TRANSPOSE, RESIZE_NEAREST_NEIGHBOR, batch 3, then depthwise and pooling on the result."""
    m = Chain(3)
    x = m.input((2, 3, 4, 5))
    x = m.pad(x, [(1, 0), (0, 1), (2, 1), (0, 2)])                         # [3, 4, 7, 7]
    x = m.transpose(x, (0, 2, 3, 1))                                        # [3, 7, 7, 4]
    x = m.resize(x, (10, 5), half_pixel_centers=True)                       # [3, 10, 5, 4]
    x = m.depthwise(x, k=(3, 3), stride=(2, 1), padding=0, act=0)           # [3, 5, 5, 4]
    x = m.resize(x, (7, 9), align_corners=True)
    x = m.pool("AVERAGE_POOL_2D", x, (3, 2), (2, 2), padding=0)
    x = m.conv(x, 7, k=(1, 3), padding=0)                                  # gathered window, odd channels
    return m.build(x)


def high_rank_model() -> bytes:
    """6-D broadcasting ADD (nothing to merge), 5-D MUL with a constant, 5-D PAD and TRANSPOSE,
    MEAN over non-adjacent axes, CONCATENATION on an inner axis with a constant operand."""
    m = Chain(4)
    a = m.input((2, 1, 3, 1, 2, 4))
    b = m.input((1, 3, 1, 2, 1, 4))
    s = m.binary("ADD", a, b, (2, 3, 3, 2, 2, 4))
    s = m.reshape(s, (6, 3, 2, 2, 4))
    s = m.binary("MUL", s, m.constant((3, 1, 2, 1)), (6, 3, 2, 2, 4), act=1)
    s = m.pad(s, [(0, 1), (1, 0), (0, 0), (2, 1), (0, 1)])                  # [7, 4, 2, 5, 5]
    s = m.transpose(s, (3, 0, 4, 2, 1))                                     # [5, 7, 5, 2, 4]
    s = m.reshape(s, (5, 7, 10, 4))
    r = m.mean(s, [0, 2], keep_dims=False, scale_factor=1.3)                # [7, 4]
    _, r_scale, r_zp = m.info[r]
    c = m.concatenation([r, m.constant((7, 3), r_scale, r_zp), r], axis=1)  # [7, 11], r twice
    return m.build(c)


def stack_model() -> bytes:
    """UNPACK of a middle and a negative axis, PACK of its parts reordered (one of them taken
    twice, one a constant) along a new innermost and a new outer axis, as an unrolled recurrent
    layer cuts its sequence into steps and stacks their outputs."""
    m = Chain(7)
    x = m.input((2, 3, 8))
    steps = m.unpack(x, 1)                                                 # 3 x [2, 8], rows 8 bytes apart
    h = [m.unary("TANH", s) for s in steps]
    p = m.pack([h[2], h[0], h[1], h[0]], -1)                               # [2, 8, 4]
    _, p_scale, p_zp = m.info[p]
    columns = m.unpack(p, -2)                                              # 8 x [2, 4]
    q = m.pack([columns[7], m.constant((2, 4), p_scale, p_zp), columns[3]], 0)  # [3, 2, 4]
    return m.build(q, m.pack([m.unary("ABS", c) for c in columns[:5]], 1))     # [2, 5, 4]


def int16_rows_model() -> bytes:
    """int16 rows padded around a [1, 4, 3, 18] input by a PADV2 of a value of two unequal bytes (PAD_S16's
    kernel), a PAD (folded into the VALID MAX_POOL_2D after it), a SAME AVERAGE_POOL_2D (its 18 channels
    a block of 16 and one of 2), then a MEAN over H and W."""
    b = ModelBuilder()
    q = dict(scale=1e-3, zero_point=0)
    c = 18
    x = b.tensor((1, 4, 3, c), "int16", **q)
    first, second = b.tensor((1, 6, 4, c), "int16", **q), b.tensor((1, 7, 6, c), "int16", **q)
    b.op("PADV2", [x, b.const(np.array([[0, 0], [2, 0], [0, 1], [0, 0]], np.int32)),
                   b.const(np.array([300], np.int16), **q)], [first])
    b.op("PAD", [first, b.const(np.array([[0, 0], [0, 1], [1, 1], [0, 0]], np.int32))], [second])
    pooled, averaged = b.tensor((1, 3, 3, c), "int16", **q), b.tensor((1, 3, 3, c), "int16", **q)
    b.op("MAX_POOL_2D", [second], [pooled], padding=1, stride_h=2, stride_w=2, filter_height=3, filter_width=2)
    b.op("AVERAGE_POOL_2D", [pooled], [averaged], padding=0, stride_h=1, stride_w=1, filter_height=3, filter_width=3)
    mean = b.tensor((1, c), "int16", **q)
    b.op("MEAN", [averaged, b.const(np.array([1, 2], np.int32))], [mean], keep_dims=False)
    b.inputs, b.outputs = [x], [mean]
    return b.build()
