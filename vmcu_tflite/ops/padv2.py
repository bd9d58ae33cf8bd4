"""PADV2: PAD with an explicit pad value, a constant int8 scalar that TFLite Micro requires to
share the output's scale and zero point; its raw byte fills the border. In a 16x8 model the value is
an int16 scalar (two equal bytes: `pad.check_pad_value`)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..codegen.params.pad import emit
from ..graph import Graph, Op
from . import pad
from .common import constant, output, require, tensor
from .spec import OpSpec

KIND = "PADV2"


def prepare(graph: Graph, op: Op) -> pad.PadParams:
    params = pad.prepare(graph, op, inputs=3)
    value, out = tensor(graph, op, 2), output(graph, op)
    require(value is not None and value.dtype == out.dtype and value.num_elements == 1, op,
            f"the pad value must be one {out.dtype} value")
    require(value.quant is not None and not value.quant.per_channel and out.quant is not None
            and not out.quant.per_channel and value.zero_point == out.zero_point
            and np.float32(value.scale) == np.float32(out.scale), op,
            "the pad value must have the output's scale and zero point")
    return pad.check_pad_value(op, replace(params, pad_value=int(constant(graph, op, 2, "the pad value")
                                                           .reshape(-1)[0])))


SPEC = OpSpec(KIND, kind_id=31, emit=emit, prepare=prepare, c_kernel="vmcu_pad_s8", arity=((3, 3), 1, frozenset()),
              activation_types=frozenset({"int16"}))
