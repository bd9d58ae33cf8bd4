/*
 * SignalFilterBankSquareRoot: the root rounded as the signal library rounds it. The digit-by-digit
 * loop gives floor(sqrt(x)) and the remainder x - root^2; the root goes up by one when the
 * remainder exceeds it, unless it already is the largest the library's routine returns (its
 * 32-bit routine, used for x < 2^32, returns 16 bits).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_signal.h"

uint32_t vmcu_signal_rounded_sqrt(uint64_t x)
{
    const uint64_t top = (x >> 32) == 0u ? 0xFFFFu : 0xFFFFFFFFu;
    uint64_t rest = x, root = 0u, bit = (uint64_t)1 << 62;
    while (bit > rest) {
        bit >>= 2;
    }
    while (bit != 0u) {
        if (rest >= root + bit) {
            rest -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    if (rest > root && root != top) {
        ++root;
    }
    return (uint32_t)root;
}

/* shift in 0..31 (the caller checks it: TFLite Micro's uint32 shift by more is undefined) */
void vmcu_signal_square_roots(const uint64_t *in, int32_t channels, int32_t shift, uint32_t *out)
{
    int32_t i;
    for (i = 0; i < channels; ++i) {
        out[i] = vmcu_signal_rounded_sqrt(in[i]) >> shift;
    }
}

/* Element by element through the views (the output may not overlap: whole tensor). */
vmcu_status vmcu_signal_filter_bank_square_root(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                                const vmcu_view *output)
{
    const vmcu_signal_square_root_params *p = (const vmcu_signal_square_root_params *)params;
    /* the int32 shift's bits: a negative one reads as a large unsigned value and is refused with it */
    const uint32_t shift = p->shift_is_constant ? (uint32_t)p->constant_shift
                                                : (uint32_t)vmcu_load_le(&inputs[1], 0u, 4u);
    int32_t i;
    (void)ctx;
    if (shift > 31u) {
        return VMCU_ERROR_ARITHMETIC;
    }
    for (i = 0; i < p->channels; ++i) {
        vmcu_store_le(output, (uint32_t)i, 4u,
                      vmcu_signal_rounded_sqrt(vmcu_load_le(&inputs[0], (uint32_t)i, 8u)) >> shift);
    }
    return VMCU_OK;
}

static vmcu_status square_root_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_square_root_params *p = (const vmcu_signal_square_root_params *)step->params;
    const uint32_t inputs = p->shift_is_constant ? 1u : 2u;
    if (step->num_inputs != inputs || !vmcu_in_range(p->channels, 1, 0x1FFFFFFF) ||
        (p->shift_is_constant && !vmcu_in_range(p->constant_shift, 0, 31)) ||
        vmcu_input_bytes(model, step, 0u) != 8u * (uint32_t)p->channels ||
        vmcu_output_bytes(model, step) != 4u * (uint32_t)p->channels ||
        (!p->shift_is_constant && vmcu_input_bytes(model, step, 1u) != 4u)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t square_root_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_square_root_params *p = (const vmcu_signal_square_root_params *)step->params;
    const int32_t fields[3] = {p->channels, p->shift_is_constant, p->constant_shift};
    return vmcu_crc32_i32s(crc, fields, 3u);
}

const vmcu_kernel vmcu_signal_filter_bank_square_root_kernel = {
    .run = vmcu_signal_filter_bank_square_root, .check = square_root_check, .digest = square_root_digest};
