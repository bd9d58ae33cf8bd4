"""SignalFilterBank (the signal library's filter bank, TFLite Micro's FilterBankEval): a power
spectrum (uint32) summed into `num_channels` triangular mel channels (uint64).

Each channel i of the num_channels + 1 the tables describe takes `channel_widths[i]` spectrum bins
from `channel_frequency_starts[i]`, weighted by the int16 weights and unweights from
`channel_weight_starts[i]`. A channel's output is its bins' weighted sum plus the previous channel's
unweighted sum (the triangles overlap); the first channel's sum only feeds the second, so output c
is table channel c + 1. The int16 weights are widened to uint64 (a negative one wraps) and the sums
wrap modulo 2**64, as the kernel's uint64 accumulators do.

The five tables must be constants: TFLite Micro reads them as ordinary inputs, but the front end's
model gives them as constants and the kernel here takes them from flash. Every index the tables
produce must fall inside the spectrum and the weight tables (TFLite Micro does not check, and
would read past them); the output may hold fewer channels than `num_channels` (TFLite Micro copies
only the output's length), not more.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.signal import emit_filter_bank
from ..graph import Graph, Op
from .common import require
from .signal_common import check_tensor, constant_table, io_tensors, signal_options
from .spec import OpSpec

KIND = "SignalFilterBank"
TABLES = ("weights", "unweights", "channel frequency starts", "channel weight starts", "channel widths")


@dataclass(frozen=True, eq=False)
class FilterBankParams:
    num_channels: int
    input_size: int
    output_size: int
    weights: np.ndarray  # int16
    unweights: np.ndarray  # int16
    frequency_starts: np.ndarray  # int16, num_channels + 1
    weight_starts: np.ndarray  # int16, num_channels + 1
    widths: np.ndarray  # int16, num_channels + 1


def prepare(graph: Graph, op: Op) -> FilterBankParams:
    (x, *tables), (out,) = io_tensors(graph, op, 6, 1)
    num_channels = signal_options(op, {"num_channels": "int"})["num_channels"]
    check_tensor(op, x, "input", "uint32")
    for what, t in zip(TABLES, tables):
        check_tensor(op, t, what, "int16")
    check_tensor(op, out, "output", "uint64")
    weights, unweights, starts, weight_starts, widths = (constant_table(op, t, what) for what, t in zip(TABLES, tables))
    require(num_channels >= 1, op, f"num_channels {num_channels} is not positive")
    for what, table in zip(TABLES[2:], (starts, weight_starts, widths)):
        require(table.size >= num_channels + 1, op,
                f"the {what} hold {table.size} values for num_channels + 1 = {num_channels + 1} channels")
    n = num_channels + 1
    starts, weight_starts, widths = (t[:n].astype(np.int64) for t in (starts, weight_starts, widths))
    require(weights.size == unweights.size, op, f"{weights.size} weights but {unweights.size} unweights")
    used = widths > 0
    require(bool(np.all(~used | ((starts >= 0) & (starts + widths <= x.num_elements)))), op,
            f"a channel reads spectrum bins outside the input's {x.num_elements}")
    require(bool(np.all(~used | ((weight_starts >= 0) & (weight_starts + widths <= weights.size)))), op,
            f"a channel reads weights outside the {weights.size} given")
    require(out.num_elements <= num_channels, op,
            f"the output holds {out.num_elements} channels, more than num_channels {num_channels}")
    return FilterBankParams(num_channels=num_channels, input_size=x.num_elements, output_size=out.num_elements,
                            weights=weights.astype(np.int16), unweights=unweights.astype(np.int16),
                            frequency_starts=starts.astype(np.int16), weight_starts=weight_starts.astype(np.int16),
                            widths=widths.astype(np.int16))


SPEC = OpSpec(KIND, kind_id=54, emit=emit_filter_bank, prepare=prepare, c_kernel="vmcu_signal_filter_bank",
              arity=((6, 6), 1, frozenset()), scratch=lambda p: 8 * p.output_size + 4 * p.input_size + 7,
              custom=True, activation_types=frozenset({"uint32", "uint64", "int16"}))
