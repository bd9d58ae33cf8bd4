"""vmcu_detection_postprocess_params from DetectionPostProcessParams: floats as their float32 bits,
and each head's 256 int8 values dequantized as TFLite's DEQUANTIZE does (the double product
scale * (q - zero_point) cast to float), so that the kernel looks them up."""
from __future__ import annotations

import numpy as np

from .common import struct


def _bits(value: float) -> int:
    return int(np.float32(value).view(np.uint32))


def dequantized_values(scale: float, zero_point: int) -> np.ndarray:
    """float32 bits of every int8 q, at q + 128."""
    q = np.arange(-128, 128, dtype=np.int64)
    return (np.float64(scale) * (q - zero_point).astype(np.float64)).astype(np.float32).view(np.uint32)


def emit(step, graph, writer, name):
    p = step.params
    anchors = writer.array("uint32_t", f"{name}_anchors", np.ascontiguousarray(p.anchors, np.float32).view(np.uint32))
    boxes = writer.array("uint32_t", f"{name}_box_values", dequantized_values(p.box_scale, p.box_zero_point))
    classes = writer.array("uint32_t", f"{name}_class_values", dequantized_values(p.class_scale, p.class_zero_point))
    y, x, h, w = (_bits(s) for s in p.scales)
    return "vmcu_detection_postprocess_params", struct(
        num_boxes=p.num_boxes, box_stride=p.box_stride, num_classes=p.num_classes, label_offset=p.label_offset,
        max_detections=p.max_detections, part=p.part, regular=int(p.use_regular_nms),
        detections_per_class=p.detections_per_class, score_threshold=_bits(p.score_threshold),
        iou_threshold=_bits(p.iou_threshold), y_scale=y, x_scale=x, h_scale=h, w_scale=w, anchors=anchors,
        box_values=boxes, class_values=classes)
