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


def indices(text: str) -> tuple[int, ...] | str:
    """Port indices, comma-separated: '0', '0,2' (whether the model has them is checked once it is
    read); 'all' (an option's value when none is given) stays as it is."""
    if text == "all":
        return text
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        values = (-1,)
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"not a list of indices: '{text}' (0, or 0,2)")
    return values


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


def percent(text: str) -> float:
    """'4', '0.5' -> 0.04, 0.005: a share from 0 to 100 percent."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"not a percentage: '{text}' (0 to 100)")
    return value / 100


def add_widened_argument(parser: argparse.ArgumentParser) -> None:
    """--widened-weights: the flash the int16 copies of 1x1 filters may take (kernels/widened_weights.py)."""
    parser.add_argument("--widened-weights", type=percent, metavar="PERCENT",
                        help="flash for speed on the dsp tuning: int16 copies of the 1x1 filters with the most "
                             "pixels per weight, adding at most this percent of the model's filter bytes "
                             "(default 4, or 4 KiB where that is more; 0: none)")


def add_stream_arguments(parser: argparse.ArgumentParser) -> None:
    """--stream-input / --stream-output: every port with no value, or the indices given."""
    parser.add_argument("--stream-input", type=indices, nargs="?", const="all", default=(), metavar="IDX,...",
                        help="pull these inputs (no value: every input) row by row from the application through "
                             "vmcu_invoke_streamed()'s read_row callback: where a chain reads one, it never exists "
                             "whole in the pool")
    parser.add_argument("--stream-output", type=indices, nargs="?", const="all", default=(), metavar="IDX,...",
                        help="push these outputs (no value: every output) row by row through the write_row "
                             "callback as soon as they are made")
