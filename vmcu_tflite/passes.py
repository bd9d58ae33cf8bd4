"""Graph rewrites that leave only real int8 work for the planner.

- Graph-boundary QUANTIZE (float -> int8) and DEQUANTIZE (int8 -> float) become part of the I/O
  description: the application's float values are converted outside the pool. So do uint8 <->
  int8 QUANTIZEs that only move the zero point by 128 (STM32 model zoo exports): the top bit. A
  uint8 <-> int8 QUANTIZE that rescales stays an int8 requantization, its uint8 end kept in the
  pool as int8 (the top bit flipped, the zero point 128 lower).
- RESHAPE, SQUEEZE and PADs that add nothing only rename bytes: their output becomes an alias of
  their input, with no step and no copy.
- A PAD whose only consumer is a convolution is folded into it as extra implicit padding; the
  pad value is the zero point, which is exactly what the convolution's implicit padding means.
  So is a PAD before a VALID pool (a ResNet stem's conv -> PAD -> MAX_POOL_2D): the pool then reads
  the pad value at the taps outside its input and counts them, as it would read the PAD's output.
- A RESIZE_NEAREST_NEIGHBOR by whole factors whose only reader is a CONV_2D is folded into it
  (`fold_upsamples`): the convolution reads input pixel (y // f_h, x // f_w) for its window's tap (y, x)
  of the upsampled tensor, which never exists.
- EXPAND_DIMS is a RESHAPE that adds a dimension of 1 (a Conv1D's export around its CONV_2D): an alias.
- A SPLIT, SPLIT_V or UNPACK becomes one op per output (each a slice of the input, with the part's
  first index along the axis as the option `split_begin`): a step writes one tensor. The parts keep
  the original op's index, so messages and reports name the model's operator.
- A SignalFilterBankSpectralSubtraction's noise estimate output (its state) is copied out by a
  NOISE_ESTIMATE step after it.
- A graph output that folding made a constant (a detector's anchors) becomes a pool tensor that a
  CONSTANT op writes from flash, before its first reader or at the end.
- TFLite_Detection_PostProcess takes in the DEQUANTIZEs of its int8 box encodings and class
  predictions (read by nothing else) and becomes one op per output (the option `output_part`).

Each pass returns a new `Graph`; the original is never modified.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np

from .graph import Graph, IOPort, Op
from .ops.constant import KIND as CONSTANT, check_writable, constant_op
from .ops.detection_postprocess import KIND as POSTPROCESS
from .ops.resize_nearest_neighbor import nearest_neighbor_indices

_PAD_CONSUMERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "MAX_POOL_2D", "AVERAGE_POOL_2D")
_POOLS = ("MAX_POOL_2D", "AVERAGE_POOL_2D")
VALID = 1  # TFLite's Padding enum


def simplify(graph: Graph) -> Graph:
    """All passes, in the order that lets each see the previous one's result."""
    graph = fuse_postprocess(write_constant_outputs(strip_boundary_quantization(graph)))
    return one_output_per_step(one_output_per_split(fold_upsamples(fold_pads(alias_reshapes(graph)))))


def fuse_postprocess(graph: Graph) -> Graph:
    """A detection post-processing op reads its int8 heads through the DEQUANTIZEs before it (the
    positions taken in are the option `dequantized`; the op's Prepare refuses other float inputs)
    and is split into one op per output, each with the option `output_part`."""
    if not any(op.kind == POSTPROCESS for op in graph.ops):
        return graph
    outputs = {p.tensor for p in graph.outputs}
    dropped: set[int] = set()
    ops = []
    for op in graph.ops:
        if op.kind != POSTPROCESS or len(op.outputs) != 4:
            ops.append(op)
            continue
        inputs, taken, folded = list(op.inputs), [], list(op.folded)
        for position in (0, 1):
            t = inputs[position] if position < len(inputs) else -1
            producer = graph.producer(t) if t >= 0 else None
            if (producer is not None and producer.kind == "DEQUANTIZE" and t not in outputs
                    and len(graph.consumers(t)) == 1 and graph.tensors[producer.inputs[0]].dtype == "int8"
                    and graph.tensors[t].dtype == "float32" and _same_shape(graph, producer)):
                inputs[position] = producer.inputs[0]
                taken.append(position)
                folded.append(producer.index)
                dropped.add(producer.index)
        fused = replace(op, inputs=tuple(inputs), folded=tuple(folded),
                        options=op.options.with_values(dequantized=tuple(taken)))
        ops += [replace(fused, outputs=(out,), options=fused.options.with_values(output_part=part))
                for part, out in enumerate(op.outputs)]
    return replace(graph, ops=tuple(op for op in ops if op.index not in dropped))


def one_output_per_step(graph: Graph) -> Graph:
    """A SignalFilterBankSpectralSubtraction writes its output; its noise estimate output, kept as the
    op's state, is copied out by a step of its own (`split_outputs`)."""
    from .ops import signal_filter_bank_spectral_subtraction as spectral

    ops = []
    for op in graph.ops:
        ops += spectral.split_outputs(graph, op) if op.kind == spectral.KIND and len(op.outputs) == 2 else [op]
    return replace(graph, ops=tuple(ops))


def strip_boundary_quantization(graph: Graph) -> Graph:
    """Turn the boundary's QUANTIZE/DEQUANTIZE ops into float32 or uint8 `IOPort`s."""
    graph = _rescaling_uint8_as_int8(graph)
    removed: set[int] = set()
    inputs, outputs = [], []
    for port in graph.inputs:
        consumers = graph.consumers(port.tensor)
        if len(consumers) == 1 and _boundary(graph, consumers[0], port.dtype, "QUANTIZE"):
            removed.add(consumers[0].index)
            port = IOPort(consumers[0].outputs[0], port.dtype, port.shape)
        inputs.append(port)
    for port in graph.outputs:
        producer = graph.producer(port.tensor)
        kind = "DEQUANTIZE" if port.dtype == "float32" else "QUANTIZE"
        if producer is not None and _boundary(graph, producer, port.dtype, kind):
            removed.add(producer.index)
            port = IOPort(producer.inputs[0], port.dtype, port.shape)
        outputs.append(port)
    ops = tuple(op for op in graph.ops if op.index not in removed)
    return replace(graph, ops=ops, inputs=tuple(inputs), outputs=tuple(outputs))


def write_constant_outputs(graph: Graph) -> Graph:
    """Each constant graph output made a pool tensor, written by a CONSTANT op placed before the
    first op that reads it (that op then reads it from the pool), else after every op, where it
    holds pool bytes the shortest time."""
    tensors, ops = dict(graph.tensors), list(graph.ops)
    for index, port in enumerate(graph.outputs):
        t = graph.tensors[port.tensor]
        if not t.is_constant or any(op.kind == CONSTANT and op.outputs == (t.index,) for op in ops):
            continue
        check_writable(t, index)
        readers = [position for position, op in enumerate(ops) if t.index in op.inputs]
        ops.insert(readers[0] if readers else len(ops), constant_op(t))
        tensors[t.index] = replace(t, data=None)
    if len(ops) == len(graph.ops):
        return graph
    return replace(graph, ops=tuple(ops), tensors=MappingProxyType(tensors))


def _rescaling_uint8_as_int8(graph: Graph) -> Graph:
    """A uint8 graph input read only by a QUANTIZE to int8 that rescales (or a uint8 graph output a
    QUANTIZE from int8 makes that way) is kept in the pool as int8, u ^ 0x80 = u - 128, with its
    zero point 128 lower at the same scale: the application converts it as at any uint8 boundary,
    and the QUANTIZE becomes an int8 -> int8 requantization. TFLite's Requantize computes
    MultiplyByQuantizedMultiplier(input - input_zero_point) + output_zero_point, clamped to the
    output type, and both input - zero point and the output's distance from its zero point are
    the same either way: bit-exact."""
    quantizes = [(p, c[0], c[0].outputs[0]) for p in graph.inputs if len(c := graph.consumers(p.tensor)) == 1]
    quantizes += [(p, op, op.inputs[0]) for p in graph.outputs if (op := graph.producer(p.tensor)) is not None]
    tensors = dict(graph.tensors)
    for port, op, other in quantizes:
        t = tensors[port.tensor]
        if (op.kind == "QUANTIZE" and port.dtype == t.dtype == "uint8" and graph.tensors[other].dtype == "int8"
                and t.quant is not None and not t.quant.per_channel and _same_shape(graph, op)
                and not _boundary(graph, op, "uint8", "QUANTIZE")):
            tensors[port.tensor] = replace(t, dtype="int8", quant=replace(t.quant, zero_point=(t.zero_point - 128,)))
    changed = any(tensors[t] is not graph.tensors[t] for t in tensors)
    return replace(graph, tensors=MappingProxyType(tensors)) if changed else graph


def _boundary(graph: Graph, op: Op, dtype: str, kind: str) -> bool:
    """`op` converts between the application's `dtype` and the int8 pool the way the I/O
    description can: float32 <-> int8 (QUANTIZE/DEQUANTIZE), or uint8 <-> int8 at one scale with
    zero points 128 apart (TFLite flips the top bit; another rescale stays an op). A float32
    boundary's integer side needs its scale (the op stays, and its Prepare refuses it, otherwise)."""
    if op.kind != kind or not _same_shape(graph, op) or dtype not in ("float32", "uint8"):
        return False
    if dtype == "float32":
        integer = graph.tensors[op.outputs[0] if kind == "QUANTIZE" else op.inputs[0]]
        return integer.quant is not None and not integer.quant.per_channel
    a, b = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    uint8, int8 = (a, b) if a.dtype == "uint8" else (b, a)
    return (uint8.dtype == "uint8" and int8.dtype == "int8" and uint8.quant is not None and int8.quant is not None
            and not uint8.quant.per_channel and not int8.quant.per_channel and uint8.scale == int8.scale
            and uint8.zero_point - int8.zero_point == 128)


def _same_shape(graph: Graph, op: Op) -> bool:
    """The op's input and output have one shape (else it stays an op, and its Prepare refuses it)."""
    return graph.tensors[op.inputs[0]].shape == graph.tensors[op.outputs[0]].shape


def _is_empty_pad(graph: Graph, op: Op) -> bool:
    if op.kind != "PAD":
        return False
    paddings = graph.tensors[op.inputs[1]]
    return paddings.is_constant and not paddings.data.any() and _same_shape(graph, op)


def alias_reshapes(graph: Graph) -> Graph:
    """RESHAPE, SQUEEZE, EXPAND_DIMS and all-zero PADs share their input's bytes."""
    aliases = dict(graph.aliases)
    ops = []
    for op in graph.ops:
        # TFLite Micro copies these bytes unchanged, even when the output declares other
        # quantization parameters (MCUNet's final RESHAPE does), so sharing them is exact.
        if op.kind in ("RESHAPE", "SQUEEZE", "EXPAND_DIMS") or _is_empty_pad(graph, op):
            aliases[op.outputs[0]] = op.inputs[0]
        else:
            ops.append(op)
    return replace(graph, ops=tuple(ops), aliases=MappingProxyType(aliases))


def _same_quantization(graph: Graph, a: int, b: int) -> bool:
    qa, qb = graph.tensors[a].quant, graph.tensors[b].quant
    return qa == qb and graph.tensors[a].dtype == graph.tensors[b].dtype


def fold_pads(graph: Graph) -> Graph:
    """Fold a spatial PAD into the one convolution or VALID pool that reads it."""
    outputs = {p.tensor for p in graph.outputs}
    folded: dict[int, Op] = {}  # consumer op index -> rewritten op
    dropped: set[int] = set()
    for pad in graph.ops:
        if pad.kind != "PAD" or pad.outputs[0] in outputs:
            continue
        consumers = graph.consumers(pad.outputs[0])
        paddings = graph.tensors[pad.inputs[1]]
        if len(consumers) != 1 or consumers[0].kind not in _PAD_CONSUMERS or not paddings.is_constant:
            continue
        if paddings.data.size != 8 or paddings.dtype != "int32":
            continue  # not a 4-D PAD this pass folds; its Prepare judges it
        conv = consumers[0]
        amounts = paddings.data.reshape(-1, 2)
        spatial_only = len(amounts) == 4 and not amounts[0].any() and not amounts[3].any()
        padded = tuple(int(d + a.sum()) for d, a in zip(graph.tensors[pad.inputs[0]].shape, amounts))
        if padded != graph.tensors[pad.outputs[0]].shape or (amounts < 0).any():
            continue  # not what the PAD's output declares: its Prepare refuses it
        if not spatial_only or conv.inputs[0] != pad.outputs[0] or conv.index in folded:
            continue
        if conv.kind in _POOLS and conv.options.padding != VALID:
            continue  # a SAME pool's own padding is skipped, not read: the two would mix
        if not _same_quantization(graph, pad.inputs[0], pad.outputs[0]):
            continue
        padding = (tuple(int(v) for v in amounts[1]), tuple(int(v) for v in amounts[2]))
        folded[conv.index] = replace(conv, inputs=(pad.inputs[0],) + conv.inputs[1:],
                                     options=conv.options.with_values(folded_padding=padding),
                                     folded=conv.folded + (pad.index,))
        dropped.add(pad.index)
    ops = tuple(folded.get(op.index, op) for op in graph.ops if op.index not in dropped)
    return replace(graph, ops=ops)


def upsample_factors(graph: Graph, resize: Op) -> tuple[int, int] | None:
    """(f_h, f_w) when `resize` is a RESIZE_NEAREST_NEIGHBOR whose output pixel (y, x) is exactly its
    input pixel (y // f_h, x // f_w), by TFLite's own coordinate rule (`nearest_neighbor_indices`, in
    float32: align_corners and half_pixel_centers as its options say); else None. A factor of 1 on
    one axis is allowed (an upsample of the rows or the columns only)."""
    if resize.kind != "RESIZE_NEAREST_NEIGHBOR" or len(resize.inputs) != 2 or len(resize.outputs) != 1:
        return None
    source, size = (graph.tensors.get(t) for t in resize.inputs)
    out = graph.tensors.get(resize.outputs[0])
    if source is None or size is None or out is None or not size.is_constant or len(source.shape) != 4 \
            or len(out.shape) != 4 or size.dtype != "int32" or size.data.size != 2:
        return None
    if out.shape[0] != source.shape[0] or out.shape[3] != source.shape[3] or tuple(size.data) != out.shape[1:3]:
        return None  # its Prepare refuses it
    factors = []
    for axis in (1, 2):
        small, large = source.shape[axis], out.shape[axis]
        if small < 1 or large % small:
            return None
        f = large // small
        table = nearest_neighbor_indices(small, large, bool(resize.options.align_corners),
                                         bool(resize.options.half_pixel_centers))
        if not np.array_equal(table, np.arange(large) // f):
            return None
        factors.append(f)
    return factors[0], factors[1]


def fold_upsamples(graph: Graph) -> Graph:
    """Fold a nearest-neighbour upsample by whole factors into the one CONV_2D that reads it.

    An upsample by whole factors is only an addressing: the convolution's window tap (y, x) of the
    upsampled tensor is input pixel (y // f_h, x // f_w), so the convolution reads the small tensor
    (the option `folded_upsample`: (f_h, f_w); its params keep the upsampled input shape for the
    window's geometry, `kernels/conv.py` maps each tap to its source pixel) and the upsampled copy,
    f_h * f_w times the input's bytes, is never held in the pool. It is folded only where nothing
    else reads the upsampled tensor (a graph output, or a second reader, keeps the RESIZE a step) and
    where both tensors are quantized alike (the RESIZE copies values). The convolution gathers its
    window tap by tap (int8 or int16 alike); it is never a GEMM over pixels nor a chain's layer (a
    chain's rings hold its input's rows as they are)."""
    outputs = {p.tensor for p in graph.outputs}
    folded: dict[int, Op] = {}
    dropped: set[int] = set()
    for resize in graph.ops:
        factors = upsample_factors(graph, resize)
        if factors is None or factors == (1, 1) or resize.outputs[0] in outputs:
            continue
        consumers = graph.consumers(resize.outputs[0])
        if len(consumers) != 1 or consumers[0].kind != "CONV_2D" or consumers[0].index in folded:
            continue
        conv = consumers[0]
        if conv.inputs[0] != resize.outputs[0] or resize.outputs[0] in conv.inputs[1:]:
            continue
        if graph.tensors[resize.inputs[0]].dtype not in ("int8", "int16") or not _same_quantization(
                graph, resize.inputs[0], resize.outputs[0]):
            continue
        folded[conv.index] = replace(conv, inputs=(resize.inputs[0],) + conv.inputs[1:],
                                     options=conv.options.with_values(folded_upsample=factors),
                                     folded=conv.folded + (resize.index,))
        dropped.add(resize.index)
    if not folded:
        return graph
    return replace(graph, ops=tuple(folded.get(op.index, op) for op in graph.ops if op.index not in dropped))


_SPLIT_INPUTS = {"SPLIT": (0, 1), "SPLIT_V": (2, 0)}  # (axis, data) input positions


def one_output_per_split(graph: Graph) -> Graph:
    """Each SPLIT / SPLIT_V / UNPACK output as its own op; the parts follow each other along the
    axis (an UNPACK's one index each, their count as the option `unpack_outputs`). A
    SignalFftAutoScale's two outputs (the shifted samples, the shift) too, each part reading the input.

    A split whose axis is not a valid constant stays whole: its Prepare says why."""
    ops = []
    for op in graph.ops:
        if op.kind == "SignalFftAutoScale" and len(op.outputs) == 2 and min(op.outputs) >= 0:
            out = [graph.tensors[t] for t in op.outputs]
            facts = dict(fft_auto_scale_size=out[0].shape[0] if out[0].shape else 1,
                         fft_auto_scale_ranks=(len(out[0].shape), len(out[1].shape)))
            ops += [replace(op, outputs=(t,), options=op.options.with_values(fft_auto_scale_part=i, **facts))
                    for i, t in enumerate(op.outputs)]
            continue
        if op.kind == "UNPACK":
            ops += [replace(op, outputs=(out,), options=op.options.with_values(split_begin=i,
                                                                               unpack_outputs=len(op.outputs)))
                    for i, out in enumerate(op.outputs)]
            continue
        axis = _split_axis(graph, op) if op.kind in _SPLIT_INPUTS else None
        if axis is None:
            ops.append(op)
            continue
        begin = 0
        for out in op.outputs:
            ops.append(replace(op, outputs=(out,), options=op.options.with_values(split_begin=begin)))
            shape = graph.tensors[out].shape
            begin += shape[axis] if axis < len(shape) else 0
    return replace(graph, ops=tuple(ops))


def _split_axis(graph: Graph, op: Op) -> int | None:
    axis_position, data_position = _SPLIT_INPUTS[op.kind]
    if max(axis_position, data_position) >= len(op.inputs) or min(op.inputs) < 0:
        return None
    t = graph.tensors[op.inputs[axis_position]]
    if not t.is_constant or t.dtype != "int32" or t.data.size != 1:
        return None  # its Prepare refuses it
    rank = len(graph.tensors[op.inputs[data_position]].shape)
    axis = int(t.data.reshape(-1)[0])
    return axis % rank if rank and -rank <= axis < rank else None
