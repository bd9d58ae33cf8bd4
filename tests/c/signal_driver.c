/*
 * Host driver for the signal stages' arithmetic (csrc/src/signal): reads one case as whitespace-
 * separated integers on stdin (the stage's name first), runs it, prints the outputs, one run per
 * line. tests/c/test_signal_host.py builds it sanitized and compares it with the reference kernels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmcu_signal.h"

#define MAX_VALUES 4096

static long long next_signed(void)
{
    char token[32];
    if (scanf("%31s", token) != 1) {
        fprintf(stderr, "input ends early\n");
        exit(2);
    }
    return strtoll(token, NULL, 10);
}

static unsigned long long next_unsigned(void)
{
    char token[32];
    if (scanf("%31s", token) != 1) {
        fprintf(stderr, "input ends early\n");
        exit(2);
    }
    return strtoull(token, NULL, 10);
}

static int32_t count(void)
{
    const long long n = next_signed();
    if (n < 0 || n > MAX_VALUES) {
        fprintf(stderr, "bad count %lld\n", n);
        exit(2);
    }
    return (int32_t)n;
}

static void read_s16(int16_t *dst, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        dst[i] = (int16_t)next_signed();
    }
}

static void read_u32(uint32_t *dst, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        dst[i] = (uint32_t)next_unsigned();
    }
}

static void print_u32(const uint32_t *v, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        printf("%lu ", (unsigned long)v[i]);
    }
}

int main(void)
{
    static int16_t weights[MAX_VALUES], unweights[MAX_VALUES], starts[MAX_VALUES], weight_starts[MAX_VALUES],
        widths[MAX_VALUES], lut[MAX_VALUES], out16[MAX_VALUES];
    static uint32_t in32[MAX_VALUES], noise[MAX_VALUES], out32[MAX_VALUES];
    static uint64_t in64[MAX_VALUES], out64[MAX_VALUES];
    char stage[32];
    int32_t i, n;
    if (scanf("%31s", stage) != 1) {
        return 2;
    }
    if (strcmp(stage, "filter_bank") == 0) {
        vmcu_signal_filter_bank_params p;
        p.num_channels = count();
        p.input_size = count();
        p.output_size = count();
        p.weights_size = count();
        read_s16(weights, p.weights_size);
        read_s16(unweights, p.weights_size);
        read_s16(starts, p.num_channels + 1);
        read_s16(weight_starts, p.num_channels + 1);
        read_s16(widths, p.num_channels + 1);
        read_u32(in32, p.input_size);
        p.weights = weights;
        p.unweights = unweights;
        p.frequency_starts = starts;
        p.weight_starts = weight_starts;
        p.widths = widths;
        vmcu_signal_filter_bank_sums(&p, in32, out64);
        for (i = 0; i < p.output_size; ++i) {
            printf("%llu ", (unsigned long long)out64[i]);
        }
    } else if (strcmp(stage, "square_root") == 0) {
        int32_t shift;
        n = count();
        shift = (int32_t)next_signed();
        for (i = 0; i < n; ++i) {
            in64[i] = next_unsigned();
        }
        vmcu_signal_square_roots(in64, n, shift, out32);
        print_u32(out32, n);
    } else if (strcmp(stage, "spectral_subtraction") == 0) {
        vmcu_signal_spectral_subtraction_params p;
        int32_t runs, r;
        p.num_channels = count();
        p.smoothing = (uint32_t)next_unsigned();
        p.one_minus_smoothing = (uint32_t)next_unsigned();
        p.alternate_smoothing = (uint32_t)next_unsigned();
        p.alternate_one_minus_smoothing = (uint32_t)next_unsigned();
        p.min_signal_remaining = (uint32_t)next_unsigned();
        p.smoothing_bits = (uint32_t)next_unsigned();
        p.spectral_subtraction_bits = (uint32_t)next_unsigned();
        p.clamping = (int32_t)next_signed();
        p.state_offset = 0u;
        runs = count();
        memset(noise, 0, sizeof(noise));
        for (r = 0; r < runs; ++r) {
            read_u32(in32, p.num_channels);
            vmcu_signal_spectral_subtraction(&p, in32, out32, noise);
            print_u32(out32, p.num_channels);
            print_u32(noise, p.num_channels);
            printf("\n");
        }
    } else if (strcmp(stage, "pcan") == 0) {
        vmcu_signal_pcan_params p;
        p.channels = count();
        p.snr_shift = (int32_t)next_signed();
        read_s16(lut, VMCU_PCAN_LUT_SIZE);
        read_u32(in32, p.channels);
        read_u32(noise, p.channels);
        p.gain_lut = lut;
        vmcu_signal_pcan_apply(&p, in32, noise, out32);
        print_u32(out32, p.channels);
    } else if (strcmp(stage, "log") == 0) {
        vmcu_signal_filter_bank_log_params p;
        p.channels = count();
        p.input_correction_bits = (int32_t)next_signed();
        p.output_scale = (uint32_t)next_unsigned();
        read_u32(in32, p.channels);
        vmcu_signal_log_apply(&p, in32, out16);
        for (i = 0; i < p.channels; ++i) {
            printf("%d ", (int)out16[i]);
        }
    } else {
        fprintf(stderr, "unknown stage %s\n", stage);
        return 2;
    }
    printf("\n");
    return 0;
}
