"""TFLite_Detection_PostProcess: an SSD detector's box decoding and non-max suppression (a custom op).

TFLite Micro's kernel (registered with AddCustom; fast or regular, per-class, non-max
suppression) reads float32 box encodings [1, N, >= 4], float32 class predictions [1, N,
num_classes (+ 1 background)] and float32 anchors [N, 4] (reinterpreted as floats whatever their
type: anything else is refused here), and writes four float32 outputs:
boxes [1, max_detections, 4], classes and scores [1, max_detections], num_detections [1]. A
quantized detector feeds it through DEQUANTIZEs of its int8 heads; `passes.fuse_postprocess`
folds those into the step, which then reads the int8 heads from the pool and dequantizes them as
TFLite's DEQUANTIZE does (double product, cast to float). The anchors are a float32 constant
(folding turns a DEQUANTIZE of int8 anchors into one).

A step writes one tensor, so the pass makes one op per output (`output_part` 0..3): each step
runs the whole post-processing and writes its part (the work done four times; it is small against
the network before it). The options are the model's flexbuffer map; absent keys are what TFLite
Micro's Init reads for them (0, 0.0, false; detections_per_class 100).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..codegen.params.detection_postprocess import emit
from ..graph import Graph, Op
from .common import require, tensor
from .spec import OpSpec

KIND = "TFLite_Detection_PostProcess"
PARTS = ("boxes", "classes", "scores", "num_detections")
MAX_BOXES, MAX_VALUES = 1 << 20, 1 << 10  # the runtime's bounds (vmcu_detection_postprocess.c's check)
_INTS = ("max_detections", "max_classes_per_detection", "num_classes")
_FLOATS = ("nms_score_threshold", "nms_iou_threshold", "y_scale", "x_scale", "h_scale", "w_scale")


@dataclass(frozen=True, eq=False)
class DetectionPostProcessParams:
    num_boxes: int
    box_stride: int  # values per box encoding (>= 4: extra ones, keypoints, are skipped)
    num_classes: int
    label_offset: int  # 1 when the class predictions have a background class first
    max_detections: int
    detections_per_class: int
    use_regular_nms: bool
    score_threshold: float  # float32 values, as TFLite Micro holds them
    iou_threshold: float
    scales: tuple[float, float, float, float]  # y, x, h, w
    box_scale: float  # the int8 box encodings' and class predictions' quantization
    box_zero_point: int
    class_scale: float
    class_zero_point: int
    anchors: np.ndarray  # float32 [N, 4]: y, x, h, w
    part: int  # which output this step writes (PARTS)
    output_shape: tuple[int, ...]


def _options(op: Op) -> dict:
    """The map as TFLite Micro's Init reads it: ints truncated, floats as float32, absent keys 0."""
    values = {}
    for key in _INTS + ("detections_per_class",):
        raw = op.options.get(key, 100 if key == "detections_per_class" else 0)
        require(isinstance(raw, (int, float)) and math.isfinite(raw), op, f"option {key} is not a number")
        values[key] = int(raw)
    for key in _FLOATS:
        raw = op.options.get(key, 0.0)
        require(isinstance(raw, (int, float)), op, f"option {key} is not a number")
        values[key] = float(np.float32(raw))
    raw = op.options.get("use_regular_nms", False)
    require(isinstance(raw, (bool, int, float)), op, "option use_regular_nms is not a boolean")
    values["use_regular_nms"] = bool(raw)
    return values


def _dequantized(op: Op, graph: Graph, position: int, what: str) -> tuple[float, int]:
    t = tensor(graph, op, position)
    require(t is not None and not t.is_constant, op, f"the {what} must be an activation")
    fused = position in op.options.get("dequantized", ())
    require(t.dtype != "int8" or fused, op, f"the {what} are INT8; TFLite Micro's kernel reads float32 ones only "
                                            "(a quantized model DEQUANTIZEs its heads into it)")
    require(fused, op, f"the {what} are {t.dtype.upper()} but not a DEQUANTIZE of an int8 tensor that nothing "
                       "else reads, the only float heads supported (the pool holds int8 activations)")
    require(t.quant is not None and not t.quant.per_channel, op, f"the {what} need a per-tensor scale")
    return t.scale, t.zero_point


def prepare(graph: Graph, op: Op) -> DetectionPostProcessParams:
    require(len(op.inputs) == 3, op, f"expects 3 inputs, has {len(op.inputs)}")
    require("output_part" in op.options, op, "expects 4 outputs")
    o = _options(op)
    boxes, classes, anchors = (tensor(graph, op, i) for i in range(3))
    require(len(boxes.shape) == 3 and len(classes.shape) == 3 and len(anchors.shape) == 2, op,
            "expects box encodings and class predictions of 3 dimensions and anchors of 2")
    n = boxes.shape[1]
    require(boxes.shape[0] == 1 and classes.shape[0] == 1, op, "batch sizes other than 1 are not supported")
    require(boxes.shape[2] >= 4, op, f"box encodings have {boxes.shape[2]} values per box, fewer than 4")
    require(classes.shape[1] == n, op, f"{classes.shape[1]} class predictions for {n} boxes")
    require(anchors.is_constant and anchors.dtype == "float32" and anchors.shape == (n, 4), op,
            f"the anchors must be a float32 constant [{n}, 4] (TFLite Micro reads them as floats)")
    require(o["num_classes"] >= 1, op, f"num_classes {o['num_classes']} is not positive")
    offset = classes.shape[2] - o["num_classes"]
    require(offset in (0, 1), op, f"class predictions have {classes.shape[2]} classes for num_classes "
                                  f"{o['num_classes']} (it or one more, the background, expected)")
    require(o["max_detections"] >= 0, op, f"max_detections {o['max_detections']} is negative")
    # the C kernel's index arithmetic in int32 (its check holds the tables to the same bounds)
    require(1 <= n <= MAX_BOXES and boxes.shape[2] <= MAX_VALUES and classes.shape[2] <= MAX_VALUES
            and o["max_detections"] <= MAX_BOXES, op, f"{n} boxes of {boxes.shape[2]} values, {classes.shape[2]} "
            f"classes and {o['max_detections']} detections: supported are 1 to {MAX_BOXES} boxes, at most "
            f"{MAX_VALUES} values or classes each and {MAX_BOXES} detections")
    require(0.0 < o["nms_iou_threshold"] <= 1.0, op, f"nms_iou_threshold {o['nms_iou_threshold']} is outside (0, 1]")
    for key in ("y_scale", "x_scale", "h_scale", "w_scale"):
        require(o[key] != 0.0 and math.isfinite(o[key]), op, f"{key} {o[key]} is not a non-zero number")
    if o["use_regular_nms"]:
        require(o["detections_per_class"] > 0, op, "detections_per_class must be positive")
    else:
        require(o["max_classes_per_detection"] > 0, op, "max_classes_per_detection must be positive")
        require(min(o["max_classes_per_detection"], o["num_classes"]) == 1, op,
                "more than one class per detection (max_classes_per_detection above 1) is not supported")
    box_scale, box_zero_point = _dequantized(op, graph, 0, "box encodings")
    class_scale, class_zero_point = _dequantized(op, graph, 1, "class predictions")
    part = op.options["output_part"]
    out = graph.tensors[op.outputs[0]]
    m = o["max_detections"]
    want = (m * 4, m, m, 1)[part]
    require(out.dtype == "float32" and out.num_elements == want, op,
            f"its {PARTS[part]} output must be float32 with {want} values (is {out.dtype}, {out.num_elements})")
    data = np.ascontiguousarray(anchors.data, dtype=np.float32)
    data.flags.writeable = False
    return DetectionPostProcessParams(
        num_boxes=n, box_stride=boxes.shape[2], num_classes=o["num_classes"], label_offset=offset,
        max_detections=m, detections_per_class=o["detections_per_class"], use_regular_nms=o["use_regular_nms"],
        score_threshold=o["nms_score_threshold"], iou_threshold=o["nms_iou_threshold"],
        scales=(o["y_scale"], o["x_scale"], o["h_scale"], o["w_scale"]), box_scale=box_scale,
        box_zero_point=box_zero_point, class_scale=class_scale, class_zero_point=class_zero_point,
        anchors=data, part=part, output_shape=out.shape)


def scratch(p: DetectionPostProcessParams) -> int:
    """The C kernel's buffers: per box its decoded corners (4 floats), a score (float), a class, a
    sort position and its merge buffer (int32 each) and a flag; the selected boxes (at most
    max_detections, or detections_per_class per class); regular suppression's running list of
    max_detections plus one class's selection (box, class, score, sort position, merge buffer, the
    reordered score); 3 bytes to align."""
    n = p.num_boxes
    selected = min(n, p.detections_per_class if p.use_regular_nms else p.max_detections)
    running = p.max_detections + selected if p.use_regular_nms else 0
    return n * (16 + 4 + 4 + 4 + 4 + 1) + 4 * selected + 24 * running + 3


SPEC = OpSpec(KIND, kind_id=42, emit=emit, prepare=prepare, c_kernel="vmcu_detection_postprocess",
              arity=((3, 3), 4, frozenset()), scratch=scratch, custom=True, activation_types=frozenset({"float32"}))
