"""vmcu-validate on Zephyr: the example application (examples/zephyr) built against a Zephyr tree
and run on QEMU.

The target builds the example exactly as a user's application would: this repository as a Zephyr
module (`zephyr/module.yml`, through EXTRA_ZEPHYR_MODULES), the converted model added with
`vmcu_add_model(app ...)`, run in its own thread. The application runs the validation's inputs
from a generated header and prints its outputs and measurements. Boards: `mps2/an386`
(Cortex-M4), `mps2/an385` (M3) and `mps3/corstone300/an547` (M55, Helium), the boards of the
bare-metal `qemu-cortex-m4`, `-m3` and `-m55` targets, which each Zephyr target is compared with.

The Zephyr source: `--zephyr PATH`, else $VMCU_ZEPHYR_BASE, else `../shared/zephyr` next to the
repository or the working directory. PATH is a west workspace (a folder holding `zephyr/` and
`modules/`, or `zephyrproject/` holding them) or a folder holding `zephyr-trimmed.tar.gz`, which
is extracted once into the cache (cache.py). The build uses Debian's Arm GCC (Zephyr's
`gnuarmemb` toolchain variant), needs no west, and imports four Python packages: the running
Python when it has them, else a virtual environment made once in the cache from PyPI.

The example is built with Zephyr's minimal libc: it needs nothing of picolibc, whose ~1,000
objects would make every build 3 to 6 times slower. The module compiles the runtime hosted and at
-O3; the libc's memcpy() and memmove(), which the kernels call for rows and window pieces, are
compiled at the application's level, which the example's prj.conf sets to -O2
(examples/zephyr/README.md says what -Os costs).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..codegen.project import runtime_dir
from ..errors import UsageError
from ..kernels.tuning import tuning_for_cpu
from .cache import cache_dir, extract_once, find_source
from .mbed import inputs_header
from .targets import QEMU_TOOLS, Target, _library_flash, _run, _symbol_sizes, _tool, cmake, header_bytes

TARBALL = "zephyr-trimmed.tar.gz"
ZEPHYR_VERSION = "v4.1.0"  # the tree is no git checkout: its version is given to the build
TOOLS = ("cmake", "ninja", "dtc", *QEMU_TOOLS)
PYTHON_PACKAGES = ("pyelftools", "PyYAML", "pykwalify", "packaging")  # what Zephyr's build scripts import
PYTHON_MODULES = ("elftools", "yaml", "pykwalify", "packaging")
ROOT = Path(__file__).resolve().parents[2]
STACK_BYTES = 8192  # the inference thread's stack: what the bare-metal harness reserves for main()


def module_root() -> Path:
    """The vmcu-tflite Zephyr module (the folder holding zephyr/module.yml and csrc/): the
    installed package or this checkout."""
    installed = Path(__file__).resolve().parent.parent
    return installed if (installed / "zephyr" / "module.yml").is_file() else ROOT


def example_dir() -> Path:
    """The example application: installed next to this package, or examples/zephyr in a checkout."""
    installed = Path(__file__).resolve().parent.parent / "zephyr_example"
    return installed if (installed / "src" / "main.c").is_file() else ROOT / "examples" / "zephyr"


def find_zephyr_source(given: Path | None = None) -> Path:
    """The folder the Zephyr source comes from (a workspace or a tarball's folder), by the module's order."""
    found, where = find_source(given, "VMCU_ZEPHYR_BASE", "zephyr",
                               lambda folder: _workspace_in(folder) is not None or (folder / TARBALL).is_file())
    if found is not None:
        return found
    raise UsageError(f"no Zephyr source in {where}: give --zephyr PATH, a Zephyr workspace (zephyr/ and modules/) "
                     f"or a folder holding {TARBALL}")


def _workspace_in(folder: Path) -> Path | None:
    """The west workspace at or in `folder`: `zephyr/VERSION` in it; `folder` may be its zephyr/."""
    for workspace in (folder, folder / "zephyrproject", folder.parent):
        if (workspace / "zephyr" / "VERSION").is_file():
            return workspace
    return None


def zephyr_workspace(source: Path) -> Path:
    """The workspace of `source`, extracting its tarball into the cache the first time."""
    workspace = _workspace_in(source)
    if workspace is not None:
        return workspace
    home = extract_once(source / TARBALL, "zephyr", lambda home: _workspace_in(home) is not None,
                        "Zephyr workspace (zephyrproject/zephyr/VERSION)")
    return _workspace_in(home)


def zephyr_modules(workspace: Path) -> list[Path]:
    """The workspace's modules the build needs (west would find them): CMSIS, and picolibc when present."""
    found = [workspace / "modules" / "hal" / "cmsis", workspace / "modules" / "lib" / "picolibc"]
    return [m for m in found if m.is_dir()]


def zephyr_python() -> str:
    """A Python that has what Zephyr's build imports: this one, else a venv made once in the cache."""
    try:
        for module in PYTHON_MODULES:
            __import__(module)
        return sys.executable
    except ImportError:
        pass
    home = cache_dir() / "zephyr-venv"
    python = home / "bin" / "python3"
    if (home / "complete").is_file():
        return str(python)
    home.parent.mkdir(parents=True, exist_ok=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           *PYTHON_PACKAGES], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"cannot install {' '.join(PYTHON_PACKAGES)} into {home} for the Zephyr build: "
                         f"{(done.stderr.strip().splitlines() or ['pip failed'])[-1]}")
    (home / "complete").write_text("")
    return str(python)


def instructions_per_tick(machine: str) -> tuple[int, int]:
    """QEMU's instructions per SysTick tick on `machine` under -icount shift=0, as a fraction."""
    text = (runtime_dir() / "targets" / machine / "board.cmake").read_text()
    found = dict(re.findall(r"set\(VMCU_BOARD_INSNS_PER_TICK_(NUM|DEN) (\d+)\)", text))
    return int(found["NUM"]), int(found["DEN"])


def _gnuarmemb_path() -> str:
    """The prefix under which bin/arm-none-eabi-gcc lives (/usr for Debian's), for Zephyr's gnuarmemb."""
    return str(Path(os.path.realpath(shutil.which("arm-none-eabi-gcc"))).parent.parent)


def _ram_and_flash(elf: Path) -> tuple[int, int]:
    """Bytes of RAM (sections not loaded from the image, or copied out of it: data, bss, noinit) and
    of flash (every section loaded from the image)."""
    ram = flash = 0
    lines = _tool(["arm-none-eabi-objdump", "-h", str(elf)]).splitlines()
    for header, flags in zip(lines, lines[1:]):
        if m := re.match(r"\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s", header):
            size, vma, lma = int(m.group(2), 16), m.group(3), m.group(4)
            if "ALLOC" not in flags:
                continue
            if "LOAD" in flags:
                flash += size
            if "LOAD" not in flags or vma != lma:
                ram += size
    return ram, flash


@dataclass(frozen=True)
class ZephyrTarget(Target):
    """examples/zephyr built for a Zephyr board and run under qemu-system-arm -M <machine>."""

    board: str = ""  # Zephyr's board name
    machine: str = ""  # QEMU's
    cpu: str = ""
    zephyr: Path | None = None  # None: $VMCU_ZEPHYR_BASE or ../shared/zephyr
    compare_with: str = ""  # the bare-metal harness on the same board, for what Zephyr costs

    def require(self) -> None:
        missing = [tool for tool in TOOLS if shutil.which(tool) is None]
        if missing:
            raise UsageError(f"target {self.name} needs {', '.join(missing)} on PATH (Debian: apt install cmake "
                             "ninja-build device-tree-compiler gcc-arm-none-eabi qemu-system-arm)")
        find_zephyr_source(self.zephyr)

    def build(self, work: Path, model_dir: Path, prefix: str, inputs_int8: list[np.ndarray], pool_shrink: int) -> Path:
        if pool_shrink:
            raise UsageError(f"{self.name} runs the plan's pool as the example declares it")
        workspace = zephyr_workspace(find_zephyr_source(self.zephyr))
        header = work / "inputs.h"
        header.write_text(inputs_header(inputs_int8))
        frames = inputs_int8[0].size // header_bytes(model_dir, prefix)["INPUT0"]  # a sequence's runs, one a frame
        build = work / "build"
        modules = ";".join(str(m) for m in zephyr_modules(workspace))
        cmake([str(example_dir()), str(build), "-G", "Ninja", f"-DBOARD={self.board}",
               f"-DZEPHYR_BASE={workspace / 'zephyr'}",
               f"-DZephyr_DIR={workspace / 'zephyr' / 'share' / 'zephyr-package' / 'cmake'}",
               f"-DZEPHYR_MODULES={modules}", f"-DBUILD_VERSION={ZEPHYR_VERSION}",
               "-DZEPHYR_TOOLCHAIN_VARIANT=gnuarmemb", f"-DGNUARMEMB_TOOLCHAIN_PATH={_gnuarmemb_path()}",
               f"-DPython3_EXECUTABLE={zephyr_python()}", f"-DUSER_CACHE_DIR={cache_dir() / 'zephyr-user-cache'}",
               f"-DVMCU_TFLITE_MODULE={module_root()}", f"-DVMCU_MODEL_DIR={model_dir}",
               f"-DVMCU_INPUT_HEADER={header}", f"-DCONFIG_VMCU_EXAMPLE_FRAMES={frames}",
               f"-DCONFIG_VMCU_EXAMPLE_STACK_SIZE={STACK_BYTES}", "-DCONFIG_VMCU_EXAMPLE_PRINT_OUTPUTS=y"],
              build, self.name)
        return build / "zephyr" / "zephyr.elf"

    def run(self, executable: Path) -> str:
        # sleep=off: Zephyr idles between prints; without it idle periods run in host time
        return _run(["qemu-system-arm", "-M", self.machine, "-nographic", "-icount", "shift=0,sleep=off",
                     "-semihosting-config", "enable=on,target=native", "-kernel", str(executable)], self.timeout)

    def measure(self, executable: Path, measured: dict[str, int]) -> dict[str, int]:
        """RAM and flash from the image, the rest from what the example printed. The instructions
        of vmcu_invoke() are its span on the cycle counter (SysTick) times the instructions per
        tick of QEMU's board, as the bare-metal harness calibrates them (csrc/targets/<machine>/
        board.cmake), Zephyr's timer interrupts during the call included. Not Zephyr's
        `cycles_per_sec`: on mps3/corstone300/an547 Zephyr takes the counter for 25 MHz, QEMU
        runs it at 32 MHz."""
        ram, flash = _ram_and_flash(executable)
        symbols = _symbol_sizes(executable)
        ours = {name: symbols.get(name, 0) for name in ("pool", "scratch", "state", "inference_stack")}
        libraries = _library_flash(executable.with_name("zephyr.map"))
        result = {
            "pool_bytes": ours["pool"],
            "scratch_bytes": ours["scratch"],
            "zephyr_data_bss_bytes": ram - sum(ours.values()),
            "thread_stack_reserved_bytes": ours["inference_stack"],
            "data_bss_bytes": ram,
            "stack_bytes": measured.get("stack_bytes", 0),
            "flash_bytes": flash,
            "flash_model_bytes": libraries["model"],
            "flash_runtime_bytes": libraries["runtime"],
        }
        if "invoke_cycles" in measured:
            numerator, denominator = instructions_per_tick(self.machine)
            result["instructions"] = measured["invoke_cycles"] * numerator // denominator
        return result


def _zephyr(name: str, board: str, machine: str, cpu: str, compare_with: str, description: str) -> ZephyrTarget:
    return ZephyrTarget(name, timeout=600.0, description=description, tuning=tuning_for_cpu(cpu), board=board,
                        machine=machine, cpu=cpu, compare_with=compare_with)


ZEPHYR_TARGETS = (
    _zephyr("zephyr-qemu-cortex-m4", "mps2/an386", "mps2-an386", "cortex-m4", "qemu-cortex-m4",
            "the Zephyr example, Zephyr 4.1 on mps2/an386 (Cortex-M4) under QEMU"),
    _zephyr("zephyr-qemu-cortex-m3", "mps2/an385", "mps2-an385", "cortex-m3", "qemu-cortex-m3",
            "the Zephyr example, Zephyr 4.1 on mps2/an385 (Cortex-M3) under QEMU"),
    _zephyr("zephyr-qemu-cortex-m55", "mps3/corstone300/an547", "mps3-an547", "cortex-m55", "qemu-cortex-m55",
            "the Zephyr example, Zephyr 4.1 on mps3/corstone300/an547 (Cortex-M55, Helium) under QEMU"),
)
