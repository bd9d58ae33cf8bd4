"""What every command-line tool shares: one-line errors with the contract's exit codes."""
from __future__ import annotations

import sys
from typing import Callable, Sequence

from ..errors import VmcuError


def run_tool(prog: str, main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Call `main`; a `VmcuError` becomes `<prog>: error: <message>` on stderr and its exit code."""
    try:
        return main(argv)
    except VmcuError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return err.exit_code


def parse_bytes(text: str) -> int:
    """'131072', '128K', '128KB', '1M' -> bytes (K and M are powers of 1024)."""
    units = {"": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20}
    value = text.strip().upper()
    number = value.rstrip("KMIB")
    try:
        return int(float(number) * units[value[len(number):]])
    except (KeyError, ValueError):
        raise ValueError(f"not a byte count: '{text}' (examples: 131072, 128K, 1M)") from None
