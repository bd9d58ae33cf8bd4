/*
 * UNIDIRECTIONAL_SEQUENCE_LSTM in 16x8: int16 input, output and output state (zero points 0), int8
 * weights, int64 gate biases, int16 cell state, bit-exact with TFLite Micro's LSTM instantiated for
 * int16 activations. Row (b, t) of the input is read whole before row (b, t) of the output is
 * written, rows in (b, t) order: the output may lie over input rows already read (lstm_access).
 *
 * The int8 kernel's steps (vmcu_lstm_s8.c), unit by unit: each gate is an input layer (with the
 * bias) plus a recurrent layer over the previous output state (the four gates' rows of a unit summed
 * in one pass over each, SMLAD on the DSP path), each summed in int64 and requantized
 * by the 64-bit form to int16 at 2^-12, added with saturation, then TFLite's int16 sigmoid or tanh;
 * cell = forget x cell + input x cell gate (clipped when the model says so); output state =
 * output gate x tanh(cell), requantized to int16. The new output state row is gathered in the
 * scratch and replaces the old one once the row is done; it is also the step's output row.
 * Scratch: 2 x (input_size + units) + 1 bytes (int16 rows, aligned to 2 inside it).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_dsp.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_lstm.h"

/* A layer's int64 sum requantized to int16 (|sum| stays below 2^47: the product with the Q15
 * multiplier fits int64). */
static int32_t lstm16_requantize(int64_t acc, int32_t multiplier, int32_t shift)
{
    return lstm_sat16(vmcu_requantize64(acc, multiplier, shift));
}

/* The four gates' int16 pre-activations for unit j: for each, input layer + recurrent layer, each
 * saturated, then their sum. The four gates' weight rows are summed together over one pass of the
 * input row and one of the output state (the output gate does not read the cell: no peephole). */
static void lstm16_gates(const vmcu_lstm_s16_params *p, int32_t j, const int16_t *x, const int16_t *h,
                         int32_t pre[4])
{
    const int32_t units = p->units;
    int64_t from_input[4], from_state[4] = {0, 0, 0, 0};
    int32_t g;
    for (g = 0; g < 4; ++g) {
        from_input[g] = p->bias[g * units + j];
    }
    vmcu_dot4_s16_s8_64(x, p->input_weights + (0 * units + j) * p->input_size,
                        p->input_weights + (1 * units + j) * p->input_size,
                        p->input_weights + (2 * units + j) * p->input_size,
                        p->input_weights + (3 * units + j) * p->input_size, p->input_size, from_input);
    vmcu_dot4_s16_s8_64(h, p->recurrent_weights + (0 * units + j) * units,
                        p->recurrent_weights + (1 * units + j) * units, p->recurrent_weights + (2 * units + j) * units,
                        p->recurrent_weights + (3 * units + j) * units, units, from_state);
    for (g = 0; g < 4; ++g) {
        pre[g] = lstm_sat16(lstm16_requantize(from_input[g], p->input_multiplier[g], p->input_shift[g]) +
                            lstm16_requantize(from_state[g], p->recurrent_multiplier[g], p->recurrent_shift[g]));
    }
}

/* One batch row, one time step: updates `cell` in place, writes the new output state to `h_new`. */
static void lstm16_step(const vmcu_lstm_s16_params *p, const int16_t *x, const int16_t *h, int16_t *cell,
                        int16_t *h_new)
{
    int32_t j;
    for (j = 0; j < p->units; ++j) {
        int32_t pre[4];
        int32_t input_gate, forget_gate, cell_gate, kept, added, c, output_gate;
        lstm16_gates(p, j, x, h, pre);
        input_gate = lstm_sigmoid(pre[GATE_INPUT]);
        forget_gate = lstm_sigmoid(pre[GATE_FORGET]);
        cell_gate = lstm_tanh(pre[GATE_CELL], 0);
        kept = lstm_sat16(
            vmcu_requantize(forget_gate * (int32_t)cell[j], p->forget_cell_multiplier, p->forget_cell_shift));
        added = lstm_sat16(vmcu_requantize(input_gate * cell_gate, p->input_cell_multiplier, p->input_cell_shift));
        c = lstm_sat16(kept + added);
        if (p->cell_clip >= 0) {
            c = vmcu_clamp(c, -p->cell_clip, p->cell_clip);
        }
        cell[j] = (int16_t)c;
        output_gate = lstm_sigmoid(pre[GATE_OUTPUT]);
        h_new[j] = (int16_t)lstm_sat16(
            vmcu_requantize(lstm_tanh(c, p->tanh_left_shift) * output_gate, p->output_multiplier, p->output_shift));
    }
}

vmcu_status vmcu_lstm_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                          const vmcu_view *output)
{
    const vmcu_lstm_s16_params *p = (const vmcu_lstm_s16_params *)params;
    int16_t *x = (int16_t *)(void *)(ctx->scratch + ((uintptr_t)ctx->scratch & 1u));
    int16_t *h_new = x + p->input_size;
    const uint32_t in_row = 2u * (uint32_t)p->input_size, out_row = 2u * (uint32_t)p->units;
    int32_t b, t;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (b = 0; b < p->batch; ++b) {
        int16_t *h = (int16_t *)(void *)(ctx->state + p->output_state_offset) + b * p->units;
        int16_t *cell = (int16_t *)(void *)(ctx->state + p->cell_state_offset) + b * p->units;
        for (t = 0; t < p->steps; ++t) {
            const uint32_t row = (uint32_t)(p->time_major ? t * p->batch + b : b * p->steps + t);
            vmcu_read(&inputs[0], row * in_row, (int8_t *)x, in_row);
            lstm16_step(p, x, h, cell, h_new);
            memcpy(h, h_new, (size_t)out_row);
            vmcu_write(output, row * out_row, (const int8_t *)h_new, out_row);
        }
    }
    return VMCU_OK;
}

#define LSTM_GATES 4
#define LSTM_MAX_TANH_LEFT_SHIFT 14 /* 3 << shift times an int16 must fit int32 */
#define LSTM_MAX_OUTPUT_SHIFT 1     /* tanh x output gate (below 2^30) shifted left once still fits int32 */
#define LSTM_WIDE_MAX_SHIFT 14      /* the 64-bit form shifts right by 15 - shift */
#define LSTM_MAX_BIAS ((int64_t)1 << 46)
#define LSTM_MAX_DEPTH (1 << 24)    /* |sum| <= 2^46 + depth x 2^22 stays below 2^47 */

/* 1 when every shift is within [low, high]. */
static int lstm16_shifts_ok(const int32_t *shifts, uint32_t count, int32_t low, int32_t high)
{
    uint32_t i;
    for (i = 0; i < count; ++i) {
        if (!vmcu_in_range(shifts[i], low, high)) {
            return 0;
        }
    }
    return 1;
}

/* 1 when every bias is within +-2^46 (what the 64-bit requantization's product takes). */
static int lstm16_biases_ok(const int64_t *bias, int32_t count)
{
    int32_t i;
    for (i = 0; i < count; ++i) {
        if (bias[i] > LSTM_MAX_BIAS || bias[i] < -LSTM_MAX_BIAS) {
            return 0;
        }
    }
    return 1;
}

/* The shapes against the tensors, the scratch, the state and the emitted weights. */
static int lstm16_shapes_ok(const vmcu_model *model, const vmcu_step *step, const vmcu_lstm_s16_params *p)
{
    const int32_t in_shape[4] = {2, p->batch, p->steps, p->input_size}, out_shape[4] = {2, p->batch, p->steps,
                                                                                       p->units};
    const int32_t input_weights[3] = {LSTM_GATES, p->units, p->input_size};
    const int32_t recurrent_weights[3] = {LSTM_GATES, p->units, p->units};
    const uint32_t in_bytes = vmcu_product(in_shape, 4), out_bytes = vmcu_product(out_shape, 4);
    const uint32_t state = vmcu_times(p->batch, p->units);
    return in_bytes != 0u && out_bytes != 0u && in_bytes == vmcu_input_bytes(model, step, 0) &&
           out_bytes == vmcu_output_bytes(model, step) && p->input_size <= LSTM_MAX_DEPTH &&
           p->units <= LSTM_MAX_DEPTH && 2u * ((uint32_t)p->input_size + (uint32_t)p->units) + 1u <= step->scratch &&
           vmcu_state_holds(model, p->output_state_offset, 2u * state, 2u) &&
           vmcu_state_holds(model, p->cell_state_offset, 2u * state, 2u) && vmcu_product(input_weights, 3) != 0u &&
           vmcu_product(recurrent_weights, 3) != 0u && vmcu_times(p->units, LSTM_GATES * 8) != 0u &&
           p->input_weights != 0 && p->recurrent_weights != 0 && p->bias != 0 &&
           lstm16_biases_ok(p->bias, LSTM_GATES * p->units);
}

/*
 * The input [batch][steps][input_size] (or [steps][batch][input_size]) and the output [..][units]
 * exactly their tensors' int16 bytes; an input row and a new output state row in the scratch; the
 * int16 output state and cell state [batch][units] each exactly one variable of the state region;
 * weights and biases the arrays the converter emitted for these shapes, biases within +-2^46 and
 * depths below 2^24 so that the 64-bit requantization's product fits. The layers' shifts are what
 * the 64-bit form takes; the others any vmcu_requantize takes, the output's small enough to fit.
 */
static vmcu_status lstm16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_lstm_s16_params *p = (const vmcu_lstm_s16_params *)step->params;
    const int32_t shifts[3] = {p->forget_cell_shift, p->input_cell_shift, p->output_shift};
    if (!lstm16_shapes_ok(model, step, p) || !vmcu_in_range(p->time_major, 0, 1) ||
        !lstm16_shifts_ok(p->input_shift, LSTM_GATES, -31, LSTM_WIDE_MAX_SHIFT) ||
        !lstm16_shifts_ok(p->recurrent_shift, LSTM_GATES, -31, LSTM_WIDE_MAX_SHIFT) ||
        !lstm16_shifts_ok(shifts, 3u, -31, 31) || p->output_shift > LSTM_MAX_OUTPUT_SHIFT ||
        !vmcu_in_range(p->tanh_left_shift, -31, LSTM_MAX_TANH_LEFT_SHIFT) || !vmcu_in_range(p->cell_clip, -1, 32767)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t lstm16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_lstm_s16_params *p = (const vmcu_lstm_s16_params *)step->params;
    const uint32_t rows = LSTM_GATES * (uint32_t)p->units;
    const int32_t scalars[13] = {p->forget_cell_multiplier, p->forget_cell_shift, p->input_cell_multiplier,
                                 p->input_cell_shift,       p->output_multiplier, p->output_shift,
                                 p->tanh_left_shift,        p->cell_clip,         p->batch,
                                 p->steps,                  p->input_size,        p->units,
                                 p->time_major};
    crc = vmcu_crc32(crc, p->input_weights, rows * (uint32_t)p->input_size);
    crc = vmcu_crc32(crc, p->recurrent_weights, rows * (uint32_t)p->units);
    crc = vmcu_crc32(crc, p->bias, rows * 8u);
    crc = vmcu_crc32_i32s(crc, p->input_multiplier, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, p->input_shift, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, p->recurrent_multiplier, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, p->recurrent_shift, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, scalars, 13u);
    crc = vmcu_crc32_u32(crc, p->output_state_offset);
    return vmcu_crc32_u32(crc, p->cell_state_offset);
}

const vmcu_kernel vmcu_lstm_s16_kernel = {.run = vmcu_lstm_s16, .check = lstm16_check, .digest = lstm16_digest};
