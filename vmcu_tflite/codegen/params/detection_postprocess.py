"""vmcu_detection_postprocess_params from DetectionPostProcessParams: floats as their float32 bits."""
from __future__ import annotations

import numpy as np

from .common import struct


def _bits(value: float) -> int:
    return int(np.float32(value).view(np.uint32))


def emit(step, graph, writer, name):
    p = step.params
    anchors = writer.array("uint32_t", f"{name}_anchors", np.ascontiguousarray(p.anchors, np.float32).view(np.uint32))
    y, x, h, w = (_bits(s) for s in p.scales)
    return "vmcu_detection_postprocess_params", struct(
        num_boxes=p.num_boxes, box_stride=p.box_stride, num_classes=p.num_classes, label_offset=p.label_offset,
        max_detections=p.max_detections, part=p.part, regular=int(p.use_regular_nms),
        detections_per_class=p.detections_per_class, box_zero_point=p.box_zero_point,
        class_zero_point=p.class_zero_point, box_scale=_bits(p.box_scale), class_scale=_bits(p.class_scale),
        score_threshold=_bits(p.score_threshold), iou_threshold=_bits(p.iou_threshold),
        y_scale=y, x_scale=x, h_scale=h, w_scale=w, anchors=anchors)
