"""TFLite_Detection_PostProcess reference kernel: TFLite Micro's detection_postprocess.cc, computed
with its own precision at each operation.

- The int8 heads are dequantized as TFLite's DEQUANTIZE (double product, cast to float32).
- Box decoding (center-size with the scales) is in double, libm's exp included (Python's
  math.exp is the C library's exp, as TFLite Micro's std::exp(double) is; numpy's exp is not),
  then cast to float32; the corners are float32 sums.
- Fast non-max suppression: each box's best class (the first on ties), scores at or above the
  threshold, sorted by score descending with a stable sort (TFLite Micro's merge sort keeps the
  box order on ties), then greedy selection; a box is suppressed when its float32 IoU with a
  selected one exceeds the threshold. Regular suppression does the same per class (`regular`).
  A decoded box with ymin >= ymax or xmin >= xmax makes TFLite Micro's invocation fail: here an
  error.
- The slots past num_detections are zeros (TFLite Micro leaves them as its scratch held them).
"""
from __future__ import annotations

import math

import numpy as np

from vmcu_tflite.errors import ArithmeticInputError

from .base import Kernel
from .op_dequantize import dequantize

f32 = np.float32


def _exp(value: float) -> float:
    """The C library's exp in double: infinity past its range, where math.exp raises."""
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def decode(encodings: np.ndarray, anchors: np.ndarray, scales) -> np.ndarray:
    """[N, >= 4] float32 (y, x, h, w) against float32 anchors -> float32 [N, 4] (ymin, xmin, ymax, xmax)."""
    ys, xs, hs, ws = (float(s) for s in scales)
    boxes = np.empty((len(anchors), 4), dtype=np.float32)
    for i, ((y, x, h, w), (ay, ax, ah, aw)) in enumerate(zip(encodings[:, :4].tolist(), anchors.tolist())):
        ycenter = f32(y / ys * ah + ay)
        xcenter = f32(x / xs * aw + ax)
        half_h = f32(0.5 * _exp(h / hs) * ah)
        half_w = f32(0.5 * _exp(w / ws) * aw)
        boxes[i] = (ycenter - half_h, xcenter - half_w, ycenter + half_h, xcenter + half_w)
    return boxes


def _max(a, b):  # std::max: the first unless it is less
    return b if a < b else a


def _min(a, b):  # std::min: the first unless the second is less
    return b if b < a else a


def iou(boxes: np.ndarray, i: int, j: int) -> np.float32:
    """Intersection over union in float32, zero when either box has no area."""
    (ay0, ax0, ay1, ax1), (by0, bx0, by1, bx1) = boxes[i], boxes[j]
    area_i, area_j = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if area_i <= 0 or area_j <= 0:
        return f32(0.0)
    inter = _max(_min(ay1, by1) - _max(ay0, by0), f32(0.0)) * _max(_min(ax1, bx1) - _max(ax0, bx0), f32(0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (area_i + area_j - inter)


def non_max_suppression(boxes: np.ndarray, scores: np.ndarray, threshold, iou_threshold, limit: int) -> list[int]:
    """Greedy selection over the boxes scoring at least `threshold`, best first (stable), at most `limit`."""
    kept = [i for i in range(len(scores)) if scores[i] >= threshold]
    order = sorted(kept, key=lambda i: -scores[i])  # stable: equal scores keep the box order
    active = [True] * len(order)
    selected: list[int] = []
    for a in range(len(order)):
        if len(selected) >= min(len(order), limit):
            break
        if not active[a]:
            continue
        selected.append(order[a])
        active[a] = False
        for b in range(a + 1, len(order)):
            if active[b] and iou(boxes, order[a], order[b]) > iou_threshold:
                active[b] = False
    return selected


class DetectionPostProcess(Kernel):
    kind = "TFLite_Detection_PostProcess"

    def run(self, encodings: np.ndarray, predictions: np.ndarray) -> np.ndarray:
        p = self.params
        n = p.num_boxes
        encodings = dequantize(encodings, p.box_scale, p.box_zero_point).reshape(n, -1)
        predictions = dequantize(predictions, p.class_scale, p.class_zero_point).reshape(n, -1)
        boxes = decode(encodings, p.anchors, p.scales)
        if ((boxes[:, 0] >= boxes[:, 2]) | (boxes[:, 1] >= boxes[:, 3])).any():
            raise ArithmeticInputError("TFLite_Detection_PostProcess: a decoded box is empty (ymin >= ymax or xmin >= xmax); "
                             "TFLite Micro fails the invocation")
        scores = predictions[:, p.label_offset:p.label_offset + p.num_classes]
        thresholds = f32(p.score_threshold), f32(p.iou_threshold)
        if p.use_regular_nms:
            detections = self.regular(boxes, scores, *thresholds)
        else:
            best = np.argmax(scores, axis=1)  # the first of equal maxima
            best_scores = scores[np.arange(n), best]
            selected = non_max_suppression(boxes, best_scores, *thresholds, p.max_detections)
            detections = [(i, best[i], best_scores[i]) for i in selected]
        m = p.max_detections
        outputs = [np.zeros((m, 4), np.float32), np.zeros(m, np.float32), np.zeros(m, np.float32),
                   np.array([len(detections)], np.float32)]
        for k, (i, c, score) in enumerate(detections):
            outputs[0][k] = boxes[i]
            outputs[1][k] = c
            outputs[2][k] = score
        return outputs[p.part].reshape(p.output_shape)

    def regular(self, boxes: np.ndarray, scores: np.ndarray, threshold, iou_threshold) -> list[tuple]:
        """Per class, non-max suppression keeping at most detections_per_class boxes; after each class
        the running list (the best so far, then this class's in selection order) is cut to the
        max_detections best, by score descending and, on equal scores, list position (TFLite Micro's
        partial sort with the index as tie-break)."""
        p = self.params
        best: list[tuple] = []  # (box, class, score)
        for c in range(p.num_classes):
            column = np.ascontiguousarray(scores[:, c])
            chosen = non_max_suppression(boxes, column, threshold, iou_threshold, p.detections_per_class)
            merged = best + [(i, c, column[i]) for i in chosen]
            ranked = sorted(range(len(merged)), key=lambda k: (-merged[k][2], k))
            best = [merged[k] for k in ranked[:min(len(merged), p.max_detections)]]
        return best
