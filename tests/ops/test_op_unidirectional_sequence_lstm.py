"""UNIDIRECTIONAL_SEQUENCE_LSTM against TFLite Micro: outputs and both states over runs that carry
the state, batch- and time-major, cell clip, cell scales around 2^-12, saturating gates; the int16
sigmoid and tanh over every input; what TFLite Micro does not run (or we do not) is refused."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_sequence_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.ops.op_unidirectional_sequence_lstm import UnidirectionalSequenceLstm, sigmoid_int16, tanh_int16
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import macs, unidirectional_sequence_lstm as lstm
from vmcu_tflite.oracle import run_tflm, run_tflm_sequence
from vmcu_tflite.reader import parse_model

RUNS = 3
TANH = 4


@st.composite
def lstm_cases(draw):
    return dict(batch=draw(st.integers(1, 2)), steps=draw(st.integers(1, 6)), input_size=draw(st.integers(1, 16)),
                units=draw(st.integers(1, 16)), time_major=draw(st.booleans()),
                cell_clip=draw(st.sampled_from([0.0, 0.0, 1.5, 8.0])),
                cell_power=draw(st.sampled_from([-15, -13, -12, -11, -11, -10, -8])),
                gain=draw(st.sampled_from([0.5, 1.0, 1.0, 3.0, 30.0])),  # 30: gates and cell saturate
                seed=draw(st.integers(0, 2**31)))


def _symmetric(rng, shape, gain) -> tuple[np.ndarray, float]:
    """Weights drawn in float and quantized as the converter does: symmetric, one scale."""
    real = rng.uniform(-1.0, 1.0, size=shape) * gain / np.sqrt(shape[1])
    scale = float(np.float32(np.abs(real).max() / 127.0))
    return np.clip(np.round(real / scale), -127, 127).astype(np.int8), scale


def build_lstm(case, *, cifg=False, peephole=False, projection=False, layer_norm=False, per_channel=False,
               activation=TANH, variable_state=True, input_dtype="int8") -> tuple[bytes, tuple, int, int]:
    """A one-op model as TFLite's int8x8_16 LSTM quantization makes it: asymmetric int8 input and
    output state (the output shares the state's), symmetric per-tensor int8 weights, int32 biases at
    input x weight scale, a power-of-two int16 cell state. Returns (model, input shape, h, c)."""
    rng = np.random.default_rng(case["seed"])
    batch, steps, n_in, units = case["batch"], case["steps"], case["input_size"], case["units"]
    major = (steps, batch) if case["time_major"] else (batch, steps)
    x_scale, x_zp = float(rng.uniform(0.004, 0.05)), int(rng.integers(-128, 128))
    h_scale, h_zp = float(rng.uniform(2 / 255, 3 / 255)), int(rng.integers(-12, 13))
    b = ModelBuilder()
    x = b.tensor(major + (n_in,), dtype=input_dtype, scale=x_scale, zero_point=x_zp if input_dtype == "int8" else 0)
    input_weights = [_symmetric(rng, (units, n_in), case["gain"]) for _ in range(4)]
    recurrent_weights = [_symmetric(rng, (units, units), case["gain"]) for _ in range(4)]

    def weights(w, s):
        scale = [s] * units if per_channel else s
        return b.const(w, scale=scale, zero_point=0, axis=0)

    inputs = [x] + [weights(*w) for w in input_weights] + [weights(*w) for w in recurrent_weights]
    inputs += [b.const(rng.integers(-64, 64, units).astype(np.int16), scale=2.0 ** -10) if peephole else -1, -1, -1]
    for g, (_, s) in enumerate(input_weights):
        real = rng.uniform(-1.0, 1.0, units) * case["gain"] + (1.0 if g == 1 else 0.0)  # Keras' forget bias
        bias_scale = float(np.float32(x_scale) * np.float32(s))
        inputs.append(b.const(np.round(real / bias_scale).astype(np.int32), scale=bias_scale))
    inputs += [b.const(rng.integers(-127, 128, (units, units)).astype(np.int8), scale=0.01) if projection else -1,
               -1]
    h = b.tensor((batch, units), scale=h_scale, zero_point=h_zp, variable=variable_state, name="output_state")
    c = b.tensor((batch, units), dtype="int16", scale=2.0 ** case["cell_power"], variable=variable_state,
                 name="cell_state")
    inputs += [h, c]
    inputs += [b.const(np.full(units, 1000, np.int16), scale=2.0 ** -10) if layer_norm else -1, -1, -1, -1]
    if cifg:  # no input gate: its weights and bias omitted
        inputs[1] = inputs[5] = inputs[12] = -1
    y = b.tensor(major + (units,), scale=h_scale, zero_point=h_zp)
    b.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], fused_activation_function=activation,
         cell_clip=case["cell_clip"], time_major=case["time_major"])
    b.inputs, b.outputs = [x] + ([] if variable_state else [h, c]), [y]
    return b.build(), major + (n_in,), h, c


def random_runs(case, shape) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(case["seed"] + 1)
    return [[rng.integers(-128, 128, size=shape).astype(np.int8)] for _ in range(RUNS)]


def initial_state(graph, params) -> dict[int, np.ndarray]:
    """TFLite Micro's ResetVariableTensors: an int8 variable holds its zero point, the int16 cell 0."""
    h, c = graph.tensors[params.output_state], graph.tensors[params.cell_state]
    return {h.index: np.full(h.shape, h.zero_point, np.int8), c.index: np.zeros(c.shape, np.int16)}


def assert_kernel_matches_tflm(case) -> list[np.ndarray]:
    """The reference kernel alone, its state dict carried over the runs, against TFLite Micro's
    output and both variable tensors after every run."""
    model, shape, h, c = build_lstm(case)
    graph = parse_model(model)
    params = lstm.prepare(graph, graph.ops[0])
    kernel = UnidirectionalSequenceLstm(params)
    state = initial_state(graph, params)
    runs = random_runs(case, shape)
    theirs = run_tflm_sequence(model, runs, num_outputs=1, tensors=[h, c])
    outputs = []
    for r, (inputs, (tflm_outputs, tflm_state)) in enumerate(zip(runs, theirs)):
        outputs.append(kernel.run(*inputs, state=state))
        for what, ours, expected in (("output", outputs[-1], tflm_outputs[0]), ("output state", state[h], tflm_state[h]),
                                     ("cell state", state[c], tflm_state[c])):
            expected = np.asarray(expected).reshape(ours.shape)
            assert ours.dtype == expected.dtype, (what, ours.dtype, expected.dtype)
            if not np.array_equal(ours, expected):
                first = tuple(np.argwhere(ours != expected)[0])
                raise AssertionError(f"run {r}, {what}: {int((ours != expected).sum())} of {ours.size} differ; first "
                                     f"at {first}: ours {ours[first]} vs TFLite Micro {expected[first]}")
    return outputs


@settings(max_examples=80, deadline=None)
@given(lstm_cases())
def test_lstm_kernel_and_state_bit_exact(case):
    assert_kernel_matches_tflm(case)


@settings(max_examples=15, deadline=None)
@given(lstm_cases())
def test_lstm_interpreter_sequence_bit_exact(case):
    """The whole path: reader, plan, the reference interpreter's state memory across runs."""
    model, shape, _, _ = build_lstm(case)
    assert_sequence_matches_tflm(model, random_runs(case, shape))


EXPLICIT = [
    # MNIST-LSTM-like: one sequence of 6 steps of 16 features, 16 units
    dict(batch=1, steps=6, input_size=16, units=16, time_major=False, cell_clip=0.0, cell_power=-11, gain=1.0,
         seed=1),
    # two rows, time-major, clipped cell
    dict(batch=2, steps=4, input_size=5, units=7, time_major=True, cell_clip=1.5, cell_power=-12, gain=3.0, seed=2),
    # tanh(cell) with a right shift (cell scale 2^-15) and saturating gates
    dict(batch=2, steps=3, input_size=3, units=4, time_major=False, cell_clip=0.0, cell_power=-15, gain=30.0, seed=3),
]


def test_a_clip_below_one_cell_unit_still_clips():
    """TFLite Micro clips whenever the float cell clip is positive: one that quantizes to 0 holds
    the cell at 0, so every run gives the same output."""
    case = dict(batch=1, steps=3, input_size=4, units=3, time_major=False, cell_clip=1e-9, cell_power=-12, gain=2.0,
                seed=4)
    outputs = assert_kernel_matches_tflm(case)
    assert all(np.array_equal(outputs[0], o) for o in outputs)


@pytest.mark.parametrize("case", EXPLICIT)
def test_lstm_explicit(case):
    outputs = assert_kernel_matches_tflm(case)
    assert len(np.unique(np.concatenate([o.ravel() for o in outputs]))) > 3
    assert not np.array_equal(outputs[0], outputs[1])  # the state carried over changes the next run


def _probe(kind: str, input_scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Every int16 through TFLite Micro's int16 `kind` at a power-of-two input scale."""
    x = np.arange(-32768, 32768, dtype=np.int16).reshape(1, -1)
    b = ModelBuilder()
    i = b.tensor(x.shape, dtype="int16", scale=input_scale)
    o = b.tensor(x.shape, dtype="int16", scale=2.0 ** -15)
    b.op(kind, [i], [o])
    b.inputs, b.outputs = [i], [o]
    (out,), _ = run_tflm(b.build(), [x], num_outputs=1)
    return x.reshape(-1), np.asarray(out).reshape(-1)


def test_int16_sigmoid_every_input():
    x, expected = _probe("LOGISTIC", 2.0 ** -12)
    np.testing.assert_array_equal(sigmoid_int16(x), expected)


@pytest.mark.parametrize("left_shift", [0, 1])
def test_int16_tanh_every_input(left_shift):
    """tanh reads each table entry exactly at multiples of 256, so this checks the whole table."""
    x, expected = _probe("TANH", 2.0 ** (left_shift - 12))
    np.testing.assert_array_equal(tanh_int16(x, left_shift), expected)


def test_lstm_macs_and_scratch():
    case = EXPLICIT[1]
    graph = parse_model(build_lstm(case)[0])
    params = lstm.prepare(graph, graph.ops[0])
    assert macs(lstm.KIND, params) == 2 * 4 * 4 * 7 * (5 + 7)
    assert lstm.SPEC.scratch(params) == 5 + 7


@pytest.mark.parametrize("variant, message", [
    (dict(cifg=True), "TFLite Micro runs no CIFG LSTM"),
    (dict(peephole=True), "a peephole LSTM"),
    (dict(projection=True), "a projection"),
    (dict(layer_norm=True), "layer normalization"),
])
def test_lstm_variants_refused_like_tflm(variant, message):
    """TFLite Micro's LSTM is the standard one; it refuses these models too."""
    model, shape, _, _ = build_lstm(EXPLICIT[1], **variant)
    with pytest.raises(ModelError, match=message):
        graph = parse_model(model)
        lstm.prepare(graph, graph.ops[0])
    assert assert_matches_or_refused_like_tflm(model, random_runs(EXPLICIT[1], shape)[0]) is None


@pytest.mark.parametrize("variant, message", [
    (dict(per_channel=True), "one scale"),
    (dict(activation=1), "cell gate activation 1 is not supported"),
    (dict(variable_state=False), "must be a variable tensor"),
])
def test_lstm_refusals(variant, message):
    """Per-channel weights (TFLite Micro would use an unset multiplier), a cell gate activation
    TFLite Micro does not evaluate, state that is not a variable."""
    model, _, _, _ = build_lstm(EXPLICIT[1], **variant)
    with pytest.raises(ModelError, match=message):
        graph = parse_model(model)
        lstm.prepare(graph, graph.ops[0])


def test_lstm_float_refused():
    model, _, _, _ = build_lstm(EXPLICIT[0], input_dtype="float32")
    with pytest.raises(ModelError):
        graph = parse_model(model)
        lstm.prepare(graph, graph.ops[0])


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("case", EXPLICIT)
def test_lstm_c_kernel_host(tmp_path, case):
    """vmcu_lstm_s8 built with the sanitizers, over the validation's sequence of runs (state carried
    in the state region), against the reference interpreter and TFLite Micro."""
    from vmcu_tflite.validate.run import validate
    from vmcu_tflite.validate.targets import SANITIZED_HOST

    path = tmp_path / "lstm.tflite"
    path.write_bytes(build_lstm(case)[0])
    v = validate(path, SANITIZED_HOST, seed=case["seed"], planner="vmcu")
    assert v.status == 0
    assert v.matches_reference and v.matches_tflm
