"""The runtime cache (vmcu_tflite/validate/runtime_cache.py) changes where a validation build gets
the runtime's objects, not what it builds: the harness, the model and the runtime are compiled
and linked with the same commands as a build that compiles the runtime copy, and a program
without the sanitizers (whose reports name the source files) comes out byte for byte the same.
The cache's key follows the runtime's files, the CMake arguments and the compiler; a build that
failed is made again.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.c.test_qemu import needs_qemu
from tests.models_under_test import conv_chain
from vmcu_reference.inputs import random_inputs
from vmcu_tflite.codegen.model_c import c_identifier
from vmcu_tflite.codegen.project import runtime_dir, write_project
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.validate.runtime_cache import ENVIRONMENT, READY, build_key, cached_objects
from vmcu_tflite.validate.targets import SANITIZED_HOST, TARGETS, profiled

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


def _build(target, program, work: Path) -> Path:
    prefix = c_identifier(program.plan.model)
    (work / "model").mkdir(parents=True)
    write_project(program, work / "model", prefix)
    inputs = [x.astype(np.int8).reshape(-1) for x in random_inputs(program.graph, 0)]
    return target.build(work, work / "model", prefix, inputs, 0)


def _commands(build: Path, roots: dict[Path, str]) -> dict[str, str]:
    """Each compiled file's command, and each linked target's, with the folders named by `roots`
    and the runtime's objects by their path inside the runtime's build folder (unquoted)."""
    def clean(text: str) -> str:
        for root, name in roots.items():
            text = text.replace(str(root), name)
        return re.sub(r"\S*(CMakeFiles/vmcu_runtime\.dir/)", r"\1", text.replace('"', "")).strip()
    compiled = {clean(c["file"]): clean(c["command"]) for c in json.loads((build / "compile_commands.json").read_text())}
    linked = {clean(str(p.relative_to(build))): clean(p.read_text()) for p in build.rglob("CMakeFiles/*.dir/link.txt")}
    return {**compiled, **linked}


@pytest.mark.parametrize("target", [SANITIZED_HOST, pytest.param(profiled(TARGETS["qemu-cortex-m4"]), marks=needs_qemu)],
                         ids=["sanitized-host", "profiled-qemu-cortex-m4"])
def test_a_build_with_the_cache_compiles_and_links_as_one_without(target, tmp_path, monkeypatch):
    """The sanitizer options and the profiling definition reach the harness and the model through
    the runtime target's usage requirements; the Arm toolchain file is named relative to the folder."""
    target = replace(target, cmake_args=(*target.cmake_args, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"))
    program = compile_model(conv_chain(), tuning=target.tuning)
    with monkeypatch.context() as patch:
        patch.delenv(ENVIRONMENT, raising=False)
        source = _build(target, program, tmp_path / "source")
    monkeypatch.setenv(ENVIRONMENT, os.environ.get(ENVIRONMENT) or str(tmp_path / "cache"))
    cached = _build(target, program, tmp_path / "cached")
    objects = Path(re.search(r'include\("(.+)"\)', (tmp_path / "cached" / "CMakeLists.txt").read_text()).group(1))
    entry = objects.parents[1]
    work = {tmp_path / "source": "<work>", tmp_path / "cached": "<work>", entry: "<work>"}
    from_source = _commands(source.parent, work)
    harness = _commands(cached.parent, work)
    runtime = _commands(entry / "build", work)
    assert not any("/vmcu_runtime/src/" in file for file in harness)  # the harness compiles no runtime source
    assert {**harness, **{f: c for f, c in runtime.items() if "/vmcu_runtime/src/" in f}} == from_source
    if "-DVMCU_SANITIZE=ON" not in target.cmake_args:
        assert source.read_bytes() == cached.read_bytes()


def test_the_key_follows_the_runtime_the_arguments_and_the_compiler(tmp_path, monkeypatch):
    runtime = tmp_path / "vmcu_runtime"
    shutil.copytree(runtime_dir(), runtime)
    compiler = tmp_path / "bin" / "mycc"
    compiler.parent.mkdir()
    compiler.write_text("#!/bin/sh\n")
    compiler.chmod(0o755)
    monkeypatch.setenv("PATH", f"{compiler.parent}{os.pathsep}{os.environ['PATH']}")
    key = build_key(runtime, ["-DVMCU_SANITIZE=ON"], "mycc")
    assert build_key(runtime, ["-DVMCU_SANITIZE=ON"], "mycc") == key
    assert build_key(runtime, ["-DVMCU_SANITIZE=OFF"], "mycc") != key
    os.utime(compiler, ns=(0, 10**9))  # the compiler installed again
    assert build_key(runtime, ["-DVMCU_SANITIZE=ON"], "mycc") != key
    key = build_key(runtime, ["-DVMCU_SANITIZE=ON"], "mycc")
    monkeypatch.setenv("CFLAGS", "-DVMCU_EMULATE_DSP")
    assert build_key(runtime, ["-DVMCU_SANITIZE=ON"], "mycc") != key
    monkeypatch.delenv("CFLAGS")
    source = runtime / "src" / "vmcu_invoke.c"
    source.write_text(source.read_text() + "\n")
    assert build_key(runtime, ["-DVMCU_SANITIZE=ON"], "mycc") != key


def test_an_entry_is_built_once_and_a_failed_build_again(tmp_path):
    runtime = tmp_path / "model" / "vmcu_runtime"
    shutil.copytree(runtime_dir() / "include", runtime / "include")
    builds = []

    def failing(source, binary, configure):
        (binary / "half").mkdir(parents=True)
        raise RuntimeError("compiler error")

    def building(source, binary, configure):
        assert not (binary / "half").exists()  # the failed build's leftovers are gone
        assert (source / "model" / "vmcu_runtime" / "include").is_dir() and configure == ["-DX=1"]
        builds.append(binary)

    with pytest.raises(RuntimeError):
        cached_objects(tmp_path / "cache", runtime, "model", ["-DX=1"], "cc", failing)
    objects = cached_objects(tmp_path / "cache", runtime, "model", ["-DX=1"], "cc", building)
    assert cached_objects(tmp_path / "cache", runtime, "model", ["-DX=1"], "cc", building) == objects
    assert len(builds) == 1 and (objects.parents[1] / READY).is_file()
