"""Mutated fixtures end cleanly: refused in one line, or accepted, hazard-free and bit-exact.

Runs `python -m tests.fuzz.run` (see tests/fuzz/run.py for what counts as a finding) in its own
process, for VMCU_FUZZ_SECONDS (default 60) from seed VMCU_FUZZ_SEED (default 0). Raise both to
search longer; a finding prints its seed, and `tests.fuzz.mutants.mutate` rebuilds the model.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.mutants import INT16_SHARE

ROOT = Path(__file__).resolve().parent.parent
SECONDS = float(os.environ.get("VMCU_FUZZ_SECONDS", "60"))
SEED = int(os.environ.get("VMCU_FUZZ_SEED", "0"))
FEWEST_CASES = 300  # a run that manages fewer has become too slow to search anything


def test_mutated_models_end_cleanly():
    proc = subprocess.run([sys.executable, "-m", "tests.fuzz.run", "--seed", str(SEED), "--cases", "1000000",
                           "--seconds", str(SECONDS)], cwd=ROOT, capture_output=True, text=True,
                          timeout=SECONDS + 600)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, proc.stderr[-3000:]
    summary, findings = lines[-1], lines[:-1]
    assert proc.returncode == 0 and summary["findings"] == 0, "\n".join(json.dumps(f) for f in findings[:20])
    assert summary["cases"] >= FEWEST_CASES, summary


def test_the_runner_reports_what_it_should(monkeypatch):
    """A clean refusal is no finding; an escaping exception and a hang are."""
    from tests.fuzz import run
    assert run.check(b"not a model at all") is None

    def broken(data, tuning):
        raise KeyError(3)

    monkeypatch.setattr(run, "compile_model", broken)
    kind, detail = run.check(b"")
    assert kind == "traceback" and "KeyError" in detail

    def hung(data, tuning):
        while True:
            pass

    monkeypatch.setattr(run, "compile_model", hung)
    monkeypatch.setattr(run, "CASE_SECONDS", 1)
    assert run.check(b"")[0] == "hang"


# (fixture, seed) of findings fixed since: each must now end cleanly (rebuilt as found, before the int16 mutations).
PAST_FINDINGS = [
    ("svdf_keyword.tflite", 7000240),  # SVDF's state tensor typed VARIANT: a TypeError sizing it, now a one-line refusal
    ("detector_tile.tflite", 7005854),  # a per-tensor scale's axis 4 of 4 dimensions: LiteRT (the oracle) refused it
    ("lstm_sequence.tflite", 11004335),  # a state tensor's buffer index one past the last: never read, TFLM refused it
    ("detector_tile.tflite", 23001260),  # a RESHAPE's shape input an int8 activation: LiteRT reshaped to its values
    ("detector_tile.tflite", 23000622),  # tensor names no longer UTF-8: LiteRT failed decoding them
    ("detector_tile.tflite", 23007354),  # CONV_2D at version 33554435: LiteRT's resolver had no such version
    ("detector_tile.tflite", 23008080),  # a vtable's size past the buffer: LiteRT's verifier refused it
    ("dynamic_batch.tflite", 23010502),  # a STRIDED_SLICE from INT32 into INT64, folded: TFLite Micro refused it
    ("detector_tile.tflite", 23016330),  # a bias with 6 scales and an empty zero point vector: LiteRT refused it
    ("detector_tile.tflite", 23018970),  # a RESHAPE's shape input omitted (-1): LiteRT crashed reading it
    ("detector_tile.tflite", 25008108),  # a bias with 15 scales for 16 channels: LiteRT refused it
    ("lstm_sequence.tflite", 26008274),  # an LSTM intermediate typed STRING: TFLite Micro could not allocate it
    ("lstm_unrolled.tflite", 9764),  # placement took 18 s proving pools impossible: now 2 units per plan
    ("ssd_detector.tflite", 7999),  # a constant TILE's multiple of 2**23: 1 GiB tiled before its shape was checked
    ("ssd_postprocess_regular.tflite", 7073),  # an empty decoded box stops the run, as in TFLite Micro: no traceback
    ("stateful_stream.tflite", 1000161),  # a variable handle of 256 elements: TFLite Micro's ASSIGN_VARIABLE refused it
    ("stateful_stream.tflite", 1000208),  # the initialisation subgraph's outputs past its tensors: TFLite Micro crashed
    ("stateful_stream.tflite", 7001072),  # BATCH_MATMUL reading a variable handle: a StopIteration in its kernel
]


# The same, found since the int16 mutations came (rebuilt with them).
INT16_FINDINGS = [
    ("autoencoder_16x8.tflite", 100000685),  # an int16 activation with a scale per channel: an AssertionError
    ("sixteen_by_eight.tflite", 102),  # an int16 CONCATENATION's zero point -32768: TFLite Micro refused it
    ("sixteen_by_eight.tflite", 583),  # the same on an input: TFLite Micro refused it
    ("lstm_sequence_16x8.tflite", 131),  # a 16x8 FULLY_CONNECTED's bias scale x100: TFLite Micro refused it
    ("mixed_int8_int16.tflite", 5720),  # the same after its output scale x0.01: TFLite Micro refused it
    ("kws_dscnn_16x8.tflite", 100001036),  # an int16 SOFTMAX's beta NaN: a ValueError
    ("sixteen_by_eight.tflite", 5948),  # the int16 side of the input QUANTIZE unquantized: an AssertionError
    ("audio_preprocessor.tflite", 2517),  # a CAST's in_data_type -2: TFLite Micro's parser refused it
    ("lstm_sequence_16x8.tflite", 4016),  # an int16 LSTM's input without quantization: an AssertionError
    ("elementwise16.tflite", 2860),  # an int16 RELU's output scale x1/3: its multiplier from a float32 ratio, 1 off
    ("ssd_postprocess.tflite", 5848),  # int8 anchors' zero point -2**40, 0 in TFLite Micro: it failed on empty boxes
]


@pytest.mark.parametrize("name, seed, share", [(*f, 0) for f in PAST_FINDINGS] + [(*f, INT16_SHARE)
                                                                                  for f in INT16_FINDINGS])
def test_past_findings_end_cleanly(name, seed, share):
    from tests.fuzz import run
    from tests.fuzz.mutants import mutate
    mutant = mutate((ROOT / "models" / name).read_bytes(), seed, name, int16_share=share)
    assert run.check(mutant.data, "dsp") is None and run.check(mutant.data, "helium") is None


@pytest.mark.parametrize("name, seed, refusal", [
    ("detector_tile.tflite", 23008080, "corrupt or truncated TFLite flatbuffer"),
    ("dynamic_batch.tflite", 23010502, "operator STRIDED_SLICE at index 2 copies tensor 9's INT32 elements into its "
                                       "INT64 output"),
    ("detector_tile.tflite", 23016330, "tensor 6 has 6 scales and 0 zero points"),
    ("detector_tile.tflite", 23018970, "operator RESHAPE at index 7 omits its shape input (-1)"),
    ("detector_tile.tflite", 25008108, "has 15 scales along dimension 0 of shape (16,)"),
    ("lstm_sequence.tflite", 26008274, "intermediate tensor 20 'input_to_output_intermediate' has type STRING"),
])
def test_past_findings_are_refused_in_one_line(name, seed, refusal):
    """Those of the findings above that the converter now refuses, without an oracle: what the
    oracle refused or crashed on is refused up front, with the line that says why."""
    from tests.fuzz.mutants import mutate
    from vmcu_tflite.errors import VmcuError
    from vmcu_tflite.pipeline import compile_model
    mutant = mutate((ROOT / "models" / name).read_bytes(), seed, name, int16_share=0)
    with pytest.raises(VmcuError) as refused:
        compile_model(mutant.data)
    assert refusal in str(refused.value) and "\n" not in str(refused.value)
