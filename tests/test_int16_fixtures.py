"""The 16x8 fixtures (int16 activations, int8 weights) while their int16 operators are missing: each runs in
TFLite Micro, and each is refused today in one line naming int16. When one converts, this test fails: remove
it from `AWAITING_INT16` (tests/models_under_test.py) and the fixture tests take it over."""
import numpy as np
import pytest

import vmcu_tflite
from tests.models_under_test import ALL_FIXTURES, AWAITING_INT16
from vmcu_tflite.oracle import run_tflm

PENDING = [path for path in ALL_FIXTURES if path.stem in AWAITING_INT16]
# Each fixture's input type (the mixed model's backbone is int8) and output type.
TYPES = {"kws_dscnn_16x8": (np.int16, np.int16), "autoencoder_16x8": (np.int16, np.int16),
         "lstm_16x8": (np.int16, np.int16), "lstm_sequence_16x8": (np.int16, np.int16),
         "mixed_int8_int16": (np.int8, np.int16)}


def test_every_awaiting_fixture_exists():
    assert sorted(path.stem for path in PENDING) == sorted(AWAITING_INT16)


@pytest.mark.parametrize("model", PENDING, ids=lambda p: p.stem)
def test_refused_in_one_line_naming_int16(model):
    with pytest.raises(vmcu_tflite.ModelError) as refusal:
        vmcu_tflite.convert(model)
    message = str(refusal.value)
    assert "\n" not in message.strip() and "int16" in message, message


@pytest.mark.parametrize("model", PENDING, ids=lambda p: p.stem)
def test_runs_in_tflite_micro(model):
    """The fixture is one TFLite Micro runs, with the stated types, and its output follows its input."""
    from tflite_micro.python.tflite_micro import runtime

    data = model.read_bytes()
    in_type, out_type = TYPES[model.stem]
    shape = tuple(runtime.Interpreter.from_bytes(data).get_input_details(0)["shape"])
    info = np.iinfo(in_type)
    rng = np.random.default_rng(0)
    inputs = [rng.integers(info.min // 2, info.max // 2, shape, endpoint=True).astype(in_type) for _ in range(2)]
    outputs = [run_tflm(data, [x], 1)[0][0] for x in inputs]
    assert outputs[0].dtype == out_type
    assert not np.array_equal(outputs[0], outputs[1])


def test_fused_lstm_carries_its_state_in_tflite_micro():
    """lstm_sequence_16x8's int16 states are variable tensors: the same input twice gives two outputs."""
    from vmcu_tflite.oracle import run_tflm_sequence

    model = next(path for path in ALL_FIXTURES if path.stem == "lstm_sequence_16x8")
    x = np.random.default_rng(1).integers(-16384, 16384, (1, 8, 6), endpoint=True).astype(np.int16)
    (first, _), (second, _) = run_tflm_sequence(model.read_bytes(), [[x], [x]], 1)
    assert not np.array_equal(first[0], second[0])
