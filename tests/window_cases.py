"""Hypothesis strategy for 2-D window geometries (conv, depthwise, pooling) shared by the gap tests."""
from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def window_geometry(draw, max_kernel: int = 7, max_stride: int = 3, max_size: int = 14) -> dict:
    """Kernel, stride, dilation, input size (at least one window) and padding (at most half a
    kernel) of a 2-D window, with the output size they give."""
    k_h, k_w = draw(st.integers(1, max_kernel)), draw(st.integers(1, max_kernel))
    s_h, s_w = draw(st.integers(1, max_stride)), draw(st.integers(1, max_stride))
    d_h, d_w = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    h = draw(st.integers((k_h - 1) * d_h + 1, max(max_size, (k_h - 1) * d_h + 1)))
    w = draw(st.integers((k_w - 1) * d_w + 1, max(max_size, (k_w - 1) * d_w + 1)))
    p_h, p_w = draw(st.integers(0, k_h // 2)), draw(st.integers(0, k_w // 2))
    return dict(kernel=(k_h, k_w), stride=(s_h, s_w), dilation=(d_h, d_w), size=(h, w), padding=(p_h, p_w),
                out=((h + 2 * p_h - (k_h - 1) * d_h - 1) // s_h + 1, (w + 2 * p_w - (k_w - 1) * d_w - 1) // s_w + 1))
