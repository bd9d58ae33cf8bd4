"""What the tests of a run share: the runtime compiled once per configuration, conversions.

Validation builds (vmcu_tflite/validate) compile the C runtime in every CMake project they make;
with $VMCU_RUNTIME_CACHE they compile it once per configuration and archive those objects
(vmcu_tflite/validate/runtime_cache.py). The run's cache is a fresh folder that every xdist
worker shares (one compiles an entry while the others wait for it), so no build of an earlier
run is reused; the vmcu-validate processes the tests start inherit it. Other builds that every
worker would make alike are made once in the same folder (`run_folder`).

`shared_plans` lets a test reuse the plan an earlier test of the same worker made of the same model
with the same arguments (planning a recurrent fixture takes seconds; running it, a fraction of
that): through vmcu-run (`vmcu_reference.cli.convert`), `validate` and the test module's own
`compile_model` and `convert`. Only tests that ask for it share: a test that patches the planner's or the
kernels' internals must plan afresh.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import vmcu_reference.cli
import vmcu_tflite.api
import vmcu_tflite.validate.run
from vmcu_tflite.kernels import widened_weights
from vmcu_tflite.kernels.tuning import TUNINGS
from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.planner.planners import PLANNERS
from vmcu_tflite.reader import read_model
from vmcu_tflite.validate.runtime_cache import ENVIRONMENT

_PLANS: dict[tuple, Program] = {}


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory) -> Path:
    """The folder this run's workers share (under xdist each worker's base folder is inside the
    run's own), for what one worker makes and the others reuse."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session", autouse=True)
def runtime_cache(run_folder):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVIRONMENT, str(run_folder / "vmcu-runtime-cache"))
        yield


def shared_compile(model, planner: str = "vmcu", fuse: bool = True, recompute: bool = False, tuning: str = "dsp",
                   stream_inputs=(), stream_outputs=(), widened: float | None = None) -> Program:
    """`compile_model`, remembered for the rest of the worker's session, keyed by the model (a file's
    path and bytes, or the bytes) and every argument. Running a program, writing its C or validating
    it does not change it (each run builds its own interpreter and state), so a later test gets what
    a fresh plan would give it: planning is deterministic (tests/planner/test_vmcu_plans.py,
    tests/c/test_qemu.py's test_conversion_is_deterministic)."""
    source = model if isinstance(model, bytes) else (os.fspath(model), Path(model).read_bytes())
    share = widened_weights.WIDENED_SHARE if widened is None else widened  # a test may change the default
    key = (source, planner, fuse, recompute, tuning, tuple(stream_inputs), tuple(stream_outputs), share)
    if key not in _PLANS:
        _PLANS[key] = compile_model(model, planner, fuse, recompute, tuning, stream_inputs, stream_outputs, widened)
    return _PLANS[key]


def _shared_convert(model, **options):
    """`vmcu_tflite.api.convert` over `shared_compile` for a model file planned afresh (no saved plan)
    within no budget; anything else converts as it always does. Streamed ports are named as
    `convert` names them (True or "all": every one)."""
    chosen = {"planner": "vmcu", "fuse": True, "allow_recompute": False, "tuning": "dsp", "stream_inputs": (),
              "stream_outputs": (), "widened_weights": None} | options
    if not isinstance(model, (str, os.PathLike)) or chosen.pop("ram_budget", None) is not None or \
            chosen.pop("plan", None) is not None or chosen["planner"] not in PLANNERS or \
            chosen["tuning"] not in TUNINGS or len(chosen) != 7:
        return vmcu_tflite.api.convert(model, **options)
    graph = read_model(model)
    streamed = [vmcu_tflite.api._ports(chosen[f"stream_{what}s"], len(getattr(graph, f"{what}s")), what)
                for what in ("input", "output")]
    compiled = shared_compile(model, chosen["planner"], chosen["fuse"], chosen["allow_recompute"], chosen["tuning"],
                              *streamed, chosen["widened_weights"])
    return vmcu_tflite.api.Program(compiled, Path(model).read_bytes())


@pytest.fixture
def shared_plans(request, monkeypatch):
    """This test plans through `shared_compile`: vmcu-run, `validate`, and its module's `compile_model`
    and `convert`."""
    monkeypatch.setattr(vmcu_reference.cli, "convert", _shared_convert)
    monkeypatch.setattr(vmcu_tflite.validate.run, "compile_model", shared_compile)
    for name, original, shared in (("compile_model", compile_model, shared_compile),
                                   ("convert", vmcu_tflite.api.convert, _shared_convert)):
        if getattr(request.module, name, None) is original:
            monkeypatch.setattr(request.module, name, shared)
