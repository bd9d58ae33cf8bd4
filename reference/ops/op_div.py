"""DIV reference kernel: an int32 DIV is an INT32_BINARY step (its prepare says so); the class names
the TFLite op for the registry, with the same arithmetic."""
from __future__ import annotations

from .op_int32_binary import Int32Binary


class Div(Int32Binary):
    kind = "DIV"
