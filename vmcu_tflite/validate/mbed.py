"""vmcu-validate on Mbed: the example application (examples/mbed) built with Mbed CE and run on QEMU.

The target builds the example exactly as a user's project would (`add_subdirectory()` of the
generated model folder, `vmcu_model` linked into the application) for Mbed CE's ARM_MPS2_M4 (the
MPS2 AN386 Cortex-M4 board QEMU's `mps2-an386` emulates, the board of `qemu-cortex-m4`), in the
full (RTOS) profile or the bare-metal one. The application runs the validation's inputs from a
generated header and prints its outputs and measurements.

The Mbed source: `--mbed-os PATH`, else $VMCU_MBED_OS, else `../shared/mbed-ce` next to the
repository or the working directory. PATH is an extracted tree (the `mbed-os` folder, or a folder
holding one) or a folder holding `mbed-ce-trimmed.tar.gz`, which is extracted once into the cache
($VMCU_CACHE_DIR, else ~/.cache/vmcu-tflite), under its digest: Mbed's CMake makes its Python
environment (`mbed-os/venv`, from PyPI) in the extracted tree the first time, and every later
build reuses both.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..codegen.cwriter import CWriter
from ..errors import UsageError
from .cache import extract_once, find_source
from .targets import QEMU_TOOLS, Target, _run, _sections, _symbol_sizes, cmake, header_bytes

TARBALL = "mbed-ce-trimmed.tar.gz"
MARKER = Path("tools") / "cmake" / "mbed_toolchain_setup.cmake"  # what makes a folder an Mbed CE tree
TOOLS = ("cmake", "ninja", "arm-none-eabi-g++", *QEMU_TOOLS)
ROOT = Path(__file__).resolve().parents[2]
NS_PER_US = 1000  # under `-icount shift=0` one instruction is one virtual ns


def example_dir() -> Path:
    """The example application: installed next to this package, or examples/mbed in a checkout."""
    installed = Path(__file__).resolve().parent.parent / "mbed_example"
    return installed if (installed / "main.cpp").is_file() else ROOT / "examples" / "mbed"


def find_mbed_source(given: Path | None = None) -> Path:
    """The folder the Mbed source comes from (a tree or a tarball's folder), by the module's order."""
    found, where = find_source(given, "VMCU_MBED_OS", "mbed-ce",
                               lambda folder: _tree_in(folder) is not None or (folder / TARBALL).is_file())
    if found is not None:
        return found
    raise UsageError(f"no Mbed CE source in {where}: give --mbed-os PATH, an extracted Mbed CE tree or a folder "
                     f"holding {TARBALL}")


def _tree_in(folder: Path) -> Path | None:
    for tree in (folder, folder / "mbed-os"):
        if (tree / MARKER).is_file():
            return tree
    return None


def mbed_tree(source: Path) -> Path:
    """The extracted Mbed CE tree of `source`, extracting its tarball into the cache the first time."""
    tree = _tree_in(source)
    if tree is not None:
        return tree
    home = extract_once(source / TARBALL, "mbed-ce", lambda home: (home / "mbed-os" / MARKER).is_file(),
                        f"Mbed CE tree (mbed-os/{MARKER})")
    return home / "mbed-os"


def inputs_header(inputs_int8: list[np.ndarray]) -> str:
    """The header the example includes as VMCU_INPUT_HEADER: vmcu_example_inputs[i], input i's bytes
    for each frame back to back (a sequence, for a model with state), and how many bytes that is."""
    writer = CWriter("vmcu_example")
    names = [writer.array("int8_t", f"input{i}", x.astype(np.int8).reshape(-1)) for i, x in enumerate(inputs_int8)]
    writer.pointers("const int8_t *", "inputs", names)
    writer.array("uint32_t", "input_bytes", [x.size for x in inputs_int8])
    return f"/* vmcu-validate: the inputs the example runs. Generated; do not edit. */\n{writer.text()}"


@dataclass(frozen=True)
class MbedTarget(Target):
    """examples/mbed built with Mbed CE for ARM_MPS2_M4 and run under qemu-system-arm -M mps2-an386."""

    profile: str = "full"  # "full" (RTOS: inference in a thread) or "bare-metal"
    mbed_os: Path | None = None  # None: $VMCU_MBED_OS or ../shared/mbed-ce
    compare_with: str = "qemu-cortex-m4"  # the bare-metal harness on the same board, for what Mbed costs

    def require(self) -> None:
        missing = [tool for tool in TOOLS if shutil.which(tool) is None]
        if missing:
            raise UsageError(f"target {self.name} needs {', '.join(missing)} on PATH (Debian: apt install cmake "
                             "ninja-build gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib "
                             "qemu-system-arm)")
        find_mbed_source(self.mbed_os)

    def build(self, work: Path, model_dir: Path, prefix: str, inputs_int8: list[np.ndarray], pool_shrink: int) -> Path:
        if pool_shrink:
            raise UsageError(f"{self.name} runs the plan's pool as the example declares it")
        tree = mbed_tree(find_mbed_source(self.mbed_os))
        header = work / "inputs.h"
        header.write_text(inputs_header(inputs_int8))
        frames = inputs_int8[0].size // header_bytes(model_dir, prefix)["INPUT0"]  # a sequence's runs, one a frame
        build = work / "build"
        json = "mbed_app.json5" if self.profile == "full" else "mbed_app_baremetal.json5"
        cmake([str(example_dir()), str(build), "-G", "Ninja", "-DMBED_TARGET=ARM_MPS2_M4", f"-DMBED_OS_PATH={tree}",
               "-DMBED_MANAGE_SUBMODULES=OFF", f"-DMBED_APP_JSON_PATH={json}", "-DCMAKE_BUILD_TYPE=Develop",
               f"-DVMCU_MODEL_DIR={model_dir}", f"-DVMCU_INPUT_HEADER={header}", f"-DVMCU_FRAMES={frames}",
               "-DVMCU_PRINT_OUTPUTS=ON", "-DVMCU_SEMIHOST_EXIT=ON"], build, self.name)
        return build / "vmcu-mbed-example.elf"

    def run(self, executable: Path) -> str:
        return _run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-icount", "shift=0",
                     "-semihosting-config", "enable=on,target=native", "-kernel", str(executable)], self.timeout)

    def measure(self, executable: Path, measured: dict[str, int]) -> dict[str, int]:
        """RAM and flash from the image, the rest from what the example printed. The instructions
        of vmcu_invoke() are its Timer's microseconds in QEMU's virtual time (one instruction per
        ns): to 1,000 instructions, the RTOS's tick interrupts during the call included."""
        sections, symbols = _sections(executable), _symbol_sizes(executable, demangle=True)
        data_bss = sections.get(".data", 0) + sections.get(".bss", 0)
        ours = {name.rsplit("::", 1)[-1]: size for name, size in symbols.items()
                if name.startswith("(anonymous namespace)::")}
        pool, scratch, thread_stack = ours.get("pool", 0), ours.get("scratch", 0), ours.get("inference_stack", 0)
        result = {
            "pool_bytes": pool,
            "scratch_bytes": scratch,
            "mbed_data_bss_bytes": data_bss - pool - scratch - thread_stack,
            "data_bss_bytes": data_bss,
            "heap_bytes": measured.get("heap_bytes", 0),
            "flash_bytes": sections["flash"],
        }
        if thread_stack:  # the full profile's inference thread, its stack watched
            result.update(thread_stack_reserved_bytes=thread_stack, stack_bytes=measured.get("stack_bytes", 0))
        if "invoke_us" in measured:
            result["instructions"] = measured["invoke_us"] * NS_PER_US
        return result


MBED_TARGETS = (
    MbedTarget("mbed-qemu-cortex-m4", timeout=600.0,
               description="the Mbed example, Mbed CE full profile (RTOS), ARM_MPS2_M4 under QEMU"),
    MbedTarget("mbed-baremetal-qemu-cortex-m4", timeout=600.0, profile="bare-metal",
               description="the Mbed example, Mbed CE bare-metal profile, ARM_MPS2_M4 under QEMU"),
)
