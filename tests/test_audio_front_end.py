"""models/audio_preprocessor.tflite: micro_speech's audio preprocessor, written by
models/audio_front_end.py. The committed bytes are what the generator writes; TFLite Micro runs the
model and its features follow the input; its tables are the ones the signal op wrappers compute."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.oracle import run_tflm_sequence
from vmcu_tflite.pipeline import compile_model

MODELS = Path(__file__).resolve().parents[1] / "models"
sys.path.insert(0, str(MODELS))
import audio_front_end as front_end  # noqa: E402

FIXTURE = MODELS / "audio_preprocessor.tflite"


def frames() -> list[np.ndarray]:
    """Silence, a quiet and a loud 1 kHz tone, full-scale noise, an impulse: [1, 480] int16 each."""
    t = np.arange(480) / front_end.SAMPLE_RATE
    impulse = np.zeros(480)
    impulse[100] = 32767
    rng = np.random.default_rng(3)
    return [np.asarray(x, dtype=np.int64).astype(np.int16).reshape(1, 480) for x in
            (np.zeros(480), np.round(300 * np.sin(2 * np.pi * 1000 * t)),
             np.round(30000 * np.sin(2 * np.pi * 1000 * t)),
             rng.integers(-32768, 32768, 480), impulse)]


def test_the_fixture_is_what_the_generator_writes():
    assert FIXTURE.read_bytes() == front_end.audio_preprocessor(ModelBuilder)


def test_tables_of_the_default_feature_params():
    start, end, weights, unweights, freq_starts, weight_starts, widths = front_end.filter_bank_tables(257)
    assert (start, end) == (5, 241)  # 125 Hz and the 7500 Hz channel's last bin, at 31.25 Hz a bin
    assert weights.size == unweights.size == int(weight_starts[-1] + widths[-1])
    assert np.all((weights >= 0) & (weights <= 4096)) and np.all(widths % front_end.BLOCK_SIZE == 0)
    window = front_end.hann_window_weights()
    assert window.dtype == np.int16 and np.array_equal(window, window[::-1]) and window.max() == 4096
    lut = front_end.pcan_gain_lut()
    assert lut.size == 125 and lut[0] == 32636  # 2^21 * 80^-0.95


def test_tflite_micro_runs_it_and_the_features_follow_the_input():
    runs = [[x] for x in frames()]
    outputs = [o[0].reshape(-1) for o, _ in run_tflm_sequence(FIXTURE.read_bytes(), runs, 1)]
    assert all(o.dtype == np.int8 and o.shape == (40,) for o in outputs)
    assert len({o.tobytes() for o in outputs}) == len(outputs)
    assert np.all(outputs[0] == -128)  # silence
    tone = np.argsort(outputs[2])[-4:]  # a 1 kHz tone lights the channels around 1 kHz
    assert set(tone.tolist()) <= set(range(8, 16))


def test_bit_exact_over_a_sequence_in_the_interpreter():
    """The noise estimate carries from frame to frame, as in TFLite Micro."""
    model = FIXTURE.read_bytes()
    runs = [[x] for x in frames()]
    interpreter = Interpreter(compile_model(model))
    ours = [interpreter.run(r).outputs[0].reshape(-1) for r in runs]
    theirs = [o[0].reshape(-1) for o, _ in run_tflm_sequence(model, runs, 1)]
    assert [o.tolist() for o in ours] == [t.tolist() for t in theirs]


def test_every_wide_tensor_is_aligned_and_whole_in_the_plan():
    """The int16, int32, uint32 and uint64 tensors start at multiples of their element size and never
    cross the end of the pool, in both planners."""
    for planner in ("tensor", "vmcu"):
        program = compile_model(FIXTURE.read_bytes(), planner)
        sizes = {np.dtype(program.graph.tensors[t].dtype).itemsize for t in program.plan.offsets if t >= 0}
        assert sizes >= {1, 2, 4, 8}
        for t, offset in program.plan.offsets.items():
            if t < 0:
                continue
            size = np.dtype(program.graph.tensors[t].dtype).itemsize
            assert offset % size == 0 and offset + program.plan.buffers[t].size <= program.plan.pool_bytes, (planner, t)
