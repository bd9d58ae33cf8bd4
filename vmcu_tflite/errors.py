"""Errors the tools report to users, each tied to the exit code of the interface contract.

A command-line tool catches `VmcuError`, prints `<tool>: error: <message>` as one line on stderr
and exits with `exit_code`; anything else escaping is a bug in the tool, not in the user's model.
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_OUTPUTS_DIFFER = 1
EXIT_BAD_INPUT = 2
EXIT_DOES_NOT_FIT = 3
EXIT_HAZARD = 4


class VmcuError(Exception):
    """Base of every user-facing error; the message is one line of printable characters (names
    taken from a model are escaped: a tensor name may hold a newline or a terminal escape)."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str = "") -> None:
        super().__init__("".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in str(message)))


class ModelError(VmcuError):
    """The file is not a TFLite model this tool supports (corrupt, float, unsupported op, ...)."""

    exit_code = EXIT_BAD_INPUT


class UsageError(VmcuError):
    """The command line or an input file given on it is wrong."""

    exit_code = EXIT_BAD_INPUT


class BudgetError(VmcuError):
    """The plan needs more RAM than `--ram-budget` allows."""

    exit_code = EXIT_DOES_NOT_FIT


class MismatchError(VmcuError):
    """Computed values are wrong: a kernel description's output differs from TFLite's formula, or
    it computes from bytes it never loaded or registers it never set."""

    exit_code = EXIT_OUTPUTS_DIFFER


class DivergenceError(MismatchError):
    """The outputs differ from TFLite Micro's: the message names the first diverging tensor;
    `outputs` holds ours."""

    def __init__(self, message: str = "", outputs: list | None = None) -> None:
        super().__init__(message)
        self.outputs = outputs or []


class ArithmeticInputError(VmcuError):
    """The inputs ask an operator for arithmetic TFLite Micro refuses at run time or leaves undefined
    (an int32 DIV by zero, a square root's shift outside 0..31, a detector's empty decoded box); the
    C runtime stops the run with VMCU_ERROR_ARITHMETIC."""

    exit_code = EXIT_BAD_INPUT


class HazardError(VmcuError):
    """A step read pool bytes that no longer hold the segment it expected: the plan is wrong."""

    exit_code = EXIT_HAZARD
