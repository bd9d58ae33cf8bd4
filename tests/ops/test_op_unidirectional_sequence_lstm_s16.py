"""The 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 input, output and output state with zero point 0,
int8 weights, int64 gate biases, int16 cell state) against TFLite Micro: the reference kernel with
its state carried over runs, the interpreter's whole path, the sanitized host C; and what the 16x8
form refuses."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_sequence_matches_tflm
from tests.ops.test_op_unidirectional_sequence_lstm import TANH, _symmetric
from tests.tflite_builder import ModelBuilder
from vmcu_reference.ops.op_unidirectional_sequence_lstm_s16 import UnidirectionalSequenceLstmS16
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import macs, unidirectional_sequence_lstm as lstm, unidirectional_sequence_lstm_s16 as lstm16
from vmcu_tflite.oracle import run_tflm_sequence
from vmcu_tflite.reader import parse_model
from vmcu_tflite.steps import build_steps

RUNS = 3


@st.composite
def cases(draw):
    return dict(batch=draw(st.integers(1, 2)), steps=draw(st.integers(1, 6)), input_size=draw(st.integers(1, 16)),
                units=draw(st.integers(1, 16)), time_major=draw(st.booleans()),
                cell_clip=draw(st.sampled_from([0.0, 0.0, 1.5, 8.0])),
                cell_power=draw(st.sampled_from([-15, -13, -12, -11, -10, -8])),
                gain=draw(st.sampled_from([0.5, 1.0, 1.0, 3.0, 30.0])),  # 30: gates and cell saturate
                seed=draw(st.integers(0, 2**31)))


def build_lstm16(case, *, input_zero_point=0, state_zero_point=0, bias_dtype="int64",
                 big_bias=False, input_quantized=True) -> tuple[bytes, tuple, int, int]:
    """A one-op 16x8 model as TFLite's 16x8 quantization makes it: symmetric int16 input and output
    state (the output shares the state's quantization), symmetric per-tensor int8 weights, int64
    biases at input x weight scale, a power-of-two int16 cell state. Returns (model, input shape, h, c)."""
    rng = np.random.default_rng(case["seed"])
    batch, steps, n_in, units = case["batch"], case["steps"], case["input_size"], case["units"]
    major = (steps, batch) if case["time_major"] else (batch, steps)
    x_scale = float(rng.uniform(0.5, 4.0)) / 32768
    h_scale = float(rng.uniform(1.0, 1.5)) / 32768
    b = ModelBuilder()
    x = b.tensor(major + (n_in,), dtype="int16", **(dict(scale=x_scale, zero_point=input_zero_point)
                                                   if input_quantized else {}))
    input_weights = [_symmetric(rng, (units, n_in), case["gain"]) for _ in range(4)]
    recurrent_weights = [_symmetric(rng, (units, units), case["gain"]) for _ in range(4)]
    inputs = [x] + [b.const(w, scale=s, zero_point=0) for w, s in input_weights + recurrent_weights]
    inputs += [-1, -1, -1]
    for g, (_, s) in enumerate(input_weights):
        real = rng.uniform(-1.0, 1.0, units) * case["gain"] + (1.0 if g == 1 else 0.0)  # Keras' forget bias
        bias_scale = float(np.float32(x_scale) * np.float32(s))
        q = np.round(real / bias_scale)
        if big_bias:
            q[0] = 2.0 ** 50
        inputs.append(b.const(q.astype(bias_dtype), scale=bias_scale))
    inputs += [-1, -1]
    h = b.tensor((batch, units), dtype="int16", scale=h_scale, zero_point=state_zero_point, variable=True,
                 name="output_state")
    c = b.tensor((batch, units), dtype="int16", scale=2.0 ** case["cell_power"], variable=True, name="cell_state")
    inputs += [h, c, -1, -1, -1, -1]
    y = b.tensor(major + (units,), dtype="int16", scale=h_scale, zero_point=state_zero_point)
    b.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], fused_activation_function=TANH,
         cell_clip=case["cell_clip"], time_major=case["time_major"])
    b.inputs, b.outputs = [x], [y]
    return b.build(), major + (n_in,), h, c


def random_runs(case, shape) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(case["seed"] + 1)
    return [[rng.integers(-32768, 32768, size=shape).astype(np.int16)] for _ in range(RUNS)]


def assert_kernel_matches_tflm(case) -> list[np.ndarray]:
    """The reference kernel alone, its state dict carried over the runs (both states start at 0, as
    TFLite Micro resets them), against TFLite Micro's output and both variable tensors after every run."""
    model, shape, h, c = build_lstm16(case)
    graph = parse_model(model)
    params = lstm.prepare(graph, graph.ops[0])
    assert params.wide and params.step_kind == lstm16.KIND
    kernel = UnidirectionalSequenceLstmS16(params)
    state = {h: np.zeros(graph.tensors[h].shape, np.int16), c: np.zeros(graph.tensors[c].shape, np.int16)}
    runs = random_runs(case, shape)
    theirs = run_tflm_sequence(model, runs, num_outputs=1, tensors=[h, c])
    outputs = []
    for r, (inputs, (tflm_outputs, tflm_state)) in enumerate(zip(runs, theirs)):
        outputs.append(kernel.run(*inputs, state=state))
        compared = (("output", outputs[-1], tflm_outputs[0]), ("output state", state[h], tflm_state[h]),
                    ("cell state", state[c], tflm_state[c]))
        for what, ours, expected in compared:
            expected = np.asarray(expected).reshape(ours.shape)
            assert ours.dtype == expected.dtype == np.int16, (what, ours.dtype, expected.dtype)
            if not np.array_equal(ours, expected):
                first = tuple(np.argwhere(ours != expected)[0])
                raise AssertionError(f"run {r}, {what}: {int((ours != expected).sum())} of {ours.size} differ; first "
                                     f"at {first}: ours {ours[first]} vs TFLite Micro {expected[first]}")
    return outputs


@settings(max_examples=60, deadline=None)
@given(cases())
def test_lstm16_kernel_and_state_bit_exact(case):
    assert_kernel_matches_tflm(case)


@settings(max_examples=10, deadline=None)
@given(cases())
def test_lstm16_interpreter_sequence_bit_exact(case):
    """The whole path: reader, step kind, plan, the reference interpreter's state across runs."""
    model, shape, _, _ = build_lstm16(case)
    assert_sequence_matches_tflm(model, random_runs(case, shape))


EXPLICIT = [
    dict(batch=1, steps=6, input_size=16, units=16, time_major=False, cell_clip=0.0, cell_power=-11, gain=1.0,
         seed=1),
    # two rows, time-major, clipped cell
    dict(batch=2, steps=4, input_size=5, units=7, time_major=True, cell_clip=1.5, cell_power=-12, gain=3.0, seed=2),
    # tanh(cell) with a right shift (cell scale 2^-15) and saturating gates
    dict(batch=2, steps=3, input_size=3, units=4, time_major=False, cell_clip=0.0, cell_power=-15, gain=30.0, seed=3),
]


@pytest.mark.parametrize("case", EXPLICIT)
def test_lstm16_explicit(case):
    outputs = assert_kernel_matches_tflm(case)
    assert len(np.unique(np.concatenate([o.ravel() for o in outputs]))) > 3
    assert not np.array_equal(outputs[0], outputs[1])  # the state carried over changes the next run


def test_lstm16_step_kind_macs_and_scratch():
    case = EXPLICIT[1]
    steps = build_steps(parse_model(build_lstm16(case)[0]))
    (step,) = steps
    assert step.kernel == lstm16.KIND and step.macs == 2 * 4 * 4 * 7 * (5 + 7)
    assert macs(lstm16.KIND, step.params) == step.macs
    assert lstm16.SPEC.scratch(step.params) == 2 * (5 + 7) + 1


@pytest.mark.parametrize("variant, message", [
    (dict(input_zero_point=3), "input's zero point is 3"),
    (dict(state_zero_point=-2), "output state's zero point is -2"),
    (dict(bias_dtype="int32"), "must be constant int64"),
    (dict(big_bias=True), "exceeds"),
    (dict(input_quantized=False), "the input and the output need one scale each"),  # fuzzing: an AssertionError
])
def test_lstm16_refusals(variant, message):
    """What the 16x8 form does not take: asymmetric int16 activations, int32 gate biases, biases the
    64-bit requantization's product would overflow on."""
    model, _, _, _ = build_lstm16(EXPLICIT[1], **variant)
    with pytest.raises(ModelError, match=message):
        graph = parse_model(model)
        lstm.prepare(graph, graph.ops[0])


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("case", EXPLICIT)
def test_lstm16_c_kernel_host(tmp_path, case):
    """vmcu_lstm_s16 built with the sanitizers, over the validation's sequence of runs (state carried
    in the state region), against the reference interpreter and TFLite Micro."""
    from vmcu_tflite.validate.run import validate
    from vmcu_tflite.validate.targets import SANITIZED_HOST

    path = tmp_path / "lstm16.tflite"
    path.write_bytes(build_lstm16(case)[0])
    v = validate(path, SANITIZED_HOST, seed=case["seed"], planner="vmcu")
    assert v.status == 0
    assert v.matches_reference and v.matches_tflm
