"""MINIMUM: MAXIMUM's rules, the smaller raw value."""
from __future__ import annotations

from ..codegen.params.maximum import emit
from ..planner.access import same_shape
from .maximum import prepare
from .spec import TWO_INPUTS, OpSpec

KIND = "MINIMUM"

SPEC = OpSpec(KIND, kind_id=24, emit=emit, prepare=prepare, c_kernel="vmcu_minimum_s8", access=same_shape,
              arity=TWO_INPUTS, activation_types=frozenset({"int32"}))
