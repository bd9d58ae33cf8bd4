"""Operators whose outputs depend only on constants and static shapes, computed at conversion.

Keras exports with a dynamic batch compute a RESHAPE's target shape at run time: SHAPE of an
activation, STRIDED_SLICE of that vector, PACK with constants; others BROADCAST_TO or TILE a
constant operand of an elementwise op. With static shapes (TFLite Micro
runs at the stored batch) every value in such a chain is known when converting, so the chain
becomes a constant and never reaches the planner or the C: no kernel for SHAPE or PACK is needed.
A folded value must have the shape and type its tensor declares, else the model is refused.

Detectors (ST's SSD-MobileNet exports) compute an anchor output from constants alone: RESHAPE and
TILE of constant tables joined by an int8 CONCATENATION, dequantized to float32. That chain folds
too, whatever it feeds; an output that ends up constant is written into the pool by a step of its
own (`vmcu_tflite.ops.constant`), and a DEQUANTIZE into a float32 graph output stays the boundary
conversion the application does (`passes.strip_boundary_quantization`), with TFLite's formula.
Each folded tensor remembers the operators that computed it, for the reports.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping

import numpy as np

from .errors import ModelError
from .graph import Op, Tensor
from .model_rules import TENSOR_TYPES, check_arity, check_expand_dims

MAX_FOLDED_ELEMENTS = 1 << 16  # shape vectors and small tables (a detector's anchors), not tensors
_QUANTIZED_TYPES = ("int8", "uint8", "int16")
_COPIED_TYPES = ("int32", "int64", "float32") + _QUANTIZED_TYPES


def _shape(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray | None:
    shape = tensors[op.inputs[0]].shape
    if tensors[op.outputs[0]].dtype != "int32" or op.options.get("out_type", 0) not in TENSOR_TYPES:
        raise ModelError(f"operator SHAPE at index {op.index} must give int32 (TFLite Micro's SHAPE gives only "
                         f"int32, and reads its out_type option)")
    return None if any(d < 1 for d in shape) else np.array(shape, dtype=np.int64)


def _strided_slice(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray | None:
    """TFLite's STRIDED_SLICE on a constant, for begin/end masks, shrink_axis_mask and offset
    (ellipsis and new axis masks are left unfolded)."""
    data, begin, end, strides = values
    o = op.options
    if o.get("ellipsis_mask", 0) or o.get("new_axis_mask", 0) or begin.ndim != 1 or len(begin) != data.ndim:
        return None
    index, squeeze = [], []
    for axis in range(data.ndim):
        size, step = data.shape[axis], int(strides[axis])
        if step == 0:
            return None
        b, e = int(begin[axis]), int(end[axis])
        if o.get("offset", False):
            e = b + e
        if o.get("shrink_axis_mask", 0) >> axis & 1:
            b = b + size if b < 0 else b
            if not 0 <= b < size:
                return None
            index.append(b)
            squeeze.append(axis)
            continue
        if o.get("begin_mask", 0) >> axis & 1:
            b = 0 if step > 0 else size - 1
        if o.get("end_mask", 0) >> axis & 1:
            e = size if step > 0 else -size - 1
        index.append(slice(b, e, step))
    return data[tuple(index)]


def _pack(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray:
    if op.options.get("values_count", 0) != len(values):
        # TFLite Micro walks values_count inputs whatever the op has: it crashes
        raise ModelError(f"operator PACK at index {op.index} packs {op.options.get('values_count', 0)} values "
                         f"but has {len(values)} inputs")
    return np.stack(values, axis=op.options.get("axis", 0))


def _concatenation(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray | None:
    if op.options.get("fused_activation_function", 0):
        return None
    out = tensors[op.outputs[0]]
    if out.dtype not in _COPIED_TYPES:
        return None
    if out.dtype in _QUANTIZED_TYPES:
        # TFLite Micro copies int8 bytes: its Prepare wants each input quantized as the output
        other = next((t for t in op.inputs if tensors[t].quant != out.quant), None)
        if other is not None:
            raise ModelError(f"operator CONCATENATION at index {op.index} joins tensor {other}, quantized unlike "
                             f"its output; TFLite Micro does not requantize")
    return np.concatenate(values, axis=op.options.get("axis", 0))


def _dequantize(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray | None:
    """TFLite's Dequantize: float(double(scale) * (q - zero_point)), per tensor, to float32. The
    difference is an int32 one there and wraps: a constant's zero point may be any int32 (the
    reader keeps the low 32 bits of the schema's int64, as TFLite Micro's loader does), and with
    2**31 - 1 TFLite Micro dequantizes q = 127 to a large negative value, not a positive one."""
    source, out = tensors[op.inputs[0]], tensors[op.outputs[0]]
    if out.dtype != "float32" or source.dtype not in _QUANTIZED_TYPES or source.quant is None \
            or source.quant.per_channel:
        return None
    diff = (values[0].astype(np.int64) - source.zero_point).astype(np.int32)  # two's complement wrap
    return (np.float64(source.scale) * diff.astype(np.float64)).astype(np.float32)


def _gather(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray | None:
    params, indices = values
    axis = op.options.get("axis", 0)
    if op.options.get("batch_dims", 0) or not (-params.ndim <= axis < params.ndim):
        return None
    if (indices < 0).any() or (indices >= params.shape[axis]).any():
        return None
    return np.take(params, indices, axis=axis)


def _broadcast_to(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray:
    data, shape = values
    return np.broadcast_to(data, tuple(int(d) for d in shape))


def _tile(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray:
    data, multiples = values
    if np.asarray(multiples).size != np.ndim(data) or (np.asarray(multiples) < 0).any():
        raise ModelError(f"operator TILE at index {op.index} has multiples {list(multiples)} for a "
                         f"{np.ndim(data)}-D input")
    multiples = [int(m) for m in np.asarray(multiples).reshape(-1)]
    shape = tuple(d * m for d, m in zip(np.shape(data), multiples))
    out = tensors[op.outputs[0]]
    if shape != out.shape:  # refused before the tiles are made: a corrupt multiple may ask for gigabytes
        raise ModelError(f"operator TILE at index {op.index} computes shape {shape} from constants; its output "
                         f"tensor {out.index} '{out.name}' declares {out.shape}")
    return np.tile(data, multiples)


def _reshape(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray:
    return values[0].reshape(tensors[op.outputs[0]].shape)


def _expand_dims(op: Op, values: list, tensors: Mapping[int, Tensor]) -> np.ndarray:
    check_expand_dims(op, tensors)  # TFLite Micro's Prepare, which a folded op skips otherwise
    return _reshape(op, values, tensors)


# operator -> (the input positions that must be constant, None: every one; those whose elements it
# copies to its output, None: every one, which TFLite copies as the output's type, so theirs must be
# the same; the folding)
FOLDABLE: dict[str, tuple[tuple[int, ...] | None, tuple[int, ...] | None, Callable]] = {
    "SHAPE": ((), (), _shape),  # only the input's static shape
    "STRIDED_SLICE": ((0, 1, 2, 3), (0,), _strided_slice),
    "PACK": (None, None, _pack),
    "CONCATENATION": (None, None, _concatenation),
    "GATHER": ((0, 1), (0,), _gather),
    "BROADCAST_TO": ((0, 1), (0,), _broadcast_to),
    "TILE": ((0, 1), (0,), _tile),
    "RESHAPE": ((0,), (0,), _reshape),
    "SQUEEZE": ((0,), (0,), _reshape),
    "EXPAND_DIMS": ((0,), (0,), _expand_dims),
    "DEQUANTIZE": ((0,), (), _dequantize),
}


def fold_constants(ops: tuple[Op, ...], tensors: Mapping[int, Tensor],
                   outputs: tuple[int, ...]) -> tuple[tuple[Op, ...], dict[int, Tensor]]:
    """`ops` without the foldable operators whose inputs are known, `tensors` with their outputs
    as constants (`folded_from`: the operators that computed each). A DEQUANTIZE into a graph
    output is kept: it is the model's float boundary, converted by the application."""
    tensors = dict(tensors)
    kept = []
    for op in ops:
        boundary = op.kind == "DEQUANTIZE" and op.outputs[0] in outputs
        folded = _fold(op, tensors) if op.kind in FOLDABLE and len(op.outputs) == 1 and not boundary else None
        if folded is None:
            kept.append(op)
            continue
        out = tensors[op.outputs[0]]
        value = np.asarray(folded)
        if value.shape != out.shape or value.size > MAX_FOLDED_ELEMENTS:
            raise ModelError(f"operator {op.kind} at index {op.index} computes shape {value.shape} from constants; "
                             f"its output tensor {out.index} '{out.name}' declares {out.shape}")
        data = value.astype(out.dtype)
        data.flags.writeable = False
        sources = {i for t in op.inputs if t >= 0 for i in tensors[t].folded_from}
        tensors[out.index] = replace(out, data=data, folded_from=tuple(sorted(sources | {op.index})))
    return tuple(kept), tensors


def _fold(op: Op, tensors: Mapping[int, Tensor]) -> np.ndarray | None:
    """The op's output value when its inputs allow, else None (it stays an operator)."""
    needed, copied, compute = FOLDABLE[op.kind]
    if any(t < 0 or t not in tensors for t in op.inputs) or not op.inputs:
        return None
    check_arity(op)  # TFLite Micro would run this op: its counts must be TFLite's
    positions = range(len(op.inputs)) if needed is None else needed
    if any(position >= len(op.inputs) or not tensors[op.inputs[position]].is_constant for position in positions):
        return None
    out = tensors[op.outputs[0]]
    if out.dtype not in ("int32", "int64") and op.kind in ("STRIDED_SLICE", "PACK"):
        return None  # shape arithmetic only
    copied = range(len(op.inputs)) if copied is None else copied
    other = next((t for t in (op.inputs[k] for k in copied if k < len(op.inputs)) if tensors[t].dtype != out.dtype), None)
    if other is not None:
        raise ModelError(f"operator {op.kind} at index {op.index} copies tensor {other}'s {tensors[other].dtype.upper()} "
                         f"elements into its {out.dtype.upper()} output (TFLite needs the same type)")
    values = [tensors[t].data for t in op.inputs]
    try:
        return compute(op, values, tensors)
    except (ValueError, IndexError):
        return None
