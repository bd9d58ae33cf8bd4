"""Every model through the generated C: sanitized host builds, and MCUNet-320KB on a 128 KB STM32."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import SANITIZED_HOST, TARGETS

ROOT = Path(__file__).resolve().parents[2]
MCUNET = [m for m in REAL_MODELS if m.stem == "mcunet-320kb-1mb_imagenet"]


@pytest.mark.parametrize("model", FIXTURES + REAL_MODELS, ids=lambda p: p.stem)
def test_model_on_sanitized_host(model, tmp_path, shared_plans):
    """The default (fused, segment) plan built with ASan and UBSan: bit-exact, no report."""
    result = validate(model, SANITIZED_HOST, seed=5, work=tmp_path)
    assert result.status == 0
    assert result.matches_reference and result.matches_tflm


@pytest.mark.skipif(not MCUNET, reason="../shared/models is absent")
def test_mcunet_fits_a_128k_stm32(tmp_path, shared_plans):
    result = validate(MCUNET[0], TARGETS["qemu-stm32f405"], seed=1, work=tmp_path)
    assert result.matches_reference and result.matches_tflm
    m = result.measurements
    assert m["pool_bytes"] == result.pool_bytes <= 98_000
    assert m["ram_total_bytes"] <= 131_072, m
    assert m["instructions"] > 81_785_520  # at least one instruction per multiply-accumulate
    # README quotes this run (`vmcu-validate ... --target qemu-stm32f405`): the same figures
    readme = " ".join((ROOT / "README.md").read_text().split())
    quoted = (f"pool {m['pool_bytes']:,} + other `.data`/`.bss` {m['data_bss_without_pool_bytes']:,} + stack "
              f"{m['stack_bytes']:,} + newlib's stdio heap {m['heap_bytes']:,} = {m['ram_total_bytes']:,} bytes")
    assert quoted in readme, quoted
