"""C for kernel descriptions: one C99 function per kernel configuration (paper section 5).

`lower(kernel, name)` gives the text of `static vmcu_status name(ctx, params, inputs, output)`, the
runtime's kernel signature (csrc/include/vmcu/vmcu_kernels.h), executing the description statement by
statement; `render_kernels` gives the C fragment of a model's kernels.

The generator is split by instruction set, as the runtime's helpers are (vmcu_dsp.h):
- `core.py` (with `pool.py`, `dots.py`, `requantize.py`): what every core runs, the portable C;
- `dsp.py`: the Cortex-M DSP extension's forms (SIMD words, the GEMM assembly) under #if;
- `helium.py`: Helium's (MVE) vector forms under #if VMCU_MVE.
`names.py` holds what they share, `prepare.py` the simplification of a description before lowering.

One C for every core. The kernel tuning (`tuning.py`) shapes the descriptions (eight-lane depthwise
groups, four-channel tiles), not the lowering: whatever the tuning, the generated C builds and runs
bit-exact on every core, each core's compiler keeping its own form. So the lowering is the one class
that carries every instruction set's forms, chosen here: `Lowering`.

A test build may define VMCU_ON_COPY(load) to observe the copies of loads that wrap (it counts them).
"""
from __future__ import annotations

from dataclasses import replace

from ..ir import Kernel
from .helium import HeliumLowering
from .prepare import pieces, simplified

__all__ = ["PRELUDE", "Lowering", "function_block", "lower", "pieces", "render_kernels"]

# The lowering of every kernel: the portable C with the DSP and Helium forms under their #if.
Lowering = HeliumLowering

PRELUDE = """#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu/vmcu_dsp.h"

/* Runs where a generated kernel copies a load that crosses the end of the pool (tests count them). */
#ifndef VMCU_ON_COPY
#define VMCU_ON_COPY(load) ((void)0)
#endif
"""


def lower(kernel: Kernel, function_name: str, whole: frozenset[str] = frozenset()) -> str:
    """The C99 function executing `kernel`, named `function_name` (static, the runtime's kernel signature).

    `whole` names the pool roles ("input0", "output", a workspace) that the step's plan keeps in
    one piece, not crossing the end of the pool: their loads are plain pointers and their reads
    and writes plain copies, with no wrap test and no copy buffer on the stack. The others may
    wrap (the default: all of them).

    Two passes: the first finds which declarations the code reads, the second writes the code
    with a (void) for the others (a weight row a one-unit Dot never reads, a load only freed).
    The first also finds the widened tiles only the GEMM assembly reads, which the second widens
    interleaved for it (`dsp.DspLowering.paired_tiles`).
    """
    unknown = set(whole) - set(kernel.tensors) - {w.name for w in kernel.workspaces}
    if unknown:
        raise ValueError(f"kernel {kernel.name}: no pool roles {sorted(unknown)}")
    kernel = replace(kernel, body=simplified(kernel.body, {}))
    first = Lowering(kernel, function_name, frozenset(whole))
    first.function()
    return Lowering(kernel, function_name, frozenset(whole), first).function()


def function_block(kernel: Kernel, function: str, note: str = "") -> str:
    """A lowered function (`lower`'s text) with the description's doc (and `note`) as its comment."""
    doc = (kernel.doc or kernel.name).replace("*/", "* /")
    return f"\n/* {doc}{note} */\n{function}"


def render_kernels(kernels: dict[str, Kernel], whole: dict[str, frozenset[str]] | None = None) -> str:
    """A C fragment with the #includes and one function per entry (function name -> kernel), by name;
    `whole` gives the roles lowered as not wrapping, per function name (default: none)."""
    return PRELUDE + "".join(
        function_block(kernels[name], lower(kernels[name], name, (whole or {}).get(name, frozenset())))
        for name in sorted(kernels))
