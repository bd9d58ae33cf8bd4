"""The runtime's vmcu_type values (vmcu_types.h): the element type of a pool tensor, as the I/O
tables and the kernels that convert between types name it."""
from __future__ import annotations

TYPE_IDS = {"int8": 0, "int16": 1, "int32": 2, "uint32": 3, "uint64": 4, "float32": 5, "uint8": 6, "uint16": 7,
            "int64": 8}
C_TYPES = {name: f"VMCU_TYPE_{name.upper()}" for name in TYPE_IDS}
