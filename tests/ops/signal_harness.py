"""One-operator models of the audio front end's ops (the signal library's, int32 arithmetic), run by
the reference kernel alone and by TFLite Micro (its Python interpreter registers every Signal* op),
compared bit for bit."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from tests.tflite_builder import ModelBuilder
from vmcu_reference.ops import make_kernel
from vmcu_tflite.oracle import run_tflm, run_tflm_sequence
from vmcu_tflite.ops import SPECS
from vmcu_tflite.reader import parse_model


def single_op(code: str, inputs: Sequence[tuple], outputs: Sequence[tuple], options: dict[str, Any]) -> bytes:
    """A model of one custom op: each input (shape, dtype) or (array,) for a constant, each output
    (shape, dtype); the non-constant inputs are the model's inputs, in order."""
    b = ModelBuilder()
    ins = [b.const(spec[0]) if len(spec) == 1 else b.tensor(spec[0], spec[1]) for spec in inputs]
    outs = [b.tensor(shape, dtype) for shape, dtype in outputs]
    b.op("CUSTOM", ins, outs, custom_code=code, custom_options=options)
    b.inputs = [t for t, spec in zip(ins, inputs) if len(spec) == 2]
    b.outputs = outs
    return b.build()


def reference_runs(model: bytes, runs: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
    """The op's reference kernel on each run's inputs, its state (if any) carried from run to run
    and zero at first, as a reset state region holds it."""
    graph = parse_model(model)
    (op,) = graph.ops
    params = SPECS[op.kind].prepare(graph, op)
    kernel = make_kernel(getattr(params, "step_kind", op.kind), params)
    state = {}
    if kernel.stateful:
        t = graph.tensors[params.state]
        state[params.state] = np.zeros(t.shape, dtype=t.dtype)
    results = []
    for inputs in runs:
        out = kernel.run(*inputs, state=state) if kernel.stateful else kernel.run(*inputs)
        # a spectral subtraction's second output is its state after the run (a NOISE_ESTIMATE step)
        results.append([np.asarray(out)] + [state[params.state].copy() for _ in op.outputs[1:]])
    return results


def assert_reference_matches_tflm(model: bytes, runs: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
    ours = reference_runs(model, runs)
    theirs = run_tflm_sequence(model, runs, num_outputs=len(ours[0]))
    for r, (a_run, (b_run, _)) in enumerate(zip(ours, theirs)):
        for i, (a, b) in enumerate(zip(a_run, b_run)):
            a, b = a.reshape(-1), b.reshape(-1)  # TFLite Micro's Python interpreter returns scalars as [1]
            assert a.dtype == b.dtype and a.shape == b.shape, (r, i, a.dtype, a.shape, b.dtype, b.shape)
            if not np.array_equal(a, b):
                bad = np.flatnonzero(a != b)
                raise AssertionError(f"run {r}, output {i}: {bad.size} of {a.size} differ; first at {bad[0]}: "
                                     f"ours {a[bad[0]]} vs TFLite Micro {b[bad[0]]} (inputs {runs[r]})")
    return ours


def tflm_refuses(model: bytes, inputs: Sequence[np.ndarray]) -> bool:
    try:
        run_tflm(model, inputs, num_outputs=1)
    except Exception:
        return True
    return False


def wide_uint(draw_rng: np.random.Generator, size: int, bits: int, dtype) -> np.ndarray:
    """Values of every magnitude up to 2**bits - 1: a random bit length per value, and the extremes."""
    lengths = [int(n) for n in draw_rng.integers(0, bits + 1, size=size)]
    values = [int(draw_rng.integers(0, 1 << 62)) << 2 | int(draw_rng.integers(0, 4)) for _ in range(size)]
    out = np.array([v & ((1 << n) - 1) if n else 0 for v, n in zip(values, lengths)], dtype=object)
    picks = draw_rng.integers(0, 8, size=size)
    out[picks == 0] = (1 << bits) - 1
    out[picks == 1] = 0
    return out.astype(dtype)
