"""What every test of a run shares: the runtime compiled once per configuration.

Validation builds (vmcu_tflite/validate) compile the C runtime in every CMake project they make;
with $VMCU_RUNTIME_CACHE they compile it once per configuration and archive those objects
(vmcu_tflite/validate/runtime_cache.py). The run's cache is a fresh folder that every xdist
worker shares (one compiles an entry while the others wait for it), so no build of an earlier
run is reused; the vmcu-validate processes the tests start inherit it.
"""
from __future__ import annotations

import os

import pytest

from vmcu_tflite.validate.runtime_cache import ENVIRONMENT


@pytest.fixture(scope="session", autouse=True)
def runtime_cache(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base folder is inside the run's own: the workers share that one.
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVIRONMENT, str(run / "vmcu-runtime-cache"))
        yield
