"""TFLite_Detection_PostProcess against TFLite Micro: an int8 detector's heads through DEQUANTIZEs
into the custom op, fast and regular non-max suppression, with boxes that overlap (so suppression
decides) and coarse class scales (so scores tie and the sort's tie-break decides); the refusals.

TFLite Micro's kernel reads only float32 heads (int8 or uint8 ones make its invocation fail), so
quantized heads reach it through DEQUANTIZE, as the Object Detection API's exports for it do."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import ArithmeticInputError, ModelError
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model

POSTPROCESS = "TFLite_Detection_PostProcess"
OPTIONS = dict(max_detections=6, max_classes_per_detection=1, detections_per_class=100, use_regular_nms=False,
               nms_score_threshold=0.3, nms_iou_threshold=0.5, num_classes=3, y_scale=10.0, x_scale=10.0,
               h_scale=5.0, w_scale=5.0)


def anchors_for(rng, n: int, spread: float = 0.3) -> np.ndarray:
    """Anchors crowded in the middle of the image, so that decoded boxes overlap."""
    centers = rng.uniform(0.5 - spread, 0.5 + spread, (n, 2))
    sizes = rng.uniform(0.1, 0.5, (n, 2))
    return np.concatenate([centers, sizes], axis=1).astype(np.float32)


def build(n=8, num_classes=3, background=True, box_stride=4, options=None, seed=0, box_scale=0.05, box_zp=0,
          class_scale=1 / 256, class_zp=-128, anchors=None, head_type="int8", dequantize=True, outputs=None,
          anchor_type="float32"):
    """Box encodings [1, n, box_stride] and class predictions [1, n, classes (+1)] as int8 graph inputs,
    DEQUANTIZEd into the op (or given to it as they are), constant anchors; returns (model, inputs)."""
    rng = np.random.default_rng(seed)
    opts = {**OPTIONS, "num_classes": num_classes, **(options or {})}
    width = num_classes + (1 if background else 0)
    b = ModelBuilder()
    quant = head_type != "float32"
    boxes_q = b.tensor((1, n, box_stride), head_type, **(dict(scale=box_scale, zero_point=box_zp) if quant else {}))
    classes_q = b.tensor((1, n, width), head_type, **(dict(scale=class_scale, zero_point=class_zp) if quant else {}))
    heads = [boxes_q, classes_q]
    if dequantize:
        heads = [b.tensor((1, n, box_stride), "float32"), b.tensor((1, n, width), "float32")]
        b.op("DEQUANTIZE", [boxes_q], [heads[0]])
        b.op("DEQUANTIZE", [classes_q], [heads[1]])
    table = anchors_for(rng, n) if anchors is None else anchors
    anchor = (b.const(table) if anchor_type == "float32"
              else b.const(np.round(table * 100).astype(anchor_type), scale=0.01, zero_point=0))
    m = opts["max_detections"]
    shapes = outputs or [(1, m, 4), (1, m), (1, m), (1,)]
    outs = [b.tensor(shape, "float32") for shape in shapes]
    b.op("CUSTOM", heads + [anchor], outs, custom_code=POSTPROCESS, custom_options=opts)
    b.inputs, b.outputs = [boxes_q, classes_q], outs
    low, high = (-128, 128) if head_type == "int8" else (0, 256)
    feeds = [rng.integers(low, high, (1, n, box_stride)).astype(head_type),
             rng.integers(low, high, (1, n, width)).astype(head_type)]
    return b.build(), feeds


def detections(outputs) -> int:
    return int(outputs[3][0])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 4), st.booleans(), st.integers(4, 6), st.integers(0, 12),
       st.sampled_from([0.0, 0.2, 0.5, 0.8]), st.sampled_from([0.05, 0.3, 0.5, 0.7, 1.0]),
       st.sampled_from([(10.0, 10.0, 5.0, 5.0), (1.0, 2.0, 1.0, 3.0), (-4.0, 7.5, 2.5, 0.5)]),
       st.booleans(), st.integers(1, 5), st.sampled_from([1 / 256, 1 / 16, 0.1]), st.integers(0, 2**31))
def test_postprocess_bit_exact(n, num_classes, background, box_stride, max_detections, score_threshold,
                               iou_threshold, scales, regular, detections_per_class, class_scale, seed):
    """Every output bit-exact with TFLite Micro (the slots past num_detections: zeros, where its fast
    suppression leaves its arena's bytes); a coarse class scale makes scores tie."""
    y, x, h, w = scales
    options = dict(max_detections=max_detections, nms_score_threshold=score_threshold,
                   nms_iou_threshold=iou_threshold, y_scale=y, x_scale=x, h_scale=h, w_scale=w,
                   use_regular_nms=regular, detections_per_class=detections_per_class)
    rng = np.random.default_rng(seed)
    model, feeds = build(n, num_classes, background, box_stride, options, seed, class_scale=class_scale,
                         class_zp=int(rng.integers(-128, -100)), box_scale=float(rng.uniform(0.01, 0.1)),
                         box_zp=int(rng.integers(-10, 10)))
    ours = assert_matches_or_refused_like_tflm(model, feeds)
    if ours is not None:
        count = detections(ours)
        assert 0 <= count <= max_detections
        assert not ours[0].reshape(-1, 4)[count:].any() and not ours[2].reshape(-1)[count:].any()


def test_suppression_and_ties_decide():
    """Two clusters of boxes, each box shifted a little from the last (so each is recognisable)
    and overlapping the others of its cluster: suppression keeps one per cluster, and of equal
    scores the first box in box order wins (TFLite Micro's sort is stable)."""
    n = 12
    anchors = np.tile(np.array([[0.5, 0.5, 0.4, 0.4]], np.float32), (n, 1))
    anchors[:, 0] += np.arange(n, dtype=np.float32) * np.float32(0.01)
    anchors[6:, 0] -= np.float32(0.45)  # the second cluster, apart from the first
    model, feeds = build(n, 2, options=dict(nms_iou_threshold=0.5, max_detections=6), anchors=anchors,
                         class_scale=1 / 8, seed=3)
    feeds[0][:] = 0  # boxes exactly the anchors
    feeds[1][:] = -128
    feeds[1][0, :, 1] = [0, 0, -64, 0, -64, -64, -64, 8, 8, -64, 8, 0]  # ties within each cluster
    ours = assert_matches_tflm(model, feeds)
    assert detections(ours) == 2  # one box per cluster: the others overlap it
    assert ours[2][0].tolist()[:2] == [17.0, 16.0] and ours[1][0].tolist()[:2] == [0.0, 0.0]
    boxes = decoded_boxes(model, feeds)
    assert ours[0][0, :2].tolist() == [boxes[7], boxes[0]]  # the first of each tie


def decoded_boxes(model, feeds):
    """The decoded box of every anchor (the reference kernel's decoding), for the test above."""
    from vmcu_reference.ops.op_detection_postprocess import decode
    from vmcu_reference.ops.op_dequantize import dequantize
    program = compile_model(model)
    p = next(s.params for s in program.steps if s.kernel == POSTPROCESS)
    encodings = dequantize(feeds[0], p.box_scale, p.box_zero_point).reshape(p.num_boxes, -1)
    return decode(encodings, p.anchors, p.scales).tolist()


def test_undefined_slots_are_zeros_in_both():
    """TFLite Micro's fast suppression leaves the slots past num_detections as its arena held
    them; the oracle reports them as zeros, which is what our kernel writes."""
    model, feeds = build(10, 3, options=dict(max_detections=8, nms_score_threshold=0.9), seed=1)
    ours = Interpreter(compile_model(model)).run(feeds).outputs
    theirs, _ = run_tflm(model, feeds, 4)
    count = detections(theirs)
    assert count < 8 and detections(ours) == count
    for a, b in zip(ours, theirs):
        assert a.tobytes() == b.tobytes()


def test_the_fixture_detects_and_suppresses():
    """models/ssd_postprocess.tflite on seeded inputs: several detections, some boxes above the
    threshold suppressed, bit-exact with TFLite Micro."""
    from tests.models_under_test import ROOT
    from vmcu_reference.inputs import random_inputs
    model = (ROOT / "models" / "ssd_postprocess.tflite").read_bytes()
    program = compile_model(model)
    step = next(s for s in program.steps if s.kernel == POSTPROCESS)
    counts, suppressed = [], 0
    for seed in range(4):
        feeds = random_inputs(program.graph, seed)
        result = Interpreter(program).run(feeds, record=True)
        ours = assert_matches_tflm(model, feeds)
        p = step.params
        from vmcu_reference.ops.op_dequantize import dequantize
        scores = dequantize(result.tensors[step.inputs[1]], p.class_scale, p.class_zero_point).reshape(p.num_boxes, -1)
        above = int((scores[:, 1:].max(axis=1) >= np.float32(p.score_threshold)).sum())
        counts.append(detections(ours))
        suppressed += above - detections(ours)
    assert max(counts) >= 3 and suppressed >= 2


@pytest.mark.parametrize("change, message", [
    (dict(options=dict(max_classes_per_detection=2)), "more than one class per detection"),
    (dict(dequantize=False), "the box encodings are INT8; TFLite Micro's kernel reads float32 ones only"),
    (dict(head_type="float32", dequantize=False), "the box encodings are FLOAT32 but not a DEQUANTIZE"),
    (dict(anchor_type="int8"), "the anchors must be a float32 constant"),
    (dict(options=dict(y_scale=0.0)), "y_scale 0.0 is not a non-zero number"),
    (dict(outputs=[(1, 5, 4), (1, 6), (1, 6), (1,)]), "boxes output must be float32 with 24 values"),
    (dict(options=dict(max_detections=1 << 21), outputs=[(1, 6, 4), (1, 6), (1, 6), (1,)]),
     "supported are 1 to 1048576 boxes"),
])
def test_postprocess_refusals(change, message):
    """What we cannot run as TFLite Micro does (or what it runs outside its outputs for): one line."""
    model, _ = build(**change)
    with pytest.raises(ModelError, match=message):
        compile_model(model)


@pytest.mark.parametrize("options, message", [
    (dict(nms_iou_threshold=0.0), r"nms_iou_threshold 0.0 is outside \(0, 1\]"),
    (dict(nms_iou_threshold=1.5), r"nms_iou_threshold 1.5 is outside \(0, 1\]"),
    (dict(num_classes=5), "class predictions have 4 classes for num_classes 5"),
    (dict(use_regular_nms=True, detections_per_class=0), "detections_per_class must be positive"),
    (dict(max_classes_per_detection=0), "max_classes_per_detection must be positive"),
])
def test_refused_like_tflite_micro(options, message):
    """Options TFLite Micro's Eval refuses: refused here when converting, in one line."""
    model, feeds = build(options=options)
    with pytest.raises(ModelError, match=message):
        compile_model(model)
    assert assert_matches_or_refused_like_tflm(model, feeds) is None


def test_absent_options_are_tflite_micros_zeros():
    """A map without nms_iou_threshold reads 0.0 (flexbuffers' null), which TFLite Micro refuses at
    its first invocation: refused here when converting. Without use_regular_nms and
    detections_per_class it runs fast suppression, as TFLite Micro's defaults say."""
    model = _with_options({k: v for k, v in OPTIONS.items() if k != "nms_iou_threshold"})
    with pytest.raises(ModelError, match=r"nms_iou_threshold 0.0 is outside"):
        compile_model(model)
    model = _with_options({k: v for k, v in OPTIONS.items() if k not in ("use_regular_nms", "detections_per_class")})
    rng = np.random.default_rng(4)
    assert_matches_tflm(model, [rng.integers(-128, 128, (1, 4, 4)).astype(np.int8) for _ in range(2)])


def _with_options(options):
    rng = np.random.default_rng(0)
    b = ModelBuilder()
    boxes_q, classes_q = b.tensor((1, 4, 4), scale=0.05, zero_point=0), b.tensor((1, 4, 4), scale=1 / 256,
                                                                                   zero_point=-128)
    heads = [b.tensor((1, 4, 4), "float32"), b.tensor((1, 4, 4), "float32")]
    b.op("DEQUANTIZE", [boxes_q], [heads[0]])
    b.op("DEQUANTIZE", [classes_q], [heads[1]])
    outs = [b.tensor(s, "float32") for s in [(1, 6, 4), (1, 6), (1, 6), (1,)]]
    b.op("CUSTOM", heads + [b.const(anchors_for(rng, 4))], outs, custom_code=POSTPROCESS, custom_options=options)
    b.inputs, b.outputs = [boxes_q, classes_q], outs
    return b.build()


def test_an_empty_decoded_box_fails_the_run_as_in_tflite_micro():
    """An anchor of zero height decodes to ymin == ymax: TFLite Micro's invocation fails, and so
    does ours (refused, one line)."""
    anchors = anchors_for(np.random.default_rng(0), 8)
    anchors[3, 2] = 0.0
    model, feeds = build(anchors=anchors)
    assert assert_matches_or_refused_like_tflm(model, feeds) is None
    with pytest.raises(ArithmeticInputError, match="a decoded box is empty"):
        Interpreter(compile_model(model)).run(feeds)



def decode_in_float32(encodings, anchors, scales) -> np.ndarray:
    """The decoding as the float32 formula reads (each division, product, exp and sum rounded to
    float32): what TFLite Micro does not do, for the test below."""
    f32 = np.float32
    ys, xs, hs, ws = (f32(s) for s in scales)
    boxes = []
    for (y, x, h, w), (ay, ax, ah, aw) in zip(encodings[:, :4].astype(f32), anchors.astype(f32)):
        ycenter, xcenter = f32(y / ys) * ah + ay, f32(x / xs) * aw + ax
        half_h, half_w = f32(0.5) * np.exp(f32(h / hs)) * ah, f32(0.5) * np.exp(f32(w / ws)) * aw
        boxes.append([ycenter - half_h, xcenter - half_w, ycenter + half_h, xcenter + half_w])
    return np.array(boxes, np.float32)


@pytest.mark.parametrize("seed", range(3))
def test_boxes_decode_in_double_as_tflite_micro(seed):
    """TFLite Micro's DecodeCenterSizeBoxes computes each center and half size in double (the
    float32 inputs widened, std::exp of a double) and rounds each to float32 once; only the corners
    are float32 sums. Every box detected and kept in box order (one class, equal scores, nothing
    suppressed), so the boxes output is the whole decoding: TFLite Micro's bits are the reference's,
    and a float32 decoding would have differed in several boxes."""
    from vmcu_reference.ops.op_dequantize import dequantize
    n = 40
    model, feeds = build(n, 1, options=dict(max_detections=n, nms_score_threshold=0.0, nms_iou_threshold=1.0),
                         seed=seed, box_scale=0.0371)
    feeds[1][:] = 100
    ours = assert_matches_tflm(model, feeds)
    boxes = np.array(decoded_boxes(model, feeds), np.float32)
    assert detections(ours) == n and ours[0].reshape(n, 4).tobytes() == boxes.tobytes()
    p = next(s.params for s in compile_model(model).steps if s.kernel == POSTPROCESS)
    single = decode_in_float32(dequantize(feeds[0], p.box_scale, p.box_zero_point).reshape(n, -1), p.anchors,
                               p.scales)
    assert (single.view(np.uint32) != boxes.view(np.uint32)).any(axis=1).sum() >= 5


def _fixture_with_anchor_zero_point(zero_point: int) -> bytes:
    from tests.tflite_builder import pack, unpack
    from tests.models_under_test import ROOT
    model = unpack((ROOT / "models" / "ssd_postprocess.tflite").read_bytes())
    anchors = next(t for t in model.subgraphs[0].tensors if t.name == b"anchors/int8")
    anchors.quantization.zeroPoint = [zero_point]
    return pack(model)


@pytest.mark.parametrize("zero_point, as_fixture", [((1 << 32) - 128, True), (-(1 << 40) - 128, True),
                                                    ((1 << 31) - 1, False), (1 << 31, False), (-(1 << 40), None)])
def test_the_anchors_zero_point_is_its_low_32_bits_as_in_tflite_micro(zero_point, as_fixture):
    """The schema's zero points are int64; TFLite Micro's loader keeps their low 32 bits, and its
    DEQUANTIZE subtracts in int32 (wrapping). The fixture's int8 anchors (zero point -128) with
    -128 + k * 2**32 run as the fixture does; 2**31 - 1 and 2**31 wrap the differences (bit-exact
    all the same); -2**40 is 0, which shifts the anchors' sizes below zero: TFLite Micro's
    invocation fails on the empty boxes, and so does ours (fuzzing, seed 5848)."""
    from tests.models_under_test import ROOT
    from vmcu_reference.inputs import random_inputs
    model = _fixture_with_anchor_zero_point(zero_point)
    program = compile_model(model)
    feeds = random_inputs(program.graph, 0)
    if as_fixture is None:
        with pytest.raises(ArithmeticInputError, match="a decoded box is empty"):
            Interpreter(program).run(feeds)
        assert assert_matches_or_refused_like_tflm(model, feeds) is None
        return
    ours = assert_matches_tflm(model, feeds)
    fixture = Interpreter(compile_model((ROOT / "models" / "ssd_postprocess.tflite").read_bytes())).run(feeds)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(ours, fixture.outputs)) == as_fixture

def test_float32_outputs_through_plan_header_and_api(tmp_path):
    """The four outputs are float32 pool tensors of their own bytes: plan.json and the API say so
    (scale and zero point 0, as TFLite reports a tensor without quantization), the planner gives
    them 4 bytes a value, aligned, and the header names their type."""
    import json

    import vmcu_tflite
    from tests.models_under_test import ROOT
    program = vmcu_tflite.convert(ROOT / "models" / "ssd_postprocess.tflite")
    program.write(tmp_path)
    plan = json.loads((tmp_path / "plan.json").read_text())
    sizes = {t["index"]: t["bytes"] for t in plan["tensors"]}
    assert [(o["dtype"], o["pool_dtype"], o["scale"], sizes[o["storage"]]) for o in plan["outputs"]] == [
        ("float32", "float32", 0.0, 160), ("float32", "float32", 0.0, 40), ("float32", "float32", 0.0, 40),
        ("float32", "float32", 0.0, 4)]
    assert [(o.dtype, o.scale, o.zero_point, o.bytes) for o in program.outputs] == [
        ("float32", 0.0, 0, 160), ("float32", 0.0, 0, 40), ("float32", 0.0, 0, 40), ("float32", 0.0, 0, 4)]
    header = next(tmp_path.glob("*_model.h")).read_text()
    assert "output 3: float32 [1], little-endian, its address aligned to 4 bytes" in header
    assert "OUTPUT3_BYTES 4u" in header and "OUTPUT3_TYPE VMCU_TYPE_FLOAT32" in header


def build_variants(seed: int, count: int = 6):
    """One set of int8 heads read by `count` post-processing ops, each through its own DEQUANTIZEs
    and with its own options (fast or regular, limits, thresholds, scales): many configurations
    in one model, one C build for all of them; the first keeps three detections per box (regular,
    nothing suppressed). Returns (model, inputs)."""
    rng = np.random.default_rng(seed)
    n, num_classes, background = int(rng.integers(2, 30)), int(rng.integers(3, 7)), bool(rng.integers(2))
    width, stride = num_classes + background, int(rng.integers(4, 6))
    b = ModelBuilder()
    boxes_q = b.tensor((1, n, stride), scale=float(rng.uniform(0.01, 0.08)), zero_point=int(rng.integers(-5, 5)))
    classes_q = b.tensor((1, n, width), scale=float(rng.choice([1 / 256, 1 / 16])), zero_point=-128)
    anchors = b.const(anchors_for(rng, n))
    outputs = []
    for k in range(count):
        m = int(rng.integers(0, 3 * n))  # regular suppression can keep more detections than boxes
        options = dict(OPTIONS, num_classes=num_classes, max_detections=m, use_regular_nms=bool(rng.integers(2)),
                       detections_per_class=int(rng.choice([1, 2, n + 2])),
                       nms_score_threshold=float(rng.choice([0.0, 0.3, 0.6])),
                       nms_iou_threshold=float(rng.choice([0.1, 0.4, 0.7, 1.0])),
                       y_scale=float(rng.choice([10.0, 2.0])), h_scale=float(rng.choice([5.0, 1.5])))
        if k == 0:  # regular, nothing suppressed: 3n detections kept of n boxes (3 classes or more)
            m = 3 * n
            options.update(max_detections=m, use_regular_nms=True, detections_per_class=n + 2,
                           nms_score_threshold=0.0, nms_iou_threshold=1.0)
        heads = [b.tensor((1, n, stride), "float32"), b.tensor((1, n, width), "float32")]
        b.op("DEQUANTIZE", [boxes_q], [heads[0]])
        b.op("DEQUANTIZE", [classes_q], [heads[1]])
        outs = [b.tensor(shape, "float32") for shape in [(1, m, 4), (1, m), (1, m), (1,)]]
        b.op("CUSTOM", heads + [anchors], outs, custom_code=POSTPROCESS, custom_options=options)
        outputs += outs
    b.inputs, b.outputs = [boxes_q, classes_q], outputs
    feeds = [rng.integers(-128, 128, (1, n, stride)).astype(np.int8),
             rng.integers(-128, 128, (1, n, width)).astype(np.int8)]
    return b.build(), feeds


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31))
def test_several_configurations_in_one_model(seed):
    """Post-processing ops of different options over the same heads (as tests/c builds them)."""
    model, feeds = build_variants(seed)
    assert_matches_or_refused_like_tflm(model, feeds)
