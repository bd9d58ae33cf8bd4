"""The Mbed example (examples/mbed) built against Mbed CE and run on QEMU, bit-exact.

The Mbed source is ../shared/mbed-ce (a trimmed Mbed CE tree as a tarball): the tests skip when
it or the tools are absent. The tree is extracted, and Mbed's CMake makes its Python environment
in it, once per test session (VMCU_CACHE_DIR points into the session's temporary folder): the
second build reuses both.
"""
from __future__ import annotations

import contextlib
import io
import shutil

import pytest

from tests.models_under_test import ROOT, SHARED
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.validate import main as validate_main
from vmcu_tflite.errors import EXIT_BAD_INPUT
from vmcu_tflite.validate.cache import cache_dir
from vmcu_tflite.validate.mbed import TARBALL, TOOLS
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import TARGETS

MBED_CE = ROOT.parent / "shared" / "mbed-ce"
KWS = SHARED / "mlperf-kws-dscnn.tflite"
pytestmark = pytest.mark.skipif(not (MBED_CE / TARBALL).is_file() or not all(shutil.which(t) for t in TOOLS),
                                reason=f"no {MBED_CE / TARBALL}, or cmake, ninja, arm-none-eabi-g++ or qemu missing")


@pytest.fixture(scope="module")
def mbed_cache(tmp_path_factory):
    """One cache for the module's builds: extracted once, its Python environment made once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VMCU_CACHE_DIR", str(tmp_path_factory.mktemp("mbed-cache")))
        patch.delenv("VMCU_MBED_OS", raising=False)
        yield cache_dir()


@pytest.mark.skipif(not KWS.is_file(), reason="../shared/models/mlperf-kws-dscnn.tflite is absent")
def test_keyword_spotting_runs_bit_exact_in_an_mbed_thread(mbed_cache, tmp_path):
    result = validate(KWS, TARGETS["mbed-qemu-cortex-m4"], work=tmp_path)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is not False
    m = result.measurements
    assert m["pool_bytes"] == result.pool_bytes
    assert 0 < m["stack_bytes"] <= m["thread_stack_reserved_bytes"]
    assert m["mbed_data_bss_bytes"] > 0 and m["flash_bytes"] > 0
    # The instructions of vmcu_invoke() as Mbed's Timer sees them: the bare-metal harness needs
    # 4,991,760 on the same board (BENCHMARKS.md); an unoptimized model library (Mbed's profiles
    # give their -O level only to Mbed's own targets) would need an order of magnitude more. The model
    # has 2,656,768 multiply-accumulates: no run takes fewer instructions than that.
    assert 2_656_768 < m["instructions"] < 6_500_000


def test_the_bare_metal_profile_reuses_the_extracted_tree_and_its_python(mbed_cache, tmp_path):
    trees = [p for p in mbed_cache.iterdir() if p.name.startswith("mbed-ce-")]
    venv = trees[0] / "mbed-os" / "venv" if trees else None
    made = venv.stat().st_mtime_ns if venv is not None and venv.is_dir() else None
    result = validate(ROOT / "models" / "conv_stack.tflite", TARGETS["mbed-baremetal-qemu-cortex-m4"], work=tmp_path)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is not False
    assert "stack_bytes" not in result.measurements  # no thread to watch
    after = [p for p in mbed_cache.iterdir() if p.name.startswith("mbed-ce-")]
    assert len(after) == 1 and (after[0] / "mbed-os" / "venv").is_dir()
    if made is not None:
        assert (after[0] / "mbed-os" / "venv").stat().st_mtime_ns == made


def test_no_mbed_source_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("VMCU_MBED_OS", str(tmp_path / "nowhere"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run_tool("vmcu-validate", validate_main, [str(ROOT / "models" / "conv_stack.tflite"),
                                                          "--target", "mbed-qemu-cortex-m4"])
    assert code == EXIT_BAD_INPUT
    assert err.getvalue().count("\n") == 1 and "no Mbed CE source in $VMCU_MBED_OS" in err.getvalue(), err.getvalue()
