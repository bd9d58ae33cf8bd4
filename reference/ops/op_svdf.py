"""SVDF reference kernel: TFLite's integer SVDF written from its formulas, over the whole batch.

state <- state shifted one step left, newest column = clamp16(MBQM(W_f (x - zp_in), scale 1));
out = clamp8(MBQM(bias + sum over each unit's rank filters of W_t . state row, scale 2) + zp_out).
Sums wrap in int32 as TFLite's do.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, wrap_int32
from .base import Kernel, exact_matmul


class Svdf(Kernel):
    kind = "SVDF"
    stateful = True

    def run(self, x: np.ndarray, *, state) -> np.ndarray:
        p = self.params
        memory = state[p.state].reshape(p.batch, p.filters, p.memory)
        memory[:, :, :-1] = memory[:, :, 1:].copy()  # the oldest step leaves (TFLite shifts the flat buffer by one)
        feature = exact_matmul(x.astype(np.int64) - p.input_zero_point, p.weights_feature.T.astype(np.int64))
        feature = multiply_by_quantized_multiplier(wrap_int32(feature), p.feature_multiplier, p.feature_shift)
        memory[:, :, -1] = np.clip(feature, -32768, 32767)
        filtered = wrap_int32((memory.astype(np.int64) * p.weights_time.astype(np.int64)).sum(axis=2))
        per_unit = filtered.reshape(p.batch, p.units, p.rank).sum(axis=2) + p.bias.astype(np.int64)
        scaled = multiply_by_quantized_multiplier(wrap_int32(per_unit), p.output_multiplier, p.output_shift)
        return np.clip(scaled + p.output_zero_point, -128, 127).astype(np.int8)
