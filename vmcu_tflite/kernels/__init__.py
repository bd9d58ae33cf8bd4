"""The heavy kernels, each written once in the kernel language (paper section 5).

`describe(step, segment, in_place)` gives the description of one step's kernel configuration.
The planner reads its access functions from it (`access.py`), the reference interpreter runs its
loads, stores and frees over the simulated pool (`vmcu_reference/kernel_run.py`), and the C
generator emits one C function per distinct configuration (`lower/`) into the model's C
file (`vmcu_tflite/codegen/kernel_functions.py`). Kinds without a description (element-wise,
pooling, shape ops) keep their hand-written C and access patterns.
"""
from __future__ import annotations

from ..chain import is_pointwise  # a GEMM over the pixels, and a chain layer that needs no ring
from .chain import layer_chain
from .conv import conv2d
from .depthwise import depthwise, depthwise_in_place
from .gemm import gemm
from .ir import Kernel
from .offset import dot_offset, kernel_bias
from .requant import requant_form, requant_form16
from .rows import pulled_row


def gemm_shape(kind: str, params) -> tuple[int, int, int] | None:
    """(rows M, depth K, units N) of a step that is a GEMM (fully connected, pointwise), else None."""
    if kind == "FULLY_CONNECTED":
        units, depth = params.filter.shape
        return params.rows, depth, units
    if kind == "CONV_2D" and is_pointwise(params):
        n, h, w, c_in = params.input_shape
        return n * h * w, c_in, params.output_shape[3]
    return None


def describe(kind: str, params, segment: int, in_place: bool = False, tile_rows: int = 1) -> Kernel | None:
    """The kernel description of a step, or None for kinds that have none; `tile_rows`: input rows
    per GEMM tile (pointwise and fully connected), 1 or 2."""
    shape = gemm_shape(kind, params)
    if shape is not None:
        params_type, stem = (("vmcu_fully_connected_params", "fully_connected") if kind == "FULLY_CONNECTED"
                             else ("vmcu_conv_params", "pointwise"))
        element = getattr(params, "element", 1)
        if element == 2:  # 16x8: no offset, the general (or 64-bit) requantization, one-row tiles
            form = requant_form16(params.bias, params.wide, params.filter, params.requant)
            return gemm(*shape, segment, params_type, stem + "_s16", form, 1, "0", element=2)
        form = requant_form(params.filter, params.bias, params.requant, 0, kernel_bias(params))
        return gemm(*shape, segment, params_type, stem, form, tile_rows, dot_offset(params, "p"),
                    widen_once=getattr(params, "tuning", "dsp") != "helium",
                    int16_weights=getattr(params, "int16_weights", False),
                    paired_weights=getattr(params, "paired_weights", False))
    if kind == "CONV_2D":
        return conv2d(params, segment)
    if kind == "DEPTHWISE_CONV_2D":
        return depthwise_in_place(params, segment) if in_place else depthwise(params, segment)
    if kind == "LAYER_CHAIN":
        return layer_chain(params, segment)
    if kind == "PULLED_ROW":
        return pulled_row(params)
    return None
