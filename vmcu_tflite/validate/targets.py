"""Where a validation build runs: the host compiler, an Arm board emulated by QEMU, or an Mbed or
Zephyr application on such a board (`mbed.py`, `zephyr.py`).

A target says how to configure CMake (toolchain, flags, extra sources) and how to run the
program it built, returning what the program printed. After the run, `measure()` may add
what only the built program can tell (section sizes of the image).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import numpy as np

from ..kernels.tuning import tuning_for_cpu
from ..errors import BudgetError, UsageError
from .harness import harness_cmake, render_main
from .runtime_cache import cache_root, cached_objects


@dataclass(frozen=True)
class Target:
    name: str
    cmake_args: tuple[str, ...] = ()
    harness_cmake: str = ""  # extra CMake lines for the harness executable
    harness_prelude: str = ""  # C lines after the harness's #includes (declarations for pre_run/post_run)
    pre_run: str = ""  # C statements before vmcu_invoke() (measurements)
    post_run: str = ""  # C statements after it
    pre_verify: str = ""  # C statements before vmcu_verify_model() (measurements)
    post_verify: str = ""  # C statements after it
    report: str = ""  # C statements at the end (printing what post_verify measured)
    timeout: float = 600.0
    description: str = field(default="", compare=False)
    tuning: str = "dsp"  # the kernel tuning a model is converted with for this target (kernels/tuning.py)
    widened_weights: float | None = None  # the flash int16 filter copies may take (None: the default share)

    def require(self) -> None:
        """Raise UsageError (one line) if a tool this target needs is missing."""

    def build(self, work: Path, model_dir: Path, prefix: str, inputs_int8: list[np.ndarray], pool_shrink: int) -> Path:
        """Build the program that runs the model written in `model_dir` once on `inputs_int8` and
        prints its outputs (`harness.py`); return the executable. The default: the harness."""
        streamed = streamed_ports(model_dir, prefix)
        (work / "main.c").write_text(render_main(f"{prefix}_model.h", prefix, inputs_int8, pool_shrink, self.pre_run,
                                                 self.post_run, self.harness_prelude, self.pre_verify,
                                                 self.post_verify, self.report, streamed["INPUT"],
                                                 streamed["OUTPUT"]))
        configure = ("-DCMAKE_BUILD_TYPE=Release", *self.cmake_args)
        root = cache_root()
        objects = (cached_objects(root, model_dir / "vmcu_runtime", model_dir.name, configure, self.c_compiler(),
                                  self._cmake) if root else None)
        (work / "CMakeLists.txt").write_text(harness_cmake(model_dir.name, self.harness_cmake, objects))
        build = work / "build"
        self._cmake(work, build, configure)
        return build / "vmcu_validate"

    def _cmake(self, source: Path, build: Path, configure: Sequence[str]) -> None:
        cmake([str(source), str(build), *configure], build, self.name)

    def c_compiler(self) -> str:
        """The C compiler CMake picks for this target (the runtime cache's key names it)."""
        return os.environ.get("CC") or "cc"

    def run(self, executable: Path) -> str:
        """Run the program and return its standard output."""
        return _run([str(executable)], self.timeout)

    def measure(self, executable: Path, measured: dict[str, int]) -> dict[str, int]:
        """All measurements, given those the program printed; the host adds none."""
        return measured


def header_bytes(model_dir: Path, prefix: str) -> dict[str, int]:
    """The generated header's `<PREFIX>_<NAME>_BYTES` constants by NAME (POOL, SCRATCH, STATE, INPUT0, ...)."""
    text = (model_dir / f"{prefix}_model.h").read_text()
    return {name: int(value) for name, value in re.findall(rf"#define {prefix.upper()}_(\w+?)_BYTES (\d+)u", text)}


def streamed_ports(model_dir: Path, prefix: str) -> dict[str, list[int]]:
    """The streamed inputs and outputs of the generated model (its header's `<PREFIX>_INPUT<i>_ROWS`
    and `<PREFIX>_OUTPUT<i>_ROWS`), by "INPUT" and "OUTPUT"."""
    text = (model_dir / f"{prefix}_model.h").read_text()
    found = re.findall(rf"#define {prefix.upper()}_(INPUT|OUTPUT)(\d+)_ROWS \d+u", text)
    return {kind: sorted(int(i) for k, i in found if k == kind) for kind in ("INPUT", "OUTPUT")}


def cmake(configure: list[str], build: Path, target: str) -> None:
    """Configure (`cmake -S configure[0] -B configure[1] configure[2:]...`) and build with two jobs."""
    for command in (["cmake", "-S", *configure[:1], "-B", *configure[1:]], ["cmake", "--build", str(build), "-j", "2"]):
        try:
            done = subprocess.run(command, capture_output=True, text=True)
        except FileNotFoundError:
            raise UsageError("cmake is not installed") from None
        if done.returncode != 0:
            log = done.stdout + done.stderr
            if overflow := re.search(r"region `RAM' overflowed by (\d+) bytes", log):
                raise BudgetError(f"the program does not fit {target}'s RAM: {overflow.group(1)} bytes "
                                  "too many (.data + .bss + reserved stack and heap)")
            if overflow := re.search(r"region `FLASH' overflowed by (\d+) bytes", log):
                raise BudgetError(f"the program does not fit {target}'s flash: {overflow.group(1)} bytes "
                                  "too many (code, weights and the harness's inputs)")
            try:  # the whole output, for --keep DIR; the error names its first line
                build.mkdir(parents=True, exist_ok=True)
                (build / "build.log").write_text(log)
            except OSError:
                pass
            raise UsageError(build_failure(target, log))


def build_failure(target: str, log: str) -> str:
    """The one line a failed build reports: the compiler's first error (else CMake's or make's, else
    the output's last line) and how many more the compiler gave; the whole output is in build.log."""
    lines = [line.strip() for line in log.splitlines() if line.strip()] or ["no output"]
    compiler = [line for line in lines if re.search(r"(^|\s)(fatal )?error:", line)]
    found = compiler or [line for line in lines if re.search(r"\berror\b", line, re.I)]
    at = lines.index(found[0]) if found else len(lines) - 1
    # a line ending in a colon (CMake's "CMake Error at ...:") with the one that says what
    first = " ".join(lines[at:at + 2]) if lines[at].endswith(":") else lines[at]
    more = f" (and {len(compiler) - 1} more error{'s' if len(compiler) > 2 else ''})" if len(compiler) > 1 else ""
    return (f"building for {target} failed: {first}{more}; the whole output is build.log in the build folder "
            "(--keep DIR)")


def _run(command: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UsageError(f"cannot run {command[0]}: not installed") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"{' '.join(command[:2])} did not finish within {timeout:.0f} s") from None
    return done.stdout + done.stderr


HOST = Target("host", description="the machine's own C compiler")
# -O0, not the Release build's -O3: the sanitizers check the same source either way (unoptimized,
# no check is folded away), and an instrumented real model's generated kernels compile in a fifth of
# -O2's time (MCUNet-320KB: 10 s against 49 s; its run takes a second or two either way).
SANITIZED_HOST = Target("host", cmake_args=("-DVMCU_SANITIZE=ON", "-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG"),
                        harness_cmake="target_compile_options(vmcu_validate PRIVATE -fsanitize=address,undefined)\n"
                                      "target_link_options(vmcu_validate PRIVATE -fsanitize=address,undefined)\n",
                        description="host with AddressSanitizer and UndefinedBehaviorSanitizer")


# --- QEMU boards -------------------------------------------------------------------------------

# The board support (csrc/targets/) travels with the runtime copy inside the generated model.
_TARGETS_DIR = "model/vmcu_runtime/targets"
QEMU_TOOLS = ("arm-none-eabi-gcc", "arm-none-eabi-objdump", "arm-none-eabi-nm", "qemu-system-arm")


@dataclass(frozen=True)
class QemuTarget(Target):
    """A board of csrc/targets/<board>/, run with qemu-system-arm -M <board>.

    The harness counts instructions with SysTick under `-icount shift=0` (one instruction per
    virtual ns): an instruction count, not cycles. RAM is .data + .bss (the pool is a static
    array in .bss) + the stack's high-water mark + the heap; flash is every loaded section.
    """

    board: str = ""
    qemu: tuple[str, ...] = ("qemu-system-arm",)  # the emulator and its machine options before -M board
    tools: str = "arm-none-eabi-"  # the binutils that read the program
    apt: str = "gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"  # the Debian packages of both
    stack_bytes: int = 8192  # reserved after .bss: the link fails if it does not fit
    heap_bytes: int = 2048  # reserved too, for newlib's stdio
    ram_bytes: int = 4 << 20  # the board's data RAM

    def build(self, work: Path, model_dir: Path, prefix: str, inputs_int8: list[np.ndarray], pool_shrink: int) -> Path:
        """Refuse a model whose own RAM cannot fit the board before building anything."""
        sizes = header_bytes(model_dir, prefix)
        needed = sizes["POOL"] + sizes["SCRATCH"] + sizes["STATE"] + self.stack_bytes + self.heap_bytes
        if needed > self.ram_bytes:
            raise BudgetError(f"the model does not fit {self.name}'s {self.ram_bytes:,} bytes of RAM: pool, scratch "
                              f"and state with {self.stack_bytes:,} of stack and {self.heap_bytes:,} of heap need "
                              f"{needed:,}, {needed - self.ram_bytes:,} too many")
        return super().build(work, model_dir, prefix, inputs_int8, pool_shrink)

    def require(self) -> None:
        needed = ("cmake", f"{self.tools}gcc", f"{self.tools}objdump", f"{self.tools}nm", self.qemu[0])
        missing = [tool for tool in needed if shutil.which(tool) is None]
        if missing:
            raise UsageError(f"target {self.name} needs {', '.join(missing)} on PATH (Debian: apt install "
                             f"cmake {self.apt})")

    def c_compiler(self) -> str:
        return f"{self.tools}gcc"  # the toolchain file's

    def command(self, executable: Path, *options: str) -> list[str]:
        """The QEMU command that runs `executable` on the board as measured (-icount shift=0: one
        instruction a virtual nanosecond), with `options` (a log's -d/-D) before the program."""
        return [*self.qemu, "-M", self.board, "-display", "none", "-monitor", "none", "-serial", "null",
                "-icount", "shift=0", "-semihosting-config", "enable=on,target=native", *options,
                "-kernel", str(executable)]

    def run(self, executable: Path) -> str:
        return _run(self.command(executable), self.timeout)

    def measure(self, executable: Path, measured: dict[str, int]) -> dict[str, int]:
        sections, symbols = _sections(executable, self.tools), _symbol_sizes(executable, tools=self.tools)
        data_bss = sections.get(".data", 0) + sections.get(".bss", 0)
        pool = symbols.get("pool", 0)  # the harness's static pool array
        libraries = _library_flash(executable.with_name(executable.name + ".map"))
        stack, heap = measured.get("stack_bytes", 0), measured.get("heap_bytes", 0)
        result = {
            "pool_bytes": pool,
            "data_bss_without_pool_bytes": data_bss - pool,
            "data_bss_bytes": data_bss,
            "stack_bytes": stack,
            "heap_bytes": heap,
            "ram_total_bytes": data_bss + stack + heap,
            "flash_bytes": sections["flash"],
            "flash_model_bytes": libraries["model"],
            "flash_runtime_bytes": libraries["runtime"],
            "flash_input_bytes": sum(size for name, size in symbols.items() if name.startswith("harness_input")),
        }
        return {**result, **{k: v for k, v in measured.items() if k not in result}}


def _tool(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{command[0]} failed: {done.stderr.strip()[:300]}")
    return done.stdout


def _sections(elf: Path, tools: str = "arm-none-eabi-") -> dict[str, int]:
    """Allocated section sizes by name, and `flash`: the bytes of every section loaded from the image."""
    sizes: dict[str, int] = {"flash": 0}
    lines = _tool([f"{tools}objdump", "-h", str(elf)]).splitlines()
    for header, flags in zip(lines, lines[1:]):
        if m := re.match(r"\s*\d+\s+(\S+)\s+([0-9a-f]+)\s", header):
            name, size = m.group(1), int(m.group(2), 16)
            if "ALLOC" in flags:
                sizes[name] = size
            if "LOAD" in flags and "ALLOC" in flags:
                sizes["flash"] += size
    return sizes


def _symbol_sizes(elf: Path, demangle: bool = False, tools: str = "arm-none-eabi-") -> dict[str, int]:
    """Size of every symbol that has one (`nm -S`: address, size, type, name; C++ names demangled)."""
    sizes = {}
    for line in _tool([f"{tools}nm", "-S", *(["-C"] if demangle else []), str(elf)]).splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) == 4 and all(c in "0123456789abcdef" for c in parts[1]):
            sizes[parts[3]] = int(parts[1], 16)
    return sizes


def _library_flash(map_file: Path) -> dict[str, int]:
    """Flash bytes (.text, .rodata, .data image) linked from libvmcu_model.a (the model's tables;
    libvmcu_model_<name>.a in a Zephyr build) and libvmcu_runtime.a (the kernels), keyed `model`
    and `runtime`.

    Reads the input sections of the linker map: ` .rodata.x  0xADDR  0xSIZE  lib(obj)`, where a
    long section name pushes the address and size onto the next line.
    """
    text = map_file.read_text(errors="replace")
    text = text[text.find("Linker script and memory map"):]
    totals = {"model": 0, "runtime": 0}
    for m in re.finditer(r"^ \.(?:text|rodata|data)\S*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", text, re.M):
        if library := re.search(r"libvmcu_(model|runtime)(?:_\w+)?\.a\(", m.group(2)):
            totals[library.group(1)] += int(m.group(1), 16)
    return totals


# The instructions of vmcu_verify_model(), the boards' measurement `verify_instructions`.
VERIFY_BEGIN = "    const uint64_t verify_start = vmcu_board_instructions();"
VERIFY_END = "    const uint64_t verify_instructions = vmcu_board_instructions() - verify_start;"
VERIFY_REPORT = '    vmcu_board_print_measure("verify_instructions", verify_instructions);'


def _qemu(name: str, board: str, cpu: str, description: str, stack_bytes: int = 8192, heap_bytes: int = 2048,
          ram_bytes: int = 4 << 20, widened_weights: float | None = None) -> QemuTarget:
    return QemuTarget(
        name,
        cmake_args=(f"-DCMAKE_TOOLCHAIN_FILE={_TARGETS_DIR}/arm-none-eabi.cmake", f"-DVMCU_CPU={cpu}"),
        harness_cmake=(f"include(${{CMAKE_CURRENT_SOURCE_DIR}}/{_TARGETS_DIR}/vmcu_board.cmake)\n"
                       f"vmcu_board_executable(vmcu_validate {board} STACK_BYTES {stack_bytes} "
                       f"HEAP_BYTES {heap_bytes})\n"),
        harness_prelude='#include "vmcu_board.h"\n',
        pre_run="    vmcu_board_measure_begin();",
        post_run="    vmcu_board_measure_end();",
        pre_verify=VERIFY_BEGIN,
        post_verify=VERIFY_END,
        report=VERIFY_REPORT,
        description=description,
        tuning=tuning_for_cpu(cpu),
        board=board,
        stack_bytes=stack_bytes,
        heap_bytes=heap_bytes,
        ram_bytes=ram_bytes,
        widened_weights=widened_weights,
    )


_PROFILE_PRELUDE = """
static uint64_t profile_mark;

/* Before each kernel call and after the last: print the instructions of the call just ended
   (the printing itself is not counted); before the first, those of vmcu_invoke()'s checks. */
void vmcu_profile_step(uint16_t step)
{
    const uint64_t now = vmcu_board_instructions();
    if (step > 0u) {
        char name[24];
        sprintf(name, "step_%u", (unsigned)(step - 1u));
        vmcu_board_print_measure(name, now - profile_mark);
    } else {
        vmcu_board_print_measure("checks", now - profile_mark);
    }
    profile_mark = vmcu_board_instructions();
}
"""


def profiled(target: QemuTarget) -> QemuTarget:
    """`target` with the runtime calling vmcu_profile_step() around every kernel call: the run
    prints `measure step_<i> N` per step and `measure checks N`, the instructions from the call of
    vmcu_invoke() to its first kernel call (its totals include the profiling, so they are not used)."""
    return replace(target, cmake_args=(*target.cmake_args, "-DVMCU_PROFILE=ON"),
                   harness_prelude=target.harness_prelude + _PROFILE_PRELUDE,
                   pre_run=target.pre_run + "\n    profile_mark = vmcu_board_instructions();")


QEMU_TARGETS = (
    _qemu("qemu-cortex-m4", "mps2-an386", "cortex-m4", "Cortex-M4 (Arm MPS2 AN386, 4 MB RAM) under QEMU"),
    _qemu("qemu-cortex-m7", "mps2-an500", "cortex-m7", "Cortex-M7 (Arm MPS2 AN500, 4 MB RAM) under QEMU"),
    # 1 MB of flash: MCUNet-320KB-1MB with its input baked in fits only with int8 filters
    _qemu("qemu-stm32f405", "netduinoplus2", "cortex-m4", "STM32F405 (Netduino Plus 2, 1 MB flash, 128 KB RAM) under QEMU",
          ram_bytes=128 << 10, widened_weights=0.0),
    _qemu("qemu-cortex-m0", "microbit", "cortex-m0", "Cortex-M0 (BBC micro:bit, nRF51: 256 KB flash, 16 KB RAM) under QEMU",
          stack_bytes=2048, heap_bytes=1024, ram_bytes=16 << 10),
    _qemu("qemu-cortex-m3", "mps2-an385", "cortex-m3", "Cortex-M3 without DSP (Arm MPS2 AN385, 4 MB RAM) under QEMU"),
    _qemu("qemu-cortex-m33", "mps2-an505", "cortex-m33", "Cortex-M33 (Arm MPS2 AN505, 4 MB RAM) under QEMU"),
    _qemu("qemu-cortex-m55", "mps3-an547", "cortex-m55",
          "Cortex-M55 with Helium (Arm MPS3 AN547, 4 MB RAM) under QEMU"),
    QemuTarget(
        "qemu-riscv32",
        cmake_args=(f"-DCMAKE_TOOLCHAIN_FILE={_TARGETS_DIR}/riscv32-unknown-elf.cmake",),
        harness_cmake=(f"include(${{CMAKE_CURRENT_SOURCE_DIR}}/{_TARGETS_DIR}/vmcu_board.cmake)\n"
                       "vmcu_board_executable(vmcu_validate riscv-virt STACK_BYTES 8192)\n"),
        harness_prelude='#include "vmcu_board.h"\n',
        pre_run="    vmcu_board_measure_begin();",
        post_run="    vmcu_board_measure_end();",
        pre_verify=VERIFY_BEGIN,
        post_verify=VERIFY_END,
        report=VERIFY_REPORT,
        description="RISC-V RV32IMAC (QEMU virt, 4 MB RAM; instructions from minstret)",
        board="virt", qemu=("qemu-system-riscv32", "-bios", "none"), tools="riscv64-unknown-elf-",
        apt="gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc", heap_bytes=0,
        tuning=tuning_for_cpu("riscv32"),
    ),
)

def __getattr__(name: str):
    """`TARGETS`, every target by name, made on first use: the Mbed and Zephyr targets (`mbed.py`,
    `zephyr.py`) build on the classes of this module, so it cannot import them while it loads."""
    if name != "TARGETS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .mbed import MBED_TARGETS
    from .zephyr import ZEPHYR_TARGETS
    targets: dict[str, Target] = {"host": HOST, **{t.name: t for t in (*QEMU_TARGETS, *MBED_TARGETS, *ZEPHYR_TARGETS)}}
    globals()["TARGETS"] = targets
    return targets
