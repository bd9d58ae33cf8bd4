"""Predicted instructions per step, from the step's kernel configuration.

A step's instructions are, to a few percent, a sum of terms the kernel's shape fixes: its
multiply-accumulates by kind of loop (a 1x1 layer's dot products, over int8 or widened weights, a
gathered window's, a depthwise tap's or column pair's, a fully connected row's), the vector steps
they take (a dot product's groups of 4 or 16 inputs, a depthwise group's taps: a part-filled vector
costs a whole one), the values it requantizes, the kernel rows a depthwise window walks, the copies
(and bytes) an in-place step makes to its workspace, the elements of the other operators (and the
MACs of those with weights: recurrent cells, transposed convolutions), and a fixed cost per call.
`features` counts them; `COEFFICIENTS` (the generated `cost_table.py`) holds the instructions per
unit of each term for each kernel tuning, fitted by `benchmarks/cost_model.py` to `vmcu-validate
--profile` runs on the tuning's reference core (the Cortex-M4 for `dsp`, the Cortex-M55 for
`helium`). `predict` is their dot product: what report.md prints per step, and what the benchmark
sums and compares with measured totals.
"""
from __future__ import annotations

from collections import Counter
from math import prod

from .chain import KIND as CHAIN, is_depthwise, is_pointwise, is_transpose
from .cost_table import COEFFICIENTS
from .kernels.planes import column_pair_planes
from .kernels.tuning import depthwise_lanes
from .plan import PlannedStep
from .steps import Step

REFERENCE_CORE = {"dsp": "Cortex-M4", "helium": "Cortex-M55"}  # where each tuning's coefficients were measured
MEASURED_AS = {"scalar": "dsp"}  # the scalar tuning's kernels are the dsp ones: predicted on the Cortex-M4 as those

TERMS = ("step", "pointwise MAC", "widened pointwise MAC", "window MAC", "depthwise 3x3 MAC", "depthwise large MAC",
         "depthwise column MAC",
         "fully connected MAC", "other MAC", "dot vector", "depthwise tap", "output value", "depthwise row",
         "in-place cell", "in-place byte", "chain value", "add element", "element")
DOT_WIDTH = {"dsp": 4, "helium": 16, "scalar": 4}  # int8 inputs per multiply-accumulate group of a dot product


def _layer(kind: str, p, into: Counter, plane: int | None = None) -> None:
    """The terms of one convolution-like layer (a step's own or a chain member); `plane`, the
    channels of an in-place depthwise step's planes."""
    out = prod(p.output_shape)
    into["output value"] += out
    width = DOT_WIDTH[getattr(p, "tuning", "dsp")]
    if is_depthwise(p):
        _, k_h, k_w, channels = p.filter.shape
        if plane == 2 and column_pair_planes(p):  # SMLADs over column pairs: no taps or rows of groups
            into["depthwise column MAC"] += out * k_h * k_w
            return
        groups = out // channels * -(-channels // depthwise_lanes(p, plane))
        into["depthwise 3x3 MAC" if k_h * k_w <= 9 else "depthwise large MAC"] += out * k_h * k_w
        into["depthwise tap"] += groups * k_h * k_w
        into["depthwise row"] += groups * k_h
        return
    length = p.filter.shape[-1] if kind == "FULLY_CONNECTED" else prod(p.filter.shape[1:])
    pointwise = "widened pointwise MAC" if getattr(p, "int16_weights", False) else "pointwise MAC"  # no SXTB16
    into["fully connected MAC" if kind == "FULLY_CONNECTED" else pointwise if is_pointwise(p)
         else "window MAC"] += out * length
    into["dot vector"] += out * -(-length // width)


def features(step: Step, planned: PlannedStep, element_counts: int) -> Counter:
    """The counts of each term of `TERMS` for `step` as `planned`; `element_counts` is the step's
    input plus output elements (what an operator without weights touches)."""
    terms: Counter = Counter(step=1)
    p = step.params
    if step.kernel == CHAIN:
        members = [layer for layer in p.layers if not is_transpose(layer)]
        for layer in members:
            _layer("CONV_2D", layer, terms)
        terms["chain value"] += sum(prod(layer.output_shape) for layer in members[:-1])
        last = prod(members[-1].output_shape)  # what a residual ADD or a global pool after the layers reads
        if p.add is not None:
            terms["add element"] += last
        elif p.pool is not None:
            terms["element"] += last
    elif step.kernel in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
        plane = planned.segment_bytes if planned.in_place else None
        _layer(step.kernel, p, terms, plane)
        if plane:  # each pixel's channels of a plane copied to the workspace, plane by plane
            terms["in-place cell"] += prod(p.input_shape) // p.input_shape[-1] * -(-p.input_shape[-1] // plane)
            terms["in-place byte"] += prod(p.input_shape)
    elif step.kernel == "INT16_GROUP":  # each member touches its operands and its result, as apart
        terms["element"] += sum(p.size * (len(m.sources) + 1) for m in p.members)
    elif step.kernel == "ADD":
        terms["add element"] += element_counts
    else:  # operators without a convolution's loops: their elements, and the MACs of those that have any
        terms["element"] += element_counts
        terms["other MAC"] += step.macs
    return terms


def predict(terms: Counter, coefficients: dict[str, float]) -> int:
    """Instructions for a step with these `terms`, `coefficients` the instructions per unit of
    each (a tuning's `COEFFICIENTS`, or a table being fitted)."""
    return round(sum(coefficients.get(name, 0.0) * count for name, count in terms.items()))


def program_terms(program) -> list[Counter]:
    """The terms of each step of a compiled program (pipeline.Program), in order."""
    graph = program.graph
    return [features(step, planned, sum(prod(graph.tensors[t].shape) for t in (*step.inputs, *step.outputs)))
            for step, planned in zip(program.steps, program.plan.steps)]


def predicted_steps(program) -> list[int]:
    """Each step's predicted instructions on its tuning's reference core (`REFERENCE_CORE`)."""
    return [predict(terms, COEFFICIENTS[measured_as(program.plan.tuning)]) for terms in program_terms(program)]


def measured_as(tuning: str) -> str:
    """The tuning whose coefficients and reference core predict `tuning`'s kernels."""
    return MEASURED_AS.get(tuning, tuning)
