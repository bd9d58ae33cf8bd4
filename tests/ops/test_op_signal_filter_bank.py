"""SignalFilterBank and SignalFilterBankSquareRoot: the reference kernels against TFLite Micro, and
the refusals."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.ops.signal_harness import assert_reference_matches_tflm, single_op, tflm_refuses, wide_uint
from vmcu_tflite.errors import ArithmeticInputError, ModelError
from vmcu_tflite.reader import parse_model
from vmcu_tflite.ops import prepare


def filter_bank_model(rng: np.random.Generator, channels: int, bins: int, output: int | None = None,
                      weight_bound: int = 1 << 15, **changes) -> bytes:
    """Random channel tables inside the spectrum and weight tables (widths 0.. , some empty)."""
    n = channels + 1
    widths = rng.integers(0, min(bins, 12) + 1, size=n)
    starts = np.array([rng.integers(0, bins - w + 1) for w in widths])
    weight_starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    total = int(widths.sum()) + int(rng.integers(0, 3))
    tables = dict(
        weights=rng.integers(-weight_bound, weight_bound, size=max(total, 1)).astype(np.int16),
        unweights=rng.integers(-weight_bound, weight_bound, size=max(total, 1)).astype(np.int16),
        starts=starts.astype(np.int16), weight_starts=weight_starts.astype(np.int16), widths=widths.astype(np.int16))
    tables.update(changes)
    return single_op("SignalFilterBank", [((bins,), "uint32")] + [(tables[k],) for k in
                                                                 ("weights", "unweights", "starts", "weight_starts",
                                                                  "widths")],
                     [((channels if output is None else output,), "uint64")], {"num_channels": channels})


@settings(max_examples=40, deadline=None)
@given(channels=st.integers(1, 12), bins=st.integers(1, 40), fewer=st.integers(0, 2), positive=st.booleans(),
       seed=st.integers(0, 2**31))
def test_filter_bank_matches_tflm(channels, bins, fewer, positive, seed):
    """Weights of either sign (a negative one wraps the uint64 sums) over inputs up to 2**32 - 1, and
    an output shorter than num_channels."""
    rng = np.random.default_rng(seed)
    output = max(1, channels - fewer)
    model = filter_bank_model(rng, channels, bins, output, weight_bound=(1 << 15) if not positive else 1 << 14)
    runs = [[wide_uint(rng, bins, 32, np.uint32)] for _ in range(2)]
    assert_reference_matches_tflm(model, runs)


def test_filter_bank_known_sums():
    """Output c is table channel c + 1's weighted sum plus channel c's unweighted one."""
    model = single_op("SignalFilterBank", [((8,), "uint32"), (np.array([1, 2, 3, 4, 5, 6], np.int16),),
                                           (np.array([6, 5, 4, 3, 2, 1], np.int16),),
                                           (np.array([0, 2, 4], np.int16),), (np.array([0, 2, 4], np.int16),),
                                           (np.array([2, 2, 2], np.int16),)], [((2,), "uint64")], {"num_channels": 2})
    (out,), = assert_reference_matches_tflm(model, [[np.arange(8, dtype=np.uint32)]])
    assert out.tolist() == [3 * 2 + 4 * 3 + 6 * 0 + 5 * 1, 5 * 4 + 6 * 5 + 4 * 2 + 3 * 3]


@pytest.mark.parametrize("change, message", [
    (dict(starts=np.array([0, 2, 7], np.int16)), "spectrum bins outside"),
    (dict(weight_starts=np.array([0, 2, 5], np.int16)), "weights outside"),
    (dict(widths=np.array([2, 2], np.int16)), "num_channels"),
])
def test_filter_bank_refuses_tables_that_leave_their_arrays(change, message):
    tables = dict(weights=np.arange(6, dtype=np.int16), unweights=np.arange(6, dtype=np.int16),
                  starts=np.array([0, 2, 4], np.int16), weight_starts=np.array([0, 2, 4], np.int16),
                  widths=np.array([2, 2, 2], np.int16))
    tables.update(change)
    model = single_op("SignalFilterBank", [((8,), "uint32")] + [(tables[k],) for k in
                                                                ("weights", "unweights", "starts", "weight_starts",
                                                                 "widths")], [((2,), "uint64")], {"num_channels": 2})
    graph = parse_model(model)
    with pytest.raises(ModelError, match=message):
        prepare(graph, graph.ops[0])


@pytest.mark.parametrize("input_type, output_type", [("int32", "uint64"), ("uint32", "int32")])
def test_filter_bank_refuses_the_types_tflm_refuses(input_type, output_type):
    model = single_op("SignalFilterBank", [((4,), input_type)] + [(np.ones(2, np.int16),)] * 2 +
                      [(np.zeros(2, np.int16),)] * 2 + [(np.ones(2, np.int16),)], [((1,), output_type)],
                      {"num_channels": 1})
    assert tflm_refuses(model, [np.zeros(4, dtype=input_type)])
    with pytest.raises(ModelError, match="SignalFilterBank"):
        graph = parse_model(model)
        prepare(graph, graph.ops[0])


def test_options_are_read_by_position():
    """A key sorting before num_channels would shift it: refused; one sorting after is ignored."""
    tables = [(np.ones(2, np.int16),)] * 2 + [(np.zeros(2, np.int16),)] * 2 + [(np.ones(2, np.int16),)]
    model = single_op("SignalFilterBank", [((4,), "uint32")] + tables, [((1,), "uint64")],
                      {"num_channels": 1, "a": 5})
    graph = parse_model(model)
    with pytest.raises(ModelError, match="by position"):
        prepare(graph, graph.ops[0])
    model = single_op("SignalFilterBank", [((4,), "uint32")] + tables, [((1,), "uint64")],
                      {"num_channels": 1, "z": 5})
    assert_reference_matches_tflm(model, [[np.array([1, 2, 3, 4], np.uint32)]])


@st.composite
def square_root_inputs(draw):
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(1, 40))
    x = wide_uint(rng, n, 64, np.uint64)
    special = [0, 1, 2, 3, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, (1 << 64) - 1, 0xFFFF * 0xFFFF + 0xFFFF + 1,
               0xFFFFFFFF * 0xFFFFFFFF + 0xFFFFFFFF + 1, 0xFFFF * 0xFFFF + 0xFFFF]
    count = draw(st.integers(0, min(n, len(special))))
    x[:count] = np.array(special[:count], dtype=np.uint64)
    return x, draw(st.integers(0, 31))


@settings(max_examples=40, deadline=None)
@given(case=square_root_inputs(), constant_shift=st.booleans())
def test_square_root_matches_tflm(case, constant_shift):
    """Roots of every magnitude, the rounding at both routines' largest roots, every shift."""
    x, shift = case
    shift_input = (np.array(shift, np.int32),) if constant_shift else ((), "int32")
    model = single_op("SignalFilterBankSquareRoot", [((x.size,), "uint64"), shift_input], [((x.size,), "uint32")], {})
    runs = [[x] if constant_shift else [x, np.array(shift, np.int32)]]
    assert_reference_matches_tflm(model, runs)


def test_square_root_refuses_a_shift_tflm_leaves_undefined():
    """At run time from an input (the C kernels stop with VMCU_ERROR_ARITHMETIC), at conversion from a constant."""
    from tests.ops.signal_harness import reference_runs
    model = single_op("SignalFilterBankSquareRoot", [((3,), "uint64"), ((), "int32")], [((3,), "uint32")], {})
    with pytest.raises(ArithmeticInputError, match="shift of 32"):
        reference_runs(model, [[np.ones(3, np.uint64), np.array(32, np.int32)]])
    model = single_op("SignalFilterBankSquareRoot", [((3,), "uint64"), (np.array(-1, np.int32),)], [((3,), "uint32")],
                      {})
    graph = parse_model(model)
    with pytest.raises(ModelError, match="constant shift -1 is outside 0..31"):
        prepare(graph, graph.ops[0])
