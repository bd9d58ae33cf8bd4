"""Small pieces of the C generators' text: operands, offsets, and the last value a loop takes.

Shared by the C generator's modules (`lower/`), so that none imports another's internals.
"""
from __future__ import annotations

import re

from .index import Const, Ix
from .ir import Loop


def paren(text: str) -> str:
    """`text` as one operand: identifiers, numbers and parenthesized or called expressions stay as they are."""
    if re.fullmatch(r"[A-Za-z_0-9]+", text) or (text.startswith("(") and closes_at_end(text)):
        return text
    if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*\(.*\)", text) and closes_at_end(text[text.index("("):]):
        return text
    return f"({text})"


def closes_at_end(text: str) -> bool:
    """Whether the parenthesis opening `text` closes at its last character."""
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k == len(text) - 1
    return False


def plus(base: str, index: str) -> str:
    """`base + index` in C, `base` alone for the index 0."""
    return base if index == "0" else f"{base} + {index}"


def greatest(loop: Loop) -> Ix:
    """The loop variable's greatest value as an expression: the last step below the end when the
    trip length is a constant (u from 8*q by 2 below 8*q + 8 ends at 8*q + 6), else end - 1."""
    span = loop.hi - loop.lo
    if loop.step > 1 and isinstance(span, Const):
        return loop.lo + (span.value - 1) // loop.step * loop.step
    return loop.hi - 1
