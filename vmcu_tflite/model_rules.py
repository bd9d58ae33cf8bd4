"""The rules every model must pass before anything else looks at it (TFLite Micro's Prepare, up front).

The reader turns the flatbuffer into a `Graph`; `check_model` then refuses, with one line naming
the operator or tensor, whatever TFLite Micro would refuse or a later stage could not handle:

| rule | refused when |
|---|---|
| graph inputs and outputs | an index is not a tensor, is listed twice, or an output is never written |
| one writer | a tensor is written by two operators, or an operator writes a constant or a graph input |
| order | an operator reads a tensor no earlier operator wrote (out of order, a cycle, its own output) |
| arity | an operator has fewer or more inputs or outputs than TFLite defines (each op spec's `arity`), or omits (-1) a required one |
| shapes | an activation has a dimension below 1, or more than `MAX_TENSOR_BYTES` bytes; a RESHAPE, SQUEEZE or EXPAND_DIMS changes the type or the number of elements; an EXPAND_DIMS's axis is not one constant int32 in range or its output is not its input with a 1 there |
| quantization | an int8 or int16 activation has not exactly one scale, a scale is not finite (an activation's: not positive), a zero point is outside int8, a per-channel int8 tensor's scales do not match its dimension `quantized_dimension` |
| state | a variable tensor (kept between runs) is a graph input or output |
| LiteRT | in a model checked against LiteRT (`oracle.NOT_IN_TFLM`), what LiteRT's loader refuses and TFLite Micro does not: a tensor with unequal counts of scales and zero points (the reader checks the raw vectors: an empty one counts), a quantized one whose `quantized_dimension` is outside its shape (per-tensor too) or whose scales are not one per index along it (biases too), a RESHAPE whose constant target shape disagrees with its output's element count, holds a negative dimension other than one -1, or whose second input is omitted (-1; LiteRT reads it as the shape), a CONV_2D whose bias is omitted (-1); checked on the model's own operators, before folding takes any away |
| options | an operator TFLite Micro cannot run on zero defaults (its spec's `options_required`: convolutions, pools, SOFTMAX, LEAKY_RELU, TRANSPOSE_CONV) without its options table; a quantized bias type other than INT32; a stride, dilation, filter size or depth multiplier outside 1 to 32767 (TFLite keeps them, and paddings, in 16 bits), a padding other than SAME or VALID, a fused activation other than NONE, RELU, RELU_N1_TO_1 or RELU6, a tensor type option (CAST's in and out data types, SHAPE's out_type) outside the types TFLite's parser converts |

Each operator's `prepare` (`ops/`) then checks what is particular to it (shape relations,
parameter ranges its arithmetic needs).
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

from .errors import ModelError
from .graph import Graph, Op, Tensor
from .ops import SPECS
from .ops.common import INT16_MAX
from .ops.constant import check_writable
from .ops.spec import Arity

MAX_TENSOR_BYTES = 16 << 20  # far above any MCU's RAM; keeps a corrupt shape from allocating gigabytes

# The operators without a spec (aliases, and those constant folding removes); each spec gives its own
# ((fewest, most) inputs, outputs (None: any number), input positions that may be omitted with -1)
_OTHER_ARITY: dict[str, Arity] = {
    "BROADCAST_TO": ((2, 2), 1, frozenset()),
    "EXPAND_DIMS": ((2, 2), 1, frozenset()),
    "RESHAPE": ((1, 2), 1, frozenset({1})),
    "SHAPE": ((1, 1), 1, frozenset()),
    "SQUEEZE": ((1, 1), 1, frozenset()),
}


def arity(kind: str) -> Arity | None:
    """TFLite's input and output counts of `kind` (None: not known here, not checked)."""
    return SPECS[kind].arity if kind in SPECS else _OTHER_ARITY.get(kind)


def options_type(kind: str) -> str | None:
    """The builtin options table `kind` reads, from its spec."""
    return SPECS[kind].options if kind in SPECS else None


_AT_LEAST_ONE = ("stride_h", "stride_w", "dilation_h_factor", "dilation_w_factor", "filter_height", "filter_width",
                 "depth_multiplier")
_PADDINGS = {0: "SAME", 1: "VALID"}
_ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}
# An LSTM's fused_activation_function is its cell's activation (TANH), not a clamp: its Prepare checks it.
_CELL_ACTIVATION_OPS = frozenset({"UNIDIRECTIONAL_SEQUENCE_LSTM"})
_INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}
TENSOR_TYPES = range(19)  # the TensorType values TFLite Micro's parser converts (FLOAT32 to BFLOAT16)
# options holding a TensorType, which TFLite Micro's parser converts (CAST's, ARG_MAX's, SHAPE's)
_TYPE_OPTIONS = ("in_data_type", "out_data_type", "output_type", "out_type")


def check_model(graph: Graph) -> None:
    """Raise ModelError for the first rule of the module docstring the graph breaks."""
    _check_ports(graph)
    _check_writers_and_order(graph)
    for op in graph.ops:
        check_arity(op)
        _check_options(op)
        if op.kind in ("RESHAPE", "SQUEEZE", "EXPAND_DIMS"):
            _check_same_bytes(graph, op)
        if op.kind == "EXPAND_DIMS":
            check_expand_dims(op, graph.tensors)
    used = {t for op in graph.ops for t in op.inputs + op.outputs if t >= 0} | {p.tensor for p in graph.inputs}
    for t in sorted(used):
        _check_tensor(graph.tensors[t])


def _check_ports(graph: Graph) -> None:
    for what, ports in (("input", graph.inputs), ("output", graph.outputs)):
        indices = [p.tensor for p in ports]
        if len(set(indices)) != len(indices):
            raise ModelError(f"the model lists graph {what} tensor {_repeated(indices)} twice")
        for index, t in enumerate(indices):
            if graph.tensors[t].is_constant and what == "output":
                check_writable(graph.tensors[t], index)  # a CONSTANT step writes it (ops/constant.py)
            elif graph.tensors[t].is_constant:
                raise ModelError(f"graph {what} tensor {t} '{graph.tensors[t].name}' is a constant")
            if graph.tensors[t].is_variable:
                raise ModelError(f"graph {what} tensor {t} '{graph.tensors[t].name}' is a variable (state kept "
                                 "between runs), which the application does not pass")


def _repeated(values: list[int]) -> int:
    return next(v for i, v in enumerate(values) if v in values[:i])


def _check_writers_and_order(graph: Graph) -> None:
    """Each tensor written once, by an operator that runs before every operator reading it."""
    graph_inputs = {p.tensor for p in graph.inputs}
    ready = set(graph_inputs)
    writer: dict[int, Op] = {}
    for op in graph.ops:
        for t in op.inputs:
            if t < 0 or t in ready or graph.tensors[t].is_constant or graph.tensors[t].is_variable:
                continue
            if t in op.outputs:
                raise ModelError(f"operator {op.kind} at index {op.index} reads its own output, tensor {t}")
            later = " (operators are out of order or form a cycle)" if t in _written(graph) else ""
            raise ModelError(f"operator {op.kind} at index {op.index} reads tensor {t} '{graph.tensors[t].name}', "
                             f"which no earlier operator writes{later}")
        for t in op.outputs:
            if t < 0:
                raise ModelError(f"operator {op.kind} at index {op.index} has an omitted (-1) output")
            if graph.tensors[t].is_constant or t in graph_inputs:
                raise ModelError(f"operator {op.kind} at index {op.index} writes tensor {t} "
                                 f"'{graph.tensors[t].name}', a {'constant' if graph.tensors[t].is_constant else 'graph input'}")
            if t in writer:
                raise ModelError(f"tensor {t} '{graph.tensors[t].name}' is written by operators {writer[t].index} "
                                 f"and {op.index}")
            writer[t] = op
            ready.add(t)
    for port in graph.outputs:
        if port.tensor not in writer:
            raise ModelError(f"graph output tensor {port.tensor} '{graph.tensors[port.tensor].name}' is never written "
                             "by an operator")


def _written(graph: Graph) -> set[int]:
    return {t for op in graph.ops for t in op.outputs}


def check_arity(op: Op) -> None:
    """TFLite's input and output counts (constant folding checks the ops it removes too)."""
    (fewest, most), outputs, optional = arity(op.kind) or ((0, 1 << 30), len(op.outputs), frozenset())
    outputs = max(1, len(op.outputs)) if outputs is None else outputs
    if not fewest <= len(op.inputs) <= most or len(op.outputs) != outputs:
        expected = f"{fewest}" if fewest == most else f"{fewest} to {most}"
        raise ModelError(f"operator {op.kind} at index {op.index} has {len(op.inputs)} inputs and {len(op.outputs)} "
                         f"outputs; TFLite defines {expected} inputs and {outputs} output{'s' * (outputs != 1)}")
    for position, t in enumerate(op.inputs):
        if t < 0 and position not in optional:
            raise ModelError(f"operator {op.kind} at index {op.index}: input {position} is omitted (-1) "
                             "but not optional")


def _check_same_bytes(graph: Graph, op: Op) -> None:
    """RESHAPE, SQUEEZE and EXPAND_DIMS become aliases of their input's bytes: same type and count
    (and a RESHAPE's shape input, where it has one, a vector of integers)."""
    a, b = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    if a.dtype != b.dtype or a.num_elements != b.num_elements:
        raise ModelError(f"operator {op.kind} at index {op.index} turns {a.dtype}{list(a.shape)} into "
                         f"{b.dtype}{list(b.shape)}: the type and the number of elements must stay")
    if op.kind == "RESHAPE" and len(op.inputs) > 1 and op.inputs[1] >= 0:
        shape = graph.tensors[op.inputs[1]]
        if shape.dtype not in ("int32", "int64") or len(shape.shape) != 1:  # TFLite's kernels read its values
            raise ModelError(f"operator RESHAPE at index {op.index} takes its shape from tensor {op.inputs[1]}, "
                             f"{shape.dtype}{list(shape.shape)}: a shape is a vector of int32")
    if op.kind != "SQUEEZE":
        return
    dims = op.options.get("squeeze_dims", ())
    if any(not -len(a.shape) <= d < len(a.shape) or a.shape[d] != 1 for d in dims):
        raise ModelError(f"operator SQUEEZE at index {op.index} squeezes dimensions {list(dims)} of shape "
                         f"{a.shape}: each must exist and be 1")
    gone = {d % len(a.shape) for d in dims} if dims else {d for d, n in enumerate(a.shape) if n == 1}
    kept = tuple(n for d, n in enumerate(a.shape) if d not in gone)
    if kept != tuple(b.shape):
        raise ModelError(f"operator SQUEEZE at index {op.index} turns shape {a.shape} into {b.shape}, not {kept}")


def check_expand_dims(op: Op, tensors: Mapping[int, Tensor]) -> None:
    """TFLite Micro's Prepare: a constant int32 axis of one value, counted from the end when
    negative (over the output's rank), and the output the input with a dimension of 1 there
    (constant folding checks the EXPAND_DIMS it removes too)."""
    a, axis, b = tensors[op.inputs[0]], tensors[op.inputs[1]], tensors[op.outputs[0]]
    where = f"operator EXPAND_DIMS at index {op.index}"
    if not axis.is_constant or axis.dtype != "int32" or axis.num_elements != 1 or len(axis.shape) > 1:
        raise ModelError(f"{where}: its axis, tensor {axis.index}, must be one constant int32 value "
                         f"(TFLite Micro's), not {'a constant ' if axis.is_constant else 'an activation '}"
                         f"{axis.dtype}{list(axis.shape)}")
    rank = len(a.shape)
    value = int(axis.data.reshape(-1)[0])
    if not -rank - 1 <= value <= rank:
        raise ModelError(f"{where}: axis {value} is out of range for a {rank}-D input")
    value %= rank + 1
    expanded = a.shape[:value] + (1,) + a.shape[value:]
    if tuple(b.shape) != expanded:
        raise ModelError(f"{where} turns shape {a.shape} into {b.shape}, not {expanded} (axis {value})")


def _check_options(op: Op) -> None:
    o = op.options
    if op.kind in SPECS and SPECS[op.kind].options_required and not o:
        raise ModelError(f"operator {op.kind} at index {op.index} has no {options_type(op.kind)} (its strides, "
                         "padding or beta)")
    for name in _AT_LEAST_ONE:
        if name in o and not (isinstance(o[name], int) and 1 <= o[name] <= INT16_MAX):
            raise ModelError(f"operator {op.kind} at index {op.index}: {name} {o[name]} is outside 1 to {INT16_MAX} "
                             "(TFLite's kernels hold it in 16 bits)")
    if "padding" in o and o["padding"] not in _PADDINGS:
        raise ModelError(f"operator {op.kind} at index {op.index}: padding {o['padding']} is neither SAME (0) "
                         "nor VALID (1)")
    if o.get("quantized_bias_type", 0) not in (0, 2, 4):  # unset, INT32 (int8 kernels) or INT64 (16x8 ones)
        raise ModelError(f"operator {op.kind} at index {op.index}: quantized bias type {o['quantized_bias_type']} "
                         "is not supported (int32, int64)")
    for name in _TYPE_OPTIONS:
        if name in o and o[name] not in TENSOR_TYPES:
            raise ModelError(f"operator {op.kind} at index {op.index}: {name} {o[name]} is not a tensor type TFLite "
                             "parses")
    if ("fused_activation_function" in o and o["fused_activation_function"] not in _ACTIVATIONS
            and op.kind not in _CELL_ACTIVATION_OPS):
        raise ModelError(f"operator {op.kind} at index {op.index}: fused activation {o['fused_activation_function']} "
                         f"is not supported ({', '.join(_ACTIVATIONS.values())})")


def _check_tensor(t: Tensor) -> None:
    where = f"tensor {t.index} '{t.name}'"
    if not t.holds_elements:
        raise ModelError(f"{where} has type {t.dtype}, which no supported operator reads or writes")
    if not t.is_constant:
        if any(d < 1 for d in t.shape):
            raise ModelError(f"{where} has shape {t.shape}: every dimension must be at least 1")
        if t.num_bytes > MAX_TENSOR_BYTES:  # activations are int8, float32 or uint8 by now (reader)
            raise ModelError(f"{where} has shape {t.shape}: more than {MAX_TENSOR_BYTES >> 20} MiB, far beyond "
                             "a microcontroller's RAM")
    q = t.quant
    if q is None:
        return
    if not q.scale or any(not math.isfinite(s) for s in q.scale):
        raise ModelError(f"{where} has scale {_first_bad(q.scale, math.isfinite)}: scales must be finite")
    if not t.is_constant and any(s <= 0 for s in q.scale):  # filters may carry a negative channel scale
        raise ModelError(f"{where} has scale {_first_bad(q.scale, lambda s: s > 0)}: an activation's scale must "
                         "be positive")
    low, high = _INT_RANGES.get(t.dtype, (-(1 << 31), (1 << 31) - 1))
    if any(not low <= z <= high for z in q.zero_point):
        raise ModelError(f"{where} has zero point {next(z for z in q.zero_point if not low <= z <= high)}, "
                         f"outside {t.dtype}")
    if len(q.zero_point) not in (1, len(q.scale)):
        raise ModelError(f"{where} has {len(q.scale)} scales and {len(q.zero_point)} zero points")
    if len(q.scale) > 1:
        if t.dtype in ("int8", "int16") and not t.is_constant:
            raise ModelError(f"{where} is an {t.dtype} activation with {len(q.scale)} scales (per-tensor only)")
        # a bias's scales follow its filter's (real models mislabel its axis; TFLite ignores it)
        if t.dtype == "int8" and (not 0 <= q.axis < len(t.shape) or t.shape[q.axis] != len(q.scale)):
            raise ModelError(f"{where} has {len(q.scale)} scales along dimension {q.axis} of shape {t.shape}")


def check_for_litert(tensors: Mapping[int, Tensor], ops: Sequence[Op]) -> None:
    """What LiteRT's loader refuses and TFLite Micro accepts, for the models LiteRT checks
    (`oracle.NOT_IN_TFLM`): the model's own operators and tensors, before folding takes any away,
    since LiteRT loads and prepares them all."""
    names = [t for t in sorted(tensors) if "\ufffd" in tensors[t].name]  # the reader's stand-in
    if names:
        raise ModelError(f"tensor {names[0]}'s name is not UTF-8 (LiteRT, this model's oracle, reads every name)")
    used = {t for op in ops for t in op.inputs + op.outputs if t >= 0}
    for t in sorted(used):
        tensor, where = tensors[t], f"tensor {t} '{tensors[t].name}'"
        q = tensor.quant
        if q is None:
            continue
        if len(q.zero_point) != len(q.scale):
            raise ModelError(f"{where} has {len(q.scale)} scales and {len(q.zero_point)} zero points (LiteRT, "
                             "this model's oracle, needs as many of each)")
        if tensor.shape and not 0 <= q.axis < len(tensor.shape):  # per-tensor scales too: its loader checks all
            raise ModelError(f"{where} is quantized along dimension {q.axis} of its {len(tensor.shape)}")
        if len(q.scale) > 1 and tensor.shape[q.axis] != len(q.scale):  # any type: a bias's too
            raise ModelError(f"{where} has {len(q.scale)} scales along dimension {q.axis} of shape {tensor.shape} "
                             "(LiteRT, this model's oracle, needs one or one per index)")
    for op in ops:
        if op.kind == "RESHAPE" and len(op.inputs) > 1 and op.inputs[1] < 0:
            raise ModelError(f"operator RESHAPE at index {op.index} omits its shape input (-1): LiteRT, this model's "
                             "oracle, reads a shape tensor whenever there are two inputs")
        if op.kind == "RESHAPE":
            _check_reshape_target(tensors, op)
        if op.kind == "CONV_2D" and len(op.inputs) > 2 and op.inputs[2] < 0:
            raise ModelError(f"operator CONV_2D at index {op.index} omits its bias (-1): LiteRT, this model's "
                             "oracle, requires one")


def _check_reshape_target(tensors: Mapping[int, Tensor], op: Op) -> None:
    """LiteRT reshapes to the constant shape input (else the new_shape option), TFLite Micro to the
    output tensor's shape: they must agree on the element count (one -1 takes the rest), and
    LiteRT refuses a negative dimension other than that -1."""
    target = tensors[op.inputs[1]].data if len(op.inputs) > 1 and op.inputs[1] >= 0 else None
    dims = [int(d) for d in (target.reshape(-1) if target is not None and target.size else op.options.get("new_shape", ()))]
    if not dims:
        return
    if dims.count(-1) > 1 or min(dims) < -1:
        raise ModelError(f"operator RESHAPE at index {op.index} targets shape {dims}, with a negative dimension "
                         "(LiteRT, this model's oracle, allows one -1)")
    known = math.prod(d for d in dims if d != -1)
    count = tensors[op.outputs[0]].num_elements
    if (-1 in dims and (known <= 0 or count % known)) or (-1 not in dims and known != count):
        raise ModelError(f"operator RESHAPE at index {op.index} targets shape {dims}, which does not hold its "
                         f"output's {count} elements")


def _first_bad(values, good) -> object:
    return next((v for v in values if not good(v)), "[]")

