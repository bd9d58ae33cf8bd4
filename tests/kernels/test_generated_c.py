"""The generated C of every fixture and shared model, pinned by SHA-256 in `generated_c.sha256`.

Refactoring the C generator (the lowering of the kernel descriptions, the codegen around it) must
not change a byte of what it writes: this module converts every model in models/ and in
../shared/models (skipped when absent) for each kernel tuning with the default plan, and the shared
image models also with their first input streamed and with recomputation allowed, and compares the
SHA-256 of each generated file (the model's .c and .h and its CMakeLists.txt; not the runtime copied
beside them) with the checked-in manifest.

A change that is meant to change the generated C (a faster kernel, a new comment) regenerates the
manifest on purpose, and the diff of the manifest shows which models it touched:

    python -m tests.kernels.test_generated_c --write

A model the converter refuses is recorded as refused, so a model that starts or stops converting
shows up too.
"""
from __future__ import annotations

import hashlib
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS
from vmcu_tflite.codegen.project import render_project
from vmcu_tflite.errors import ModelError
from vmcu_tflite.kernels.tuning import TUNINGS
from vmcu_tflite.pipeline import compile_model

MANIFEST = Path(__file__).with_name("generated_c.sha256")
IMAGE_MODELS = ("mcunet-320kb-1mb_imagenet", "mcunet-vww1", "tflm-person_detect")
PLANS = {"default": {}, "streamed": {"stream_inputs": [0]}, "recompute": {"recompute": True}}
REFUSED = "refused"


def cases(models) -> list[tuple[Path, str, str]]:
    """(model, tuning, plan name) of every conversion the manifest pins."""
    return [(model, tuning, plan) for model in models for tuning in TUNINGS
            for plan in PLANS if plan == "default" or model.stem in IMAGE_MODELS]


def case_name(model: Path, tuning: str, plan: str) -> str:
    return f"{model.stem}/{tuning}/{plan}"


def digests(model: Path, tuning: str, plan: str) -> dict[str, str]:
    """Case-qualified file name -> SHA-256 of the generated file (or REFUSED for the whole case)."""
    name = case_name(model, tuning, plan)
    try:
        program = compile_model(model, tuning=tuning, **PLANS[plan])
    except ModelError:
        return {name: REFUSED}
    return {f"{name}/{file}": hashlib.sha256(text.encode()).hexdigest()
            for file, text in sorted(render_project(program).items())}


def read_manifest() -> dict[str, str]:
    entries = {}
    for line in MANIFEST.read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        entries[name] = digest
    return entries


def _digests(case) -> dict[str, str]:
    return digests(*case)


def write_manifest(workers: int = 2) -> None:
    """Regenerate the manifest from the present generator (intended changes of the generated C only)."""
    every = cases(FIXTURES + REAL_MODELS)
    entries: dict[str, str] = {}
    with ProcessPoolExecutor(workers) as pool:
        for found in pool.map(_digests, every):
            entries.update(found)
    MANIFEST.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(entries.items())))
    print(f"{len(every)} conversions, {len(entries)} entries -> {MANIFEST.name}")


@pytest.mark.parametrize("case", cases(FIXTURES + REAL_MODELS), ids=lambda c: case_name(*c))
def test_generated_c_is_unchanged(case, shared_plans):
    """Plans shared with the worker's other tests (planning is deterministic): what is pinned is
    the C generated from them."""
    name = case_name(*case)
    pinned = {key: digest for key, digest in read_manifest().items() if key == name or key.startswith(name + "/")}
    assert pinned, f"{name} is not in {MANIFEST.name}: regenerate it with --write"
    assert digests(*case) == pinned


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python -m tests.kernels.test_generated_c --write\n\n{__doc__}")
    write_manifest()
