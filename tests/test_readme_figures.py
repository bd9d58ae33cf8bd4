"""README's memory figures are what the code computes today (benchmarks/memory.py's numbers).

The headline table and the sentence under it are recomputed from the shared models: a figure
that no longer matches the code fails here instead of misleading a reader.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.memory import tinyengine_style_bytes
from reference.inputs import random_inputs
from vmcu_tflite.oracle import tflm_arena_bytes
from vmcu_tflite.pipeline import compile_model

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "models"
ROWS = {"MCUNet-320KB-ImageNet": "mcunet-320kb-1mb_imagenet", "MCUNet-VWW": "mcunet-vww1",
        "MLPerf Tiny KWS DS-CNN": "mlperf-kws-dscnn", "MLPerf Tiny AD01": "mlperf-ad01",
        "TFLite Micro person detection": "tflm-person_detect"}
# the plans of the shared models, made once per run with the other modules that plan them alike (tests/conftest.py)
pytestmark = [pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/models is absent"),
              pytest.mark.usefixtures("shared_plans")]
README = " ".join((ROOT / "README.md").read_text().split())


def _number(text: str) -> int:
    return int(re.match(r"[\d,]+", text.strip()).group(0).replace(",", ""))


@pytest.mark.parametrize("row", sorted(ROWS))
def test_headline_row(row):
    line = re.search(rf"\| {re.escape(row)} \|([^|]+)\|([^|]+)\|([^|]+)\|([^|]+)\|([^|]+)\|", README)
    assert line, row
    head, whole, unfused, fused, share = (cell.strip() for cell in line.groups())
    path = SHARED / f"{ROWS[row]}.tflite"
    program = compile_model(path)
    layers = compile_model(path, fuse=False).plan
    arena = tflm_arena_bytes(path.read_bytes(), random_inputs(program.graph, 0))["head"]
    assert [_number(head), _number(whole), _number(unfused), _number(fused)] == [
        arena, program.plan.tensor_level_bytes, layers.pool_bytes, program.plan.pool_bytes]
    assert share == f"{program.plan.pool_bytes / arena:.1%}"


def test_the_sentence_under_the_table():
    imagenet = SHARED / "mcunet-320kb-1mb_imagenet.tflite"
    macs = compile_model(imagenet).plan.macs
    assert f"({macs:,} for MCUNet-320KB-ImageNet)" in README
    expected = (f"needs {tinyengine_style_bytes(imagenet):,} bytes for MCUNet-320KB-ImageNet and "
                f"{tinyengine_style_bytes(SHARED / 'mcunet-vww1.tflite'):,} for MCUNet-VWW")
    assert expected in README


def test_the_streaming_sentence():
    """The camera section's pool, streamed and whole, and streamed with recomputation, is what the
    planner gives today."""
    imagenet = SHARED / "mcunet-320kb-1mb_imagenet.tflite"
    whole, streamed = compile_model(imagenet).plan, compile_model(imagenet, stream_inputs=[0]).plan
    recomputing = compile_model(imagenet, stream_inputs=[0], recompute=True).plan
    assert f"a {streamed.pool_bytes:,}-byte pool instead of {whole.pool_bytes:,}, at the model's own MACs" in README
    assert f"{recomputing.pool_bytes:,} with `--allow-recompute`" in README
    assert streamed.macs == whole.macs
