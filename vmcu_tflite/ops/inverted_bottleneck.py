"""INVERTED_BOTTLENECK: not a TFLite op but the step kind fusion makes of a lead conv, a depthwise
and a 1x1 projection (with the residual ADD), its params built by `vmcu_tflite.fusion`. Its
kernel is generated from the kernel language (`vmcu_tflite/kernels/fused.py`)."""
from __future__ import annotations

from ..codegen.params.inverted_bottleneck import emit
from .spec import OpSpec

KIND = "INVERTED_BOTTLENECK"

SPEC = OpSpec(KIND, kind_id=15, emit=emit)
