/*
 * TFLite_Detection_PostProcess: an SSD detector's int8 box encodings and class predictions in,
 * one float32 output part out (boxes, classes, scores or their count).
 *
 * The arithmetic is TFLite Micro's, operation by operation and in its precision, so the bits
 * match: the heads dequantized as its DEQUANTIZE (double product, cast to float: a table of the
 * 256 values per head, which the converter computes); each box
 * decoded against its anchor in double with exp() (center-size, the scales dividing), the
 * center and half size cast to float and the corners float sums. Non-max suppression over a
 * score per box: the boxes scoring at least the threshold sorted by score, descending, with a
 * stable sort (TFLite Micro's merge sort keeps equal scores in box order), then greedy
 * selection, a box suppressed when its float IoU with a selected one exceeds the threshold.
 * Fast suppression runs it once over each box's best class (the first of equal scores);
 * regular suppression once per class, keeping after each class the max_detections best of the
 * running list (best so far, then the class's selection), by score and, on equal scores, list
 * position. This file is compiled with -ffp-contract=off (csrc/CMakeLists.txt): no fused
 * multiply-add may change a rounding. A decoded box with ymin >= ymax or xmin >= xmax fails the
 * step (VMCU_ERROR_ARITHMETIC), as it fails TFLite Micro's invocation. Slots past the detections hold zeros.
 *
 * Scratch (4-byte aligned from the scratch's start): boxes [N][4] float, score [N] float, class,
 * sort order and merge buffer [N] int32, selected [S] int32 (S = min(N, max_detections), or
 * min(N, detections_per_class) when regular); regular only, the running list of L =
 * max_detections + S entries: box, class, order and merge buffer [L] int32, score and reordered
 * score [L] float; then a flag per box.
 */
#include <math.h>
#include <string.h>

#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static float bits_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The int8 at `offset` of a head, dequantized: the converter's table of TFLite's DEQUANTIZE. */
static float dequantized(const vmcu_view *v, uint32_t offset, const uint32_t *values)
{
    return bits_float(values[(int32_t)vmcu_get(v, offset) + 128]);
}

static void put_float(const vmcu_view *out, uint32_t index, float value)
{
    int8_t bytes[4];
    memcpy(bytes, &value, sizeof bytes);
    vmcu_write(out, index * 4u, bytes, 4u);
}

static float float_max(float a, float b)
{
    return a < b ? b : a;
}

static float float_min(float a, float b)
{
    return b < a ? b : a;
}

static float intersection_over_union(const float *boxes, int32_t i, int32_t j)
{
    const float *a = boxes + 4 * i, *b = boxes + 4 * j;
    const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
    const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
    float height, width, intersection;
    if (area_a <= 0.0f || area_b <= 0.0f) {
        return 0.0f;
    }
    height = float_max(float_min(a[2], b[2]) - float_max(a[0], b[0]), 0.0f);
    width = float_max(float_min(a[3], b[3]) - float_max(a[1], b[1]), 0.0f);
    intersection = height * width;
    return intersection / (area_a + area_b - intersection);
}

/* order[0..n) by score descending, equal scores in their given order (bottom-up merge sort). */
static void stable_sort(int32_t *order, int32_t *buffer, int32_t n, const float *score)
{
    int32_t width, i;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            const int32_t mid = vmcu_min(i + width, n), end = vmcu_min(i + 2 * width, n);
            int32_t l = i, r = mid, k = i;
            while (k < end) {
                if (l >= mid || (r < end && score[order[r]] > score[order[l]])) {
                    buffer[k++] = order[r++];
                } else {
                    buffer[k++] = order[l++];
                }
            }
        }
        memcpy(order, buffer, (size_t)n * sizeof *order);
    }
}

/* Greedy non-max suppression over score[0..n): at most `limit` boxes into `selected`; their count. */
static int32_t suppress(const float *boxes, const float *score, int32_t n, float threshold, float iou_threshold,
                        int32_t limit, int32_t *order, int32_t *buffer, uint8_t *active, int32_t *selected)
{
    int32_t i, j, kept = 0, count = 0;
    for (i = 0; i < n; ++i) {
        if (score[i] >= threshold) {
            order[kept++] = i;
        }
    }
    stable_sort(order, buffer, kept, score);
    for (i = 0; i < kept; ++i) {
        active[i] = 1u;
    }
    for (i = 0; i < kept && count < vmcu_min(kept, limit); ++i) {
        if (!active[i]) {
            continue;
        }
        selected[count++] = order[i];
        active[i] = 0u;
        for (j = i + 1; j < kept; ++j) {
            if (active[j] && intersection_over_union(boxes, order[i], order[j]) > iou_threshold) {
                active[j] = 0u;
            }
        }
    }
    return count;
}

/* Buffers past the boxes, per vmcu_detection_postprocess_params (the layout above). */
typedef struct {
    float *boxes, *score, *running_score, *sorted_score;
    int32_t *best_class, *order, *buffer, *selected, *running_box, *running_class, *running_order, *running_buffer;
    uint8_t *active;
} buffers;

static int32_t selected_capacity(const vmcu_detection_postprocess_params *p)
{
    return vmcu_min(p->num_boxes, p->regular ? p->detections_per_class : p->max_detections);
}

static int32_t running_capacity(const vmcu_detection_postprocess_params *p)
{
    return p->regular ? p->max_detections + selected_capacity(p) : 0;
}

static buffers layout(const vmcu_detection_postprocess_params *p, int8_t *scratch)
{
    const int32_t n = p->num_boxes, s = selected_capacity(p), l = running_capacity(p);
    int8_t *aligned = scratch + ((4u - ((uintptr_t)scratch & 3u)) & 3u);
    buffers b;
    b.boxes = (float *)(void *)aligned;
    b.score = b.boxes + 4 * n;
    b.best_class = (int32_t *)(void *)(b.score + n);
    b.order = b.best_class + n;
    b.buffer = b.order + n;
    b.selected = b.buffer + n;
    b.running_box = b.selected + s;
    b.running_class = b.running_box + l;
    b.running_order = b.running_class + l;
    b.running_buffer = b.running_order + l;
    b.running_score = (float *)(void *)(b.running_buffer + l);
    b.sorted_score = b.running_score + l;
    b.active = (uint8_t *)(b.sorted_score + l);
    return b;
}

/* Decoded corners of every box; 0 when one is empty (TFLite Micro's invocation fails). */
static int decode(const vmcu_detection_postprocess_params *p, const vmcu_view *encodings, float *boxes)
{
    const double scale_y = bits_float(p->y_scale), scale_x = bits_float(p->x_scale);
    const double scale_h = bits_float(p->h_scale), scale_w = bits_float(p->w_scale);
    int32_t i;
    for (i = 0; i < p->num_boxes; ++i) {
        const uint32_t at = (uint32_t)(i * p->box_stride);
        const double y = dequantized(encodings, at, p->box_values);
        const double x = dequantized(encodings, at + 1u, p->box_values);
        const double h = dequantized(encodings, at + 2u, p->box_values);
        const double w = dequantized(encodings, at + 3u, p->box_values);
        const double anchor_y = bits_float(p->anchors[4 * i]), anchor_x = bits_float(p->anchors[4 * i + 1]);
        const double anchor_h = bits_float(p->anchors[4 * i + 2]), anchor_w = bits_float(p->anchors[4 * i + 3]);
        const float center_y = (float)(y / scale_y * anchor_h + anchor_y);
        const float center_x = (float)(x / scale_x * anchor_w + anchor_x);
        const float half_h = (float)(0.5 * exp(h / scale_h) * anchor_h);
        const float half_w = (float)(0.5 * exp(w / scale_w) * anchor_w);
        float *box = boxes + 4 * i;
        box[0] = center_y - half_h;
        box[1] = center_x - half_w;
        box[2] = center_y + half_h;
        box[3] = center_x + half_w;
        if (box[0] >= box[2] || box[1] >= box[3]) {
            return 0;
        }
    }
    return 1;
}

/* Fast: each box's best class, one suppression; the selected boxes with their class as detections. */
static int32_t fast(const vmcu_detection_postprocess_params *p, const vmcu_view *predictions, const buffers *b,
                    float threshold, float iou_threshold)
{
    const int32_t classes = p->num_classes + p->label_offset;
    int32_t i, c;
    for (i = 0; i < p->num_boxes; ++i) {
        const uint32_t row = (uint32_t)(i * classes + p->label_offset);
        b->best_class[i] = 0;
        b->score[i] = dequantized(predictions, row, p->class_values);
        for (c = 1; c < p->num_classes; ++c) {
            const float score = dequantized(predictions, row + (uint32_t)c, p->class_values);
            if (score > b->score[i]) {
                b->score[i] = score;
                b->best_class[i] = c;
            }
        }
    }
    return suppress(b->boxes, b->score, p->num_boxes, threshold, iou_threshold, p->max_detections, b->order,
                    b->buffer, b->active, b->selected);
}

/* Regular: per class, suppression keeping detections_per_class; the running list cut to the best. */
static int32_t regular(const vmcu_detection_postprocess_params *p, const vmcu_view *predictions, const buffers *b,
                       float threshold, float iou_threshold)
{
    const int32_t classes = p->num_classes + p->label_offset;
    int32_t c, i, size = 0;
    for (c = 0; c < p->num_classes; ++c) {
        int32_t count, total, keep;
        for (i = 0; i < p->num_boxes; ++i) {
            b->score[i] = dequantized(predictions, (uint32_t)(i * classes + c + p->label_offset), p->class_values);
        }
        count = suppress(b->boxes, b->score, p->num_boxes, threshold, iou_threshold, p->detections_per_class,
                         b->order, b->buffer, b->active, b->selected);
        for (i = 0; i < count; ++i) {
            b->running_box[size + i] = b->selected[i];
            b->running_class[size + i] = c;
            b->running_score[size + i] = b->score[b->selected[i]];
        }
        total = size + count;
        keep = vmcu_min(total, p->max_detections);
        for (i = 0; i < total; ++i) {
            b->running_order[i] = i;
        }
        stable_sort(b->running_order, b->running_buffer, total, b->running_score);
        /* each list gathered in sorted order through a buffer of the list's length, then back */
        for (i = 0; i < keep; ++i) {
            b->running_buffer[i] = b->running_box[b->running_order[i]];
        }
        memcpy(b->running_box, b->running_buffer, (size_t)keep * sizeof *b->running_box);
        for (i = 0; i < keep; ++i) {
            b->running_buffer[i] = b->running_class[b->running_order[i]];
        }
        memcpy(b->running_class, b->running_buffer, (size_t)keep * sizeof *b->running_class);
        for (i = 0; i < keep; ++i) {
            b->sorted_score[i] = b->running_score[b->running_order[i]];
        }
        memcpy(b->running_score, b->sorted_score, (size_t)keep * sizeof *b->running_score);
        size = keep;
    }
    return size;
}

vmcu_status vmcu_detection_postprocess(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                       const vmcu_view *output)
{
    const vmcu_detection_postprocess_params *p = (const vmcu_detection_postprocess_params *)params;
    const float threshold = bits_float(p->score_threshold), iou_threshold = bits_float(p->iou_threshold);
    const buffers b = layout(p, ctx->scratch);
    int32_t i, c, count;
    if (!decode(p, &inputs[0], b.boxes)) {
        return VMCU_ERROR_ARITHMETIC; /* TFLite Micro fails the invocation on an empty box */
    }
    count = p->regular ? regular(p, &inputs[1], &b, threshold, iou_threshold)
                       : fast(p, &inputs[1], &b, threshold, iou_threshold);
    for (i = 0; i < p->max_detections && p->part < 3; ++i) {
        const int found = i < count;
        /* detection i: box, class and score (fast: the selected box, its best class and score) */
        const int32_t box = found ? (p->regular ? b.running_box[i] : b.selected[i]) : 0;
        const float klass = found ? (float)(p->regular ? b.running_class[i] : b.best_class[box]) : 0.0f;
        const float score = found ? (p->regular ? b.running_score[i] : b.score[box]) : 0.0f;
        if (p->part == 0) {
            for (c = 0; c < 4; ++c) {
                put_float(output, (uint32_t)(4 * i + c), found ? b.boxes[4 * box + c] : 0.0f);
            }
        } else {
            put_float(output, (uint32_t)i, p->part == 1 ? klass : score);
        }
    }
    if (p->part == 3) {
        put_float(output, 0u, (float)count);
    }
    return VMCU_OK;
}

/*
 * The heads exactly their tensors' bytes, the output part exactly its tensor's, the anchors
 * emitted, the scratch large enough for the buffers (and their alignment), sizes that keep every
 * index and byte count within int32.
 */
static vmcu_status detection_postprocess_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_detection_postprocess_params *p = (const vmcu_detection_postprocess_params *)step->params;
    const uint32_t per_detection[3] = {4u, 1u, 1u};
    uint32_t out_values, scratch;
    if (step->num_inputs != 2u || !vmcu_in_range(p->num_boxes, 1, 1 << 20) ||
        !vmcu_in_range(p->box_stride, 4, 1 << 10) || !vmcu_in_range(p->num_classes, 1, 1 << 10) ||
        !vmcu_in_range(p->label_offset, 0, 1) || !vmcu_in_range(p->max_detections, 0, 1 << 20) ||
        !vmcu_in_range(p->part, 0, 3) || !vmcu_in_range(p->regular, 0, 1) ||
        (p->regular && p->detections_per_class < 1) || p->anchors == 0 || p->box_values == 0 ||
        p->class_values == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    out_values = p->part == 3 ? 1u : per_detection[p->part] * (uint32_t)p->max_detections;
    scratch = (uint32_t)p->num_boxes * 33u + 4u * (uint32_t)selected_capacity(p) +
              24u * (uint32_t)running_capacity(p) + 3u;
    return vmcu_input_bytes(model, step, 0) == (uint32_t)p->num_boxes * (uint32_t)p->box_stride &&
                   vmcu_input_bytes(model, step, 1) ==
                       (uint32_t)p->num_boxes * (uint32_t)(p->num_classes + p->label_offset) &&
                   vmcu_output_bytes(model, step) == 4u * out_values && scratch <= step->scratch
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t detection_postprocess_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_detection_postprocess_params *p = (const vmcu_detection_postprocess_params *)step->params;
    const int32_t fields[8] = {p->num_boxes, p->box_stride, p->num_classes, p->label_offset, p->max_detections,
                               p->part, p->regular, p->detections_per_class};
    const uint32_t floats[6] = {p->score_threshold, p->iou_threshold, p->y_scale, p->x_scale, p->h_scale,
                                p->w_scale};
    uint32_t i;
    crc = vmcu_crc32_i32s(crc, fields, 8u);
    for (i = 0; i < 6u; ++i) {
        crc = vmcu_crc32_u32(crc, floats[i]);
    }
    crc = p->anchors != 0 && p->num_boxes > 0 ? vmcu_crc32(crc, p->anchors, (uint32_t)p->num_boxes * 16u) : crc;
    crc = p->box_values != 0 ? vmcu_crc32(crc, p->box_values, 1024u) : crc;
    return p->class_values != 0 ? vmcu_crc32(crc, p->class_values, 1024u) : crc;
}

const vmcu_kernel vmcu_detection_postprocess_kernel = {
    .run = vmcu_detection_postprocess, .check = detection_postprocess_check, .digest = detection_postprocess_digest};
