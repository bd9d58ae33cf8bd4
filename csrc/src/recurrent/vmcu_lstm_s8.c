/*
 * UNIDIRECTIONAL_SEQUENCE_LSTM, int8 input, weights and output state, int16 cell state, bit-exact
 * with TFLite Micro's integer LSTM (whole tensor: the output is apart from the input).
 *
 * For each batch row and time step, unit by unit: each gate (input, forget, cell, output) is an
 * input layer (with the bias) plus a recurrent layer over the previous output state, each
 * requantized to int16 at scale 2^-12, added with saturation; sigmoid (tanh for the cell gate)
 * from TFLite's int16 table gives Q0.15. Then cell = forget x cell + input x cell gate (clipped
 * when the model says so) and output state = output gate x tanh(cell), requantized to int8.
 * Units depend on each other only through the previous output state, so the new one is gathered in
 * the scratch and replaces the old one once the row is done; it is also the step's output row.
 * The zero points are folded into the biases by the converter; sums wrap modulo 2^32 as TFLite's
 * int32 sums do (done in uint32: no signed overflow). Scratch: input_size + units bytes.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_lstm.h"

/* sum of w[k] * x[k] on top of `acc`, modulo 2^32 */
static int32_t lstm_dot(int32_t acc, const int8_t *w, const int8_t *x, int32_t n)
{
    uint32_t sum = (uint32_t)acc;
    int32_t k;
    for (k = 0; k < n; ++k) {
        sum += (uint32_t)((int32_t)w[k] * (int32_t)x[k]);
    }
    return (int32_t)sum;
}

/* Gate g's int16 pre-activation for unit j: input layer + recurrent layer, each saturated, then their sum. */
static int32_t lstm_gate(const vmcu_lstm_params *p, int32_t g, int32_t j, const int8_t *x, const int8_t *h)
{
    const int32_t row = g * p->units + j;
    const int32_t from_input = lstm_sat16(vmcu_requantize(
        lstm_dot(p->input_bias[row], p->input_weights + row * p->input_size, x, p->input_size),
        p->input_multiplier[g], p->input_shift[g]));
    const int32_t from_state = lstm_sat16(vmcu_requantize(
        lstm_dot(p->recurrent_bias[row], p->recurrent_weights + row * p->units, h, p->units),
        p->recurrent_multiplier[g], p->recurrent_shift[g]));
    return lstm_sat16(from_input + from_state);
}

/* One batch row, one time step: updates `cell` in place, writes the new output state to `h_new`. */
static void lstm_step(const vmcu_lstm_params *p, const int8_t *x, const int8_t *h, int16_t *cell, int8_t *h_new)
{
    int32_t j;
    for (j = 0; j < p->units; ++j) {
        const int32_t input_gate = lstm_sigmoid(lstm_gate(p, GATE_INPUT, j, x, h));
        const int32_t forget_gate = lstm_sigmoid(lstm_gate(p, GATE_FORGET, j, x, h));
        const int32_t cell_gate = lstm_tanh(lstm_gate(p, GATE_CELL, j, x, h), 0);
        const int32_t kept = lstm_sat16(
            vmcu_requantize(forget_gate * (int32_t)cell[j], p->forget_cell_multiplier, p->forget_cell_shift));
        const int32_t added =
            lstm_sat16(vmcu_requantize(input_gate * cell_gate, p->input_cell_multiplier, p->input_cell_shift));
        int32_t c = lstm_sat16(kept + added), output_gate;
        if (p->cell_clip >= 0) {
            c = vmcu_clamp(c, -p->cell_clip, p->cell_clip);
        }
        cell[j] = (int16_t)c;
        output_gate = lstm_sigmoid(lstm_gate(p, GATE_OUTPUT, j, x, h));
        h_new[j] = (int8_t)vmcu_clamp(
            vmcu_requantize(lstm_tanh(c, p->tanh_left_shift) * output_gate, p->output_multiplier, p->output_shift) +
                p->output_zero_point,
            -128, 127);
    }
}

vmcu_status vmcu_lstm_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output)
{
    const vmcu_lstm_params *p = (const vmcu_lstm_params *)params;
    int8_t *x = ctx->scratch;
    int8_t *h_new = ctx->scratch + p->input_size;
    int32_t b, t;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (b = 0; b < p->batch; ++b) {
        int8_t *h = ctx->state + p->output_state_offset + b * p->units;
        int16_t *cell = (int16_t *)(void *)(ctx->state + p->cell_state_offset) + b * p->units;
        for (t = 0; t < p->steps; ++t) {
            const int32_t row = p->time_major ? t * p->batch + b : b * p->steps + t;
            vmcu_read(&inputs[0], (uint32_t)(row * p->input_size), x, (uint32_t)p->input_size);
            lstm_step(p, x, h, cell, h_new);
            memcpy(h, h_new, (size_t)p->units);
            vmcu_write(output, (uint32_t)(row * p->units), h_new, (uint32_t)p->units);
        }
    }
    return VMCU_OK;
}

#define LSTM_GATES 4
#define LSTM_MAX_TANH_LEFT_SHIFT 14 /* 3 << shift times an int16 must fit int32 */
#define LSTM_MAX_OUTPUT_SHIFT 1     /* tanh x output gate (below 2^30) shifted left once still fits int32 */

/* 1 when every shift is within what vmcu_requantize takes. */
static int lstm_shifts_ok(const int32_t *shifts, uint32_t count)
{
    uint32_t i;
    for (i = 0; i < count; ++i) {
        if (!vmcu_in_range(shifts[i], -31, 31)) {
            return 0;
        }
    }
    return 1;
}

/* The shapes against the tensors, the scratch, the state and the emitted weights. */
static int lstm_shapes_ok(const vmcu_model *model, const vmcu_step *step, const vmcu_lstm_params *p)
{
    const int32_t in_shape[3] = {p->batch, p->steps, p->input_size}, out_shape[3] = {p->batch, p->steps, p->units};
    const int32_t input_weights[3] = {LSTM_GATES, p->units, p->input_size};
    const int32_t recurrent_weights[3] = {LSTM_GATES, p->units, p->units};
    const uint32_t in_bytes = vmcu_product(in_shape, 3), out_bytes = vmcu_product(out_shape, 3);
    const uint32_t state = vmcu_times(p->batch, p->units);
    return in_bytes != 0u && out_bytes != 0u && in_bytes == vmcu_input_bytes(model, step, 0) &&
           out_bytes == vmcu_output_bytes(model, step) &&
           (uint32_t)p->input_size + (uint32_t)p->units <= step->scratch &&
           vmcu_state_holds(model, p->output_state_offset, state, 1u) &&
           vmcu_state_holds(model, p->cell_state_offset, 2u * state, 2u) && vmcu_product(input_weights, 3) != 0u &&
           vmcu_product(recurrent_weights, 3) != 0u && vmcu_times(p->units, LSTM_GATES * 4) != 0u &&
           p->input_weights != 0 && p->recurrent_weights != 0 && p->input_bias != 0 && p->recurrent_bias != 0;
}

/*
 * The input [batch][steps][input_size] (or [steps][batch][input_size]) and the output [..][units]
 * exactly their tensors' bytes; an input row and a new output state row in the scratch; the int8
 * output state and the int16 cell state [batch][units] each exactly one variable of the state
 * region; weights and biases the arrays the converter emitted for these shapes (their lengths are
 * products the kernel indexes in int32). Every requantization takes any multiplier; the gates' and
 * the cell's results are saturated to int16, and the output's shift keeps it small enough for the
 * zero point to be added.
 */
static vmcu_status lstm_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_lstm_params *p = (const vmcu_lstm_params *)step->params;
    const int32_t shifts[3] = {p->forget_cell_shift, p->input_cell_shift, p->output_shift};
    if (!lstm_shapes_ok(model, step, p) || !vmcu_in_range(p->time_major, 0, 1) ||
        !lstm_shifts_ok(p->input_shift, LSTM_GATES) || !lstm_shifts_ok(p->recurrent_shift, LSTM_GATES) ||
        !lstm_shifts_ok(shifts, 3u) || p->output_shift > LSTM_MAX_OUTPUT_SHIFT ||
        !vmcu_in_range(p->output_zero_point, -128, 127) ||
        !vmcu_in_range(p->tanh_left_shift, -31, LSTM_MAX_TANH_LEFT_SHIFT) || !vmcu_in_range(p->cell_clip, -1, 32767)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t lstm_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_lstm_params *p = (const vmcu_lstm_params *)step->params;
    const uint32_t rows = LSTM_GATES * (uint32_t)p->units;
    const int32_t scalars[14] = {p->forget_cell_multiplier, p->forget_cell_shift, p->input_cell_multiplier,
                                 p->input_cell_shift,       p->output_multiplier, p->output_shift,
                                 p->output_zero_point,      p->tanh_left_shift,   p->cell_clip,
                                 p->batch,                  p->steps,             p->input_size,
                                 p->units,                  p->time_major};
    crc = vmcu_crc32(crc, p->input_weights, rows * (uint32_t)p->input_size);
    crc = vmcu_crc32(crc, p->recurrent_weights, rows * (uint32_t)p->units);
    crc = vmcu_crc32(crc, p->input_bias, rows * 4u);
    crc = vmcu_crc32(crc, p->recurrent_bias, rows * 4u);
    crc = vmcu_crc32_i32s(crc, p->input_multiplier, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, p->input_shift, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, p->recurrent_multiplier, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, p->recurrent_shift, LSTM_GATES);
    crc = vmcu_crc32_i32s(crc, scalars, 14u);
    crc = vmcu_crc32_u32(crc, p->output_state_offset);
    return vmcu_crc32_u32(crc, p->cell_state_offset);
}

const vmcu_kernel vmcu_lstm_s8_kernel = {.run = vmcu_lstm_s8, .check = lstm_check, .digest = lstm_digest};
