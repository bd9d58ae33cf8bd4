/*
 * SignalFilterBankLog: the signal library's fixed-point natural log, scaled and capped to int16.
 * log2 in Q16 is the highest set bit plus the bits below it as a Q16 fraction, corrected by a table
 * of 2^16 (log2(1 + i/128) - i/128) over 128 segments and interpolated within the segment; times
 * ln 2 (45426 / 2^16) rounded, then times the output scale in uint32 (wrapping) and rounded to Q0.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_signal.h"

static const uint16_t log2_correction[130] = {
    0u, 224u, 442u, 654u, 861u, 1063u, 1259u, 1450u, 1636u, 1817u, 1992u, 2163u,
    2329u, 2490u, 2646u, 2797u, 2944u, 3087u, 3224u, 3358u, 3487u, 3611u, 3732u, 3848u,
    3960u, 4068u, 4172u, 4272u, 4368u, 4460u, 4549u, 4633u, 4714u, 4791u, 4864u, 4934u,
    5001u, 5063u, 5123u, 5178u, 5231u, 5280u, 5326u, 5368u, 5408u, 5444u, 5477u, 5507u,
    5533u, 5557u, 5578u, 5595u, 5610u, 5622u, 5631u, 5637u, 5640u, 5641u, 5638u, 5633u,
    5626u, 5615u, 5602u, 5586u, 5568u, 5547u, 5524u, 5498u, 5470u, 5439u, 5406u, 5370u,
    5332u, 5291u, 5249u, 5203u, 5156u, 5106u, 5054u, 5000u, 4944u, 4885u, 4825u, 4762u,
    4697u, 4630u, 4561u, 4490u, 4416u, 4341u, 4264u, 4184u, 4103u, 4020u, 3935u, 3848u,
    3759u, 3668u, 3575u, 3481u, 3384u, 3286u, 3186u, 3084u, 2981u, 2875u, 2768u, 2659u,
    2549u, 2437u, 2323u, 2207u, 2090u, 1971u, 1851u, 1729u, 1605u, 1480u, 1353u, 1224u,
    1094u, 963u, 830u, 695u, 559u, 421u, 282u, 142u, 0u, 0u
};

static uint32_t log2_q16(uint32_t x)
{
    const int32_t integer = vmcu_bit_length(x) - 1;
    int32_t frac = (int32_t)(x - (1u << integer)), segment, c0, c1;
    frac = integer < 16 ? frac << (16 - integer) : frac >> (integer - 16);
    segment = frac >> 9;
    c0 = log2_correction[segment];
    c1 = log2_correction[segment + 1];
    return ((uint32_t)integer << 16) + (uint32_t)(frac + c0 + (((c1 - c0) * (frac - (segment << 9))) >> 16));
}

static int16_t log_channel(const vmcu_signal_filter_bank_log_params *p, uint32_t value)
{
    const uint32_t x = value << p->input_correction_bits;
    uint32_t natural, scaled;
    if (x <= 1u) {
        return 0;
    }
    natural = (uint32_t)(((uint64_t)45426u * log2_q16(x) + 32768u) >> 16);
    scaled = (p->output_scale * natural + 32768u) >> 16;
    return (int16_t)(scaled < 32767u ? scaled : 32767u);
}

void vmcu_signal_log_apply(const vmcu_signal_filter_bank_log_params *p, const uint32_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->channels; ++i) {
        out[i] = log_channel(p, in[i]);
    }
}

/* Element by element through the views (whole tensor). */
vmcu_status vmcu_signal_filter_bank_log(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                        const vmcu_view *output)
{
    const vmcu_signal_filter_bank_log_params *p = (const vmcu_signal_filter_bank_log_params *)params;
    int32_t i;
    (void)ctx;
    for (i = 0; i < p->channels; ++i) {
        vmcu_store_le(output, (uint32_t)i, 2u,
                      (uint64_t)(uint16_t)log_channel(p, (uint32_t)vmcu_load_le(&inputs[0], (uint32_t)i, 4u)));
    }
    return VMCU_OK;
}

static vmcu_status log_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_filter_bank_log_params *p = (const vmcu_signal_filter_bank_log_params *)step->params;
    return step->num_inputs == 1u && vmcu_in_range(p->channels, 1, 0x0FFFFFFF) &&
                   vmcu_in_range(p->input_correction_bits, 0, 31) &&
                   vmcu_input_bytes(model, step, 0u) == 4u * (uint32_t)p->channels &&
                   vmcu_output_bytes(model, step) == 2u * (uint32_t)p->channels
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t log_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_filter_bank_log_params *p = (const vmcu_signal_filter_bank_log_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->channels);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->input_correction_bits);
    return vmcu_crc32_u32(crc, p->output_scale);
}

const vmcu_kernel vmcu_signal_filter_bank_log_kernel = {
    .run = vmcu_signal_filter_bank_log, .check = log_check, .digest = log_digest};
