"""Whole models through the simulated pool, bit-exact with TFLite Micro.

Runs every fixture in models/ and every real model in ../shared/models (skipped only when that
folder is absent) exactly as a user would: `vmcu-run MODEL --seed N --compare-tflm`.
"""
from __future__ import annotations

import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS
from vmcu_reference.cli import main as run_main
from vmcu_reference.inputs import random_inputs
from vmcu_tflite.oracle import TFLM, oracle_name, tflm_arena_bytes
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.passes import simplify
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import read_model
from vmcu_tflite.state import state_tensors

ALL_MODELS = FIXTURES + REAL_MODELS
SMALL_SEEDS = (1, 7, 12345)


def _id(path):
    return path.stem


def _compare(model, seed, capsys, planner: str = "vmcu") -> None:
    """vmcu-run --compare-tflm; a model with state over a sequence of 3 runs (its state is the
    simplified graph's, the one every plan runs, whatever the planner)."""
    runs = "3" if state_tensors(simplify(read_model(model))) else "1"
    code = run_tool("vmcu-run", run_main, [str(model), "--seed", str(seed), "--compare-tflm", "--planner", planner,
                                           "--runs", runs])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert f"bit-exact with {oracle_name(model.read_bytes())}" in out.out


@pytest.mark.parametrize("planner", ["vmcu", "tensor"])
@pytest.mark.parametrize("seed", SMALL_SEEDS)
@pytest.mark.parametrize("model", FIXTURES, ids=_id)
def test_fixture_bit_exact(model, seed, planner, capsys, shared_plans):
    """Each seed runs the program the first one's vmcu-run converted (the same model, planner and options)."""
    _compare(model, seed, capsys, planner)


@pytest.mark.skipif(not REAL_MODELS, reason="../shared/models is absent")
@pytest.mark.parametrize("model", REAL_MODELS, ids=_id)
def test_real_model_bit_exact(model, capsys, shared_plans):
    seed = 1 + sum(model.name.encode()) % 1000  # a different seed per model, stable across runs
    _compare(model, 1, capsys)
    _compare(model, seed, capsys)
    _compare(model, seed + 1, capsys, "tensor")


# Pool sizes the vMCU planner must reach, without and with fusion (TinyEngine: 247,808 for MCUNet).
UNFUSED_TARGETS = {"mcunet-320kb-1mb_imagenet": 190_000, "mlperf-kws-dscnn": 8_600, "mcunet-vww1": 80_000,
                   "tflm-person_detect": 36_864}
FUSED_TARGETS = {"mcunet-320kb-1mb_imagenet": 97_326, "mcunet-vww1": 21_198, "mlperf-kws-dscnn": 5_200,
                 "tflm-person_detect": 18_000}
MODEL_MACS = {"mcunet-320kb-1mb_imagenet": 81_785_520}


@pytest.mark.skipif(not REAL_MODELS, reason="../shared/models is absent")
@pytest.mark.parametrize("model", [m for m in REAL_MODELS if m.stem in UNFUSED_TARGETS], ids=_id)
def test_vmcu_pool_targets(model, shared_plans):
    unfused = compile_model(model, "vmcu", fuse=False).plan
    assert unfused.pool_bytes <= UNFUSED_TARGETS[model.stem], unfused.pool_bytes
    assert unfused.pool_bytes < unfused.tensor_level_bytes
    fused = compile_model(model, "vmcu").plan
    assert fused.pool_bytes <= FUSED_TARGETS.get(model.stem, unfused.pool_bytes), fused.pool_bytes
    assert fused.macs == unfused.macs == MODEL_MACS.get(model.stem, unfused.macs)


@pytest.mark.skipif(not REAL_MODELS, reason="../shared/models is absent")
@pytest.mark.parametrize("model", REAL_MODELS, ids=_id)
def test_real_model_unfused_bit_exact(model, capsys, shared_plans):
    code = run_tool("vmcu-run", run_main, [str(model), "--seed", "3", "--compare-tflm", "--no-fuse"])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err


@pytest.mark.parametrize("model", [m for m in ALL_MODELS if oracle_name(m.read_bytes()) == TFLM], ids=_id)
def test_tensor_plan_never_exceeds_tflm_head(model, shared_plans):
    program = compile_model(model, "tensor")
    arena = tflm_arena_bytes(model.read_bytes(), random_inputs(program.graph, 0))
    assert program.plan.pool_bytes <= arena["head"], (program.plan.pool_bytes, arena)


def test_fixtures_cover_every_supported_op():
    """The committed fixtures exercise every op the reader accepts."""
    from vmcu_tflite.ops import SUPPORTED_OPS
    from vmcu_tflite.reader import read_model
    seen = {op.kind for model in FIXTURES for op in read_model(model).ops}
    assert SUPPORTED_OPS <= seen, sorted(SUPPORTED_OPS - seen)
