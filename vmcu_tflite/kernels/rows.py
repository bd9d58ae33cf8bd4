"""The kernel of a PULLED_ROW step (`vmcu_tflite/ops/pulled_row.py`): one row of a streamed model
input, pulled from the application into the step's output, which is that row's UNPACK part."""
from __future__ import annotations

from .index import Const
from .ir import Kernel, PullRow


def pulled_row(params) -> Kernel:
    n, row, index = params.row_bytes, params.row, params.pulls_input
    return Kernel(name="pulled_row", params_type="vmcu_pulled_row_params", signature=("pulled_row", index, row, n),
                  tensors={"output": n},
                  body=(PullRow("output", Const(0), Const(n), "", row=Const(row), input=index),),
                  doc=f"row {row} of streamed input {index}, {n} bytes, pulled into its part")
