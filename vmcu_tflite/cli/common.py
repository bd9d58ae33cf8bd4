"""What every command-line tool shares: one-line errors with the contract's exit codes.

A misused command line is answered like a bad model: one line on stderr, exit 2, before any
work and before anything is written. So the tools' parser raises instead of printing its usage,
and the argument types below check what argparse cannot (a byte count that is a whole number, a
folder that can be one, a file that can be written).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Callable, NoReturn, Sequence

from ..errors import UsageError, VmcuError


class ToolParser(argparse.ArgumentParser):
    """argparse, with its errors raised as one-line UsageErrors (`--help` still prints the usage)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def run_tool(prog: str, main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Call `main`; a `VmcuError` becomes `<prog>: error: <message>` on stderr and its exit code."""
    try:
        return main(argv)
    except VmcuError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return err.exit_code


def parse_bytes(text: str) -> int:
    """'131072', '128K', '128KB', '1.5M' -> bytes (K and M are powers of 1024): a whole, non-negative count."""
    units = {"": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20}
    value = text.strip().upper()
    number = value.rstrip("KMIB")
    try:
        amount = float(number) * units[value[len(number):]]
    except (KeyError, ValueError):
        amount = math.nan
    if not (math.isfinite(amount) and amount >= 0 and amount == int(amount)):
        raise argparse.ArgumentTypeError(f"not a byte count: '{text}' (a whole number of bytes: 131072, 128K, 1M)")
    return int(amount)


def seed(text: str) -> int:
    """A random seed: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"not a seed: '{text}' (a non-negative integer)")
    return value


def positive(text: str) -> int:
    """A count of at least 1 (--runs)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def folder(text: str) -> Path:
    """A folder to write into: it exists as a folder, or can be made (no file in the way)."""
    path = Path(text)
    for part in (path, *path.parents):
        if part.exists():
            if not part.is_dir():
                raise argparse.ArgumentTypeError(f"'{text}': {part} is a file, not a folder")
            if not os.access(part, os.W_OK | os.X_OK):
                raise argparse.ArgumentTypeError(f"'{text}': {part} is not writable")
            return path
    return path


def new_file(text: str) -> Path:
    """A file to write: not a folder, in a folder that exists and is writable."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"'{text}' is a folder, not a file")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"'{text}': its folder {parent} does not exist or is not writable")
    return path


def ports(text: str) -> tuple[int, ...]:
    """`--stream-input 0,2`: model input (or output) indices."""
    try:
        found = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected indices like 0 or 0,2, got {text!r}") from None
    if any(i < 0 for i in found):
        raise argparse.ArgumentTypeError(f"indices are 0 or more, got {text!r}")
    return found


def add_stream_arguments(parser: argparse.ArgumentParser) -> None:
    """--stream-input / --stream-output: every port with no value, or the indices given."""
    parser.add_argument("--stream-input", type=ports, nargs="?", const=True, default=False, metavar="IDX,...",
                        help="pull these inputs (default: all) row by row from the application: they never "
                             "exist whole in the pool")
    parser.add_argument("--stream-output", type=ports, nargs="?", const=True, default=False, metavar="IDX,...",
                        help="hand these outputs (default: all) to the application row by row as soon as they "
                             "are made")
