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
kernels' internals must plan afresh. The plans are shared with the run's other workers too, as plan.json
files in the run's folder (a Program does not pickle): the first worker that needs one plans it, the
others rebuild the Program from it (`program_for_plan`: a fraction of a second where planning a
streamed recurrent fixture takes tens of seconds).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Callable

import numpy as np

import pytest

import vmcu_reference.cli
import vmcu_tflite.api
import vmcu_tflite.validate.run
from vmcu_tflite.kernels import widened_weights
from vmcu_tflite.kernels.tuning import TUNINGS
from vmcu_tflite.pipeline import Program, compile_model, program_for_plan
from vmcu_tflite.plan import load_plan
from vmcu_tflite.planner.planners import PLANNERS
from vmcu_tflite.reader import parse_model, read_model
from vmcu_tflite.validate.runtime_cache import ENVIRONMENT, fcntl, made_once

_PLANS: dict[tuple, Program] = {}
_RUN_PLANS: list[Path] = []  # the run's folder of shared plans (`run_plans`), once the session has one
SHARED_FILES = ("plan.json", "buffers.json")  # in an entry of that folder, where the plan rebuilds as planned


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


@pytest.fixture(scope="session", autouse=True)
def run_plans(run_folder):
    """Where `shared_compile` shares plans with the run's other workers."""
    _RUN_PLANS.append(run_folder / "vmcu-plans")
    yield
    _RUN_PLANS.clear()


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
        _PLANS[key] = _planned_once(model, key, lambda: compile_model(model, planner, fuse, recompute, tuning,
                                                                       stream_inputs, stream_outputs, widened))
    return _PLANS[key]


def _planned_once(model, key: tuple, plan: Callable[[], Program]) -> Program:
    """`plan()`, made by the first worker of the run that asks for `key` (a `shared_compile` key), the
    others rebuilding the Program from its plan.json. The first checks that the rebuilt Program
    equals its own before sharing it; where it does not, every worker plans afresh."""
    if not _RUN_PLANS or fcntl is None:  # no locks: no sharing
        return plan()
    entry = _RUN_PLANS[0] / _digest(key)
    made: list[Program] = []

    def make() -> str:
        made.append(plan())
        saved = _saved(made[0])
        if not _same(_rebuilt(model, *saved), made[0]):
            return "afresh\n"
        entry.mkdir(parents=True, exist_ok=True)
        for name, text in zip(SHARED_FILES, saved):
            (entry / name).write_text(text)
        return "shared\n"
    shared = made_once(entry, make) == "shared\n"
    if made:
        return made[0]
    return _rebuilt(model, *((entry / name).read_text() for name in SHARED_FILES)) if shared else plan()


def _digest(key: tuple) -> str:
    """A file name for a `shared_compile` key: its model's name and bytes (as their digest) and
    every argument."""
    source, *arguments = key
    name, data = ("", source) if isinstance(source, bytes) else source
    text = repr((name, hashlib.sha256(data).hexdigest(), *arguments))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _saved(program: Program) -> tuple[str, str]:
    """What rebuilds `program`: its plan.json, and its buffers' element sizes and wrapping, which
    the planner placed them by and plan.json leaves out."""
    buffers = {t: [b.align, b.wraps] for t, b in program.plan.buffers.items()}
    return program.plan.dumps(program.graph), json.dumps(buffers)


def _rebuilt(model, plan_json: str, buffers_json: str) -> Program:
    """The Program of `model` (a path or bytes, read as `compile_model` reads it) for a saved plan."""
    graph = parse_model(model) if isinstance(model, bytes) else read_model(model)
    program = program_for_plan(graph, load_plan(plan_json))
    placed = {int(t): placed for t, placed in json.loads(buffers_json).items()}
    buffers = {t: dataclasses.replace(b, align=placed[t][0], wraps=placed[t][1]) if t in placed else b
               for t, b in program.plan.buffers.items()}
    return dataclasses.replace(program, plan=dataclasses.replace(program.plan, buffers=buffers))


def _same(a, b) -> bool:
    """Whether two Programs (or any of their parts) hold the same values: dataclasses field by field
    (some of the kernels' compare by identity), mappings by key, arrays by dtype, shape and value."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "keys"):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


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
