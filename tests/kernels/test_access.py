"""Eq. 1 read from kernel descriptions: CP-SAT over their loads and stores equals brute force."""
from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.window_cases import window_geometry
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.access import brute_force_distance, min_distance
from vmcu_tflite.kernels.ir import Loop, RAMFree, RAMLoad, RAMStore
from vmcu_tflite.kernels.schedule import clock, instances, time_of, values, walk
from vmcu_tflite.ops.common import Requantization

gemm = import_module("vmcu_tflite.kernels.gemm")  # the module (the package exports its function as `gemm`)


@st.composite
def windowed_params(draw):
    kind = draw(st.sampled_from(["CONV_2D", "DEPTHWISE_CONV_2D"]))
    g = draw(window_geometry(max_kernel=5, max_stride=2, max_size=9))
    k_h, k_w = g["kernel"]
    c_in = draw(st.integers(1, 12))
    if kind == "CONV_2D":
        groups = draw(st.sampled_from([d for d in (1, 2, 3) if c_in % d == 0]))
        c_out = groups * draw(st.integers(1, 4))
        filter_shape, multiplier = (c_out, k_h, k_w, c_in // groups), 1
    else:
        multiplier = draw(st.integers(1, 2))
        c_out = c_in * multiplier
        filter_shape = (1, k_h, k_w, c_out)
    params = SimpleNamespace(input_shape=(1, *g["size"], c_in), output_shape=(1, *g["out"], c_out),
                             filter=np.zeros(filter_shape, np.int8), stride=g["stride"], dilation=g["dilation"],
                             padding=g["padding"], depth_multiplier=multiplier, bias=np.zeros(c_out, np.int32), input_offset=0,
                             requant=Requantization((1 << 30,) * c_out, (-1,) * c_out, -128, 127))
    return kind, params, draw(st.integers(1, c_out))


@settings(max_examples=60, deadline=None)
@given(windowed_params())
def test_windowed_descriptions_solver_equals_brute_force(case):
    kind, params, segment = case
    kernel = describe(kind, params, segment)
    assert min_distance(kernel) == brute_force_distance(kernel)


def _pool_accesses(kernel) -> list[tuple]:
    """Every load, free and store of the pool the kernel makes, in execution order: (statement
    kind, pool role, offset, length)."""
    clk, events = clock(kernel), []
    for placed in walk(kernel.body):
        stmt = placed.stmt
        if isinstance(stmt, (RAMLoad, RAMFree, RAMStore)):
            env = instances(placed)
            events += zip(time_of(placed, env, clk).tolist(), [type(stmt).__name__] * int(env["__count__"]),
                          [stmt.tensor] * int(env["__count__"]), values(stmt.offset, env).tolist(),
                          values(stmt.length, env).tolist())
    return [event[1:] for event in sorted(events)]


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 9), depth=st.sampled_from([8, 16, 20]), segment=st.integers(2, 12), segments=st.integers(1, 5),
       last=st.integers(0, 11))
def test_a_gemm_tile_computing_all_its_units_at_once_accesses_the_pool_as_per_segment(
        rows, depth, segment, segments, last):
    """A widened tile's channels in one pass (`gemm.ALL_UNITS_BYTES`) changes only the kernel's own
    buffers: the pool sees the same loads, frees and stores in the same order as when each segment
    computes its own channels, so the planner's distances and the interpreter's checks stand."""
    units = (segments - 1) * segment + 1 + last % segment
    args = (rows, depth, units, segment, "vmcu_conv_params", "pointwise")
    at_once = gemm.gemm(*args, tile_rows=2)
    assert [s.var for s in at_once.body[1].body if isinstance(s, Loop)] == ["r", "u", "q"]  # widen, one pass, stores
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gemm, "ALL_UNITS_BYTES", 0)
        per_segment = gemm.gemm(*args, tile_rows=2)
    assert [s.var for s in per_segment.body[1].body if isinstance(s, Loop)] == ["r", "q"]
    assert _pool_accesses(at_once) == _pool_accesses(per_segment)
