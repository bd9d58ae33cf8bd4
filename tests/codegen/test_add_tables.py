"""ADD's tables of scaled inputs (codegen/params/add.py) against the interpreter's own arithmetic."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import c_arith
from vmcu_tflite.codegen.params.add import scaled_inputs


@settings(max_examples=200, deadline=None)
@given(offset=st.integers(-127, 128), multiplier=st.integers(1 << 30, (1 << 31) - 1), shift=st.integers(-31, 0))
def test_each_table_entry_is_tflites_scaled_input(offset, multiplier, shift):
    """Entry value + 128 is MultiplyByQuantizedMultiplierSmallerThanOneExp((value + offset) << 20,
    multiplier, shift), as the C's per-element path computes it (reference/c_arith.py, written apart)."""
    values = np.arange(-128, 128)
    expected = c_arith.requantize(c_arith.int32((values + offset) << 20), multiplier, shift)
    assert scaled_inputs(offset, 20, multiplier, shift) == [int(v) for v in expected]
