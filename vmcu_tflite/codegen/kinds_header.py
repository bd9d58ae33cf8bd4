"""Write the runtime's step-kind enum (`csrc/include/vmcu/vmcu_kinds.h`) from the op specs.

The numbering is part of the table format: the converter writes `VMCU_KIND_<name>` into every
step, and the runtime checks a step's kind against `VMCU_KIND_COUNT` (one more than the largest: values
kept for kinds added elsewhere may be missing, since a kind's number never changes once given). Generating the enum from
`vmcu_tflite.ops.SPECS` keeps the two sides from drifting; a test compares the file with this
output. Run `python -m vmcu_tflite.codegen.kinds_header` after adding an op.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ..ops import SPECS

HEADER = Path(__file__).resolve().parents[2] / "csrc" / "include" / "vmcu" / "vmcu_kinds.h"


def kind_constant(name: str) -> str:
    """The C enumerator of a step kind: custom operators' CamelCase codes in upper snake case
    (SignalFilterBankLog -> VMCU_KIND_SIGNAL_FILTER_BANK_LOG), builtin names as they are."""
    if not any(c.islower() for c in name):  # a builtin's name (CONV_2D stays CONV_2D)
        return "VMCU_KIND_" + name
    return "VMCU_KIND_" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def render() -> str:
    kinds = sorted((s.kind_id, name) for name, s in SPECS.items() if s.kind_id is not None)
    if len({k for k, _ in kinds}) != len(kinds) or kinds[0][0] != 0:
        raise ValueError(f"vmcu_kind values must be distinct, from 0: {kinds}")
    # a number may be reserved for a kind not written yet (a gap): no table names it, and the
    # kernel a step calls is its kernel pointer, never its kind
    rows = "".join(f"    {kind_constant(name)} = {kind},\n" for kind, name in kinds)
    count = kinds[-1][0] + 1
    return f"""/*
 * vmcu-tflite runtime: step kinds. Generated from the converter's op specs by
 * `python -m vmcu_tflite.codegen.kinds_header`. Do not edit.
 */
#ifndef VMCU_KINDS_H
#define VMCU_KINDS_H

/** Step kinds, one per kernel. The numbering is part of the table format. */
typedef enum {{
{rows}    VMCU_KIND_COUNT = {count}
}} vmcu_kind;

#endif /* VMCU_KINDS_H */
"""


def main() -> int:
    HEADER.write_text(render())
    print(f"wrote {HEADER.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
