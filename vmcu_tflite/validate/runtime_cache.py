"""The runtime compiled once per configuration, for validations that build many models.

A validation build is a fresh CMake project: the harness, the model's library and the runtime
copied beside it (`codegen/project.py`). The runtime's sources are most of what it compiles
(dozens of files against the model's one; with the sanitizers, some 15 s of a host build) and
they are the same for every model. With $VMCU_RUNTIME_CACHE naming a folder, a target's runtime
is compiled there once per runtime content, CMake arguments and compiler, and each harness
archives those objects instead of compiling its copy's sources; without it every validation
compiles the runtime, as it always did.

Nothing else changes: the harness still adds the model and its runtime copy, whose
CMakeLists.txt defines the runtime target, its options and usage requirements as before; the
harness then gives that target the cached objects as its sources. The objects come from the
runtime's own CMakeLists.txt in a project configured with the harness's CMake arguments, beside a
copy of the runtime laid out as in the validation's folder (the QEMU toolchain files are named
relative to it), so they are compiled with the harness's flags. tests/c/test_runtime_cache.py
holds the compile and link commands of both builds equal.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Callable, Sequence

try:
    import fcntl
except ImportError:  # no advisory locks (Windows): every validation compiles its runtime copy
    fcntl = None

ENVIRONMENT = "VMCU_RUNTIME_CACHE"
# What else decides the build: the variables CMake reads on a first configure, and PATH, which
# says which compiler and tools it finds.
BUILD_ENVIRONMENT = ("PATH", "CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "CMAKE_GENERATOR", "CMAKE_BUILD_TYPE",
                     "CMAKE_TOOLCHAIN_FILE", "CMAKE_C_COMPILER_LAUNCHER")
OBJECTS_FILE = "vmcu_runtime_objects.cmake"  # in the entry's build folder; the harness includes it
READY = "ready"  # written last: the entry's build is complete

# The runtime alone; the file it generates gives a harness's runtime target these objects.
# CMake lists a static library's objects ($<TARGET_OBJECTS>) since 3.15: an older one writes an
# empty file, and each harness compiles its runtime copy as without the cache.
PROJECT = """# The runtime's objects for validation harnesses (vmcu_tflite/validate/runtime_cache.py).
cmake_minimum_required(VERSION 3.13)
project(vmcu_runtime_objects C)
add_subdirectory({runtime} runtime)
if(CMAKE_VERSION VERSION_LESS 3.15)
  file(WRITE ${{CMAKE_CURRENT_BINARY_DIR}}/{objects} "")
else()
  file(GENERATE OUTPUT ${{CMAKE_CURRENT_BINARY_DIR}}/{objects} CONTENT
"set_property(TARGET vmcu_runtime PROPERTY SOURCES \\"$<JOIN:$<TARGET_OBJECTS:vmcu_runtime>,\\" \\">\\")
set_property(TARGET vmcu_runtime PROPERTY LINKER_LANGUAGE C)
")
endif()
"""


def cache_root() -> Path | None:
    """The cache folder ($VMCU_RUNTIME_CACHE), or None: no cache."""
    folder = os.environ.get(ENVIRONMENT)
    return Path(folder) if folder and fcntl is not None else None


def build_key(runtime: Path, configure: Sequence[str], compiler: str) -> str:
    """A digest of everything the runtime's objects depend on: its files (names and bytes), the
    CMake arguments, the build environment, and the identity of CMake and of the compiler
    executable (resolved path, size, modification time), so that an upgraded compiler misses."""
    digest = hashlib.sha256()
    for path in sorted(p for p in runtime.rglob("*") if p.is_file()):
        digest.update(path.relative_to(runtime).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update("\0".join(configure).encode() + b"\1")
    digest.update("\0".join(f"{name}={os.environ.get(name, '')}" for name in BUILD_ENVIRONMENT).encode() + b"\1")
    for tool in ("cmake", compiler):
        found = shutil.which(tool)
        if found:
            resolved = Path(found).resolve()
            stat = resolved.stat()
            digest.update(f"{tool}={resolved}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        digest.update(b"\1")
    return digest.hexdigest()[:24]


def cached_objects(root: Path, runtime: Path, model_dir_name: str, configure: Sequence[str], compiler: str,
                   build: Callable[[Path, Path, Sequence[str]], None]) -> Path:
    """The CMake file that gives a harness's runtime target the objects of `runtime` (a model's
    runtime copy) compiled with `configure` (the harness's CMake arguments), compiling them under
    `root` the first time. `build(source, binary, configure)` configures and builds a CMake
    project. Processes sharing `root` compile each entry once."""
    key = build_key(runtime, configure, compiler)
    entry = root / key

    def make() -> str:
        shutil.rmtree(entry, ignore_errors=True)  # what a failed or interrupted build left
        copy = entry / model_dir_name / "vmcu_runtime"
        shutil.copytree(runtime, copy)
        (entry / "CMakeLists.txt").write_text(PROJECT.format(runtime=copy.relative_to(entry).as_posix(),
                                                             objects=OBJECTS_FILE))
        build(entry, entry / "build", configure)
        return key + "\n"
    made_once(entry, make)
    return entry / "build" / OBJECTS_FILE


def made_once(entry: Path, make: Callable[[], str]) -> str:
    """The text of `entry`'s READY file, which `make()` returns once it has made the entry: the
    first process that asks makes it, under a lock beside it, and the others wait for it. A make
    that fails writes no READY: the next process that asks makes the entry again."""
    if not (entry / READY).is_file():
        entry.parent.mkdir(parents=True, exist_ok=True)
        with open(entry.parent / f"{entry.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
            if not (entry / READY).is_file():
                text = make()
                entry.mkdir(parents=True, exist_ok=True)
                (entry / READY).write_text(text)
    return (entry / READY).read_text()
