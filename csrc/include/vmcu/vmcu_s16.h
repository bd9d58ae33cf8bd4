/*
 * vmcu-tflite runtime: element access for the 16x8 kernels (int16 activations), whose tensors the
 * planner keeps whole and aligned to their element size. Elements are read and written through the
 * view one byte at a time (vmcu_load_le), so nothing depends on the pool's alignment or byte order.
 */
#ifndef VMCU_S16_H
#define VMCU_S16_H

#include "vmcu/vmcu_support.h"

/** Element `index` of a view of signed `size`-byte elements (1, 2 or 4), sign-extended. */
static inline int32_t vmcu_load_signed(const vmcu_view *v, uint32_t index, uint32_t size)
{
    const uint64_t raw = vmcu_load_le(v, index, size);
    const uint32_t bits = 8u * size;
    const uint32_t low = bits >= 32u ? (uint32_t)raw : (uint32_t)raw & ((UINT32_C(1) << bits) - 1u);
    const uint32_t sign = UINT32_C(1) << (bits - 1u);
    return (int32_t)(int64_t)((int64_t)(low ^ sign) - (int64_t)sign); /* two's complement without a cast of range */
}

/** Store `value` (within the type's range) as element `index` of `size` bytes, little-endian. */
static inline void vmcu_store_signed(const vmcu_view *v, uint32_t index, uint32_t size, int32_t value)
{
    vmcu_store_le(v, index, size, (uint64_t)(uint32_t)value);
}

/** The least and greatest value of a signed element of `size` bytes (1, 2 or 4). */
static inline int32_t vmcu_type_min(uint32_t size)
{
    return size >= 4u ? INT32_MIN : -(int32_t)(UINT32_C(1) << (8u * size - 1u));
}

static inline int32_t vmcu_type_max(uint32_t size)
{
    return size >= 4u ? INT32_MAX : (int32_t)((UINT32_C(1) << (8u * size - 1u)) - 1u);
}

#endif /* VMCU_S16_H */
