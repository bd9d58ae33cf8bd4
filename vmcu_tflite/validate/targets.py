"""Where a validation build runs: the host compiler, or an Arm board emulated by QEMU.

A target says how to configure CMake (toolchain, flags, extra sources) and how to run the
program it built, returning what the program printed.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError


@dataclass(frozen=True)
class Target:
    name: str
    cmake_args: tuple[str, ...] = ()
    harness_cmake: str = ""  # extra CMake lines for the harness executable
    pre_run: str = ""  # C statements before vmcu_invoke() (measurements)
    post_run: str = ""  # C statements after it
    timeout: float = 600.0
    description: str = field(default="", compare=False)

    def run(self, executable: Path) -> str:
        """Run the program and return its standard output."""
        return _run([str(executable)], self.timeout)


def _run(command: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise UsageError(f"cannot run {command[0]}: not installed") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"{' '.join(command[:2])} did not finish within {timeout:.0f} s") from None
    return done.stdout + done.stderr


HOST = Target("host", description="the machine's own C compiler")
SANITIZED_HOST = Target("host", cmake_args=("-DVMCU_SANITIZE=ON",),
                        harness_cmake="target_compile_options(vmcu_validate PRIVATE -fsanitize=address,undefined)\n"
                                      "target_link_options(vmcu_validate PRIVATE -fsanitize=address,undefined)\n",
                        description="host with AddressSanitizer and UndefinedBehaviorSanitizer")

TARGETS: dict[str, Target] = {"host": HOST}
