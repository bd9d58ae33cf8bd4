"""SVDF, int8 (keyword spotting's rank-decomposed time filter: TFLite Micro's keyword model).

Each run shifts the int16 activation state one time step left, writes the feature projection of
the new input (int8 x int8, requantized to the state's int16 scale) into its newest column, then
filters each memory row with its int16 time weights and sums `rank` filters per unit, adds the
bias and requantizes to int8. The state is a variable tensor kept between runs (`state.py`).

As TFLite Micro's integer kernel: no fused activation is applied (the output is only clamped to
int8), the effective scales are computed from float32 products, and the state is assumed
symmetric (its zero point is not used).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.svdf import emit
from ..graph import Graph, Op
from .common import constant, output, output_multiplier, require, tensor
from .spec import OpSpec

KIND = "SVDF"
INPUT, WEIGHTS_FEATURE, WEIGHTS_TIME, BIAS, STATE = range(5)


@dataclass(frozen=True, eq=False)
class SvdfParams:
    batch: int
    input_size: int
    filters: int
    units: int
    rank: int
    memory: int
    weights_feature: np.ndarray  # [filters, input_size] int8
    weights_time: np.ndarray  # [filters, memory] int16
    bias: np.ndarray  # [units] int32
    state: int  # the activation state's tensor: [batch, filters * memory] int16
    input_zero_point: int
    output_zero_point: int
    feature_multiplier: int  # input x feature weights -> state scale
    feature_shift: int
    output_multiplier: int  # state x time weights -> output scale
    output_shift: int


def _scale(t) -> np.float32:
    """The tensor's scale as TFLite Micro holds it (TfLiteQuantizationParams.scale is a float)."""
    return np.float32(t.scale)


def prepare(graph: Graph, op: Op) -> SvdfParams:
    x, feature, time, bias, state = (tensor(graph, op, i) for i in range(5))
    out = output(graph, op)
    require(x.dtype == "int8" and out.dtype == "int8", op, "only the int8 SVDF is supported")
    require(feature is not None and feature.dtype == "int8" and time is not None and time.dtype == "int16", op,
            "the integer SVDF needs int8 feature weights and int16 time weights")
    require(state is not None and state.is_variable and state.dtype == "int16", op,
            "the activation state must be an int16 variable tensor")
    # TFLite Micro reads the bias scale even without a bias: a model without one does not run there
    require(bias is not None and bias.dtype == "int32", op, "the integer SVDF needs an int32 bias")
    for name, t in (("input", x), ("feature weights", feature), ("time weights", time), ("bias", bias),
                    ("state", state), ("output", out)):
        require(t.quant is not None and not t.quant.per_channel, op, f"the {name} must be quantized per tensor")
    # the converter makes int16 state symmetric; TFLite Micro's kernels disagree on any other zero point
    require(state.zero_point == 0, op, f"the state's zero point is {state.zero_point}; only a symmetric (0) "
                                       "int16 state is supported")
    require(len(x.shape) == 2 and len(feature.shape) == 2 and len(time.shape) == 2, op,
            "input, feature and time weights must be 2-D")
    batch, input_size = x.shape
    filters, memory = time.shape
    rank = int(op.options.rank)
    require(rank > 0 and filters % rank == 0, op, f"rank {rank} does not divide the {filters} filters")
    units = filters // rank
    require(feature.shape == (filters, input_size), op, f"feature weights {feature.shape} are not "
                                                         f"[{filters}, {input_size}]")
    require(bias.shape == (units,), op, f"bias {bias.shape} is not [{units}]")
    require(state.shape == (batch, filters * memory), op, f"state {state.shape} is not [{batch}, {filters * memory}]")
    require(out.shape == (batch, units), op, f"output {out.shape} is not [{batch}, {units}]")
    # float32 products, then double: what TFLite Micro's Prepare computes from the tensors' float scales
    scale_1 = float(_scale(x) * _scale(feature) / _scale(state))
    scale_2 = float(_scale(state) * _scale(time) / _scale(out))
    require(abs(float(_scale(bias)) - float(_scale(state) * _scale(time))) < 1e-5, op,
            "the bias scale is not state scale x time weights scale")
    feature = output_multiplier(op, scale_1)
    rescale = output_multiplier(op, scale_2)
    return SvdfParams(batch=batch, input_size=input_size, filters=filters, units=units, rank=rank, memory=memory,
                      weights_feature=constant(graph, op, WEIGHTS_FEATURE, "the feature weights"),
                      weights_time=constant(graph, op, WEIGHTS_TIME, "the time weights"),
                      bias=constant(graph, op, BIAS, "the bias"), state=op.inputs[STATE],
                      input_zero_point=x.zero_point, output_zero_point=out.zero_point,
                      feature_multiplier=feature[0], feature_shift=feature[1],
                      output_multiplier=rescale[0], output_shift=rescale[1])


def macs(p: SvdfParams) -> int:
    return p.batch * p.filters * (p.input_size + p.memory)


SPEC = OpSpec(KIND, kind_id=37, emit=emit, prepare=prepare, c_kernel="vmcu_svdf_s8", macs=macs,
              arity=((5, 5), 1, frozenset()), options="SVDFOptions", state_inputs=frozenset({STATE}),
              scratch=lambda p: p.input_size)  # one input row, copied out of the pool
