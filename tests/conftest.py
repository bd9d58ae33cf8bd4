"""What the tests of a run share: the runtime compiled once per configuration, conversions.

Validation builds (vmcu_tflite/validate) compile the C runtime in every CMake project they make;
with $VMCU_RUNTIME_CACHE they compile it once per configuration and archive those objects
(vmcu_tflite/validate/runtime_cache.py). The run's cache is a fresh folder that every xdist
worker shares (one compiles an entry while the others wait for it), so no build of an earlier
run is reused; the vmcu-validate processes the tests start inherit it.

`shared_conversions` lets a test's vmcu-run reuse the program an earlier test of the same worker
converted from the same model file with the same arguments (planning a recurrent fixture takes
seconds; running it, a fraction of that). Only tests that ask for it share: a test that patches the
converter's internals must convert afresh.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import vmcu_reference.cli
from vmcu_tflite.validate.runtime_cache import ENVIRONMENT

_CONVERTED: dict[tuple, object] = {}


@pytest.fixture(scope="session", autouse=True)
def runtime_cache(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base folder is inside the run's own: the workers share that one.
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVIRONMENT, str(run / "vmcu-runtime-cache"))
        yield


@pytest.fixture
def shared_conversions(monkeypatch):
    """vmcu-run's `convert` remembers its programs for the rest of the worker's session, keyed by the
    model file's path and bytes and every argument. A program is not changed by running it (each
    run builds its own interpreter and state), so the later tests run exactly what a fresh
    conversion would give them: conversion is deterministic (tests/planner/test_vmcu_plans.py, tests/c/test_qemu.py)."""
    convert = vmcu_reference.cli.convert

    def shared(model, **options):
        if not isinstance(model, (str, os.PathLike)):
            return convert(model, **options)
        key = (os.fspath(model), Path(model).read_bytes(), repr(sorted(options.items())))
        if key not in _CONVERTED:
            _CONVERTED[key] = convert(model, **options)
        return _CONVERTED[key]

    monkeypatch.setattr(vmcu_reference.cli, "convert", shared)
