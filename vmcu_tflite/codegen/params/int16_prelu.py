"""vmcu_prelu_s16_params from Int16PreluParams: the output walk (`add.broadcast_strides`: the input's
strides are all 1 then, alpha's 0 where it broadcasts), the int8 alpha constant, offsets and rescales."""
from __future__ import annotations

import numpy as np

from ..cwriter import c_number
from .add import broadcast_strides
from .common import int_array, struct


def emit(step, graph, writer, name):
    p = step.params
    walk, (_, alpha_strides) = broadcast_strides(p.output_shape, [p.output_shape, np.shape(p.alpha)])
    alpha = writer.array("int8_t", f"{name}_alpha", p.alpha)
    return "vmcu_prelu_s16_params", struct(
        rank=len(walk), dims=int_array(walk), alpha_strides=int_array(alpha_strides), alpha=alpha,
        alpha_size=int(np.size(p.alpha)), input_offset=p.input_offset, alpha_offset=p.alpha_offset,
        output_offset=p.output_offset, identity_multiplier=c_number(p.identity_multiplier),
        identity_shift=p.identity_shift, alpha_multiplier=c_number(p.alpha_multiplier), alpha_shift=p.alpha_shift)
