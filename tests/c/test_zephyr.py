"""The Zephyr example (examples/zephyr, with this repository as a Zephyr module) built against
Zephyr 4.1 and run on QEMU, bit-exact, on each Zephyr target's board.

The Zephyr source is ../shared/zephyr (a trimmed Zephyr workspace as a tarball): the tests skip
when it or the tools are absent. The tree is extracted, and the build's Python environment made
(when this Python lacks its packages), once per test module (VMCU_CACHE_DIR points into the
session's temporary folder). One small model per board keeps the builds few: Zephyr's minimal
libc makes each about 15 s.
"""
from __future__ import annotations

import contextlib
import io
import shutil

import pytest

from tests.models_under_test import ROOT
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.validate import main as validate_main
from vmcu_tflite.errors import EXIT_BAD_INPUT
from vmcu_tflite.validate.cache import cache_dir
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import TARGETS
from vmcu_tflite.validate.zephyr import TARBALL, TOOLS

ZEPHYR = ROOT.parent / "shared" / "zephyr"
pytestmark = pytest.mark.skipif(not (ZEPHYR / TARBALL).is_file() or not all(shutil.which(t) for t in TOOLS),
                                reason=f"no {ZEPHYR / TARBALL}, or cmake, ninja, dtc, arm-none-eabi-gcc or qemu missing")


@pytest.fixture(scope="module")
def zephyr_cache(tmp_path_factory):
    """One cache for the module's builds: extracted once, its Python environment made once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VMCU_CACHE_DIR", str(tmp_path_factory.mktemp("zephyr-cache")))
        patch.delenv("VMCU_ZEPHYR_BASE", raising=False)
        yield cache_dir()


def _bit_exact_in_a_thread(model, target, work):
    result = validate(model, TARGETS[target], work=work)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is not False
    m = result.measurements
    assert m["pool_bytes"] == result.pool_bytes
    assert 0 < m["stack_bytes"] <= m["thread_stack_reserved_bytes"]
    assert m["zephyr_data_bss_bytes"] > 0 and m["flash_bytes"] > m["flash_model_bytes"] > 0
    return m


def test_a_model_with_state_runs_a_sequence_bit_exact_on_the_cortex_m4(zephyr_cache, tmp_path):
    """The SVDF fixture's state carries across 3 runs in the thread; -O3 and hosted, its
    vmcu_invoke() costs what the bare-metal harness's does on the same board (BENCHMARKS.md)."""
    m = _bit_exact_in_a_thread(ROOT / "models" / "svdf_keyword.tflite", "zephyr-qemu-cortex-m4", tmp_path)
    assert m["instructions"] > 0


def test_kws_like_runs_bit_exact_on_the_cortex_m3(zephyr_cache, tmp_path):
    _bit_exact_in_a_thread(ROOT / "models" / "kws_like.tflite", "zephyr-qemu-cortex-m3", tmp_path)


def test_kws_like_runs_bit_exact_with_helium_on_the_cortex_m55(zephyr_cache, tmp_path):
    m = _bit_exact_in_a_thread(ROOT / "models" / "kws_like.tflite", "zephyr-qemu-cortex-m55", tmp_path)
    # extracted once, for the module's three builds
    assert len([p for p in zephyr_cache.iterdir() if p.name.startswith("zephyr-")
                and p.name != "zephyr-venv" and p.name != "zephyr-user-cache"]) == 1
    assert m["instructions"] > 0


def test_no_zephyr_source_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("VMCU_ZEPHYR_BASE", str(tmp_path / "nowhere"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run_tool("vmcu-validate", validate_main, [str(ROOT / "models" / "kws_like.tflite"),
                                                          "--target", "zephyr-qemu-cortex-m4"])
    assert code == EXIT_BAD_INPUT
    assert err.getvalue().count("\n") == 1 and "no Zephyr source in $VMCU_ZEPHYR_BASE" in err.getvalue(), err.getvalue()
