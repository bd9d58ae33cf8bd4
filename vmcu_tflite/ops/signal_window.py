"""SignalWindow (TFLite Micro's signal library): int16 samples times constant int16 weights,
shifted right and saturated to int16. The weights (a Hann window in Q`shift`) repeat over the input:
TFLite Micro applies them to every run of len(weights) samples, so the input's size must be a
multiple of theirs (else it reads past the input), and the output holds as many elements.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.signal import emit_window
from ..graph import Graph, Op
from .common import require
from .signal_common import int_option, typed
from .spec import OpSpec

KIND = "SignalWindow"


@dataclass(frozen=True, eq=False)
class WindowParams:
    shape: tuple[int, ...]
    weights: np.ndarray  # int16 [size]
    shift: int


def prepare(graph: Graph, op: Op) -> WindowParams:
    x = typed(graph, op, 0, "int16", "input")
    w = typed(graph, op, 1, "int16", "weights")
    y = typed(graph, op, 0, "int16", "output", output_=True)
    shift = int_option(op, "shift", ("shift",))
    require(w.is_constant, op, "its weights must be a constant tensor")
    require(len(x.shape) >= 1 and len(w.shape) == 1 and len(x.shape) == len(y.shape), op,
            f"input shape {x.shape}, weights {w.shape}, output {y.shape}: TFLite Micro requires 1-D weights and "
            "input and output of one rank")
    require(w.num_elements >= 1 and x.num_elements % w.num_elements == 0, op,
            f"the input's {x.num_elements} samples are not a whole number of windows of {w.num_elements} "
            "(TFLite Micro would read past the input)")
    require(y.num_elements == x.num_elements, op, f"output shape {y.shape} does not hold the input's {x.shape}")
    require(0 <= shift <= 31, op, f"shift {shift} is outside 0..31 (an int32 shift)")
    return WindowParams(shape=y.shape, weights=np.asarray(w.data, dtype=np.int16).reshape(-1), shift=shift)


SPEC = OpSpec(KIND, kind_id=48, emit=emit_window, prepare=prepare, c_kernel="vmcu_signal_window",
              arity=((2, 2), 1, frozenset()), custom=True, activation_types=frozenset({"int16"}))
