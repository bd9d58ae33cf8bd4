"""BATCH_MATMUL_S16: an int16 BATCH_MATMUL (a 16x8 model's), TFLite Micro's int16 BatchMatMul: zero
points 0, each output element's sum of int16 products in int64, TFLite's 64-bit requantization,
saturated to int16. BATCH_MATMUL's prepare makes it (`BatchMatMulParams` with int16 constants);
whole tensors, the output apart."""
from __future__ import annotations

from ..codegen.params.batch_matmul import emit_s16
from .batch_matmul import macs
from .spec import OpSpec

KIND = "BATCH_MATMUL_S16"

SPEC = OpSpec(KIND, kind_id=91, emit=emit_s16, c_kernel="vmcu_batch_matmul_s16", macs=macs)
