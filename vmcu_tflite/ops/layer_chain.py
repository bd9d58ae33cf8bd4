"""LAYER_CHAIN: not a TFLite op but the step kind fusion makes of consecutive convolution layers
(`vmcu_tflite/chain.py`). Its kernel is generated from the kernel language
(`vmcu_tflite/kernels/chain.py`)."""
from __future__ import annotations

from ..chain import KIND
from ..codegen.params.layer_chain import emit
from .spec import OpSpec

SPEC = OpSpec(KIND, kind_id=15, emit=emit)  # the slot of the inverted bottleneck it replaced
