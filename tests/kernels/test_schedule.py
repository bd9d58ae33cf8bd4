"""The schedule's linear time orders statement instances exactly as the C executes them.

An independent walk (plain recursion over the loops, one instance at a time) lists every memory
statement instance of a kernel in execution order; their times must strictly increase. The
kernels are real configurations whose nested loops reuse variable names with other ranges (a
chain's channel loops, one per layer) and start where enclosing loops say (rows made on demand).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.planner.test_chains import chained_program
from tests.kernels.test_mutations import Block
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.index import Var
from vmcu_tflite.kernels.ir import Kernel, Loop, RAMFree, RAMLoad, RAMStore, loop
from vmcu_tflite.kernels.schedule import Placed, clock, time_of
from vmcu_tflite.ops.common import Requantization


def execution_order(body, env=None, loops=(), positions=()):
    """(placed statement, loop values) of every memory statement instance, in execution order."""
    env = env or {}
    for k, stmt in enumerate(body):
        here = positions + (k,)
        if isinstance(stmt, Loop):
            lo, hi = int(stmt.lo.evaluate(env)), int(stmt.hi.evaluate(env))
            for value in range(lo, hi, stmt.step):
                yield from execution_order(stmt.body, {**env, stmt.var: np.int64(value)}, loops + (stmt,), here)
        elif isinstance(stmt, (RAMLoad, RAMStore, RAMFree)):
            yield Placed(stmt, loops, here), dict(env)


def expand_block(c_in: int, expansion: int, c_out: int) -> bytes:
    block = Block(np.random.default_rng(3), 6, c_in)
    y = block.conv(block.x, c_in * expansion, 1, 1)
    y = block.conv(y, block.shape[3], 3, 1, depthwise=True)
    y = block.conv(y, c_out, 1, 1)
    block.b.inputs, block.b.outputs = [block.x], [y]
    return block.b.build()


def reused_name():
    """Two loop nests naming their inner variable `u`, the later one with a shorter range."""
    body = (loop("i", 0, 3, [loop("u", 0, 10, [RAMLoad("a", "input0", Var("u"), 1, max_bytes=1)])]),
            loop("j", 0, 3, [loop("u", 0, 2, [RAMLoad("b", "input0", Var("u"), 1, max_bytes=1)])]))
    return Kernel("reused", "vmcu_conv_params", ("reused",), {"input0": 10}, body)


CONFIGS = {
    "fused expand, wide middle": lambda: chained_program(expand_block(2, 6, 3)).steps[0],
    "fused expand, narrow middle": lambda: chained_program(expand_block(4, 1, 9)).steps[0],
    "depthwise multiplier 2": lambda: SimpleNamespace(kernel="DEPTHWISE_CONV_2D", params=SimpleNamespace(
        input_shape=(1, 5, 4, 3), output_shape=(1, 3, 2, 6), filter=np.zeros((1, 3, 3, 6), np.int8),
        stride=(2, 2), dilation=(1, 1), padding=(1, 1), depth_multiplier=2, bias=np.zeros(6, np.int32),
        requant=Requantization((1 << 30,) * 6, (-1,) * 6, -128, 127))),
}


def test_loops_reusing_a_name_keep_their_own_ranges():
    kernel = reused_name()
    clk = clock(kernel)
    times = [int(time_of(placed, env, clk)) for placed, env in execution_order(kernel.body)]
    assert all(a < b for a, b in zip(times, times[1:]))


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("segment", [1, 2, 5])
def test_times_follow_execution_order(name, segment):
    step = CONFIGS[name]()
    kernel = describe(step.kernel, step.params, segment)
    clk = clock(kernel)
    times = [int(time_of(placed, env, clk)) for placed, env in execution_order(kernel.body)]
    assert len(times) > 1
    assert all(a < b for a, b in zip(times, times[1:]))
