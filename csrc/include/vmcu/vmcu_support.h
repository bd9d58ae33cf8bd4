/*
 * vmcu-tflite runtime: inline helpers shared by the kernels.
 *
 * Fixed-point arithmetic bit-exact with TFLite Micro's reference kernels (double rounding), and
 * access to the circular pool. A pool address wraps at most once (offsets are below the pool
 * size), so wrapping is a compare and a subtraction, never a division.
 */
#ifndef VMCU_SUPPORT_H
#define VMCU_SUPPORT_H

#include <stdint.h>
#include <string.h>

#include "vmcu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** gemmlowp::SaturatingRoundingDoublingHighMul. */
static inline int32_t vmcu_srdhm(int32_t a, int32_t b)
{
    int64_t ab;
    int32_t nudge;
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    ab = (int64_t)a * (int64_t)b;
    nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/** gemmlowp::RoundingDivideByPOT: x / 2^exponent, halves away from zero. */
static inline int32_t vmcu_rdbpot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/** TFLite's MultiplyByQuantizedMultiplier: x * multiplier * 2^(shift - 31), double rounding. */
static inline int32_t vmcu_requantize(int32_t x, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    return vmcu_rdbpot(vmcu_srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

static inline int32_t vmcu_clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/** Pool address of byte `offset` of the viewed tensor (offset < pool size). */
static inline uint32_t vmcu_addr(const vmcu_view *v, uint32_t offset)
{
    uint32_t a = v->base + offset;
    return a >= v->size ? a - v->size : a;
}

static inline int8_t vmcu_get(const vmcu_view *v, uint32_t offset)
{
    return v->pool[vmcu_addr(v, offset)];
}

static inline void vmcu_put(const vmcu_view *v, uint32_t offset, int8_t value)
{
    v->pool[vmcu_addr(v, offset)] = value;
}

/** A pointer to bytes [offset, offset + len) when they do not cross the end of the pool, else NULL. */
static inline const int8_t *vmcu_span(const vmcu_view *v, uint32_t offset, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    return a + len <= v->size ? v->pool + a : (const int8_t *)0;
}

/** Copy `len` bytes of the view, starting at `offset`, to `dst` (at most two memcpy). */
static inline void vmcu_read(const vmcu_view *v, uint32_t offset, int8_t *dst, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    const uint32_t first = a + len <= v->size ? len : v->size - a;
    memcpy(dst, v->pool + a, first);
    memcpy(dst + first, v->pool, len - first);
}

/** Copy `len` bytes from `src` into the view at `offset` (at most two memmove: src may be the pool). */
static inline void vmcu_write(const vmcu_view *v, uint32_t offset, const int8_t *src, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    const uint32_t first = a + len <= v->size ? len : v->size - a;
    memmove(v->pool + a, src, first);
    memmove(v->pool, src + first, len - first);
}

#ifdef __cplusplus
}
#endif

#endif /* VMCU_SUPPORT_H */
