/*
 * What the int8 and the 16x8 LSTM kernels share: TFLite's int16 sigmoid and tanh (one table of
 * sigmoid in Q0.16, linearly interpolated) and int16 saturation. Private to src/recurrent.
 */
#ifndef VMCU_LSTM_H
#define VMCU_LSTM_H

#include <stdint.h>

#include "vmcu/vmcu_support.h"

enum { GATE_INPUT = 0, GATE_FORGET = 1, GATE_CELL = 2, GATE_OUTPUT = 3 };

/* sigmoid(i / 24) in Q0.16, i = 0..255: the table of TFLite's int16 LOGISTIC and TANH. */
extern const uint16_t vmcu_lstm_sigmoid_table[256];

/* The table at magnitude / 2^fraction_bits, linearly interpolated, scaled by 2^fraction_bits. */
static inline uint32_t lstm_interpolate(uint32_t magnitude, uint32_t fraction_bits, uint32_t saturated)
{
    const uint32_t index = magnitude >> fraction_bits;
    uint32_t low, high;
    if (index >= 255u) {
        return saturated;
    }
    low = vmcu_lstm_sigmoid_table[index];
    high = vmcu_lstm_sigmoid_table[index + 1u];
    return (low << fraction_bits) + (magnitude & ((1u << fraction_bits) - 1u)) * (high - low);
}

/* sigmoid: Q3.12 in, Q0.15 out (TFLite's int16 Logistic, power-of-two input: x * 3, 9 fraction bits). */
static inline int16_t lstm_sigmoid(int32_t x)
{
    const int32_t v = x * 3;
    const uint32_t s = lstm_interpolate((uint32_t)(v < 0 ? -v : v), 9u, 0x7FFFu << 10);
    const uint32_t rounded = v >= 0 ? s + (1u << 9) : (1u << 25) - s + (1u << 9) - 1u;
    return (int16_t)(rounded >> 10);
}

/* tanh: x at scale 2^(left_shift - 12) in, Q0.15 out (TFLite's int16 Tanh, power-of-two input);
 * tanh(x) = 2 sigmoid(2x) - 1, so 8 fraction bits index the same table. */
static inline int16_t lstm_tanh(int32_t x, int32_t left_shift)
{
    int32_t v, t;
    if (left_shift >= 0) {
        v = x * (3 << left_shift);
    } else {
        v = (x * 3 + (1 << (-left_shift - 1))) >> -left_shift;
    }
    t = (int32_t)lstm_interpolate((uint32_t)(v < 0 ? -v : v), 8u, 0xFFFFu << 8);
    t = v >= 0 ? t - (1 << 23) + (1 << 7) : -t + (1 << 23) + (1 << 7) - 1;
    return (int16_t)(t >> 8);
}

static inline int32_t lstm_sat16(int32_t x)
{
    return vmcu_clamp(x, -32768, 32767);
}

#endif /* VMCU_LSTM_H */
