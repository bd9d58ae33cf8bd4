"""What the converter knows about one step kind, in one place (TFLite Micro's registration idea).

Every module of this package that defines `SPEC` is an op. The registries the rest of the
converter used to keep by hand are derived from the specs (`vmcu_tflite.ops.SPECS`): the
supported-op list, TFLite's arity and options table, Prepare, the MAC count, the planner's access
pattern, the C params emitter, the runtime kernel a step calls and the runtime's `vmcu_kind`
numbering, which `vmcu_tflite.codegen.kinds_header` writes into `csrc/include/vmcu/vmcu_kinds.h`.

The reference interpreter's kernels are not named here: they live in `vmcu_reference.ops`, apart
from the code they check, and a test requires one kernel per spec.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

# (graph, op) -> params; (params) -> MACs; (step, graph, writer, name) -> (C type, initializer);
# (graph, step, input position, segment bytes) -> AccessPattern or None
Prepare = Callable[..., Any]
Macs = Callable[[Any], int]
Emitter = Callable[..., "tuple[str, str]"]
Access = Callable[..., Any]

# ((fewest, most) inputs, outputs (None: any number), input positions that may be omitted with -1)
Arity = tuple[tuple[int, int], Optional[int], frozenset[int]]
ONE_INPUT: Arity = ((1, 1), 1, frozenset())
TWO_INPUTS: Arity = ((2, 2), 1, frozenset())


@dataclass(frozen=True)
class OpSpec:
    """One step kind.

    name:     the TFLite builtin name (or, for fused kinds, the step kind fusion creates)
    kind_id:  the runtime's `vmcu_kind` value; part of the table format, so never renumbered.
              None for kinds the C runtime does not run (float DEQUANTIZE, interpreter only)
    emit:     the C initializer of the kind's params struct (`vmcu_tflite/codegen/params/`)
    prepare:  TFLite Micro's Prepare done ahead of time: everything the kernels need, or a
              `ModelError` saying why the op cannot run. None for fused kinds (fusion builds them).
    c_kernel: the runtime kernel the step calls, or None when the kernel is generated from the
              kernel language (`vmcu_tflite.kernels.describe`)
    access:   how the kind's runtime kernel walks an input, so the planner can let its output
              overwrite consumed input bytes; None: the step keeps its output apart (kernels in
              the kernel language give their own access functions)
    macs:     multiply-accumulates, for the reports; None counts 0
    arity:    TFLite's input and output counts (`vmcu_tflite.model_rules` checks them first)
    options:  the op's builtin options table type in the TFLite schema, or None; a table of
              another type is ignored, as TFLite Micro ignores it
    options_required: TFLite Micro cannot run the op on its zero defaults (a stride of 0), so a
              model without the table is refused
    scratch:  bytes of the application's scratch a runtime kernel uses for its own buffers (an LSTM's
              gates), from the params; the step's scratch is the larger of this and its output
              segment. The scratch may be unaligned: a kernel aligns its start itself (count the
              3 bytes that may cost)
    state_inputs: input positions that are the op's state (variable tensors kept between runs in
              the state region, `vmcu_tflite.state`: an LSTM's, an SVDF's, the resource variable
              READ_VARIABLE and ASSIGN_VARIABLE copy); a variable anywhere else is refused
    custom:   a custom operator, named in the model by its custom code (TFLite Micro's AddCustom:
              `TFLite_Detection_PostProcess`, the signal library's `SignalWindow`, ...); its options
              are the model's flexbuffer map, read as they are (no zeros for absent keys)
    activation_types: the activation types other than int8 the op reads or writes (a post-processing
              op's float outputs, an audio front end's int16 and int32): the reader's type blocker lets
              them through for this op, and its prepare checks each tensor exactly
    wraps:    the runtime kernel reaches every element of its tensors through the views' wrapping
              accessors (vmcu_load_signed, vmcu_read, vmcu_copy, vmcu_span16 with its fallback), so a
              tensor of wider elements (int16) that only such kernels read and write may cross the end
              of the pool (`lifetimes.Buffer.wraps`); False: the planner keeps it in one piece
    """

    name: str
    kind_id: Optional[int]
    emit: Optional[Emitter]
    prepare: Optional[Prepare] = None
    c_kernel: Optional[str] = None
    access: Optional[Access] = None
    macs: Optional[Macs] = None
    arity: Optional[Arity] = None
    options: Optional[str] = None
    options_required: bool = False
    state_inputs: frozenset[int] = frozenset()
    scratch: Optional[Callable[[Any], int]] = None
    custom: bool = False
    activation_types: frozenset[str] = frozenset()
    wraps: bool = False

    @property
    def is_tflite_op(self) -> bool:
        return self.prepare is not None
